/**
 * SPADE's text protocol of tool-use games, as ToolUseBaseEnv's step() reads an action:
 *   <answer>...</answer>                                            submit the answer
 *   <tool_call>{"name": "tool", "arguments": {...}}</tool_call>     call one tool
 * The first `<answer>` wins over any `<tool_call>`; only the first `<tool_call>` of a reply is
 * read. Agents write actions with toolCallText() and answerText() (an LLM agent turns a
 * provider's native ToolCall into toolCallText(call)); the run counts an episode's tool calls
 * with readToolAction(), so every agent is counted the same way.
 */
import type { FunctionToolSchema, ToolDefinition } from './types.js';

export type ToolAction =
  /** `<answer>` found: its trimmed content. */
  | { kind: 'answer'; answer: string }
  /** `<tool_call>` found with a JSON object in it: the called name and its arguments ({} when not an object). */
  | { kind: 'tool-call'; name: string; arguments: Record<string, unknown> }
  /** `<tool_call>` found, but its content is not a JSON object (ToolUseBaseEnv answers with a format error). */
  | { kind: 'malformed'; content: string }
  /** Neither tag. */
  | { kind: 'none' };

const ANSWER = /<answer>([\s\S]*?)<\/answer>/;
const TOOL_CALL = /<tool_call>([\s\S]*?)<\/tool_call>/;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** What ToolUseBaseEnv's step() would do with this action. */
export function readToolAction(action: string): ToolAction {
  const answer = ANSWER.exec(action);
  if (answer) return { kind: 'answer', answer: answer[1]!.trim() };
  const call = TOOL_CALL.exec(action);
  if (!call) return { kind: 'none' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(call[1]!);
  } catch {
    return { kind: 'malformed', content: call[1]! };
  }
  if (!isPlainObject(parsed)) return { kind: 'malformed', content: call[1]! };
  const name = parsed.name === undefined || parsed.name === null ? '' : String(parsed.name);
  return { kind: 'tool-call', name, arguments: isPlainObject(parsed.arguments) ? parsed.arguments : {} };
}

/** The action that calls one tool: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`. */
export function toolCallText(call: { name: string; arguments: Record<string, unknown> }): string {
  return `<tool_call>${JSON.stringify({ name: call.name, arguments: call.arguments })}</tool_call>`;
}

/** The action that submits an answer: `<answer>...</answer>`. */
export function answerText(answer: string): string {
  return `<answer>${answer}</answer>`;
}

/** The turns of an episode whose action was a well-formed tool call. */
export function countToolCalls(actions: Iterable<string>): number {
  let calls = 0;
  for (const action of actions) if (readToolAction(action).kind === 'tool-call') calls++;
  return calls;
}

/** A tool-use environment's OpenAI function schemas (checked by toToolSchemas) as the tools a provider takes. */
export function toolDefinitionsOf(schemas: readonly FunctionToolSchema[]): ToolDefinition[] {
  return schemas.map(({ function: f }) => ({ name: f.name, description: f.description, parameters: f.parameters }));
}
