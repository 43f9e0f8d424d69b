/**
 * Turn a resolved config into the parts of a run: designer, agent, sandboxes, suites.
 * Everything that can be wrong with the config (an unknown plugin id, a missing API key) is
 * found here, before any work starts or any file is written.
 */
import path from 'node:path';
import { availableParallelism } from 'node:os';
import type { Agent, Designer, Language, Provider, Sandbox, Suite } from './types.js';
import type { UsageMetrics } from './results.js';
import type { SpadeConfig } from './config.js';
import type { SandboxSet } from './evaluate.js';
import { PluginRegistry, isExternalId, type ProviderOptions, type ProviderPlugin, type RolePlugin, type SandboxPlugin, type SuitePlugin } from './plugin.js';
import { missingKeyMessage } from './providers/keys.js';
import { statsOf } from './providers/layer.js';
import { addUsage, emptyUsage } from './providers/stats.js';
import { createLLMAgent } from './roles/llm-agent.js';
import { createLLMDesigner } from './roles/llm-designer.js';
import { loadCorpus } from './roles/corpus.js';
import { createLLMValidator, type EnvironmentReviewer } from './roles/llm-validator.js';
import { BUILTINS } from './builtins.js';
import { UsageError } from './errors.js';
import { SELFPLAY_SUITE } from './run.js';

/** Ids the CLI accepts for the self-play pool in `--suites`. */
export const SELFPLAY_ALIASES = [SELFPLAY_SUITE, 'selfplay'];

export function createRegistry(cwd = process.cwd()): PluginRegistry {
  return new PluginRegistry(BUILTINS, cwd);
}

export interface PythonSandboxChoice {
  id: 'pyodide' | 'cpython';
  /** Why it is the one in force, in words (`spade-bench list`, the run's first line). */
  why: string;
}

/**
 * The sandbox Python programs run in: the configured one (`--python-sandbox`, `pythonSandbox`),
 * refused with a UsageError naming the fix when it cannot run here; unset, `cpython` where its
 * jail works, else `pyodide`.
 */
export async function choosePythonSandbox(registry: PluginRegistry, config: Pick<SpadeConfig, 'pythonSandbox'>): Promise<PythonSandboxChoice> {
  const problemOf = async (id: string): Promise<string | undefined> => {
    const { plugin } = await registry.resolve('sandbox', id);
    return (plugin as SandboxPlugin).unavailable?.();
  };
  if (config.pythonSandbox) {
    const problem = await problemOf(config.pythonSandbox);
    if (problem) throw new UsageError(`--python-sandbox ${config.pythonSandbox}: ${problem}`);
    return { id: config.pythonSandbox, why: 'chosen with --python-sandbox or pythonSandbox in the config' };
  }
  const problem = await problemOf('cpython');
  return problem
    ? { id: 'pyodide', why: `the default here, because cpython cannot run: ${problem}` }
    : { id: 'cpython', why: 'the default: its jail works on this machine' };
}

/**
 * The sandbox for JavaScript is the configured one; Python gets the configured Python sandbox
 * (chosen as choosePythonSandbox says when unset) on first use. `workers` is how many processes
 * a sandbox that has them (pyodide, cpython) may start: one per core by default, fewer where
 * several sets share the cores (worker threads, queue workers).
 */
export function createSandboxSet(registry: PluginRegistry, config: SpadeConfig, workers = availableParallelism()): SandboxSet {
  const made = new Map<Language, Promise<Sandbox>>();
  const create = async (id: string): Promise<Sandbox> => {
    const { plugin } = await registry.resolve('sandbox', id);
    return (plugin as SandboxPlugin).create({ limits: config.limits, workers: Math.max(1, Math.floor(workers)) });
  };
  const python = async (): Promise<Sandbox> => create((await choosePythonSandbox(registry, config)).id);
  return {
    get(language) {
      let sandbox = made.get(language);
      if (!sandbox) {
        sandbox = language === 'javascript' ? create(config.sandbox) : python();
        made.set(language, sandbox);
      }
      return sandbox;
    },
    async close() {
      const all = await Promise.allSettled(made.values());
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
  /** The optional LLM reviewer after the gate (--validator). */
  reviewer?: EnvironmentReviewer;
  /** Providers created for LLM roles. */
  providers: Provider[];
  /** Their usage so far, summed (metrics.usage). */
  usage: () => UsageMetrics;
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
  if (keyVariables.length && !keyVariables.some((name) => process.env[name])) throw new UsageError(missingKeyMessage(id, keyVariables));
  return provider.create(options);
}

async function resolveRole(registry: PluginRegistry, kind: 'designer' | 'agent', id: string, config: SpadeConfig, providers: Map<string, Provider>): Promise<Designer | Agent> {
  if (registry.has(kind, id)) {
    const { plugin } = await registry.resolve(kind, id);
    return (await (plugin as RolePlugin).create({})) as Designer | Agent;
  }
  // Any other id is a model provider playing the role; designer and agent share one provider.
  let provider = providers.get(id);
  if (!provider) {
    provider = await createProvider(registry, id, config, kind);
    providers.set(id, provider);
  }
  if (kind === 'agent') {
    try {
      return createLLMAgent(provider, { memory: config.agentMemory });
    } catch (error) {
      throw new UsageError(`--agent-memory: ${(error as Error).message}`);
    }
  }
  const { language, corpus } = config.selfplay;
  return createLLMDesigner(provider, { language, corpus: corpus ? await loadCorpus(path.resolve(corpus)) : undefined });
}

export async function resolveRunParts(registry: PluginRegistry, config: SpadeConfig, options: { sandboxWorkers?: number } = {}): Promise<RunParts> {
  await registry.register(config.plugins);
  const selfplay = config.suites.some((s) => SELFPLAY_ALIASES.includes(s));
  const suites: Suite[] = [];
  for (const id of config.suites.filter((s) => !SELFPLAY_ALIASES.includes(s))) {
    const { plugin, argument } = await registry.resolve('suite', id);
    const options = { dataDir: config.dataDir, skipBad: config.skipBad, ...config.suiteOptions?.[id] };
    suites.push(await (plugin as SuitePlugin).create(argument, options));
  }
  // Check the sandbox id now, so a typo stops the run before anything is written; the same for
  // the Python sandbox, which is then fixed for the whole run (and its workers, and a resume).
  await registry.resolve('sandbox', config.sandbox);
  config.pythonSandbox = (await choosePythonSandbox(registry, config)).id;
  const providers = new Map<string, Provider>();
  const designer = (await resolveRole(registry, 'designer', config.designer, config, providers)) as Designer;
  const agent = (await resolveRole(registry, 'agent', config.agent, config, providers)) as Agent;
  let reviewer: EnvironmentReviewer | undefined;
  if (config.selfplay.validator) {
    const id = config.selfplay.validator;
    let provider = providers.get(id);
    if (!provider) providers.set(id, (provider = await createProvider(registry, id, config, 'validator')));
    reviewer = createLLMValidator(provider);
  }
  const sandboxes = createSandboxSet(registry, config, options.sandboxWorkers);
  return {
    designer,
    agent,
    reviewer,
    suites,
    selfplay,
    sandboxes,
    providers: [...providers.values()],
    usage: () => addUsage(emptyUsage(), ...[...providers.values()].map((p) => statsOf(p)?.usage() ?? emptyUsage())),
    latencyMark: () => [...providers.values()].map((p) => statsOf(p)?.recorded ?? 0),
    latencySince: (mark) => [...providers.values()].flatMap((p, i) => statsOf(p)?.samplesAfter(mark[i] ?? 0) ?? []),
    close: async () => {
      await sandboxes.close();
      await Promise.all([...providers.values()].map((p) => p.close?.()));
    },
  };
}
