/**
 * The LLM agent: a provider plays an environment, turn by turn up to its horizon. The system
 * prompt explains the task and the \boxed{...} action format; each observation is a user
 * message; the model's whole reply is the action (the environment reads the \boxed{...}).
 *
 * A memory strategy (agent-memory.ts: full, window:K, summary:K) decides what of a long episode
 * is sent each turn; whatever the strategy, the episode's whole conversation is kept for export
 * (transcript()).
 *
 * A tool-use game (the environment has tools) is played as agent-tools.ts says: the tools go
 * out as native function calls when the provider carries them, else in SPADE's text protocol;
 * each turn's action is one `<tool_call>` or the `<answer>`, and the observation goes back as
 * the call's tool result (native) or as a user message (text).
 *
 * Under SPADE's agent protocol (`protocol: 'spade'`, see agent-protocol.ts) there is no system
 * prompt (unless one is given), the first observation is wrapped in SPADE's template, and the
 * environment receives SPADE's reading of each reply rather than the whole of it. A tool-use
 * game follows SPADE's tool-use play instead: the first observation as it is, no system prompt
 * beyond the tools' list when they cannot go out natively, and the whole reply read.
 */
import type { Agent, AgentEpisode, AgentEpisodeContext, ChatMessage, Provider } from '../types.js';
import { agentBudgets, estimatedTokens, replyBudget, spadeAction, spadeFirstTurn, type AgentProtocolName, type SpadePlayerTemplate } from './agent-protocol.js';
import { parseAgentMemory, rememberedHistory, type AgentMemory } from './agent-memory.js';
import { readToolTurn, textProtocolInstructions, toolUseSystemPrompt } from './agent-tools.js';
import { DEFAULTS } from '../config/options.js';
import { DEFAULT_REQUESTS_IN_FLIGHT } from '../providers/layer-options.js';

export { OMITTED_TURNS, SUMMARY_RECENT_TURNS, parseAgentMemory, recentHistory, rememberedHistory, type AgentMemory } from './agent-memory.js';

export interface LLMAgentOptions {
  /** Replaces the default system prompt. */
  systemPrompt?: string | ((context: AgentEpisodeContext) => string);
  /** How the agent talks to the model (default `default`). */
  protocol?: AgentProtocolName;
  /** Default: the model's own; 0.6 under SPADE's protocol. */
  temperature?: number;
  /** Default: the model's own; 0.95 under SPADE's protocol. */
  topP?: number;
  /** Top-k sampling (servers of open models, Anthropic). Default: the model's own; 20 under SPADE's protocol. */
  topK?: number;
  /** Arguments of the server's chat template (`{ enable_thinking: false }`). Default none; thinking off under SPADE's protocol. */
  chatTemplateKwargs?: Record<string, unknown>;
  /** Tokens a reply may take. Default: the model's own; 8,192 under SPADE's protocol. */
  maxTokens?: number;
  /**
   * The context's cap in tokens: a reply may take what is left less 64 tokens (up to maxTokens),
   * and with no more left the episode ends truncated (agent-protocol.ts). Default none; 32,768
   * under SPADE's protocol.
   */
  contextTokens?: number;
  /**
   * A reply cut at its token budget (finish_reason `length`) ends the episode, truncated, a loss,
   * instead of being sent to the environment. Default: on under SPADE's protocol, else off.
   */
  truncateCutReplies?: boolean;
  /**
   * Send at most this many past exchanges (observation + reply) besides the first observation,
   * which always stays. Default: the whole episode.
   */
  maxHistoryTurns?: number;
  /** Memory strategy (an AgentMemory or its text form); overrides maxHistoryTurns. Default full. */
  memory?: AgentMemory | string;
  /** Shown in reports. Default `LLM agent (<provider id>)`. */
  label?: string;
  /** SPADE's first-turn template (loadSpadePlayerTemplate), needed under SPADE's protocol for games without tools. */
  spadeTemplate?: SpadePlayerTemplate;
}

/** The default system prompt, after SPADE's agent prompt. (A hinted play's hint is in its first observation.) */
export function agentSystemPrompt(context: Pick<AgentEpisodeContext, 'horizon'>): string {
  const lines = [
    'You are a reasoning agent playing an interactive environment.',
    'Each user message is an observation from the environment: the first one describes the task, later ones report the result of your last action.',
    'Your whole reply is sent to the environment, which reads the action from the \\boxed{...} in it, for example \\boxed{42} or \\boxed{move left}.',
    'Think as much as you need, then end your reply with exactly one \\boxed{...} containing only the action or answer.',
    context.horizon > 1
      ? `The episode lasts at most ${context.horizon} turns; it ends early when the task is solved or failed.`
      : 'You have one turn: give your final answer.',
  ];
  return lines.join('\n');
}

function spadeTemplateOf(options: LLMAgentOptions): SpadePlayerTemplate {
  if (!options.spadeTemplate) throw new Error("SPADE's agent protocol needs SPADE's player template (loadSpadePlayerTemplate), which was not given");
  return options.spadeTemplate;
}

export function createLLMAgent(provider: Provider, options: LLMAgentOptions = {}): Agent {
  const memory: AgentMemory =
    typeof options.memory === 'string'
      ? parseAgentMemory(options.memory)
      : (options.memory ?? (options.maxHistoryTurns === undefined ? parseAgentMemory(DEFAULTS.agentMemory) : { kind: 'window', turns: options.maxHistoryTurns }));
  const spade = options.protocol === 'spade';
  const { temperature, topP, topK, chatTemplateKwargs, maxTokens, contextTokens, truncateCutReplies: truncateCut } = agentBudgets(options.protocol, options);
  return {
    id: provider.id,
    label: options.label ?? `LLM agent (${provider.id}${spade ? ", SPADE's protocol" : ''})`,
    kind: 'llm',
    // As many episodes at once as the provider sends requests at once.
    capacity: provider.requestsInFlight ?? DEFAULT_REQUESTS_IN_FLIGHT,
    // A published benchmark's prompt, sent as it is with the suite's sampling (n samples at once).
    async sample({ messages, sampling, n, seed, signal }) {
      const response = await provider.chat(
        {
          messages,
          n,
          temperature: sampling.temperature,
          ...(sampling.topP !== undefined && { topP: sampling.topP }),
          ...(sampling.topK !== undefined && { topK: sampling.topK }),
          ...(sampling.chatTemplateKwargs !== undefined && { chatTemplateKwargs: sampling.chatTemplateKwargs }),
          maxTokens: sampling.maxTokens,
          seed,
        },
        { signal },
      );
      const choices = response.choices ?? [{ text: response.text, finishReason: response.finishReason ?? '', usage: response.usage }];
      return { choices, ...(response.costUsd !== undefined && { costUsd: response.costUsd }) };
    },
    start(context: AgentEpisodeContext): AgentEpisode {
      const tools = context.tools;
      // Native function calls when the provider carries tools (and there are tools to send).
      const native = tools !== undefined && tools.length > 0 && provider.tools === true;
      const given = typeof options.systemPrompt === 'function' ? options.systemPrompt(context) : options.systemPrompt;
      let system: string | undefined;
      if (tools === undefined) system = given ?? (spade ? undefined : agentSystemPrompt(context));
      else if (given !== undefined) system = native ? given : `${given}\n\n${textProtocolInstructions(tools)}`;
      // SPADE sends no system prompt; its chat template lists the tools, which the text protocol does here.
      else if (spade) system = native || tools.length === 0 ? undefined : textProtocolInstructions(tools);
      else system = toolUseSystemPrompt({ horizon: context.horizon, tools }, native);
      const head: ChatMessage[] = system === undefined ? [] : [{ role: 'system', content: system }];
      const history: ChatMessage[] = [];
      // How the next observation goes back: a plain user message, or a tool-use turn's messages.
      let observe = (observation: string): ChatMessage[] => [{ role: 'user', content: observation }];
      // The server's count of the context after the last reply, and how many messages it covered.
      let counted: { tokens: number; messages: number } | undefined;
      /** Tokens of the context about to be sent: counted ones, and an estimate of the rest. */
      const contextUsed = (messages: readonly ChatMessage[]): number => {
        const estimate = (list: readonly ChatMessage[]) => list.reduce((sum, m) => sum + estimatedTokens(m.content), 0);
        // With a memory other than full, the messages sent are not the counted ones plus new ones.
        if (counted && memory.kind === 'full') return counted.tokens + estimate(history.slice(counted.messages));
        // Tools sent natively take room in the prompt too.
        return estimate(messages) + (native ? estimatedTokens(JSON.stringify(tools)) : 0);
      };
      return {
        transcript: () => [...head, ...history],
        async act(observation: string) {
          if (history.length === 0) {
            // SPADE wraps a game's first observation in its template, but not a tool-use game's.
            history.push({ role: 'user', content: spade && tools === undefined ? spadeFirstTurn(observation, spadeTemplateOf(options)) : observation });
          } else {
            history.push(...observe(observation));
          }
          const messages = [...head, ...rememberedHistory(history, memory)];
          let budget = maxTokens;
          if (contextTokens !== undefined) {
            budget = replyBudget(contextTokens, contextUsed(messages), maxTokens);
            // No room left for a reply: the episode ends here, truncated (no model call).
            if (budget === undefined) return { reply: '', ended: 'context' };
          }
          const response = await provider.chat(
            {
              messages,
              ...(native ? { tools } : {}),
              temperature,
              ...(topP !== undefined ? { topP } : {}),
              ...(topK !== undefined ? { topK } : {}),
              ...(chatTemplateKwargs !== undefined ? { chatTemplateKwargs } : {}),
              maxTokens: budget,
              // The attempt's seed: attempts differ, and so do their cache entries.
              seed: context.seed,
            },
            { signal: context.signal },
          );
          const calls = native ? (response.toolCalls ?? []) : [];
          history.push({ role: 'assistant', content: response.text, ...(calls.length > 0 ? { toolCalls: calls } : {}) });
          const counts = response.usage.inputTokens + response.usage.outputTokens;
          counted = counts > 0 ? { tokens: counts, messages: history.length } : undefined;
          const usage = { usage: response.usage, costUsd: response.costUsd, ...(response.finishReason !== undefined && { finishReason: response.finishReason }) };
          // A reply cut at its budget ends without its end token: SPADE truncates the episode there.
          if (truncateCut && response.finishReason === 'length') return { reply: response.text, ended: 'length', ...usage };
          if (tools !== undefined) {
            const turn = readToolTurn(response.text, calls);
            observe = turn.observe;
            return { reply: turn.action, ...usage };
          }
          return { reply: spade ? spadeAction(response.text) : response.text, ...usage };
        },
      };
    },
  };
}
