/** Subset sum: pick lettered items whose weights add up to a target; difficulty adds items. */
import { atDifficulty, type Family } from '../family.js';
import { singleAnswerProgram } from './program-templates.js';

export const SUBSET_SUM_TITLE = 'Subset sum.';

/** Number of items per difficulty: 2^n subsets to search. */
const ITEMS = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

const BODY = String.raw`
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
function generate(rng, P) {
  const n = P.items;
  const weights = [];
  for (let i = 0; i < n; i++) weights.push(randInt(rng, 10, 10 + 2 ** (n + 1)));
  let chosen = [];
  while (chosen.length === 0 || chosen.length === n) {
    chosen = [];
    for (let i = 0; i < n; i++) if (rng() < 0.5) chosen.push(i);
  }
  const target = chosen.reduce((sum, i) => sum + weights[i], 0);
  const inSet = pick(rng, chosen);
  const outside = [];
  for (let i = 0; i < n; i++) if (!chosen.includes(i)) outside.push(i);
  const notInSet = pick(rng, outside);
  return {
    observation: '${SUBSET_SUM_TITLE}\n'
      + 'Items and their weights: ' + weights.map((w, i) => LETTERS[i] + '=' + w).join(', ') + '.\n'
      + 'Choose a set of items whose weights add up to exactly ' + target + '.\n'
      + 'Answer with the letters of the chosen items, in any order.',
    answer: chosen.map((i) => LETTERS[i]).join(''),
    hint: 'One such set includes item ' + LETTERS[inSet] + ' and leaves out item ' + LETTERS[notInSet] + '.',
    weights,
    target,
  };
}
function isCorrect(answer, task) {
  const letters = asText(answer).toUpperCase().replace(/[^A-Z]/g, '').split('');
  if (letters.length === 0 || new Set(letters).size !== letters.length) return false;
  let sum = 0;
  for (const letter of letters) {
    const i = LETTERS.indexOf(letter);
    if (i < 0 || i >= task.weights.length) return false;
    sum += task.weights[i];
  }
  return sum === task.target;
}
`;

export const subsetSum: Family = {
  name: 'subset-sum',
  skill: 'Optimization',
  description: 'Choose items whose weights sum to a target; the number of items grows with difficulty.',
  multiTurn: false,
  title: SUBSET_SUM_TITLE,
  horizon: () => 1,
  program(difficulty, variant = 0) {
    return singleAnswerProgram({
      className: 'SubsetSum',
      family: this.name,
      params: { horizon: 1, variant, items: atDifficulty(ITEMS, difficulty) },
      body: BODY,
      customCheck: true,
    });
  },
};
