/**
 * The LLM agent: a provider plays an environment, turn by turn up to its horizon. The system
 * prompt explains the task and the \boxed{...} action format; each observation is a user
 * message; the model's whole reply is the action (the environment reads the \boxed{...}).
 *
 * Memory strategies for long horizons decide what of the episode is sent each turn:
 *   full        the whole conversation (default);
 *   window:K    the first observation and the latest K exchanges; the turns between are left out;
 *   summary:K   like window:K, but the left-out turns are replaced by a digest the harness
 *               writes (deterministic, no extra model call): one line per turn with the action
 *               taken (the \boxed{} content) and the start of the observation it got.
 *               `summary` alone keeps the latest 2 exchanges.
 * Whatever the strategy, the episode's whole conversation is kept for export (transcript()).
 */
import type { Agent, AgentEpisode, AgentEpisodeContext, ChatMessage, Provider } from '../types.js';
import { boxedAction } from './boxed-action.js';
import { DEFAULTS } from '../options.js';
import { DEFAULT_REQUESTS_IN_FLIGHT } from '../providers/layer-options.js';

export type AgentMemory = { kind: 'full' } | { kind: 'window'; turns: number } | { kind: 'summary'; turns: number };

/** Exchanges `summary` keeps verbatim when no K is given. */
export const SUMMARY_RECENT_TURNS = 2;

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

export interface LLMAgentOptions {
  /** Replaces the default system prompt. */
  systemPrompt?: string | ((context: AgentEpisodeContext) => string);
  temperature?: number;
  maxTokens?: number;
  /**
   * Send at most this many past exchanges (observation + reply) besides the first observation,
   * which always stays. Default: the whole episode.
   */
  maxHistoryTurns?: number;
  /** Memory strategy (an AgentMemory or its text form); overrides maxHistoryTurns. Default full. */
  memory?: AgentMemory | string;
  /** Shown in reports. Default `LLM agent (<provider id>)`. */
  label?: string;
}

/** The default system prompt, after SPADE's agent prompt. */
export function agentSystemPrompt(context: Pick<AgentEpisodeContext, 'horizon' | 'hint'>): string {
  const lines = [
    'You are a reasoning agent playing an interactive environment.',
    'Each user message is an observation from the environment: the first one describes the task, later ones report the result of your last action.',
    'Your whole reply is sent to the environment, which reads the action from the \\boxed{...} in it, for example \\boxed{42} or \\boxed{move left}.',
    'Think as much as you need, then end your reply with exactly one \\boxed{...} containing only the action or answer.',
    context.horizon > 1
      ? `The episode lasts at most ${context.horizon} turns; it ends early when the task is solved or failed.`
      : 'You have one turn: give your final answer.',
  ];
  if (context.hint) lines.push('', `Hint: ${context.hint}`);
  return lines.join('\n');
}

/** Marks where earlier turns were left out of the conversation. */
export const OMITTED_TURNS = '[earlier turns omitted]';

/** The conversation sent to the model: the first observation, then the most recent exchanges. */
export function recentHistory(history: readonly ChatMessage[], maxHistoryTurns: number | undefined): ChatMessage[] {
  if (maxHistoryTurns === undefined) return [...history];
  const keep = 2 * Math.max(0, maxHistoryTurns) + 1; // k exchanges + the current observation
  if (history.length <= keep + 1) return [...history];
  return [history[0]!, { role: 'assistant', content: OMITTED_TURNS }, ...history.slice(-keep)];
}

/** Longest part of an observation quoted in a summary line. */
const DIGEST_OBSERVATION_CHARS = 200;

/** The digest of left-out turns: `history[1..end)` is reply_1, obs_2, reply_2, ... reply_m; obs_{m+1} is history[end]. */
function digest(history: readonly ChatMessage[], end: number): string {
  const lines = ['Summary of your earlier turns (written by the harness):'];
  for (let i = 1; i < end; i += 2) {
    const action = boxedAction(history[i]!.content);
    const result = (history[i + 1]?.content ?? '').replace(/\s+/g, ' ').trim();
    const quoted = result.length > DIGEST_OBSERVATION_CHARS ? `${result.slice(0, DIGEST_OBSERVATION_CHARS)}...` : result;
    lines.push(`Turn ${(i + 1) / 2}: ${action === undefined ? 'no \\boxed{} action' : `\\boxed{${action}}`} -> ${quoted}`);
  }
  return lines.join('\n');
}

/** The conversation sent to the model under a memory strategy. */
export function rememberedHistory(history: readonly ChatMessage[], memory: AgentMemory): ChatMessage[] {
  if (memory.kind === 'full') return [...history];
  if (memory.kind === 'window') return recentHistory(history, memory.turns);
  const keep = 2 * memory.turns + 1;
  if (history.length <= keep + 1) return [...history];
  const end = history.length - keep;
  return [history[0]!, { role: 'assistant', content: digest(history, end) }, ...history.slice(end)];
}

export function createLLMAgent(provider: Provider, options: LLMAgentOptions = {}): Agent {
  const memory: AgentMemory =
    typeof options.memory === 'string'
      ? parseAgentMemory(options.memory)
      : (options.memory ?? (options.maxHistoryTurns === undefined ? parseAgentMemory(DEFAULTS.agentMemory) : { kind: 'window', turns: options.maxHistoryTurns }));
  return {
    id: provider.id,
    label: options.label ?? `LLM agent (${provider.id})`,
    kind: 'llm',
    // As many episodes at once as the provider sends requests at once.
    capacity: provider.requestsInFlight ?? DEFAULT_REQUESTS_IN_FLIGHT,
    start(context: AgentEpisodeContext): AgentEpisode {
      const system =
        typeof options.systemPrompt === 'function' ? options.systemPrompt(context) : (options.systemPrompt ?? agentSystemPrompt(context));
      const history: ChatMessage[] = [];
      return {
        transcript: () => [{ role: 'system', content: system }, ...history],
        async act(observation: string) {
          history.push({ role: 'user', content: observation });
          const response = await provider.chat(
            {
              messages: [{ role: 'system', content: system }, ...rememberedHistory(history, memory)],
              temperature: options.temperature,
              maxTokens: options.maxTokens,
              // The attempt's seed: attempts differ, and so do their cache entries.
              seed: context.seed,
            },
            { signal: context.signal },
          );
          history.push({ role: 'assistant', content: response.text });
          return { reply: response.text, usage: response.usage, costUsd: response.costUsd };
        },
      };
    },
  };
}
