/**
 * The LLM designer: a provider writes environment programs with SPADE-style prompts, in
 * Python (SPADE's format, run in the pyodide sandbox) or JavaScript, optionally grounded on a
 * corpus document per environment, conditioned on the environment memory and the agent's
 * recent solve rates. It can repair a program the gate rejected, with the reason fed back
 * (except under SPADE's designer protocol, where a rejected slot is designed afresh instead).
 *
 * A reply with no program in it is the model's answer: its slot yields a program whose source
 * is a comment saying what went wrong, which the gate rejects (`load` or `syntax`), so the
 * round counts it as proposed and invalid, with the reason in the report. A design call that
 * fails (the provider still erring after the shared layer's retries) is no answer: its slot
 * is errored (EnvironmentProgram.designError), neither gated nor counted invalid. A call cut
 * by the run's stop is neither: design() rejects, and nothing of the round is kept.
 */
import type { DesignerReply } from '../selfplay/round-log.js';
import type { ChatMessage, ChatResponse, Designer, DesignRequest, EnvironmentProgram, Language, Provider, RepairRequest } from '../types.js';
import type { GateVerdict } from '../results/results.js';
import { deriveSeed } from '../run/random.js';
import { mapLimit } from '../run/concurrency.js';
import { DEFAULTS } from '../config/options.js';
import { extractProgramAs, type Extraction } from './code-extraction.js';
import { pickDocument, sampleDocument, type CorpusDocument } from './corpus.js';
import type { SpadeCode, SpadeMessages } from './spade-code.js';
import { spadeDesignRequest } from './spade-designer.js';
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
  /** How a reply is read: spade-bench's (the environment class's block, the last) or SPADE's (the first python block). Default `own`. */
  extraction?: Extraction;
  /** Shown in reports. Default `LLM designer (<provider id>, <language>)`. */
  label?: string;
  /**
   * SPADE's designer protocol: each prompt and its sampling are what SPADE's own code builds
   * for the slot (spade-designer.ts); `maxTurns` is the turn budget its multi-turn prompt names.
   * Sampling options given here still override SPADE's.
   */
  spade?: { code: SpadeCode; maxTurns: number };
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
    return readReply(await provider.chat({ messages, temperature, ...(options.topP !== undefined ? { topP: options.topP } : {}), maxTokens, seed }, { signal }));
  }

  /** The program in a designer's reply (or a failed-design comment), with the reply's length and stop reason for the round log (core/selfplay/round-log.ts). */
  function readReply(response: ChatResponse): { source: string; error?: string; reply: DesignerReply } {
    const { text } = response;
    const reply: DesignerReply = { tokens: response.usage.outputTokens, ...(response.finishReason ? { finishReason: response.finishReason } : {}) };
    const source = extractProgramAs(options.extraction ?? 'own', text, language);
    if (source) return { source, reply };
    const why = `no ${language} program defining an environment class was found in the reply`;
    return { source: failedDesignSource(language, why, text), error: why, reply };
  }

  /** SPADE's prompt and sampling of each slot, built in one run of SPADE's code. */
  async function spadePrompts(request: DesignRequest, slots: number[]): Promise<Map<number, SpadeMessages & { line?: number }>> {
    const spade = options.spade!;
    const slotRequests = slots.map((i) => {
      const skill = request.skills?.[i] ?? 'Pattern Recognition';
      const document = options.corpus?.length ? pickDocument(options.corpus, deriveSeed(request.seed, 'document', i)) : undefined;
      return {
        line: document?.line,
        request: spadeDesignRequest({
          skill,
          toolUse: isToolUseSkill(skill),
          round: request.round,
          index: i,
          maxTurns: spade.maxTurns,
          promptSeed: deriveSeed(request.seed, 'spade-prompt', i),
          documentLine: document ? (document.json ?? JSON.stringify({ text: document.text })) : undefined,
          memory: request.spadeMemory,
          memorySeed: deriveSeed(request.seed, 'spade-memory', i),
        }),
      };
    });
    const built = await spade.code.run(slotRequests.map((s) => s.request));
    return new Map(slots.map((i, k) => [i, { ...built[k]!, line: slotRequests[k]!.line }]));
  }

  /** One design call as SPADE makes it; the program in its reply, or a failed-design comment. */
  async function writeSpade(prompt: SpadeMessages, seed: number, signal: AbortSignal | undefined): Promise<{ source: string; error?: string; reply: DesignerReply }> {
    const s = prompt.sampling;
    const response = await provider.chat(
      {
        messages: prompt.messages,
        temperature: options.temperature ?? s.temperature ?? temperature,
        ...((options.topP ?? s.top_p) !== undefined ? { topP: options.topP ?? s.top_p } : {}),
        ...(s.top_k !== undefined ? { topK: s.top_k } : {}),
        maxTokens: options.maxTokens ?? s.max_tokens ?? maxTokens,
        ...(prompt.chatTemplateKwargs ? { chatTemplateKwargs: prompt.chatTemplateKwargs } : {}),
        seed,
      },
      { signal },
    );
    return readReply(response);
  }

  /** One slot designed with SPADE's prompt. */
  async function designSpade(request: DesignRequest, i: number, prompt: SpadeMessages & { line?: number }): Promise<EnvironmentProgram> {
    const skill = request.skills?.[i];
    const id = `r${request.round}-e${i}`;
    const meta = { origin: provider.id, ...(skill ? { skill } : {}) };
    let written: { source: string; error?: string; reply: DesignerReply };
    try {
      written = await writeSpade(prompt, deriveSeed(request.seed, 'design', i), request.signal);
    } catch (error) {
      if (request.signal?.aborted) throw error;
      return { id, language, source: '', meta, designError: { errorClass: errorClassOf(error), message: errorText(error) } };
    }
    const params: Record<string, unknown> = { designerReply: written.reply };
    if (prompt.line !== undefined) params.documentLine = prompt.line;
    if (written.error) params.designError = written.error;
    const program: EnvironmentProgram = { id, language, source: written.source, meta };
    if (Object.keys(params).length) program.meta!.params = params;
    return program;
  }

  return {
    id: provider.id,
    label: options.label ?? `LLM designer (${provider.id}, ${language}${options.spade ? ", SPADE's protocol" : ''})`,
    kind: 'llm',
    capacity: options.requestsInFlight ?? provider.requestsInFlight ?? 4,
    async design(request: DesignRequest): Promise<EnvironmentProgram[]> {
      const slots = request.slots ? request.slots.filter((i) => i >= 0 && i < request.count) : Array.from({ length: request.count }, (_, i) => i);
      // SPADE's code failing to build a prompt is a fault of the run's setup, not of a slot: it throws.
      const spadePrompt = options.spade ? await spadePrompts(request, slots) : undefined;
      const programs = await mapLimit(slots, options.requestsInFlight ?? provider.requestsInFlight ?? 4, async (i) => {
        if (spadePrompt) return designSpade(request, i, spadePrompt.get(i)!);
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
    // Under SPADE's protocol there is no repair: a rejected slot is designed afresh (the
    // self-play loop's slot resampling, SPADE's independent re-sampling with env_repair_turns 0).
    ...(options.spade ? {} : { repair }),
  };

  /** spade-bench's repair: the program and the gate's reason fed back, the reply a new program of the slot. */
  async function repair(program: EnvironmentProgram, verdict: GateVerdict, request: RepairRequest): Promise<EnvironmentProgram> {
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
  }
}
