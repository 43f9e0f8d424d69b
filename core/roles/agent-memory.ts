/**
 * What an LLM agent sends of a long episode each turn (its memory strategy):
 *   full        the whole conversation (default);
 *   window:K    the first observation and the latest K exchanges; the turns between are left out;
 *   summary:K   like window:K, but the left-out turns are replaced by a digest the harness
 *               writes (deterministic, no extra model call): one line per turn with the action
 *               taken (the \boxed{} content, or the tool called, or the answer) and the start of
 *               the observation it got. `summary` alone keeps the latest 2 exchanges.
 *
 * A conversation alternates observations and replies; in a tool-use game one observation may be
 * several messages (the results of the calls of the reply before it, then text). Windows are cut
 * between whole turns, and a tool result whose call was left out is sent as a user message,
 * since both APIs refuse a result that answers no call of the message before it.
 */
import type { ChatMessage } from '../types.js';
import { boxedAction } from './boxed-action.js';
import { readToolAction } from '../run/tool-calls.js';

export type AgentMemory = { kind: 'full' } | { kind: 'window'; turns: number } | { kind: 'summary'; turns: number };

/** Exchanges `summary` keeps verbatim when no K is given. */
export const SUMMARY_RECENT_TURNS = 2;

/** Marks where earlier turns were left out of the conversation. */
export const OMITTED_TURNS = '[earlier turns omitted]';

/** Parse `full`, `window:K` or `summary[:K]`; throws a RangeError naming the accepted forms. */
export function parseAgentMemory(spec: string): AgentMemory {
  const [kind, count, ...rest] = spec.trim().split(':');
  const turns = count === undefined ? undefined : Number(count);
  const valid = rest.length === 0 && (turns === undefined || (Number.isInteger(turns) && turns >= 0));
  if (valid && kind === 'full' && turns === undefined) return { kind: 'full' };
  if (valid && kind === 'window' && turns !== undefined) return { kind: 'window', turns };
  if (valid && kind === 'summary') return { kind: 'summary', turns: turns ?? SUMMARY_RECENT_TURNS };
  throw new RangeError(`agent memory: expected full, window:K or summary[:K] (K a whole number), got ${JSON.stringify(spec)}`);
}

/**
 * The conversation as alternating parts: an observation (one or more non-assistant messages),
 * a reply (one assistant message), an observation, ... A conversation of plain turns has one
 * message per part.
 */
function parts(history: readonly ChatMessage[]): ChatMessage[][] {
  const out: ChatMessage[][] = [];
  for (const message of history) {
    const last = out.at(-1);
    if (last && message.role !== 'assistant' && last[0]!.role !== 'assistant') last.push(message);
    else out.push([message]);
  }
  return out;
}

/** Tool results that answer no call of the assistant message before them become user messages. */
function withAnsweredResults(messages: ChatMessage[]): ChatMessage[] {
  let open = new Set<string>();
  return messages.map((message) => {
    if (message.role === 'assistant') {
      open = new Set(message.toolCalls?.map((call) => call.id));
      return message;
    }
    if (message.role === 'tool') {
      if (open.has(message.toolCallId)) return message;
      return { role: 'user', content: message.content };
    }
    open = new Set();
    return message;
  });
}

/** The conversation sent to the model: the first observation, then the most recent exchanges. */
export function recentHistory(history: readonly ChatMessage[], maxHistoryTurns: number | undefined): ChatMessage[] {
  if (maxHistoryTurns === undefined) return [...history];
  const turns = parts(history);
  const keep = 2 * Math.max(0, maxHistoryTurns) + 1; // k exchanges + the current observation
  if (turns.length <= keep + 1) return [...history];
  return withAnsweredResults([...turns[0]!, { role: 'assistant', content: OMITTED_TURNS }, ...turns.slice(-keep).flat()]);
}

/** Longest part of an observation quoted in a summary line. */
const DIGEST_OBSERVATION_CHARS = 200;

/** A reply's action in a summary line: the tool it called, the answer it gave, or its \boxed{} content. */
function actionOf(reply: ChatMessage): string {
  const call = reply.role === 'assistant' ? reply.toolCalls?.[0] : undefined;
  if (call) return `called ${call.name}(${JSON.stringify(call.arguments)})`;
  const tool = readToolAction(reply.content);
  if (tool.kind === 'answer') return `<answer>${tool.answer}</answer>`;
  if (tool.kind === 'tool-call') return `called ${tool.name}(${JSON.stringify(tool.arguments)})`;
  const action = boxedAction(reply.content);
  return action === undefined ? 'no \\boxed{} action' : `\\boxed{${action}}`;
}

/** The digest of left-out turns: `turns[1..end)` is reply_1, obs_2, reply_2, ... reply_m; obs_{m+1} is turns[end]. */
function digest(turns: readonly ChatMessage[][], end: number): string {
  const lines = ['Summary of your earlier turns (written by the harness):'];
  for (let i = 1; i < end; i += 2) {
    const result = (turns[i + 1] ?? []).map((m) => m.content).join(' ').replace(/\s+/g, ' ').trim();
    const quoted = result.length > DIGEST_OBSERVATION_CHARS ? `${result.slice(0, DIGEST_OBSERVATION_CHARS)}...` : result;
    lines.push(`Turn ${(i + 1) / 2}: ${actionOf(turns[i]![0]!)} -> ${quoted}`);
  }
  return lines.join('\n');
}

/** The conversation sent to the model under a memory strategy. */
export function rememberedHistory(history: readonly ChatMessage[], memory: AgentMemory): ChatMessage[] {
  if (memory.kind === 'full') return [...history];
  if (memory.kind === 'window') return recentHistory(history, memory.turns);
  const turns = parts(history);
  const keep = 2 * memory.turns + 1;
  if (turns.length <= keep + 1) return [...history];
  const end = turns.length - keep;
  return withAnsweredResults([...turns[0]!, { role: 'assistant', content: digest(turns, end) }, ...turns.slice(end).flat()]);
}
