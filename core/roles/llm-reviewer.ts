/**
 * The optional LLM reviewer: SPADE's "accept unless there is a clear fatal bug" review of an
 * environment after it passed the executable gate (for a tool-use game, SPADE's solvability
 * audit: prompts/reviewer.ts). Its verdict is recorded apart from the
 * gate's (EnvironmentSummary.review); a rejection keeps the environment out of play.
 * A reply with no verdict accepts (the review is a filter for clear bugs) and the reason says
 * so; a review call that fails errors the slot (the run's errors), never accepting unreviewed.
 */
import type { EnvironmentProgram, Provider } from '../types.js';
import type { GateVerdict, ReviewRecord } from '../results/results.js';
import { boxedAction } from './boxed-action.js';
import { reviewMessages } from './prompts/reviewer.js';
import type { SpadeCode } from './spade-code.js';
import { SPADE_VALIDATOR, spadeGameTypeOf, spadeValidatorVerdict } from './spade-designer.js';

/** Reviews environments the gate accepted. */
export interface EnvironmentReviewer {
  readonly id: string;
  review(program: EnvironmentProgram, verdict: GateVerdict, signal?: AbortSignal): Promise<ReviewRecord>;
}

export interface LLMReviewerOptions {
  /** Replaces the built-in system prompt (the `prompts.reviewer` file). */
  systemPrompt?: string;
  /** Default 0.3, SPADE's validator's. */
  temperature?: number;
  topP?: number;
  topK?: number;
  /** Arguments of an open model's chat template. */
  chatTemplateKwargs?: Record<string, unknown>;
  /** Default 16,384, SPADE's validator's. */
  maxTokens?: number;
  /**
   * SPADE's designer protocol: SPADE's environment validator (its prompt by game type,
   * temperature 0.3, 16,384 tokens, its reading of the verdict).
   */
  spade?: SpadeCode;
}

/** SPADE's LLM validator's sampling (spade/core/types.py at 9b2b813: env_validator_temperature, env_validator_max_tokens). */
export const SPADE_REVIEWER_SAMPLING = { temperature: 0.3, maxTokens: 16_384 } as const;

/** Longest reason kept from the reviewer's reply. */
const MAX_REASON_CHARS = 600;

/**
 * ACCEPT or REJECT from the reply's last \boxed{} (also SPADE's yes or no, for a prompt file
 * written like SPADE's), else from a last "VERDICT: ..." style word.
 */
export function reviewDecision(reply: string): 'accept' | 'reject' | undefined {
  const boxed = boxedAction(reply)?.toLowerCase();
  if (boxed === 'accept' || boxed === 'reject') return boxed;
  if (boxed === 'yes' || boxed === 'no') return boxed === 'yes' ? 'accept' : 'reject';
  const words = reply.match(/\b(ACCEPT|REJECT)(ED)?\b/g);
  const last = words?.at(-1)?.toLowerCase();
  return last ? (last.startsWith('accept') ? 'accept' : 'reject') : undefined;
}

export function createLLMReviewer(provider: Provider, options: LLMReviewerOptions = {}): EnvironmentReviewer {
  return {
    id: provider.id,
    async review(program, verdict, signal) {
      if (options.spade) {
        const [built] = await options.spade.run([{ op: 'validator', gameType: spadeGameTypeOf(verdict.gameType), code: program.source, temperature: SPADE_VALIDATOR.temperature, maxTokens: SPADE_VALIDATOR.maxTokens }]);
        const response = await provider.chat(
          {
            messages: built!.messages,
            temperature: options.temperature ?? built!.sampling.temperature ?? SPADE_VALIDATOR.temperature,
            ...(options.topP !== undefined ? { topP: options.topP } : {}),
            maxTokens: options.maxTokens ?? built!.sampling.max_tokens ?? SPADE_VALIDATOR.maxTokens,
          },
          { signal },
        );
        const accepted = spadeValidatorVerdict(response.text);
        const explanation = response.text.trim().slice(0, MAX_REASON_CHARS);
        return { accepted, reason: explanation || (accepted ? 'no verdict in the review: accepted' : 'rejected'), by: provider.id };
      }
      // A call that fails (past the provider's retries, or cut by the run's stop) throws: the
      // slot is errored, never accepted unreviewed.
      const response = await provider.chat(
        {
          messages: reviewMessages(program, verdict.firstObservation, options.systemPrompt, verdict.gameType),
          temperature: options.temperature ?? SPADE_REVIEWER_SAMPLING.temperature,
          ...(options.topP !== undefined ? { topP: options.topP } : {}),
          ...(options.topK !== undefined ? { topK: options.topK } : {}),
          ...(options.chatTemplateKwargs !== undefined ? { chatTemplateKwargs: options.chatTemplateKwargs } : {}),
          maxTokens: options.maxTokens ?? SPADE_REVIEWER_SAMPLING.maxTokens,
        },
        { signal },
      );
      const text = response.text;
      const decision = reviewDecision(text);
      const explanation = text.replace(/\\boxed\{[^}]*\}/g, '').trim().slice(0, MAX_REASON_CHARS);
      if (decision === undefined) return { accepted: true, reason: `no verdict in the review: accepted. ${explanation}`.trim(), by: provider.id };
      return { accepted: decision === 'accept', reason: explanation || decision, by: provider.id };
    },
  };
}
