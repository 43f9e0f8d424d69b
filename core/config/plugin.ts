/**
 * Plugins: what a plugin module exports (`definePlugin`) and how ids resolve to plugins.
 * Built-ins are found by name and imported lazily (so an SDK is loaded only when used);
 * others are loaded from a file path (.ts, .js, .mjs) or an npm package name.
 */
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { packageRoot } from '../results/versions.js';
import type { Agent, Designer, Language, Provider, Sandbox, SandboxLimits, Suite } from '../types.js';
import { UsageError } from '../errors.js';
import { closest } from './suggest.js';

/** Options every provider accepts (from config `providers["<id>"]`, plus its own extras). */
export interface ProviderOptions {
  /** The model name: the part of the id after the first `:`. */
  model: string;
  baseURL?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Model parameters passed through (temperature, max_tokens...). */
  params?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ProviderPlugin {
  kind: 'provider';
  /** The id prefix: `openai` resolves `openai:gpt-4.1-mini`. */
  id: string;
  description: string;
  create(options: ProviderOptions): Provider | Promise<Provider>;
  /** Environment variables this provider reads its key from, checked before a run starts. */
  requiredEnv?(options: ProviderOptions): string[];
}

export interface SandboxPlugin {
  kind: 'sandbox';
  id: string;
  description: string;
  /** The languages its sandboxes run; a config naming it for another language is refused before the run starts. */
  languages?: readonly Language[];
  /** `pythonPath`: host folders to put read-only on the Python path (a sandbox that cannot, refuses with a UsageError). */
  create(options: { limits?: Partial<SandboxLimits>; workers?: number; pythonPath?: readonly string[] }): Sandbox | Promise<Sandbox>;
  /** Why this sandbox cannot run on this machine, naming the fix; undefined when it can. */
  unavailable?(): string | undefined | Promise<string | undefined>;
  /**
   * A hash of what decides how programs behave in it (its code, the library or interpreter it
   * runs them with). Curated datasets' gate verdicts are cached under it (core/gate/verdict-cache.ts);
   * a sandbox without one has its verdicts never cached.
   */
  fingerprint?(): string | Promise<string>;
}

export interface SuitePlugin {
  kind: 'suite';
  /** `humaneval`, or a prefix such as `jsonl` for `jsonl:PATH`. */
  id: string;
  description: string;
  create(argument: string | undefined, options: Record<string, unknown>): Suite | Promise<Suite>;
}

export interface RolePlugin {
  kind: 'designer' | 'agent';
  id: string;
  description: string;
  create(options: Record<string, unknown>): Designer | Agent | Promise<Designer | Agent>;
}

export type PluginDefinition = ProviderPlugin | SandboxPlugin | SuitePlugin | RolePlugin;
export type PluginKind = PluginDefinition['kind'];

/** Types a plugin module's default export. */
export function definePlugin<T extends PluginDefinition>(plugin: T): T {
  return plugin;
}

/** A built-in plugin, imported only when it is used. */
export interface BuiltinEntry {
  kind: PluginKind;
  id: string;
  description: string;
  load(): Promise<PluginDefinition>;
}

const KINDS: readonly PluginKind[] = ['provider', 'sandbox', 'suite', 'designer', 'agent'];

function checkDefinition(value: unknown, where: string): PluginDefinition {
  const v = value as Partial<PluginDefinition> | undefined;
  if (!v || typeof v !== 'object') throw new UsageError(`${where}: the module has no default export made with definePlugin()`);
  if (!KINDS.includes(v.kind as PluginKind)) {
    throw new UsageError(`${where}: plugin "kind" must be one of ${KINDS.join(', ')}, got ${JSON.stringify(v.kind)}`);
  }
  if (typeof v.id !== 'string' || !v.id) throw new UsageError(`${where}: plugin "id" must be a non-empty string`);
  if (typeof v.create !== 'function') throw new UsageError(`${where}: plugin "${v.id}" has no create() function`);
  return v as PluginDefinition;
}

/** True when an id names a file or package rather than a built-in. */
export function isExternalId(id: string): boolean {
  return id.startsWith('.') || id.startsWith('/') || /\.(m?js|ts|mts)$/.test(id) || id.startsWith('npm:');
}

/**
 * A resolve hook (Node's module.register) that lets a plugin or config file import
 * `spade-bench` (and its subpaths) where no copy is installed beside it, a file outside the
 * clone or the project: the import then names this running spade-bench. A copy the file can
 * reach the usual way is used first.
 */
const OWN_PACKAGE_HOOK = `
let map = {};
export function initialize(data) { map = data.map; }
export async function resolve(specifier, context, next) {
  if (!Object.hasOwn(map, specifier)) return next(specifier, context);
  try {
    return await next(specifier, context);
  } catch (error) {
    if (error && error.code === 'ERR_MODULE_NOT_FOUND') return next(map[specifier], context);
    throw error;
  }
}`;

let ownPackageHooked = false;

/**
 * True when a file in `dir` imports `spade-bench` without help: a copy installed in a
 * node_modules folder of `dir` or of a folder above it, or `dir` inside spade-bench's own package
 * (which imports itself by its name). These are the places Node looks for a package an ES module
 * imports by name (it reads no NODE_PATH or global folder for them).
 */
export function findsSpadeBench(dir: string): boolean {
  let scope: string | undefined;
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (existsSync(path.join(at, 'node_modules', 'spade-bench'))) return true;
    // The package the file is in: its nearest package.json.
    if (scope === undefined && existsSync(path.join(at, 'package.json'))) {
      scope = at;
      try {
        const pkg = JSON.parse(readFileSync(path.join(at, 'package.json'), 'utf8')) as { name?: unknown; exports?: unknown };
        if (pkg.name === 'spade-bench' && pkg.exports !== undefined) return true;
      } catch {
        // not a package.json Node can read: no help from it
      }
    }
    if (path.dirname(at) === at) return false;
  }
}

/**
 * Registers OWN_PACKAGE_HOOK once: each export of package.json mapped to this copy's file (its
 * source when run from source). Given the file about to be imported, only when that file would
 * not find spade-bench itself: Node runs module hooks on a thread of their own, which holds a
 * whole second JavaScript heap (~13 MiB) for the rest of the run.
 */
export function letFilesImportSpadeBench(file?: string): void {
  if (ownPackageHooked) return;
  if (file !== undefined && findsSpadeBench(path.dirname(file))) return;
  ownPackageHooked = true;
  const root = packageRoot();
  const fromSource = import.meta.url.endsWith('.ts');
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
  const map: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const file = exportTarget(target);
    if (!file?.endsWith('.js')) continue;
    const own = fromSource ? file.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts') : file;
    map[subpath === '.' ? 'spade-bench' : `spade-bench/${subpath.slice(2)}`] = pathToFileURL(path.join(root, own)).href;
  }
  register(`data:text/javascript,${encodeURIComponent(OWN_PACKAGE_HOOK)}`, { data: { map } });
}

/** An npm package name (`name`, `@scope/name`), with a subpath of it when given (`name/extra`). */
const PACKAGE_SPECIFIER = /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*(\/[\w.~-]+)*$/i;

/** A package.json `exports` entry resolved for an ES module import (conditions import, node, default). */
function exportTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) return target.map(exportTarget).find((t) => t !== undefined);
  if (target && typeof target === 'object') {
    for (const condition of ['import', 'node', 'default']) {
      const found = exportTarget((target as Record<string, unknown>)[condition]);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The file a package installed for the project at `cwd` gives an ES module import of
 * `specifier` (`name` or `name/subpath`): the package is the first node_modules/<name> from
 * `cwd` upwards, as Node looks for it, and the file its `exports` (or `main`) name.
 */
function packageFile(specifier: string, cwd: string): string {
  const parts = specifier.split('/');
  const name = parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  const subpath = `.${specifier.slice(name.length)}`;
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const root = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(root, 'package.json'))) {
      const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports?: unknown; main?: string };
      const exports = pkg.exports;
      const map = exports && typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports).some((k) => k.startsWith('.')) ? (exports as Record<string, unknown>) : { '.': exports };
      const target = exports === undefined ? (subpath === '.' ? pkg.main ?? 'index.js' : subpath) : exportTarget(map[subpath]);
      if (!target) throw new UsageError(`npm:${specifier}: package ${name} (${root}) exports no "${subpath}" for import`);
      return path.resolve(root, target);
    }
    if (path.dirname(dir) === dir) throw new UsageError(`npm:${specifier}: package ${name} is not installed in ${path.resolve(cwd)} or a folder above it (npm install ${name})`);
  }
}

/** Load a plugin module from a file path (relative to `cwd`) or an npm package of the project at `cwd` (`npm:name`). */
export async function loadExternalPlugin(id: string, cwd: string): Promise<PluginDefinition> {
  let file: string;
  if (id.startsWith('npm:')) {
    const name = id.slice(4);
    if (!PACKAGE_SPECIFIER.test(name) || name.split('/').some((part) => part === '.' || part === '..')) throw new UsageError(`plugin ${id}: npm: names a package (npm:name, npm:@scope/name); a file is given by its path (./my-plugin.ts)`);
    file = packageFile(name, cwd);
  } else {
    file = path.resolve(cwd, id);
  }
  if (!existsSync(file)) throw new UsageError(`plugin file not found: ${file}`);
  const specifier = pathToFileURL(file).href;
  let mod: Record<string, unknown>;
  letFilesImportSpadeBench(file);
  try {
    mod = specifier.endsWith('.ts') || specifier.endsWith('.mts')
      ? await (await import('tsx/esm/api')).tsImport(specifier, import.meta.url)
      : await import(specifier);
  } catch (error) {
    throw new UsageError(`cannot load plugin ${id}: ${(error as Error).message}`);
  }
  return checkDefinition(mod.default ?? mod.plugin, `plugin ${id}`);
}

/** Plugins known to a run: the built-ins, plus any loaded from files or packages. */
export class PluginRegistry {
  private readonly builtins = new Map<string, BuiltinEntry>();
  private readonly loaded = new Map<string, PluginDefinition>();
  /** Where each loaded plugin came from (its file or package), by kind and id. */
  private readonly loadedFrom = new Map<string, string>();

  /** The folder plugin paths (and other relative paths of the config) are relative to. */
  readonly cwd: string;

  constructor(builtins: readonly BuiltinEntry[], cwd = process.cwd()) {
    this.cwd = cwd;
    for (const entry of builtins) this.builtins.set(`${entry.kind}/${entry.id}`, entry);
  }

  /** Load plugins named in config (`plugins: ['./my-provider.ts']`) so their ids resolve. */
  async register(specifiers: readonly string[]): Promise<PluginDefinition[]> {
    const added: PluginDefinition[] = [];
    for (const spec of specifiers) {
      const plugin = await loadExternalPlugin(spec, this.cwd);
      const key = `${plugin.kind}/${plugin.id}`;
      // An id names one plugin: a built-in's, or one loaded file's (the same file may come twice).
      if (this.builtins.has(key)) throw new UsageError(`plugin ${spec}: its id "${plugin.id}" is a built-in ${plugin.kind}'s: give it an id of its own`);
      const earlier = this.loadedFrom.get(key);
      if (earlier !== undefined && earlier !== spec) throw new UsageError(`plugin ${spec}: its id "${plugin.id}" is that of ${earlier} too: give each ${plugin.kind} an id of its own`);
      this.loadedFrom.set(key, spec);
      this.loaded.set(key, plugin);
      added.push(plugin);
    }
    return added;
  }

  /** Every plugin, built-in and loaded, with a line of description. */
  list(): { kind: PluginKind; id: string; description: string; source: 'built-in' | 'loaded' }[] {
    return [
      ...[...this.builtins.values()].map((b) => ({ kind: b.kind, id: b.id, description: b.description, source: 'built-in' as const })),
      ...[...this.loaded.values()].map((p) => ({ kind: p.kind, id: p.id, description: p.description, source: 'loaded' as const })),
    ];
  }

  ids(kind: PluginKind): string[] {
    return this.list().filter((p) => p.kind === kind).map((p) => p.id);
  }

  has(kind: PluginKind, id: string): boolean {
    return this.loaded.has(`${kind}/${id}`) || this.builtins.has(`${kind}/${id}`);
  }

  /**
   * Resolve `id` of the given kind: an exact id, else the prefix before the first `:`
   * (`openai:gpt-4.1-mini` -> `openai`), else a file path or package.
   * Returns the plugin and the argument after the prefix (the model, the suite's path...).
   */
  async resolve<K extends PluginKind>(kind: K, id: string): Promise<{ plugin: Extract<PluginDefinition, { kind: K }> | Extract<PluginDefinition, { kind: 'designer' | 'agent' }>; argument: string | undefined }> {
    if (isExternalId(id)) {
      const plugin = await loadExternalPlugin(id, this.cwd);
      if (plugin.kind !== kind) throw new UsageError(`plugin ${id} is a ${plugin.kind} plugin, not a ${kind}`);
      return { plugin: plugin as never, argument: undefined };
    }
    const colon = id.indexOf(':');
    const candidates: [string, string | undefined][] = [[id, undefined]];
    if (colon > 0) candidates.push([id.slice(0, colon), id.slice(colon + 1)]);
    for (const [name, argument] of candidates) {
      const loaded = this.loaded.get(`${kind}/${name}`);
      if (loaded) return { plugin: loaded as never, argument };
      const builtin = this.builtins.get(`${kind}/${name}`);
      if (builtin) return { plugin: checkDefinition(await builtin.load(), `built-in ${kind} ${name}`) as never, argument };
    }
    const ids = this.ids(kind);
    const plural = kind === 'sandbox' ? 'sandboxes' : `${kind}s`;
    // The nearest known id, for the whole id or for its prefix (`jsonll:q.jsonl` -> `jsonl:q.jsonl`).
    const prefix = colon > 0 ? closest(id.slice(0, colon), ids) : undefined;
    const near = closest(id, ids) ?? (prefix === undefined ? undefined : `${prefix}${id.slice(colon)}`);
    const guess = near === undefined ? '' : ` Did you mean ${near}?`;
    throw new UsageError(`unknown ${kind} "${id}".${guess} Known ${plural}: ${ids.join(', ') || '(none)'}. A plugin can also be a file path (./my-plugin.ts) or npm:package-name.`);
  }
}
