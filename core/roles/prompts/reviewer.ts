/**
 * The LLM reviewer's prompts, after SPADE's environment validator (spade/core/env_validator.py at
 * 9b2b813), in spade-bench's own words. Every environment reaching it has passed the executable
 * gate. Games in general get SPADE's lenient review: accept unless there is a clear, fatal bug.
 * Tool-use games get SPADE's solvability audit, chosen by game type as SPADE chooses it: trace
 * every success criterion to a tool that can bring it about, reject only what is impossible
 * (unreachable, contradictory, never true for its types, hanging on a value no one can learn, or
 * won without doing the task), and keep what is merely hard.
 */
import type { ChatMessage, EnvironmentProgram, GameType } from '../../types.js';
import { extendsToolUseBase } from '../../run/game-type.js';

const GENERAL_SYSTEM = [
  'You review training environments written for a reasoning agent. Each one has already passed automatic checks: it loads, its methods keep their contract, it is deterministic, its reference solution wins and wrong answers lose.',
  'Accept the environment unless it has a clear, fatal bug, such as: the task cannot be understood from the observation; the observation gives the answer away; the checker accepts wrong answers or rejects right ones in ways the automatic checks could miss; the hint reveals the answer outright; the task is impossible.',
  'Minor issues (style, wording, difficulty) are no reason to reject.',
  'Explain briefly, then end with \\boxed{ACCEPT} or \\boxed{REJECT}.',
].join('\n');

const TOOL_USE_SYSTEM = [
  'You audit tool-use training environments for one thing: whether they can be solved. An agent plays them by calling simulated tools, one call per turn, and then submits an answer (<answer>done</answer> once every instruction is complete, in an environment that gives several).',
  'Reject an environment that is IMPOSSIBLE: no sequence of tool calls makes its success checks true. Keep one that is merely HARD: a way through exists, even if the agent must discover hidden values by calling tools. Difficulty is what training needs; impossibility wastes it.',
  'Each one has already passed automatic checks (it loads, it keeps its contract, it is deterministic, and its own solution() was replayed), so look for what those cannot see.',
].join('\n');

const TOOL_USE_AUDIT = [
  'Audit it, success check by success check:',
  '',
  '1. List the success checks: the per-instruction criteria (such as the functions in _message_criteria and what _advance_if_done tests), _check_answer and the expected answer, and any other reward or ending logic. Note the exact state each one needs (for example `state["order_status"] == "completed"`).',
  '',
  '2. For every state a check needs, find the tool that produces it: an assignment in some tool method that sets that field to that value.',
  '   - Every needed state is set by some tool: solvable. Keep it, however hard.',
  '   - A needed state that no tool ever sets, or two checks that contradict each other: impossible. Reject.',
  '   - Randomness is the most common false rejection: a random id, code or date (made in reset() or inside a tool) is fine when some tool returns it, since the agent reads it from the result and uses it. Reject for randomness only when a needed value is never shown by any tool and cannot be queried, or when a tool gives a different random value on every call with the same input, so the agent can never act on it.',
  '',
  '3. Also reject these impossible checks, which look fine at a glance:',
  '   - Wrong types: a check that can never be true for the shapes involved, such as a string looked for in a list of dicts, or a number compared with the string a tool stores.',
  '   - A tool that cannot succeed: the needed state is written only by a tool whose own look-up always fails (it searches a key that nothing ever stores).',
  '   - A value no one can learn: the check needs an exact id, date, amount or threshold that neither the instruction states nor any tool returns, so the agent could only guess it. (A value some tool returns is learnable: keep.)',
  '   - Steps done before the agent acts: a check already true on the state reset() builds finishes its step on the first tool call. Reject only if most steps are like that (the agent would win without doing the task); one such step in a sound environment is no reason.',
  '',
  '4. Never reject for difficulty: hidden values to find with look-up or list tools, long strict sequences, distractor or out-of-scope tools, instructions to read closely are all fine. Ignore cosmetic issues (wording of messages, formatting, harmless edge cases).',
  '',
  'Reject only when a needed success state is unreachable, contradictory, impossible for its types, set by a tool that can never succeed, or tied to a value the agent cannot learn. Otherwise accept.',
  'Explain briefly, then end with \\boxed{ACCEPT} or \\boxed{REJECT}.',
].join('\n');

/** True when the review is SPADE's tool-use audit: the gate's game type, else the source on ToolUseBaseEnv. */
const isToolUse = (program: EnvironmentProgram, gameType: GameType | undefined): boolean =>
  gameType === undefined ? extendsToolUseBase(program) : gameType === 'tool-use';

/** The system prompt the reviewer uses for a game of this type. */
export function reviewerSystemPrompt(program: EnvironmentProgram, gameType?: GameType): string {
  return isToolUse(program, gameType) ? TOOL_USE_SYSTEM : GENERAL_SYSTEM;
}

export function reviewMessages(program: EnvironmentProgram, firstObservation: string | undefined, systemPrompt?: string, gameType?: GameType): ChatMessage[] {
  const fence = program.language === 'python' ? '```python' : '```javascript';
  const code = `${fence}\n${program.source.trim()}\n\`\`\``;
  const observation = ['Its first observation:', firstObservation ?? '(none)'];
  const user = isToolUse(program, gameType) ? [TOOL_USE_AUDIT, '', code, '', ...observation] : [code, '', ...observation];
  return [
    { role: 'system', content: systemPrompt ?? reviewerSystemPrompt(program, gameType) },
    { role: 'user', content: user.join('\n') },
  ];
}
