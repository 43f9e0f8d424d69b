/**
 * The hint writer: when the designer is a model and a valid program has no hint() of its own,
 * the designer model writes one from the program's source, as SPADE's hint generator does
 * (temperature 0.3, up to three tries, plain text back; a reply wrapped in a ```json block with
 * a "hint" field is read from it). The run journals the hint, so a resumed run reuses it.
 */
import type { ChatMessage, EnvironmentProgram, GameType, Provider } from '../types.js';
import { deriveSeed } from '../run/random.js';
import { hintMessages } from './prompts/hint.js';
import type { SpadeCode } from './spade-code.js';
import { SPADE_HINT, spadeGameTypeOf } from './spade-designer.js';

export interface HintWriter {
  /** The provider id of the model that writes the hints. */
  readonly id: string;
  /**
   * A hint for `program`; rejects when every try failed. `gameType` (the gate's) picks the
   * prompt: a tool-use game gets the procedural, value-free one.
   */
  write(program: EnvironmentProgram, signal?: AbortSignal, gameType?: GameType): Promise<string>;
}

export interface HintWriterOptions {
  /** Replaces the built-in system prompt (the `prompts.hint` file). */
  systemPrompt?: string;
  /** Default 0.3, as SPADE's hints. */
  temperature?: number;
  topP?: number;
  /** Default 2048. */
  maxTokens?: number;
  /** Default 3. */
  tries?: number;
  /** Seeds each try's request (tries differ, and so do their cache entries). */
  seed?: number;
  /**
   * SPADE's designer protocol: the messages and sampling are what SPADE's hint generator
   * builds (its prompt by game type, temperature 0.3, 4,096 tokens or 2,048 for tool use).
   */
  spade?: SpadeCode;
}

export const HINT_TEMPERATURE = 0.3;
const HINT_MAX_TOKENS = 2048;
const HINT_TRIES = 3;

/** The hint in a reply: its text, or the "hint" field of a ```json block it holds. */
export function parseHint(reply: string): string {
  const text = reply.trim();
  const block = /```json\s*\n?([\s\S]*?)\n?```/.exec(text);
  if (block) {
    try {
      const data = JSON.parse(block[1]!.trim()) as unknown;
      if (data !== null && typeof data === 'object' && typeof (data as { hint?: unknown }).hint === 'string') return (data as { hint: string }).hint;
    } catch {
      // not JSON after all: the text is the hint
    }
  }
  return text;
}

/** The model answered, but no hint could be read from its replies: the program is played without one. */
export class NoHintError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoHintError';
  }
}

export function createHintWriter(provider: Provider, options: HintWriterOptions = {}): HintWriter {
  const tries = Math.max(1, options.tries ?? HINT_TRIES);
  return {
    id: provider.id,
    async write(program, signal, gameType) {
      const failures: string[] = [];
      let spade: { messages: ChatMessage[]; temperature?: number; maxTokens?: number } | undefined;
      if (options.spade) {
        const type = spadeGameTypeOf(gameType);
        const [built] = await options.spade.run([{ op: 'hint', gameType: type, code: program.source, temperature: SPADE_HINT.temperature, maxTokens: SPADE_HINT.maxTokens[type] }]);
        spade = { messages: built!.messages, temperature: built!.sampling.temperature, maxTokens: built!.sampling.max_tokens };
      }
      for (let attempt = 1; attempt <= tries; attempt++) {
        if (signal?.aborted) break;
        // A call that fails (past the provider's retries, or cut by the run's stop) throws: it is
        // no answer, so the slot's hint is errored, not missing.
        const response = await provider.chat(
          {
            messages: spade?.messages ?? hintMessages(program, options.systemPrompt, gameType),
            temperature: options.temperature ?? spade?.temperature ?? HINT_TEMPERATURE,
            ...(options.topP !== undefined ? { topP: options.topP } : {}),
            maxTokens: options.maxTokens ?? spade?.maxTokens ?? HINT_MAX_TOKENS,
            seed: deriveSeed(options.seed ?? 0, 'hint', program.id, attempt),
          },
          { signal },
        );
        const hint = parseHint(response.text);
        if (hint) return hint;
        failures.push('an empty reply');
      }
      throw new NoHintError(`no hint after ${failures.length} ${failures.length === 1 ? 'try' : 'tries'}: ${failures.at(-1) ?? 'stopped'}`);
    },
  };
}
