/**
 * The reference agent on four of RLVE's environments (of the 16 SPADE's RLVE runs use): Sorting,
 * Multiplication, Division and GCDOne_Counting. Like the other solvers it reads only the task's
 * text (never RLVE's reference answer) and works within its budget: the comparisons of a sort,
 * the digit products of a long multiplication or division, the pairs it checks. A task that
 * needs more than the budget gets a guess (the list as given, the leading digits' product, the
 * density estimate 6/pi^2 of coprime pairs), so its success falls as RLVE's difficulty grows.
 * Every other RLVE environment gets `\boxed{?}`: the agent cannot play it (a loss).
 */
import { singleAnswerSolver } from './solver.js';

const digits = (n: bigint): number => n.toString().length;

export const rlveSortingSolver = singleAnswerSolver('rlve:Sorting', 'Please sort them in **ascending order**.', (observation, context) => {
  const m = /You are given the following list of numbers:\s*\n([-\d ]+)\n/.exec(observation);
  if (!m) return undefined;
  const numbers = m[1]!.trim().split(/\s+/).map(Number);
  const comparisons = numbers.length * Math.max(1, Math.ceil(Math.log2(numbers.length)));
  return (comparisons <= context.budget ? [...numbers].sort((a, b) => a - b) : numbers).join(' ');
});

/** A one-line task naming two integers and one of these words (RLVE's arithmetic prompts have ten wordings each). */
const twoNumbers = (words: RegExp) => (observation: string): [string, string] | undefined => {
  const m = /^[^\d\n]*?(\d+)[^\d\n]+?(\d+)[^\d\n]*$/.exec(observation.trim());
  return m && words.test(observation) ? [m[1]!, m[2]!] : undefined;
};
const product = twoNumbers(/\b(times|multipl\w*|product)\b|\*/);
const quotient = twoNumbers(/\b(divided?|fit into|quotient)\b/);

export const rlveMultiplicationSolver = {
  ...singleAnswerSolver('rlve:Multiplication', 'multiply', (observation, context) => {
    const found = product(observation);
    if (!found) return undefined;
    const [a, b] = found.map(BigInt) as [bigint, bigint];
    if (digits(a) * digits(b) <= context.budget) return String(a * b);
    // Out of budget: the product of the two leading digits, at the right magnitude.
    return String(BigInt(found[0][0]!) * BigInt(found[1][0]!) * 10n ** BigInt(digits(a) + digits(b) - 2));
  }),
  matches: (observation: string) => product(observation) !== undefined,
};

export const rlveDivisionSolver = {
  ...singleAnswerSolver('rlve:Division', 'divide', (observation, context) => {
    const found = quotient(observation);
    if (!found) return undefined;
    const [a, b] = found.map(BigInt) as [bigint, bigint];
    if (b === 0n) return undefined;
    if (digits(a) * digits(b) <= context.budget) return String(a / b);
    return String((BigInt(found[0][0]!) * 10n ** BigInt(Math.max(0, digits(a) - digits(b)))) / BigInt(found[1][0]!));
  }),
  matches: (observation: string) => quotient(observation) !== undefined,
};

const gcd = (a: number, b: number): number => {
  while (b) [a, b] = [b, a % b];
  return a;
};

export const rlveGcdOneCountingSolver = singleAnswerSolver('rlve:GCDOne_Counting', 'being exactly 1, where 1 ≤ x ≤', (observation, context) => {
  const m = /1 ≤ x ≤ (\d+) and 1 ≤ y ≤ (\d+)/.exec(observation);
  if (!m) return undefined;
  const [n, k] = [Number(m[1]), Number(m[2])];
  if (n * k > context.budget) return String(Math.round((6 / Math.PI ** 2) * n * k));
  let count = 0;
  for (let x = 1; x <= n; x++) for (let y = 1; y <= k; y++) if (gcd(x, y) === 1) count++;
  return String(count);
});

export const RLVE_SOLVERS = [rlveSortingSolver, rlveMultiplicationSolver, rlveDivisionSolver, rlveGcdOneCountingSolver];
