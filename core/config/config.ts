/**
 * Configuration: `defineConfig()` for typing, discovery of `spade.config.*` with cosmiconfig,
 * validation with messages that name the key path, defaults, and CLI overrides. The keys, their
 * schema and their defaults come from the table of options (core/config/options.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Loader } from 'cosmiconfig';
import { UsageError } from '../errors.js';
import { defaultValue, RUN_OPTIONS, schemaOf, type ConfigOf, type Entries, type UserConfigOf } from './options.js';

export type { ProviderConfig } from './options.js';

/** A resolved config: every key with a default holds a value. */
export type SpadeConfig = ConfigOf<typeof RUN_OPTIONS>;
export type SelfPlayConfig = SpadeConfig['selfplay'];
/** What a config file (or run()) gives: every key optional. */
export type UserConfig = UserConfigOf<typeof RUN_OPTIONS>;

/** Types a config file's default export. */
export function defineConfig(config: UserConfig): UserConfig {
  return config;
}

const configSchema = schemaOf(RUN_OPTIONS);

/**
 * Check a user config; throws a UsageError naming the first wrong key path, prefixed with
 * `source` (the file). A key under an old name is refused with the name that replaced it.
 */
export function validateConfig(config: unknown, source = 'config'): UserConfig {
  try {
    configSchema(config, '');
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${source}: ${error.message}`);
    throw error;
  }
  return config as UserConfig;
}

/** Each entry's value from the last layer that sets it, else its kept default (computed now). */
function resolveEntries(entries: Entries, layers: (Record<string, unknown> | undefined)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Keys of the table first, in its order; keys it does not know (an older journal's) after.
  for (const [key, entry] of Object.entries(entries)) {
    const given = layers.map((layer) => layer?.[key]).filter((v) => v !== undefined);
    if (entry.kind === 'section') out[key] = resolveEntries(entry.entries, given as Record<string, unknown>[]);
    else if (entry.mergeLayers) out[key] = Object.assign({}, entry.defaultKind === 'kept' ? defaultValue(entry) : {}, ...given);
    else {
      const value = given.length ? given.at(-1) : entry.defaultKind === 'kept' ? defaultValue(entry) : undefined;
      if (value !== undefined) out[key] = value;
    }
  }
  return out;
}

/** Defaults, then the file, then CLI flags (each already validated). */
export function resolveConfig(file: UserConfig, overrides: UserConfig = {}): SpadeConfig {
  return resolveEntries(RUN_OPTIONS, [file, overrides] as Record<string, unknown>[]) as SpadeConfig;
}

/** The defaults: the config of a run given no file and no flags (its `out` is the time this module loaded). */
export const DEFAULT_CONFIG: SpadeConfig = resolveConfig({});

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

/** The config file of `cwd`: the first of CONFIG_FILES there (package.json only with a `spade` key, or when it cannot be read). */
function configFileIn(cwd: string): string | undefined {
  for (const name of CONFIG_FILES) {
    const file = path.join(cwd, name);
    if (!existsSync(file)) continue;
    if (name !== 'package.json') return file;
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      if (pkg !== null && typeof pkg === 'object' && 'spade' in pkg) return file;
    } catch {
      return file; // let the loader say what is wrong with it
    }
  }
  return undefined;
}

/**
 * A JSON config file (not package.json) read directly: what cosmiconfig's JSON loader gives for
 * a file that parses (JSON.parse, an all-blank file being empty), without importing cosmiconfig
 * and its parsers (~20-30 ms of a run's start). Undefined when the file is another kind, cannot be
 * read or does not parse: cosmiconfig then loads it, and words the error.
 */
function readJsonConfig(file: string): { value: unknown; empty: boolean } | undefined {
  if (!file.endsWith('.json') || path.basename(file) === 'package.json') return undefined;
  try {
    const text = readFileSync(file, 'utf8');
    if (text.trim() === '') return { value: undefined, empty: true };
    const value = JSON.parse(text) as unknown;
    // null (no config to cosmiconfig) and `$import` (other files merged in) are cosmiconfig's to read.
    if (value === null || (typeof value === 'object' && Object.hasOwn(value, '$import'))) return undefined;
    return { value, empty: false };
  } catch {
    return undefined;
  }
}

/**
 * Find and load the config: `file` when given, else the first of CONFIG_FILES in `cwd`
 * (package.json counts only with a `spade` key). Returns the validated user config and its path.
 */
export async function loadConfigFile(cwd: string, file?: string): Promise<{ config: UserConfig; filepath?: string }> {
  const found = file ? path.resolve(cwd, file) : configFileIn(cwd);
  // No config here: the loader (cosmiconfig, and tsx for TypeScript) is not even imported.
  if (!found) return { config: {} };
  const json = readJsonConfig(found);
  if (json) return json.empty ? { config: {}, filepath: found } : { config: validateConfig(json.value, path.relative(cwd, found) || found), filepath: found };
  const { cosmiconfig } = await import('cosmiconfig');
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
