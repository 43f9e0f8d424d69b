/**
 * How an LLM agent talks to its model. `default` is spade-bench's (a system prompt on the task
 * and the \boxed{} format; the whole reply goes to the environment). `spade` reproduces SPADE's
 * own agent protocol (spade/core/orchestrator.py at 9b2b813), so numbers compare with the paper's:
 *   - no system prompt; the first user message is SPADE's `qwen3_game` template around the first
 *     observation, later observations are sent as they are;
 *   - only the text after the last `</think>` of a reply is read;
 *   - the environment receives `\boxed{X}` of the first boxed answer in it (SPADE's
 *     extract_boxed_answer: the first `\boxed{...}` without nested braces, then with one level,
 *     then the last `\boxed` with balanced braces), or the visible reply as it is when it has none;
 *   - the run plays 25 turns unless a program says otherwise, each attempt on a seed of its own,
 *     and samples at temperature 0.6, top_p 0.95, top_k 20, without thinking (the chat template's
 *     enable_thinking off), as SPADE's runs do;
 *   - budgets as SPADE's runs: at most 8,192 tokens a reply, and a context of 32,768 tokens: a turn
 *     may write what is left of the context less 64 tokens, up to 8,192, and when 64 or fewer are
 *     left the episode ends there, truncated (a loss);
 *   - a reply cut at its token budget (finish_reason `length`: it ends without its end token)
 *     ends the episode, truncated, a loss, and is not sent to the environment (SPADE's rule).
 * The tokens of the context are the server's count of the last request and its reply, plus an
 * estimate (4 bytes a token, 4 a message) of the messages sent since; before any reply, the
 * estimate of every message.
 */

import type { SpadeCode } from './spade-code.js';

export type AgentProtocolName = 'default' | 'spade';

/**
 * SPADE's first-turn template for the player (`qwen3_game`): its wording is the protocol being
 * reproduced (what the model was trained and measured with), so it is SPADE's own, built at run
 * time by SPADE's `_apply_game_template` at its pinned commit (spade-code.ts), never copied here.
 */
export interface SpadePlayerTemplate {
  /** The text before the observation, and after it. */
  before: string;
  after: string;
}

/** SPADE's player template, as its code builds it. */
export async function loadSpadePlayerTemplate(code: SpadeCode): Promise<SpadePlayerTemplate> {
  const [template] = await code.run([{ op: 'player-template' }]);
  return template!;
}

/** The first user message of an episode under SPADE's protocol: the observation in SPADE's template. */
export function spadeFirstTurn(observation: string, template: SpadePlayerTemplate): string {
  return `${template.before}${observation}${template.after}`;
}

/** The part of a reply after its last `</think>` (the whole reply when there is none). */
export function visibleReply(reply: string): string {
  const at = reply.lastIndexOf('</think>');
  return at < 0 ? reply : reply.slice(at + '</think>'.length);
}

/** SPADE's boxed answer of a text, or undefined when it has none. */
export function spadeBoxedAnswer(text: string): string | undefined {
  for (const pattern of [/\\boxed\{([^{}]+)\}/, /\\boxed\{\{([^{}]+)\}\}/, /\\boxed\{\{\{([^{}]+)\}\}\}/]) {
    const match = pattern.exec(text);
    if (match) return match[1]!.trim();
  }
  const at = text.lastIndexOf('\\boxed');
  const start = at >= 0 ? text.indexOf('{', at) : -1;
  if (start < 0) return undefined;
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) {
      let content = text.slice(start + 1, i).trim();
      for (let unwrap = 0; unwrap < 2 && content.startsWith('{') && content.endsWith('}'); unwrap++) content = content.slice(1, -1).trim();
      return content;
    }
  }
  return undefined;
}

/** What SPADE sends the environment for a reply: `\boxed{answer}`, else the visible reply stripped. */
export function spadeAction(reply: string): string {
  const visible = visibleReply(reply);
  const answer = spadeBoxedAnswer(visible);
  return answer ? `\\boxed{${answer}}` : visible.trim();
}

/**
 * Sampling and budgets of SPADE's player in its runs (cmd/games/train_spade_30b.sh at 9b2b813:
 * --spade-actor-temperature 0.6, --spade-actor-max-tokens 8192, --spade-max-context-length 32768,
 * the actor's top_k 20 and top_p 0.95, and the chat template's enable_thinking false; its 8B
 * tool-use runs turn thinking on, which `sampling.agent.chatTemplateKwargs` can say).
 */
export const SPADE_AGENT_SAMPLING = {
  temperature: 0.6,
  topP: 0.95,
  topK: 20,
  maxTokens: 8192,
  contextTokens: 32_768,
  chatTemplateKwargs: { enable_thinking: false },
} as const;

/** An agent's sampling and budgets, each given or left to its protocol. */
export interface AgentBudgets {
  temperature?: number;
  topP?: number;
  topK?: number;
  chatTemplateKwargs?: Record<string, unknown>;
  maxTokens?: number;
  contextTokens?: number;
  truncateCutReplies?: boolean;
}

/** What an agent samples and spends under `protocol`: what is given, else SPADE's under its protocol, else the model's own (unset). */
export function agentBudgets(protocol: AgentProtocolName | undefined, given: AgentBudgets = {}): AgentBudgets {
  const spade = protocol === 'spade';
  const pick = <K extends keyof typeof SPADE_AGENT_SAMPLING>(key: K) => given[key] ?? (spade ? SPADE_AGENT_SAMPLING[key] : undefined);
  const budgets: AgentBudgets = {
    temperature: pick('temperature'),
    topP: pick('topP'),
    topK: pick('topK'),
    chatTemplateKwargs: given.chatTemplateKwargs ?? (spade ? { ...SPADE_AGENT_SAMPLING.chatTemplateKwargs } : undefined),
    maxTokens: pick('maxTokens'),
    contextTokens: pick('contextTokens'),
    truncateCutReplies: given.truncateCutReplies ?? spade,
  };
  for (const key of Object.keys(budgets) as (keyof AgentBudgets)[]) if (budgets[key] === undefined) delete budgets[key];
  return budgets;
}

/** The fewest tokens SPADE leaves a reply: with no more left in the context, the episode is truncated. */
export const SPADE_MIN_REPLY_TOKENS = 64;

/** The estimated tokens of a message's text (4 bytes a token, and 4 for the message itself). */
export const estimatedTokens = (text: string): number => Math.ceil(Buffer.byteLength(text, 'utf8') / 4) + 4;

/**
 * The token budget of the next reply under a context cap: what is left of the context less
 * SPADE's 64-token margin, at most `maxTokens`; undefined when no more than 64 are left (the
 * episode is then truncated before the turn).
 */
export function replyBudget(contextTokens: number, used: number, maxTokens: number | undefined): number | undefined {
  const left = contextTokens - used;
  if (left <= SPADE_MIN_REPLY_TOKENS) return undefined;
  return Math.min(maxTokens ?? Infinity, left - SPADE_MIN_REPLY_TOKENS);
}
