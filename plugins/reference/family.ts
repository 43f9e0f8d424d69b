/**
 * A parameterised family of environments for the reference designer and the procedural suite.
 * A family writes complete JavaScript environment programs (SPADE's interface); difficulty 1..10
 * scales the search space of the task it poses.
 */
export interface Family {
  name: string;
  /**
   * The SPADE skill its tasks exercise: one of COGNITIVE_SKILLS' names, or for a tool-use game
   * one of SPADE's tool-use skills (API Orchestration, Data Retrieval, State Modification...).
   */
  skill: string;
  description: string;
  multiTurn: boolean;
  /** A tool-use game: the program extends SPADE's ToolUseBaseEnv and is played with tool calls and an answer. */
  toolUse?: boolean;
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
  /** The largest horizon at which a game still asks something of the player (default: no limit). */
  maxHorizon?: number;
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
