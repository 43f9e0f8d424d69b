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
 *     and samples at temperature 0.6, top_p 0.95 (the settings of SPADE's runs).
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

/** Sampling of SPADE's player in its runs. */
export const SPADE_AGENT_SAMPLING = { temperature: 0.6, topP: 0.95 } as const;
