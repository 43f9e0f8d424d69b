/**
 * The LLM designer: a provider writes environment programs with SPADE-style prompts, in
 * Python (SPADE's format, run in the pyodide sandbox) or JavaScript, optionally grounded on a
 * corpus document per environment, conditioned on the environment memory and the agent's
 * recent solve rates. It can repair a program the gate rejected, with the reason fed back.
 *
 * A reply with no program in it is the model's answer: its slot yields a program whose source
 * is a comment saying what went wrong, which the gate rejects (`load` or `syntax`), so the
 * round counts it as proposed and invalid, with the reason in the report. A design call that
 * fails (the provider still erring after the shared layer's retries) is no answer: its slot
 * is errored (EnvironmentProgram.designError), neither gated nor counted invalid. A call cut
 * by the run's stop is neither: design() rejects, and nothing of the round is kept.
 */
import type { DesignerReply } from '../selfplay/round-log.js';
import type { ChatMessage, Designer, DesignRequest, EnvironmentProgram, Language, Provider, RepairRequest } from '../types.js';
import type { GateVerdict } from '../results/results.js';
import { deriveSeed } from '../run/random.js';
import { mapLimit } from '../run/concurrency.js';
import { DEFAULTS } from '../config/options.js';
import { extractProgramAs, type Extraction } from './code-extraction.js';
import { sampleDocument, type CorpusDocument } from './corpus.js';
import { designUserPrompt, designerSystemPrompt, repairMessages } from './prompts/designer.js';
import { toolUseDesignUserPrompt, toolUseDesignerSystemPrompt, toolUseDifficulty } from './prompts/tool-use-designer.js';
import { memoryContext } from './prompts/memory-context.js';
import { isToolUseSkill } from '../selfplay/skills.js';
import { errorClassOf, errorText } from '../run/error-class.js';

export interface LLMDesignerOptions {
  /** Language of the programs (default `python`). */
  language?: Language;
  /** Grounding documents (see loadCorpus); one is sampled per environment. */
  corpus?: readonly CorpusDocument[];
  /** Replaces the built-in system prompt (the `prompts.designer` file). */
  systemPrompt?: string;
  /** Default 1: designs should differ. */
  temperature?: number;
  topP?: number;
  /** Default 4096. */
  maxTokens?: number;
  /** Design calls in flight at once (the provider layer limits its requests too). Default: the provider's own limit (`requestsInFlight`), else 4. */
  requestsInFlight?: number;
  /** @deprecated The old name of requestsInFlight. */
  concurrency?: number;
  /** How a reply is read: spade-bench's (the environment class's block, the last) or SPADE's (the first python block). Default `own`. */
  extraction?: Extraction;
  /** Shown in reports. Default `LLM designer (<provider id>, <language>)`. */
  label?: string;
}

/** The source given to a slot whose design failed: a comment, which the gate rejects. */
export function failedDesignSource(language: Language, why: string, reply?: string): string {
  const comment = language === 'python' ? '#' : '//';
  const lines = [`design failed: ${why}`];
  if (reply !== undefined) lines.push('the reply was:', ...reply.slice(0, 2000).split('\n'));
  return lines.map((l) => `${comment} ${l}`).join('\n');
}

export function createLLMDesigner(provider: Provider, options: LLMDesignerOptions = {}): Designer {
  const language = options.language ?? DEFAULTS.selfplay.language;
  const system = options.systemPrompt ?? designerSystemPrompt(language);
  const toolUseSystem = options.systemPrompt ?? toolUseDesignerSystemPrompt(language);
  const temperature = options.temperature ?? 1;
  const maxTokens = options.maxTokens ?? 4096;

  /** One model call; the program in its reply, or a failed-design comment. A call that fails throws. */
  async function write(messages: ChatMessage[], seed: number, signal: AbortSignal | undefined): Promise<{ source: string; error?: string; reply: DesignerReply }> {
    const response = await provider.chat({ messages, temperature, ...(options.topP !== undefined ? { topP: options.topP } : {}), maxTokens, seed }, { signal });
    const { text } = response;
    // The reply's length and stop reason, for the round log (core/selfplay/round-log.ts).
    const reply: DesignerReply = { tokens: response.usage.outputTokens, ...(response.finishReason ? { finishReason: response.finishReason } : {}) };
    const source = extractProgramAs(options.extraction ?? 'own', text, language);
    if (source) return { source, reply };
    const why = `no ${language} program defining an environment class was found in the reply`;
    return { source: failedDesignSource(language, why, text), error: why, reply };
  }

  return {
    id: provider.id,
    label: options.label ?? `LLM designer (${provider.id}, ${language})`,
    kind: 'llm',
    capacity: options.requestsInFlight ?? options.concurrency ?? provider.requestsInFlight ?? 4,
    async design(request: DesignRequest): Promise<EnvironmentProgram[]> {
      const slots = request.slots ? request.slots.filter((i) => i >= 0 && i < request.count) : Array.from({ length: request.count }, (_, i) => i);
      const programs = await mapLimit(slots, options.requestsInFlight ?? options.concurrency ?? provider.requestsInFlight ?? 4, async (i) => {
        const document = options.corpus?.length ? sampleDocument(options.corpus, deriveSeed(request.seed, 'document', i)) : undefined;
        const skill = request.skills?.[i];
        // A slot with one of SPADE's tool-use skills is a tool-use game (SPADE's tool-use template).
        const toolUse = isToolUseSkill(skill);
        const user = toolUse
          ? toolUseDesignUserPrompt({
              index: i,
              count: request.count,
              language,
              skill: skill!,
              variant: i % 2 === 0 ? 'single-task' : 'multi-turn',
              difficulty: toolUseDifficulty(request.recentSolveRates, request.targetBand),
              pick: deriveSeed(request.seed, 'tool-use', i),
              document: document?.text,
              memory: memoryContext(request.memory, request.recentSolveRates, language === 'python' ? '```python' : '```javascript') || undefined,
            })
          : designUserPrompt({
              index: i,
              count: request.count,
              language,
              skill,
              memory: request.memory,
              recentSolveRates: request.recentSolveRates,
              document: document?.text,
              kind: i % 2 === 0 ? 'single-answer' : 'multi-turn',
            });
        const id = `r${request.round}-e${i}`;
        const meta = { origin: provider.id, ...(skill ? { skill } : {}) };
        let written: { source: string; error?: string; reply: DesignerReply };
        try {
          written = await write([{ role: 'system', content: toolUse ? toolUseSystem : system }, { role: 'user', content: user }], deriveSeed(request.seed, 'design', i), request.signal);
        } catch (error) {
          if (request.signal?.aborted) throw error;
          return { id, language, source: '', meta, designError: { errorClass: errorClassOf(error), message: errorText(error) } } satisfies EnvironmentProgram;
        }
        const params: Record<string, unknown> = { designerReply: written.reply };
        if (document) params.documentLine = document.line;
        if (written.error) params.designError = written.error;
        const program: EnvironmentProgram = { id, language, source: written.source, meta };
        if (Object.keys(params).length) program.meta!.params = params;
        return program;
      });
      return programs.filter((p): p is EnvironmentProgram => p !== undefined);
    },
    async repair(program: EnvironmentProgram, verdict: GateVerdict, request: RepairRequest): Promise<EnvironmentProgram> {
      const written = await write(repairMessages(program.language, program, verdict, options.systemPrompt), deriveSeed(request.seed, 'repair', program.id, request.attempt), request.signal);
      const params: Record<string, unknown> = { ...program.meta?.params, repairOf: request.originalId, repairAttempt: request.attempt, designerReply: written.reply };
      delete params.designError;
      if (written.error) params.designError = written.error;
      return {
        id: `${request.originalId}-fix${request.attempt}`,
        language: program.language,
        source: written.source,
        meta: { ...program.meta, origin: provider.id, params },
      };
    },
  };
}
