/**
 * How the reference agent plays one family: it recognises the family by the observation's
 * title, reads only observations (and the hint when given), and searches within a budget.
 */
import type { ToolDefinition } from '../../../core/concepts/tools.js';
import type { Random } from '../random.js';
import type { IntRange } from '../search.js';

export interface SolverContext {
  /** The privileged hint, when the episode is played with it. */
  hint?: string;
  random: Random;
  /** Search nodes (candidates, states) per decision. */
  budget: number;
  /** The most turns the episode may take. */
  horizon: number;
  /** A tool-use game's tools (their schemas), as the environment declared them. */
  tools?: readonly ToolDefinition[];
}

export interface SolverEpisode {
  /** The whole reply to this observation (the command or answer wrapped in \boxed{...}; a tool-use game's tool call or answer). */
  act(observation: string): string;
}

export interface Solver {
  family: string;
  /** The first line of the family's observations. */
  title: string;
  /** Whether the observation is this family's, for families whose tasks have no common title. */
  matches?(observation: string): boolean;
  start(firstObservation: string, context: SolverContext): SolverEpisode;
}

export const GIVE_UP_REPLY = 'I cannot read this task. \\boxed{?}';

export function boxedReply(lead: string, answer: string): string {
  return `${lead} \\boxed{${answer}}`;
}

/** A solver for single-answer tasks: one search, one reply. */
export function singleAnswerSolver(
  family: string,
  title: string,
  solve: (observation: string, context: SolverContext) => string | undefined,
): Solver {
  return {
    family,
    title,
    start(firstObservation, context) {
      return {
        act(observation) {
          const answer = solve(observation || firstObservation, context);
          return answer === undefined ? GIVE_UP_REPLY : boxedReply(`My answer is ${answer}.`, answer);
        },
      };
    },
  };
}

/**
 * Narrow ranges with hint phrases such as "c1 lies between -3 and 5" or "key letter 2 is between
 * b and f": `label(i)` is the phrase naming range i, `value` reads a bound.
 */
export function narrowByHint(
  ranges: IntRange[],
  hint: string | undefined,
  label: (index: number) => string,
  value: (token: string) => number = Number,
): IntRange[] {
  if (!hint) return ranges;
  return ranges.map((range, i) => {
    const match = new RegExp(`${label(i)} (?:lies|is) between (\\S+) and ([^\\s;(]+)`).exec(hint);
    if (!match) return range;
    const lo = value(match[1]!);
    const hi = value(match[2]!);
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) return range;
    return { lo: Math.max(range.lo, lo), hi: Math.min(range.hi, hi) };
  });
}

/** The moves listed in a hint such as "...; it starts with: up, left, down." */
export function hintedMoves(hint: string | undefined): string[] {
  const match = hint ? /starts with: ([^.]*)\./.exec(hint) : null;
  return match ? match[1]!.split(',').map((m) => m.trim()).filter(Boolean) : [];
}
