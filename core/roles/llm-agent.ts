/**
 * The basic LLM agent: a provider plays an environment. The system prompt explains the task
 * and the \boxed{...} action format; each observation is a user message; the model's whole
 * reply is the action; the conversation so far is sent every turn (optionally only the most
 * recent exchanges).
 */
import type { Agent, AgentEpisode, AgentEpisodeContext, ChatMessage, Provider } from '../types.js';

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

export function createLLMAgent(provider: Provider, options: LLMAgentOptions = {}): Agent {
  return {
    id: provider.id,
    label: options.label ?? `LLM agent (${provider.id})`,
    kind: 'llm',
    start(context: AgentEpisodeContext): AgentEpisode {
      const system =
        typeof options.systemPrompt === 'function' ? options.systemPrompt(context) : (options.systemPrompt ?? agentSystemPrompt(context));
      const history: ChatMessage[] = [];
      return {
        async act(observation: string) {
          history.push({ role: 'user', content: observation });
          const response = await provider.chat(
            {
              messages: [{ role: 'system', content: system }, ...recentHistory(history, options.maxHistoryTurns)],
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
