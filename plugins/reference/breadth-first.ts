/**
 * Budgeted breadth-first search for the reference agent's multi-turn players: it expands at
 * most `budget` states (neighbours in a seeded random order) and reports either the first move
 * of a shortest route to a goal or, when the budget runs out, the best explored state's first move.
 */
import type { Random } from './random.js';

export interface BreadthFirstProblem<S, M> {
  key(state: S): number | string;
  /** Legal moves from a state and where each leads. */
  moves(state: S): Array<[M, S]>;
  isGoal(state: S): boolean;
  /** When no goal is found: how promising an explored state is (higher is better). */
  score(state: S): number;
}

export interface BreadthFirstDecision<M> {
  move: M | undefined;
  /** True when the move starts a shortest route to a goal. */
  reachesGoal: boolean;
  expanded: number;
}

export function decideByBreadthFirst<S, M>(
  start: S,
  problem: BreadthFirstProblem<S, M>,
  budget: number,
  random: Random,
): BreadthFirstDecision<M> {
  const seen = new Set<number | string>([problem.key(start)]);
  let frontier: Array<[S, M | undefined]> = [[start, undefined]];
  let best: { move: M; score: number } | undefined;
  let expanded = 0;
  while (frontier.length > 0 && expanded < budget) {
    const next: Array<[S, M | undefined]> = [];
    for (const [state, firstMove] of frontier) {
      if (expanded++ >= budget) break;
      const moves = problem.moves(state);
      for (let i = moves.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [moves[i], moves[j]] = [moves[j]!, moves[i]!];
      }
      for (const [move, to] of moves) {
        const k = problem.key(to);
        if (seen.has(k)) continue;
        seen.add(k);
        const first = firstMove === undefined ? move : firstMove;
        if (problem.isGoal(to)) return { move: first, reachesGoal: true, expanded };
        const score = problem.score(to) + random() * 1e-3;
        if (!best || score > best.score) best = { move: first, score };
        next.push([to, first]);
      }
    }
    frontier = next;
  }
  return { move: best?.move, reachesGoal: false, expanded };
}
