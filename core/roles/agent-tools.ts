/**
 * How an LLM agent plays a tool-use game (SPADE's ToolUseBaseEnv): the environment reads one
 * action per turn, `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` or
 * `<answer>...</answer>`, and the agent turns what its model replied into that action.
 *
 * Two ways to talk to the model, chosen per episode:
 *   native  the provider carries tools (`provider.tools`, not turned off with
 *           `providers[id].tools: false`): the tools go out as the request's `tools`, the
 *           model's first function call becomes the action, and the observation goes back as
 *           that call's tool result. Every call of an assistant message must get a result (both
 *           APIs answer HTTP 400 otherwise): the environment runs one call per turn, so the
 *           others are answered with NOT_RUN_EXTRA_CALL.
 *   text    SPADE's text protocol, for providers without tool support: the tools are listed in
 *           the system prompt and the model writes `<tool_call>` blocks, in JSON or in the XML
 *           form (`<function=NAME><parameter=KEY>VALUE</parameter></function>`), read as
 *           SPADE's orchestrator reads them (core/run/tool-calls.ts); the observation comes back as
 *           a user message.
 * Either way, as in SPADE's orchestrator, an `<answer>` in the reply's text is read first (the
 * reply goes to the environment as it is); and a `<tool_call>` that cannot be read goes to the
 * environment as written (its format error and -0.1), with SPADE's `[FORMAT]` feedback added to
 * the observation, so the model can write the call again.
 */
import type { ChatMessage, ToolCall, ToolDefinition } from '../types.js';
import { readToolCallsInText, toolCallText } from '../run/tool-calls.js';

/** The feedback after a call the environment could not read (SPADE's `[FORMAT]` marker, in spade-bench's words). */
export const FORMAT_FEEDBACK =
  '[FORMAT] The tool call in your last reply could not be read. Write one call exactly as: <tool_call>{"name": "<tool_name>", "arguments": {<args>}}</tool_call>';

/** The result given to a call beyond the first of one reply. */
export const NOT_RUN_EXTRA_CALL = 'Not run: the environment takes one tool call per turn, and ran only the first call of your reply. Call this tool again in a later turn if you still need it.';

/** The result given to the calls of a reply whose text submitted an answer. */
export const NOT_RUN_ANSWERED = 'Not run: your reply also submitted an <answer>, which the environment reads before any tool call.';

/** Added to the observation when a text reply held several calls. */
export const ONE_CALL_NOTE = 'Note: only the first <tool_call> of your last reply was run; the environment takes one tool call per turn.';

const ANSWER = /<answer>[\s\S]*?<\/answer>/;

/** One turn of a tool-use game, read from the model's reply. */
export interface ToolTurn {
  /** What the environment is sent. */
  action: string;
  /** The messages that carry the environment's observation back to the model. */
  observe(observation: string): ChatMessage[];
}

/**
 * The action of a reply and how its observation goes back. `calls` are the reply's native
 * function calls (only when the tools went out natively); `text` is the part of the reply the
 * environment may read.
 */
export function readToolTurn(text: string, calls: readonly ToolCall[] = []): ToolTurn {
  const asUser = (content: string): ChatMessage[] => [{ role: 'user', content }];
  const results = (first: string | undefined, rest: string): ChatMessage[] =>
    calls.map((call, i) => ({ role: 'tool', toolCallId: call.id, name: call.name, content: i === 0 && first !== undefined ? first : rest }));

  if (ANSWER.test(text)) {
    return { action: text, observe: (observation) => [...results(undefined, NOT_RUN_ANSWERED), ...asUser(observation)] };
  }
  const native = calls[0];
  if (native) {
    if (native.invalidArguments !== undefined) {
      // The environment reads the call as the model wrote it: not JSON, so a format error.
      const action = `<tool_call>{"name": ${JSON.stringify(native.name)}, "arguments": ${native.invalidArguments}}</tool_call>`;
      return { action, observe: (observation) => results(`${observation}\n\n${FORMAT_FEEDBACK}`, NOT_RUN_EXTRA_CALL) };
    }
    return { action: toolCallText(native), observe: (observation) => results(observation, NOT_RUN_EXTRA_CALL) };
  }
  const written = readToolCallsInText(text);
  const first = written.calls[0];
  if (first) {
    const note = written.calls.length > 1 ? `\n\n${ONE_CALL_NOTE}` : '';
    return { action: toolCallText(first), observe: (observation) => asUser(`${observation}${note}`) };
  }
  // No call read: the environment judges the reply as it is (a format error); a `<tool_call>`
  // it holds could not be read, which the feedback says.
  const unreadable = text.includes('<tool_call>');
  return { action: text, observe: (observation) => asUser(unreadable ? `${observation}\n\n${FORMAT_FEEDBACK}` : observation) };
}

/** The tools as the text protocol shows them: one JSON object per line, as chat templates list them. */
export function toolListText(tools: readonly ToolDefinition[]): string {
  return tools.map((tool) => JSON.stringify({ type: 'function', function: tool })).join('\n');
}

/** How to call a tool in the text protocol, with the tools' list. */
export function textProtocolInstructions(tools: readonly ToolDefinition[]): string {
  return [
    'You can call these tools (each line is one tool, with the JSON Schema of its arguments):',
    '<tools>',
    toolListText(tools),
    '</tools>',
    'To call a tool, write one block of this form in your reply:',
    '<tool_call>{"name": "<tool_name>", "arguments": {<arguments as a JSON object>}}</tool_call>',
  ].join('\n');
}

/**
 * The default system prompt of a tool-use game. `native`: the tools go out as function calling;
 * otherwise the prompt lists them and the text protocol.
 */
export function toolUseSystemPrompt(context: { horizon: number; tools: readonly ToolDefinition[] }, native: boolean): string {
  const lines = [
    'You are an agent completing a task in an interactive environment by calling its tools.',
    'The first user message describes the task; after each of your turns you get the result of your tool call, or the environment\'s reply to your answer.',
    native
      ? 'Call one tool per turn: the environment runs only the first call of each reply.'
      : 'Call one tool per turn: the environment runs only the first <tool_call> of each reply.',
    'Read every result before the next call, and take exact values (ids, names, amounts) from the results and the instructions; do not guess them.',
    'When the task is done, reply with the final answer as <answer>...</answer>; a task of several instructions, revealed one at a time, ends with <answer>done</answer> once every one of them is complete.',
    `The episode lasts at most ${context.horizon} turns; each tool call or answer is one turn.`,
  ];
  if (!native) lines.push('', textProtocolInstructions(context.tools));
  return lines.join('\n');
}
