/**
 * Configuration: `defineConfig()` for typing, discovery of `spade.config.*` with cosmiconfig,
 * validation with messages that name the key path, defaults, and CLI overrides.
 */
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cosmiconfig, type Loader } from 'cosmiconfig';
import type { Language, SandboxLimits } from './types.js';
import { UsageError } from './errors.js';
import { DESIGNER_REWARDS, type DesignerRewardName } from './rewards.js';

export interface SelfPlayConfig {
  /** Rounds of design → gate → play → reward. */
  rounds: number;
  /** Environments the designer writes each round. */
  envsPerRound: number;
  /** Episodes per environment, played both with and without the hint. */
  attempts: number;
  /** The designer reward (SPADE's regret + difficulty band by default). */
  reward: DesignerRewardName;
  /** Language an LLM designer writes (SPADE's is Python). */
  language?: Language;
  /** JSONL file with a `text` field: one sampled document grounds each LLM design. */
  corpus?: string;
  /** Repairs of a rejected program, with the gate's reason fed back to the designer. */
  repairs?: number;
  /** Provider id of an LLM reviewer run after the gate (SPADE's "accept unless a clear fatal bug"). */
  validator?: string;
}

export interface ProviderConfig {
  baseURL?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  params?: Record<string, unknown>;
  /** Most requests in flight to this provider. */
  concurrency?: number;
  timeoutMs?: number;
  maxRetries?: number;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  /** US dollars per million tokens, overriding the built-in price table. */
  price?: { input: number; output: number };
  [key: string]: unknown;
}

export interface SpadeConfig {
  /** `reference` (the offline reference policy) or a provider id such as `openai:gpt-4.1-mini`. */
  designer: string;
  /** `reference` or a provider id. */
  agent: string;
  /** Sandbox for JavaScript environment programs: `isolated-vm` (default) or `vm2`. */
  sandbox: string;
  /**
   * Sandbox for Python environment programs: `cpython` (Debian's CPython with numpy in a
   * bubblewrap jail) or `pyodide`. Unset: `cpython` where its jail works, else `pyodide`.
   */
  pythonSandbox?: 'pyodide' | 'cpython';
  /** `spade` is the self-play pool; the others are static suites (`procedural`, ...). */
  suites: string[];
  seed: number;
  /** Episodes played at once. */
  concurrency: number;
  /** Output folder of the run. */
  out: string;
  /** Tasks per static suite (all when unset). */
  limit?: number;
  /** Where datasets are downloaded and cached. */
  dataDir?: string;
  /** Skip malformed dataset lines (and count them) instead of stopping. */
  skipBad?: boolean;
  /** Options per suite id, e.g. `{ "jsonl:data/pace.jsonl": { mapping: { question: "q", answer: "a", checker: "numeric" } } }`. */
  suiteOptions?: Record<string, Record<string, unknown>>;
  /** Stop the run cleanly after this many errored episodes, or this share of them (`"20%"`). */
  maxErrors?: number | string;
  /** Response cache for model calls. */
  cache: boolean;
  /** Folder of the response cache. */
  cacheDir: string;
  /** Plugin files or packages to load (`./my-provider.ts`, `npm:spade-provider-x`). */
  plugins: string[];
  /** Options per provider id (`"openai:gpt-4.1-mini"`) or prefix (`"openai"`). */
  providers: Record<string, ProviderConfig>;
  /** Sandbox limits per environment. */
  limits: Partial<SandboxLimits>;
  /** How an LLM agent keeps a long episode: `full`, `window:K` or `summary[:K]`. */
  agentMemory?: string;
  selfplay: SelfPlayConfig;
}

export type UserConfig = Partial<Omit<SpadeConfig, 'selfplay'>> & { selfplay?: Partial<SelfPlayConfig> };

/** Types a config file's default export. */
export function defineConfig(config: UserConfig): UserConfig {
  return config;
}

export const DEFAULT_CONFIG: SpadeConfig = {
  designer: 'reference',
  agent: 'reference',
  sandbox: 'isolated-vm',
  suites: ['spade', 'procedural'],
  seed: 1,
  concurrency: 8,
  out: 'runs/latest',
  cache: true,
  cacheDir: path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'spade-bench', 'responses'),
  plugins: [],
  providers: {},
  limits: {},
  selfplay: { rounds: 3, envsPerRound: 16, attempts: 4, reward: 'spade' },
};

// ---------------------------------------------------------------------------------------------
// Validation: a small schema whose messages name the key path.
// ---------------------------------------------------------------------------------------------

type Check = (value: unknown, at: string) => void;

const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};
const fail = (at: string, expected: string, value: unknown): never => {
  throw new UsageError(`${at}: expected ${expected}, got ${show(value)}`);
};

const str: Check = (v, at) => {
  if (typeof v !== 'string' || v === '') fail(at, 'a non-empty string', v);
};
const bool: Check = (v, at) => {
  if (typeof v !== 'boolean') fail(at, 'true or false', v);
};
const int = (min: number, what: string): Check => (v, at) => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) fail(at, what, v);
};
const posInt = int(1, 'a positive integer');
const nonNegInt = int(0, 'a non-negative integer');
const posNum: Check = (v, at) => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(at, 'a positive number', v);
};
const oneOf = (values: readonly string[]): Check => (v, at) => {
  if (typeof v !== 'string' || !values.includes(v)) fail(at, `one of ${values.map((x) => `"${x}"`).join(', ')}`, v);
};
const list = (item: Check, nonEmpty = false): Check => (v, at) => {
  if (!Array.isArray(v) || (nonEmpty && v.length === 0)) fail(at, nonEmpty ? 'a non-empty list' : 'a list', v);
  (v as unknown[]).forEach((x, i) => item(x, `${at}[${i}]`));
};
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const anyObject: Check = (v, at) => {
  if (!isPlainObject(v)) fail(at, 'an object', v);
};
const object = (shape: Record<string, Check>, open = false): Check => (v, at) => {
  if (!isPlainObject(v)) fail(at || 'config', 'an object', v);
  for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
    const keyPath = at ? `${at}.${key}` : key;
    const check = shape[key];
    if (!check) {
      if (open) continue;
      throw new UsageError(`${keyPath}: unknown key (known keys${at ? ` of ${at}` : ''}: ${Object.keys(shape).join(', ')})`);
    }
    if (value !== undefined) check(value, keyPath);
  }
};
const record = (item: Check): Check => (v, at) => {
  anyObject(v, at);
  for (const [key, value] of Object.entries(v as Record<string, unknown>)) item(value, `${at}["${key}"]`);
};

const providerSchema = object(
  {
    baseURL: str, apiKey: str, headers: record(str), params: anyObject, concurrency: posInt, timeoutMs: posInt,
    maxRetries: nonNegInt, requestsPerMinute: posNum, tokensPerMinute: posNum,
    price: object({ input: (v, at) => { if (typeof v !== 'number' || v < 0) fail(at, 'a price ≥ 0', v); }, output: (v, at) => { if (typeof v !== 'number' || v < 0) fail(at, 'a price ≥ 0', v); } }),
  },
  true,
);

const configSchema = object({
  designer: str,
  agent: str,
  sandbox: str,
  pythonSandbox: oneOf(['pyodide', 'cpython']),
  suites: list(str, true),
  seed: nonNegInt,
  concurrency: posInt,
  out: str,
  limit: posInt,
  dataDir: str,
  skipBad: bool,
  suiteOptions: record(anyObject),
  maxErrors: (v, at) => {
    if (!((typeof v === 'number' && Number.isInteger(v) && v > 0) || (typeof v === 'string' && /^(\d+(\.\d+)?%|[1-9]\d*)$/.test(v.trim())))) {
      fail(at, 'a positive integer or a percentage such as "20%"', v);
    }
  },
  cache: bool,
  cacheDir: str,
  plugins: list(str),
  providers: record(providerSchema),
  limits: object({ callTimeoutMs: posInt, memoryMb: posInt, maxOutputBytes: posInt, maxCalls: posInt }),
  selfplay: object({
    rounds: posInt,
    envsPerRound: posInt,
    attempts: posInt,
    reward: oneOf(DESIGNER_REWARDS),
    language: oneOf(['python', 'javascript']),
    corpus: str,
    repairs: nonNegInt,
    validator: str,
  }),
  agentMemory: (v, at) => {
    if (typeof v !== 'string' || !/^(full|window:[1-9]\d*|summary(:[1-9]\d*)?)$/.test(v)) fail(at, '"full", "window:K" or "summary[:K]"', v);
  },
});

/** Check a user config; throws a UsageError naming the first wrong key path. */
export function validateConfig(config: unknown, source = 'config'): UserConfig {
  try {
    configSchema(config, '');
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${source}: ${error.message}`);
    throw error;
  }
  return config as UserConfig;
}

/** Defaults, then the file, then CLI flags (already validated). */
export function resolveConfig(file: UserConfig, overrides: UserConfig = {}): SpadeConfig {
  const pick = <T extends object>(...layers: (Partial<T> | undefined)[]): T =>
    Object.assign({}, ...layers.map((l) => Object.fromEntries(Object.entries(l ?? {}).filter(([, v]) => v !== undefined)))) as T;
  return {
    ...pick<SpadeConfig>(DEFAULT_CONFIG, file as Partial<SpadeConfig>, overrides as Partial<SpadeConfig>),
    selfplay: pick<SelfPlayConfig>(DEFAULT_CONFIG.selfplay, file.selfplay, overrides.selfplay),
    limits: pick<Partial<SandboxLimits>>(DEFAULT_CONFIG.limits, file.limits, overrides.limits),
    providers: { ...file.providers, ...overrides.providers },
  };
}

// ---------------------------------------------------------------------------------------------
// Discovery
// ---------------------------------------------------------------------------------------------

const importModule: Loader = async (filepath) => {
  const url = pathToFileURL(filepath).href;
  const mod = /\.(c|m)?ts$/.test(filepath)
    ? await (await import('tsx/esm/api')).tsImport(url, import.meta.url)
    : await import(url);
  // tsImport of a TS file may wrap the default export once more.
  let value = mod.default ?? mod;
  if (value && typeof value === 'object' && 'default' in value && Object.keys(value).length === 1) value = value.default;
  return value;
};

export const CONFIG_FILES = ['spade.config.ts', 'spade.config.mts', 'spade.config.mjs', 'spade.config.js', 'spade.config.json', 'package.json'];

/**
 * Find and load the config: `file` when given, else the first of CONFIG_FILES in `cwd`
 * (package.json counts only with a `spade` key). Returns the validated user config and its path.
 */
export async function loadConfigFile(cwd: string, file?: string): Promise<{ config: UserConfig; filepath?: string }> {
  const explorer = cosmiconfig('spade', {
    searchPlaces: CONFIG_FILES,
    searchStrategy: 'none',
    loaders: { '.ts': importModule, '.mts': importModule, '.mjs': importModule, '.js': importModule },
    cache: false,
  });
  let result;
  try {
    result = file ? await explorer.load(path.resolve(cwd, file)) : await explorer.search(cwd);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new UsageError(`config file not found: ${path.resolve(cwd, file ?? '')}`);
    throw new UsageError(`cannot load config ${file ?? ''}: ${e.message.split('\n')[0]}`.replace('  ', ' '));
  }
  if (!result || result.isEmpty) return { config: {}, filepath: result?.filepath };
  const where = path.relative(cwd, result.filepath) || result.filepath;
  return { config: validateConfig(result.config, where), filepath: result.filepath };
}
