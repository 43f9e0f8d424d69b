/**
 * Turn a resolved config into the parts of a run: designer, agent, sandboxes, suites.
 * Everything that can be wrong with the config (an unknown plugin id, a missing API key) is
 * found here, before any work starts or any file is written.
 */
import { checkedProvider, checkedSuite, fromPlugin } from './plugin-contract.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import type { Agent, Designer, Language, Provider, Sandbox, Suite } from '../types.js';
import type { UsageMetrics } from '../results/results.js';
import type { SpadeConfig } from '../config/config.js';
import type { SandboxSet } from '../run/evaluate.js';
import { PluginRegistry, isExternalId, type ProviderOptions, type ProviderPlugin, type RolePlugin, type SandboxPlugin, type SuitePlugin } from '../config/plugin.js';
import { missingKeyMessage } from '../providers/keys.js';
import { statsOf } from '../providers/layer.js';
import { addUsage, emptyUsage } from '../providers/stats.js';
import { createLLMAgent } from '../roles/llm-agent.js';
import { createLLMDesigner } from '../roles/llm-designer.js';
import { loadCorpus } from '../roles/corpus.js';
import { createLLMReviewer, type EnvironmentReviewer } from '../roles/llm-reviewer.js';
import { createHintWriter, type HintWriter } from '../roles/llm-hint.js';
import { createSpadeCode, type SpadeCode } from '../roles/spade-code.js';
import { loadSpadePlayerTemplate } from '../roles/agent-protocol.js';
import { spadeCodeFiles } from '../../benchmarks/games/spade-source.js';
import { DEFAULTS, turnBudget } from '../config/options.js';
import type { RoleName, SamplingConfig } from '../config/options.js';
import { BUILTINS, DEFAULT_SANDBOXES } from './builtins.js';
import { UsageError } from '../errors.js';
import { SELFPLAY_SUITE } from '../run/run.js';

/** Ids the CLI accepts for the self-play pool in `--suites`. */
export const SELFPLAY_ALIASES = [SELFPLAY_SUITE, 'selfplay'];

export function createRegistry(cwd = process.cwd()): PluginRegistry {
  return new PluginRegistry(BUILTINS, cwd);
}

/** The config key and flag that name the sandbox of each language. */
/** Suites of questions and answers read from a file or Hugging Face, whose fields `fields` (--field) maps. */
const DATASET_SUITE = /^(jsonl|parquet|hf):/;

const SANDBOX_KEYS: Record<Language, { key: 'sandbox' | 'pythonSandbox'; flag: string }> = {
  javascript: { key: 'sandbox', flag: '--sandbox' },
  python: { key: 'pythonSandbox', flag: '--python-sandbox' },
};

/** The sandbox plugin `id`, refused when it does not run `language`. */
async function sandboxPlugin(registry: PluginRegistry, id: string, language: Language): Promise<SandboxPlugin> {
  const { key } = SANDBOX_KEYS[language];
  const { plugin } = await registry.resolve('sandbox', id).catch((error: Error) => {
    throw new UsageError(`${key}: ${error.message}`);
  });
  const sandbox = plugin as SandboxPlugin;
  if (sandbox.languages && !sandbox.languages.includes(language)) {
    throw new UsageError(`${key}: sandbox "${sandbox.id}" runs ${sandbox.languages.join(' and ')}, not ${language}`);
  }
  return sandbox;
}

export interface SandboxChoice {
  id: string;
  /** Why it is the one in force, in words (`spade-bench list`, the run's first line). */
  why: string;
}

/**
 * The sandbox `language`'s programs run in: the configured one (`sandbox`, `pythonSandbox`),
 * refused with a UsageError naming the fix when it cannot run here; unset, the first of the
 * built-in preference order (DEFAULT_SANDBOXES) that can run on this machine.
 */
export async function chooseSandbox(registry: PluginRegistry, config: { sandbox?: string; pythonSandbox?: string }, language: Language): Promise<SandboxChoice> {
  const { key, flag } = SANDBOX_KEYS[language];
  const configured = config[key];
  if (configured) {
    const problem = await (await sandboxPlugin(registry, configured, language)).unavailable?.();
    if (problem) throw new UsageError(`${flag} ${configured}: ${problem}`);
    return { id: configured, why: `chosen with ${flag} or ${key} in the config` };
  }
  const passed: string[] = [];
  for (const id of DEFAULT_SANDBOXES[language]) {
    const problem = await (await sandboxPlugin(registry, id, language)).unavailable?.();
    if (!problem) return { id, why: passed.length ? `the default here, because ${passed.join('; ')}` : 'the default: it can run on this machine' };
    passed.push(`${id} cannot run: ${problem}`);
  }
  throw new UsageError(`no sandbox for ${language} can run here: ${passed.join('; ')}`);
}

/**
 * Each language's sandbox is the one chooseSandbox gives, created on first use: a run with no
 * Python program never starts an interpreter. `workers` is how many processes a sandbox that has
 * them (pyodide, cpython) may start: one per core by default, fewer where several sets share the
 * cores (worker threads, queue workers). Programs that bring folders for the Python path (a
 * suite's packages) get a sandbox of their own, made with those folders.
 */
export function createSandboxSet(registry: PluginRegistry, config: SpadeConfig, workers = availableParallelism()): SandboxSet {
  const made = new Map<string, Promise<Sandbox>>();
  const create = async (language: Language, pythonPath: readonly string[]): Promise<Sandbox> => {
    const { id } = await chooseSandbox(registry, config, language);
    const options = { limits: config.limits, workers: Math.max(1, Math.floor(workers)), ...(pythonPath.length ? { pythonPath } : {}), ...(language === 'python' && config.python ? { python: config.python } : {}) };
    return (await sandboxPlugin(registry, id, language)).create(options);
  };
  return {
    get(language, pythonPath = []) {
      const key = [language, ...pythonPath].join('\0');
      let sandbox = made.get(key);
      if (!sandbox) {
        sandbox = create(language, pythonPath);
        made.set(key, sandbox);
      }
      return sandbox;
    },
    async close() {
      const all = await Promise.allSettled(made.values());
      made.clear(); // closing twice closes nothing twice
      await Promise.all(all.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
    },
  };
}

export interface RunParts {
  designer: Designer;
  agent: Agent;
  suites: Suite[];
  selfplay: boolean;
  sandboxes: SandboxSet;
  /** The optional LLM reviewer after the gate (--reviewer). */
  reviewer?: EnvironmentReviewer;
  /** The designer model writing hints for valid programs without hint() (when the designer is a model). */
  hintWriter?: HintWriter;
  /** SPADE's prompt code, when the run follows SPADE's designer protocol or keeps SPADE's memory. */
  spadeCode?: SpadeCode;
  /** Providers created for LLM roles. */
  providers: Provider[];
  /** Their usage so far outside episodes, summed (metrics.usage adds the episodes' `spent`). */
  outsideUsage: () => UsageMetrics;
  /** A mark in their call latencies, and the latencies (ms) of the calls since a mark. */
  latencyMark: () => number[];
  latencySince: (mark: number[]) => number[];
  close(): Promise<void>;
}

/** Options for provider `id` from config: exact id first, then its prefix. */
export function providerOptions(config: SpadeConfig, id: string, model: string): ProviderOptions {
  const prefix = id.split(':')[0]!;
  return { ...config.providers[prefix], ...config.providers[id], model };
}

/** A model provider from its id (`openai:gpt-4.1-mini`), with the key checked before any work. */
async function createProvider(registry: PluginRegistry, id: string, config: SpadeConfig, role: string): Promise<Provider> {
  const { plugin, argument } = await registry.resolve('provider', id).catch((error: Error) => {
    throw new UsageError(`--${role} ${id}: ${error.message.replace(/^unknown provider/, 'unknown designer, agent or provider')}`);
  });
  const provider = plugin as ProviderPlugin;
  if (!argument && !isExternalId(id)) throw new UsageError(`--${role} ${id}: name the model after the prefix, e.g. ${provider.id}:MODEL`);
  const options: ProviderOptions = { ...providerOptions(config, id, argument ?? ""), cacheDir: config.cacheDir, cache: config.cache };
  // The key may come from any one of the variables the provider names (or from apiKey).
  const keyVariables = provider.requiredEnv?.(options) ?? [];
  if (keyVariables.length && !options.apiKey && !keyVariables.some((name) => process.env[name])) throw new UsageError(missingKeyMessage(id, keyVariables));
  return checkedProvider(provider.id, await fromPlugin(provider.id, 'create()', () => provider.create(options)));
}

/** The text of the prompt file the config gives a role (`prompts.hint`), read now; a missing file is a UsageError naming the key. */
export function rolePrompt(config: SpadeConfig, role: RoleName, cwd: string): string | undefined {
  const file = config.prompts?.[role];
  if (file === undefined) return undefined;
  const resolved = path.resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(resolved, 'utf8');
  } catch (error) {
    throw new UsageError(`prompts.${role}: cannot read ${resolved}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (text.trim() === '') throw new UsageError(`prompts.${role}: ${resolved} is empty`);
  return text;
}

/** SPADE's code over its pinned source in the run's data folder (downloaded once, checked by git blob ids). */
const spadeCodes = new Map<string, SpadeCode>();
export function spadeCodeFor(config: SpadeConfig): SpadeCode {
  const key = config.dataDir ?? '';
  let code = spadeCodes.get(key);
  if (!code) spadeCodes.set(key, (code = createSpadeCode(() => spadeCodeFiles({ dataDir: config.dataDir }))));
  return code;
}

/** The sampling the config sets for a role's model calls (only the keys given). */
const samplingOf = (config: SpadeConfig, role: RoleName): SamplingConfig => ({ ...config.sampling?.[role] });

async function resolveRole(registry: PluginRegistry, kind: 'designer' | 'agent', id: string, config: SpadeConfig, providers: Map<string, Provider>): Promise<Designer | Agent> {
  if (registry.has(kind, id)) {
    const { plugin } = await registry.resolve(kind, id);
    return (await fromPlugin(plugin.id, 'create()', () => (plugin as RolePlugin).create({}))) as Designer | Agent;
  }
  // Any other id is a model provider playing the role; designer and agent share one provider.
  let provider = providers.get(id);
  if (!provider) {
    provider = await createProvider(registry, id, config, kind);
    providers.set(id, provider);
  }
  if (kind === 'agent') {
    const systemPrompt = rolePrompt(config, 'agent', registry.cwd);
    const spadeTemplate = config.agentProtocol === 'spade' ? await loadSpadePlayerTemplate(spadeCodeFor(config)) : undefined;
    try {
      return createLLMAgent(provider, { memory: config.agentMemory, protocol: config.agentProtocol, ...samplingOf(config, 'agent'), ...(systemPrompt ? { systemPrompt } : {}), ...(spadeTemplate ? { spadeTemplate } : {}) });
    } catch (error) {
      throw new UsageError(`--agent-memory: ${(error as Error).message}`);
    }
  }
  const { language, corpus } = config.selfplay;
  const systemPrompt = rolePrompt(config, 'designer', registry.cwd);
  return createLLMDesigner(provider, {
    language,
    corpus: corpus ? await loadCorpus(path.resolve(registry.cwd, corpus)) : undefined,
    ...samplingOf(config, 'designer'),
    ...(systemPrompt ? { systemPrompt } : {}),
    // Under SPADE's gate a reply is read as SPADE reads it (the brace repair follows in the design slot).
    ...(config.gate === 'spade' ? { extraction: 'spade' as const } : {}),
    ...(config.designerProtocol === 'spade' ? { spade: { code: spadeCodeFor(config), maxTurns: turnBudget(config) } } : {}),
  });
}

/**
 * A provider's calls outside episodes. A provider whose stats do not tell them apart (wrapped by
 * an older copy of core, which meters nothing) has all its calls outside, none in an episode's `spent`.
 */
function outsideUsageOf(provider: Provider): UsageMetrics {
  const stats = statsOf(provider);
  if (!stats) return emptyUsage();
  return typeof stats.outsideUsage === 'function' ? stats.outsideUsage() : stats.usage();
}

/** The usage and call latencies of the providers a run created, summed. */
function providerStats(providers: Map<string, Provider>): Pick<RunParts, 'outsideUsage' | 'latencyMark' | 'latencySince'> {
  return {
    outsideUsage: () => addUsage(emptyUsage(), ...[...providers.values()].map((p) => outsideUsageOf(p))),
    latencyMark: () => [...providers.values()].map((p) => statsOf(p)?.recorded ?? 0),
    latencySince: (mark) => [...providers.values()].flatMap((p, i) => statsOf(p)?.samplesAfter(mark[i] ?? 0) ?? []),
  };
}

/**
 * Whether a run may load Python programs: a Python suite, or self-play with a designer that
 * may write Python (an LLM designer told to, or a designer plugin: who knows). The built-in
 * reference designer writes JavaScript.
 */
function mayRunPython(registry: PluginRegistry, config: SpadeConfig, selfplay: boolean, suites: readonly Suite[]): boolean {
  if (suites.some((suite) => suite.language === 'python')) return true;
  if (!selfplay) return false;
  if (registry.has('designer', config.designer)) return config.designer !== 'reference';
  return (config.selfplay.language ?? DEFAULTS.selfplay.language) === 'python';
}

export async function resolveRunParts(registry: PluginRegistry, config: SpadeConfig, options: { sandboxWorkers?: number } = {}): Promise<RunParts> {
  await registry.register(config.plugins);
  const selfplay = config.suites.some((s) => SELFPLAY_ALIASES.includes(s));
  const suites: Suite[] = [];
  if (config.fields && !config.suites.some((id) => DATASET_SUITE.test(id))) {
    throw new UsageError('--field (fields) maps the fields of jsonl:, parquet: and hf: suites, and --suites names none');
  }
  for (const id of config.suites.filter((s) => !SELFPLAY_ALIASES.includes(s))) {
    const { plugin, argument } = await registry.resolve('suite', id);
    const options: Record<string, unknown> = { dataDir: config.dataDir, skipBad: config.skipBad, ...config.suiteOptions?.[id] };
    // `fields` (--field) maps the fields of every dataset suite, over its own mapping.
    if (config.fields && DATASET_SUITE.test(id)) options.mapping = { ...(options.mapping as object | undefined), ...config.fields };
    suites.push(checkedSuite(plugin.id, await fromPlugin(plugin.id, 'create()', () => (plugin as SuitePlugin).create(argument, options))));
  }
  // Check the sandboxes now, so a typo stops the run before anything is written; each is then
  // fixed for the whole run (its worker threads, its queue workers and a resume). The Python
  // one only when the run may meet Python (choosing it tries the cpython jail: bubblewrap is
  // started), or when the config names it.
  config.sandbox = (await chooseSandbox(registry, config, 'javascript')).id;
  if (config.pythonSandbox || mayRunPython(registry, config, selfplay, suites)) config.pythonSandbox = (await chooseSandbox(registry, config, 'python')).id;
  const providers = new Map<string, Provider>();
  const designer = (await resolveRole(registry, 'designer', config.designer, config, providers)) as Designer;
  const agent = (await resolveRole(registry, 'agent', config.agent, config, providers)) as Agent;
  let reviewer: EnvironmentReviewer | undefined;
  if (config.selfplay.reviewer) {
    const id = config.selfplay.reviewer;
    let provider = providers.get(id);
    if (!provider) providers.set(id, (provider = await createProvider(registry, id, config, 'reviewer')));
    const systemPrompt = rolePrompt(config, 'reviewer', registry.cwd);
    reviewer = createLLMReviewer(provider, { ...samplingOf(config, 'reviewer'), ...(systemPrompt ? { systemPrompt } : {}), ...(config.designerProtocol === 'spade' ? { spade: spadeCodeFor(config) } : {}) });
  }
  // A model designer also writes the hint of a valid program that has none, as SPADE's does.
  let hintWriter: HintWriter | undefined;
  const designerProvider = providers.get(config.designer);
  if (designer.kind === 'llm' && designerProvider) {
    const systemPrompt = rolePrompt(config, 'hint', registry.cwd);
    hintWriter = createHintWriter(designerProvider, { ...samplingOf(config, 'hint'), seed: config.seed, ...(systemPrompt ? { systemPrompt } : {}), ...(config.designerProtocol === 'spade' ? { spade: spadeCodeFor(config) } : {}) });
  }
  const ownPrompts = (['designer', 'hint', 'reviewer'] as const).filter((role) => config.prompts?.[role] !== undefined);
  if (config.designerProtocol === 'spade' && ownPrompts.length) {
    throw new UsageError(`prompts.${ownPrompts.join(', prompts.')}: these replace spade-bench's own prompts; under --designer-protocol spade the designer side sends SPADE's (drop them, or use --designer-protocol default)`);
  }
  // SPADE either designs a rejected slot afresh (its paper runs) or repairs it, never both; its
  // repair turns are not reproduced, and a repair here would be one more fresh design.
  if (config.designerProtocol === 'spade' && designer.kind === 'llm' && (config.selfplay.repairs ?? 0) > 0) {
    throw new UsageError("--repairs: under --designer-protocol spade a rejected slot is designed afresh (--slot-attempts, 5 by default), never repaired (drop --repairs, or use --designer-protocol default)");
  }
  if (config.selfplay.memory === 'spade' && config.designerProtocol !== 'spade' && designer.kind === 'llm') {
    throw new UsageError("--memory spade is SPADE's selection shown in SPADE's prompt: it needs --designer-protocol spade (or use --memory own or off)");
  }
  // SPADE's code runs now once, so a missing interpreter or source stops the run before it starts.
  if (config.designerProtocol === 'spade' && designer.kind === 'llm') await loadSpadePlayerTemplate(spadeCodeFor(config));
  const sandboxes = createSandboxSet(registry, config, options.sandboxWorkers);
  return {
    designer,
    agent,
    reviewer,
    hintWriter,
    ...(config.designerProtocol === 'spade' || config.selfplay.memory === 'spade' ? { spadeCode: spadeCodeFor(config) } : {}),
    suites,
    selfplay,
    sandboxes,
    providers: [...providers.values()],
    ...providerStats(providers),
    close: async () => {
      await sandboxes.close();
      await Promise.all([...providers.values()].map((p) => p.close?.()));
    },
  };
}

/** What a worker (a thread or a queue worker) evaluates environments with: the run's agent and sandboxes. */
export interface AgentParts {
  agent: Agent;
  sandboxes: SandboxSet;
  close(): Promise<void>;
}

/**
 * The agent and the sandboxes of a run, without its designer, suites or reviewer, which stay
 * with the run: what a worker builds for itself from the run's config.
 */
export async function resolveAgentParts(registry: PluginRegistry, config: SpadeConfig, options: { sandboxWorkers?: number } = {}): Promise<AgentParts> {
  await registry.register(config.plugins);
  const providers = new Map<string, Provider>();
  const agent = (await resolveRole(registry, 'agent', config.agent, config, providers)) as Agent;
  const sandboxes = createSandboxSet(registry, config, options.sandboxWorkers);
  return {
    agent,
    sandboxes,
    close: async () => {
      await sandboxes.close();
      await Promise.all([...providers.values()].map((p) => p.close?.()));
    },
  };
}
