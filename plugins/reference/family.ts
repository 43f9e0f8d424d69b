/**
 * A parameterised family of environments for the reference designer and the procedural suite.
 * A family writes complete JavaScript environment programs (SPADE's interface); difficulty 1..10
 * scales the search space of the task it poses.
 */
export interface Family {
  name: string;
  /** The SPADE cognitive skill its tasks exercise (one of COGNITIVE_SKILLS' names). */
  skill: string;
  description: string;
  multiTurn: boolean;
  /** The first line of every observation; the reference agent recognises the family by it. */
  title: string;
  /** The horizon (max turns) of an environment at this difficulty (1 for single-answer). */
  horizon(difficulty: number): number;
  /**
   * Complete JavaScript environment program source for this difficulty (1..10). Programs with
   * different `variant` numbers pose different tasks for the same reset seed (default 0).
   */
  program(difficulty: number, variant?: number): string;
  /**
   * Multi-turn families only: a program whose horizon is exactly `horizon` (2..64 or more),
   * with the rest of its parameters taken from `difficulty`. Used by the procedural suite.
   */
  programForHorizon?(horizon: number, difficulty: number, variant?: number): string;
  /** The smallest horizon `programForHorizon` makes a fair game at (default 2). */
  minHorizon?: number;
}

/** Clamp a difficulty to the integer scale 1..10. */
export function clampDifficulty(difficulty: number): number {
  if (!Number.isFinite(difficulty)) return 1;
  return Math.min(10, Math.max(1, Math.round(difficulty)));
}

/** The entry of a 10-row table for a difficulty (1..10). */
export function atDifficulty<T>(table: readonly T[], difficulty: number): T {
  return table[clampDifficulty(difficulty) - 1]!;
}
