/**
 * Turn a resolved config into the parts of a run: designer, agent, sandboxes, suites.
 * Everything that can be wrong with the config (an unknown plugin id, a missing API key) is
 * found here, before any work starts or any file is written.
 */
import type { Agent, Designer, Language, Sandbox, Suite } from './types.js';
import type { SpadeConfig } from './config.js';
import type { SandboxSet } from './evaluate.js';
import { PluginRegistry, type ProviderOptions, type ProviderPlugin } from './plugin.js';
import { BUILTINS } from './builtins.js';
import { UsageError } from './errors.js';
import { SELFPLAY_SUITE } from './run.js';

/** Ids the CLI accepts for the self-play pool in `--suites`. */
export const SELFPLAY_ALIASES = [SELFPLAY_SUITE, 'selfplay'];

export function createRegistry(cwd = process.cwd()): PluginRegistry {
  return new PluginRegistry(BUILTINS, cwd);
}

/** The sandbox for JavaScript is the configured one; Python gets `pyodide` on first use. */
export function createSandboxSet(registry: PluginRegistry, config: SpadeConfig): SandboxSet {
  const made = new Map<Language, Promise<Sandbox>>();
  const create = async (id: string): Promise<Sandbox> => {
    const { plugin } = await registry.resolve('sandbox', id);
    return (plugin as { create: (o: object) => Sandbox | Promise<Sandbox> }).create({ limits: config.limits });
  };
  return {
    get(language) {
      let sandbox = made.get(language);
      if (!sandbox) {
        sandbox = create(language === 'javascript' ? config.sandbox : 'pyodide');
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
  /** Providers created for LLM roles (their usage feeds metrics.usage). */
  providers: { id: string; close?: () => Promise<void> }[];
  close(): Promise<void>;
}

/** Options for provider `id` from config: exact id first, then its prefix. */
export function providerOptions(config: SpadeConfig, id: string, model: string): ProviderOptions {
  const prefix = id.split(':')[0]!;
  return { ...config.providers[prefix], ...config.providers[id], model };
}

async function resolveRole<T extends Designer | Agent>(registry: PluginRegistry, kind: 'designer' | 'agent', id: string, config: SpadeConfig): Promise<T> {
  if (registry.has(kind, id)) {
    const { plugin } = await registry.resolve(kind, id);
    return (await (plugin as { create: (o: object) => unknown }).create({})) as T;
  }
  // Any other id is a model provider playing the role.
  const { plugin, argument } = await registry.resolve('provider', id).catch((error: Error) => {
    throw new UsageError(`--${kind} ${id}: ${error.message.replace(/^unknown provider/, 'unknown designer, agent or provider')}`);
  });
  const provider = plugin as ProviderPlugin;
  const options = providerOptions(config, id, argument ?? '');
  const missing = (provider.requiredEnv?.(options) ?? []).filter((name) => !options.apiKey && !process.env[name]);
  if (missing.length) {
    throw new UsageError(`missing API key for ${id}: set ${missing.join(' or ')} (or providers["${id}"].apiKey in the config)`);
  }
  throw new UsageError(`--${kind} ${id}: model-driven ${kind}s are not available in this build yet`);
}

export async function resolveRunParts(registry: PluginRegistry, config: SpadeConfig): Promise<RunParts> {
  await registry.register(config.plugins);
  const selfplay = config.suites.some((s) => SELFPLAY_ALIASES.includes(s));
  const suites: Suite[] = [];
  for (const id of config.suites.filter((s) => !SELFPLAY_ALIASES.includes(s))) {
    const { plugin, argument } = await registry.resolve('suite', id);
    suites.push(await (plugin as { create: (a: string | undefined, o: object) => Suite | Promise<Suite> }).create(argument, { dataDir: config.dataDir }));
  }
  // Check the sandbox id now, so a typo stops the run before anything is written.
  await registry.resolve('sandbox', config.sandbox);
  const designer = await resolveRole<Designer>(registry, 'designer', config.designer, config);
  const agent = await resolveRole<Agent>(registry, 'agent', config.agent, config);
  const sandboxes = createSandboxSet(registry, config);
  return {
    designer,
    agent,
    suites,
    selfplay,
    sandboxes,
    providers: [],
    close: () => sandboxes.close(),
  };
}
