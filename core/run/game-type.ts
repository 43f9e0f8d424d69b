/**
 * A program's game type (single-turn, multi-turn or tool-use), the way results and reports
 * group environments. Tool-use: the environment exposes tools (its sandbox says so), or, when
 * the sandbox cannot tell (or the program never loaded), its source defines a class extending
 * SPADE's ToolUseBaseEnv. Otherwise single-turn when the horizon is 1, else multi-turn. A
 * program that never got as far as a horizon is counted multi-turn, SPADE's default (an
 * episode of up to max_turns turns).
 */
import type { EnvironmentProgram, GameType } from '../types.js';

/** `class X extends ToolUseBaseEnv` (JavaScript) or `class X(ToolUseBaseEnv):` / `class X(Mixin, ToolUseBaseEnv)` (Python). */
const EXTENDS_TOOL_USE: Record<EnvironmentProgram['language'], RegExp> = {
  javascript: /\bclass\b[^{;]*?\bextends\s+ToolUseBaseEnv\b/,
  python: /^\s*class\s+\w+\s*\([^)]*\bToolUseBaseEnv\b/m,
};

/** True when the program's source defines a class that extends ToolUseBaseEnv. */
export function extendsToolUseBase(program: Pick<EnvironmentProgram, 'language' | 'source'>): boolean {
  return EXTENDS_TOOL_USE[program.language]?.test(program.source) ?? false;
}

export function gameTypeOf(
  program: Pick<EnvironmentProgram, 'language' | 'source'>,
  facts: { tools?: boolean; horizon?: number },
): GameType {
  const toolUse = facts.tools ?? extendsToolUseBase(program);
  if (toolUse) return 'tool-use';
  return facts.horizon === 1 ? 'single-turn' : 'multi-turn';
}

export const GAME_TYPES: readonly GameType[] = ['single-turn', 'multi-turn', 'tool-use'];
