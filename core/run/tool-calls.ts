/**
 * SPADE's text protocol of tool-use games, as ToolUseBaseEnv's step() reads an action:
 *   <answer>...</answer>                                            submit the answer
 *   <tool_call>{"name": "tool", "arguments": {...}}</tool_call>     call one tool
 * The first `<answer>` wins over any `<tool_call>`; only the first `<tool_call>` of a reply is
 * read. Agents write actions with toolCallText() and answerText() (an LLM agent turns a
 * provider's native ToolCall into toolCallText(call)); the run counts an episode's tool calls
 * with readToolAction(), so every agent is counted the same way.
 *
 * What a model writes is read more leniently, as SPADE's orchestrator reads a reply before the
 * environment sees it (its tool_call_parser): readToolCallsInText() finds every `<tool_call>`
 * block, in the XML form of Qwen3.5-style templates or as JSON, so an LLM agent can hand the
 * environment the call in the one form ToolUseBaseEnv reads.
 */
import type { FunctionToolSchema, ToolDefinition } from '../types.js';

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

/** A call found in a reply's text. */
export interface TextToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

const TOOL_CALL_BLOCKS = /<tool_call>([\s\S]*?)<\/tool_call>/g;
const XML_FUNCTION = /<function=([A-Za-z0-9_.-]+)>([\s\S]*?)<\/function>/;
const XML_PARAMETER = /<parameter=([A-Za-z0-9_.-]+)>([\s\S]*?)<\/parameter>/g;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The text with HTML character references decoded (a template's XML escapes parameter values). */
function unescapeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number(ref.slice(1)));
    return ENTITIES[ref] ?? whole;
  });
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** `<function=NAME><parameter=KEY>VALUE</parameter>...</function>`: each value JSON when it parses (numbers, booleans), else text. */
function xmlCall(block: string): TextToolCall | undefined {
  const fn = XML_FUNCTION.exec(block);
  if (!fn) return undefined;
  const args: Record<string, unknown> = {};
  for (const [, key, raw] of fn[2]!.matchAll(XML_PARAMETER)) {
    const value = unescapeHtml(raw!.trim());
    const parsed = parseJson(value);
    args[key!] = parsed === undefined ? value : parsed;
  }
  return { name: fn[1]!, arguments: args };
}

/** `{"name": ..., "arguments": {...}}` (or "parameters", or the arguments as JSON text), alone or amid other text. */
function jsonCall(block: string): TextToolCall | undefined {
  const trimmed = block.trim();
  const start = trimmed.indexOf('{');
  const end = trimmed.lastIndexOf('}');
  const data = parseJson(trimmed) ?? (start >= 0 && end > start ? parseJson(trimmed.slice(start, end + 1)) : undefined);
  if (!isPlainObject(data) || typeof data.name !== 'string' || data.name === '') return undefined;
  let args = data.arguments ?? data.parameters ?? {};
  if (typeof args === 'string') args = parseJson(args) ?? {};
  return { name: data.name, arguments: isPlainObject(args) ? args : {} };
}

/**
 * The tool calls a reply writes in text, in order: each `<tool_call>` block read in the XML form
 * first, then as JSON. `unreadable` counts the blocks read neither way (SPADE then asks the model
 * to write the call again, with its `[FORMAT]` feedback).
 */
export function readToolCallsInText(text: string): { calls: TextToolCall[]; unreadable: number } {
  const calls: TextToolCall[] = [];
  let unreadable = 0;
  for (const [, block] of text.matchAll(TOOL_CALL_BLOCKS)) {
    const call = xmlCall(block!) ?? jsonCall(block!);
    if (call) calls.push(call);
    else unreadable++;
  }
  return { calls, unreadable };
}
