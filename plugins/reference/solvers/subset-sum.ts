/** Reference solver for subset sum: try item subsets in random order. */
import { SUBSET_SUM_TITLE } from '../families/subset-sum.js';
import { searchProduct, type IntRange } from '../search.js';
import { singleAnswerSolver } from './solver.js';

export const subsetSumSolver = singleAnswerSolver('subset-sum', SUBSET_SUM_TITLE, (observation, context) => {
  const items = [...observation.matchAll(/\b([A-Z])=(\d+)/g)].map((m) => ({ letter: m[1]!, weight: Number(m[2]) }));
  const target = /exactly (\d+)/.exec(observation);
  if (items.length === 0 || !target) return undefined;
  const goal = Number(target[1]);
  const ranges: IntRange[] = items.map(() => ({ lo: 0, hi: 1 }));
  const included = context.hint ? /includes item ([A-Z])/.exec(context.hint) : null;
  const excluded = context.hint ? /leaves out item ([A-Z])/.exec(context.hint) : null;
  for (const [match, bit] of [[included, 1], [excluded, 0]] as const) {
    const i = match ? items.findIndex((item) => item.letter === match[1]) : -1;
    if (i >= 0) ranges[i] = { lo: bit, hi: bit };
  }
  const found = searchProduct(ranges, context.budget, context.random, (chosen) => {
    let sum = 0;
    for (let i = 0; i < chosen.length; i++) if (chosen[i]) sum += items[i]!.weight;
    return sum === goal;
  });
  const pickedLetters = (found ?? ranges.map((r) => (r.lo === r.hi ? r.lo : Math.round(context.random()))))
    .map((bit, i) => (bit ? items[i]!.letter : ''))
    .join('');
  return pickedLetters || items[0]!.letter;
});
