/** Sequence completion: a linear recurrence mod 1000 with unknown small coefficients. */
import { atDifficulty, type Family } from '../family.js';
import { singleAnswerProgram } from './program-templates.js';

export const SEQUENCE_COMPLETION_TITLE = 'Sequence completion.';

/** [order, coefficient range R] per difficulty: (2R+1)^order coefficient choices. */
const SHAPES: ReadonlyArray<readonly [number, number]> = [
  [1, 24], [2, 4], [2, 7], [2, 10], [2, 14], [2, 20], [3, 7], [3, 9], [3, 11], [3, 15],
];

const BODY = String.raw`
function generate(rng, P) {
  const order = P.order;
  const range = P.range;
  const c = [];
  for (let i = 0; i < order; i++) c.push(randInt(rng, -range, range));
  const terms = [];
  for (let i = 0; i < order; i++) terms.push(randInt(rng, 0, 999));
  while (terms.length < 2 * order + 4) {
    let next = 0;
    for (let i = 0; i < order; i++) next += c[i] * terms[terms.length - 1 - i];
    terms.push(((next % 1000) + 1000) % 1000);
  }
  const answer = terms.pop();
  const names = c.map((_, i) => 'c' + (i + 1));
  const rule = c.map((_, i) => 'c' + (i + 1) + '*a(n-' + (i + 1) + ')').join(' + ');
  const narrowed = order === 1 ? 1 : 2;
  const width = order === 1 ? Math.ceil((2 * range + 1) / 4) : Math.ceil((2 * range + 1) / 2);
  const hints = [];
  for (let i = 0; i < narrowed; i++) {
    const [lo, hi] = windowAround(rng, c[i], -range, range, width);
    hints.push(names[i] + ' lies between ' + lo + ' and ' + hi);
  }
  return {
    observation: '${SEQUENCE_COMPLETION_TITLE}\n'
      + 'The sequence follows the rule a(n) = (' + rule + ') mod 1000, where each of ' + names.join(', ')
      + ' is an integer from ' + (-range) + ' to ' + range + ' (the result of mod is from 0 to 999).\n'
      + 'Terms: ' + terms.join(', ') + '.\n'
      + 'What is the next term?',
    answer: String(answer),
    hint: hints.join('; ') + ' (inclusive).',
  };
}
`;

export const sequenceCompletion: Family = {
  name: 'sequence-completion',
  skill: 'Pattern Recognition',
  description: 'Give the next term of a linear recurrence mod 1000 with unknown coefficients; order and coefficient range grow with difficulty.',
  multiTurn: false,
  title: SEQUENCE_COMPLETION_TITLE,
  horizon: () => 1,
  program(difficulty, variant = 0) {
    const [order, range] = atDifficulty(SHAPES, difficulty);
    return singleAnswerProgram({
      className: 'SequenceCompletion',
      family: this.name,
      params: { horizon: 1, variant, order, range },
      body: BODY,
    });
  },
};
