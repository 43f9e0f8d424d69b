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
import { letFilesImportSpadeBench } from './plugin.js';
import { applyDesignerProtocolDefaults, defaultValue, RUN_OPTIONS, schemaOf, type ConfigOf, type Entries, type UserConfigOf } from './options.js';

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
  const resolved = resolveEntries(RUN_OPTIONS, [file, overrides] as Record<string, unknown>[]) as SpadeConfig;
  applyDesignerProtocolDefaults(resolved, [file, overrides] as Parameters<typeof applyDesignerProtocolDefaults>[1]);
  return resolved;
}

/** The defaults: the config of a run given no file and no flags (its `out` is the time this module loaded). */
export const DEFAULT_CONFIG: SpadeConfig = resolveConfig({});

// ---------------------------------------------------------------------------------------------
// Discovery
// ---------------------------------------------------------------------------------------------

const importModule: Loader = async (filepath) => {
  const url = pathToFileURL(filepath).href;
  // A config outside a project with spade-bench installed may still import it (defineConfig).
  letFilesImportSpadeBench(filepath);
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

/** 1-based line and column of `offset` in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** Where JSON text stops being JSON: the offset of the first character a strict reader refuses. */
export function jsonErrorOffset(text: string): number {
  let at = 0;
  const fail = (): never => {
    throw at;
  };
  const ws = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const literal = (word: string): void => {
    for (const c of word) if (text[at++] !== c) (at--, fail());
  };
  const string = (): void => {
    at++;
    while (at < text.length && text[at] !== '"') {
      if (text.charCodeAt(at) < 0x20) fail();
      if (text[at] === '\\') {
        at++;
        if (text[at] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) fail();
          at += 4;
        } else if (!'"\\/bfnrt'.includes(text[at] ?? 'x')) fail();
      }
      at++;
    }
    if (text[at] !== '"') fail();
    at++;
  };
  const value = (): void => {
    ws();
    const c = text[at];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      at++;
      ws();
      if (text[at] === close) return void at++;
      for (;;) {
        if (c === '{') {
          ws();
          if (text[at] !== '"') fail();
          string();
          ws();
          if (text[at] !== ':') fail();
          at++;
        }
        value();
        ws();
        if (text[at] === ',') at++;
        else if (text[at] === close) return void at++;
        else fail();
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at));
    if (!number) fail();
    at += number![0].length;
  };
  try {
    value();
    ws();
    if (at < text.length) fail();
  } catch (offset) {
    if (typeof offset === 'number') return offset;
    throw offset;
  }
  return -1;
}

/**
 * A config file that cannot be loaded, as `file:line:column: the parser's message`: from the
 * TypeScript compiler's (esbuild's) located error, from our own reading of JSON, from acorn's
 * reading of a JavaScript file (Node's SyntaxError says no place), or from the stack of an error
 * the file threw while it ran. The whole message is kept.
 */
async function configErrorMessage(error: Error, file: string, cwd: string): Promise<string> {
  const shown = path.relative(cwd, file) || file;
  // Node's list of the modules that required it says nothing of the config's own mistake.
  const message = error.message.replace(/\nRequire stack:[\s\S]*$/, '');
  // A TypeScript config in a CommonJS folder is loaded as CommonJS, where spade-bench (an ES
  // module of the running command) is not found: say how to load it as an ES module.
  if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && /'spade-bench(\/[^']*)?'/.test(message) && /\.ts$/.test(file)) {
    return `${shown}: ${message}: a .ts config imports spade-bench as an ES module; say "type": "module" in its folder's package.json (npm pkg set type=module), or name it spade.config.mts`;
  }
  // esbuild: "Transform failed with 1 error:\n/path/spade.config.ts:4:0: ERROR: Expected ..." (0-based columns).
  const located = [...message.matchAll(/^(.*?):(\d+):(\d+): ERROR: (.*)$/gm)];
  if (located.length) return located.map((m) => `${path.relative(cwd, m[1]!) || m[1]}:${m[2]}:${Number(m[3]) + 1}: ${m[4]}`).join('\n');
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return `${shown}: ${message}`;
  }
  if (/\.json$/.test(file)) {
    const offset = jsonErrorOffset(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    let detail = message.replace(/^JSON Error in [^\n]*:\n/, '');
    try {
      JSON.parse(text);
    } catch (parse) {
      detail = (parse as Error).message;
    }
    if (offset >= 0) {
      const { line, column } = lineColumn(text, offset);
      return `${shown}:${line}:${column}: ${detail}`;
    }
    return `${shown}: ${detail}`;
  }
  if (error instanceof SyntaxError && /\.(c|m)?js$/.test(file)) {
    try {
      const acorn = await import('acorn');
      acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true });
    } catch (parse) {
      const loc = (parse as { loc?: { line: number; column: number } }).loc;
      if (loc) return `${shown}:${loc.line}:${loc.column + 1}: ${message}`;
    }
  }
  // An error thrown while the file ran: its place in the file, from the stack.
  const frame = new RegExp(`${pathToFileURL(file).href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+):(\\d+)`).exec(error.stack ?? '');
  return frame ? `${shown}:${frame[1]}:${frame[2]}: ${message}` : `${shown}: ${message}`;
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
    const e = error as NodeJS.ErrnoException & { filepath?: string };
    if (e.code === 'ENOENT') throw new UsageError(`config file not found: ${path.resolve(cwd, file ?? '')}`);
    throw new UsageError(`cannot load config ${await configErrorMessage(e, e.filepath ?? found, cwd)}`);
  }
  if (!result || result.isEmpty) return { config: {}, filepath: result?.filepath };
  const where = path.relative(cwd, result.filepath) || result.filepath;
  return { config: validateConfig(result.config, where), filepath: result.filepath };
}
