/**
 * The gate's verdicts on curated datasets' tasks (EnvironmentMeta.curated: GSM8K, HumanEval, a
 * user's `jsonl:` file, RLVE), cached on disk by content: a second run of the same data skips
 * the gate and plays at once. A verdict is found again only for the same program (language,
 * source, meta, Python path), task seed and limits, in the same sandbox (its id and the
 * fingerprint of its code) and under the same gate (a hash of the gate's code and what it
 * reads: a changed gate misses every entry). Verdicts of a machine's moment (a timeout, the
 * memory limit) are never cached. `--no-cache` (`cache: false`) bypasses the cache.
 *
 * A cached verdict is journaled as this run's, so resume, merge and export read it as any other.
 *
 * On disk: `<verdictCacheDir>/<sandbox>-<hash of gate and sandbox fingerprints>.jsonl`, one
 * line per verdict (`{ "k": key, "v": verdict }`), read whole on first use and appended to (a
 * turn's verdicts in one write); a torn or unreadable line is a miss.
 */
import { createHash } from 'node:crypto';
import { existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GateVerdict } from '../results/results.js';
import type { EnvironmentProgram, Language } from '../types.js';
import type { Evaluator } from '../run/evaluate.js';
import { withKnownVerdicts } from '../results/resume.js';
import { packageVersion } from '../results/versions.js';
import { CacheLog, flushCacheLogs, makeFolder } from '../results/fs.js';
import { verdictJson } from '../results/journal.js';
import { codeDigest, dataHeaderOf } from '../results/data-header.js';
import { stableJson } from '../providers/response-cache.js';

/** SHA-256 (hex) of files' contents (a missing file counts as empty) and of extra strings. */
export function sourceFingerprint(files: readonly (string | URL)[], extra: readonly string[] = []): string {
  const hash = createHash('sha256');
  for (const file of files) {
    const name = file instanceof URL ? fileURLToPath(file) : file;
    hash.update(name.slice(name.lastIndexOf('/') + 1)).update('\0');
    try {
      hash.update(readFileSync(name));
    } catch {
      // absent (e.g. a file of the other build, .ts or .js): nothing
    }
    hash.update('\0');
  }
  for (const value of extra) hash.update(value).update('\0');
  return hash.digest('hex');
}

/** The same module names with this build's extension (`.ts` from source, `.js` from dist/). */
export function siblingFiles(moduleUrl: string, names: readonly string[]): URL[] {
  const extension = path.extname(fileURLToPath(moduleUrl));
  return names.map((name) => new URL(name.replace(/\.js$/, extension), moduleUrl));
}

let gateFingerprint: string | undefined;

/** The gate's fingerprint: its code and the code it judges with (contract checks, tool calls, game types, seeds). */
export function gateCodeFingerprint(): string {
  gateFingerprint ??= sourceFingerprint(
    siblingFiles(import.meta.url, [
      './gate.js', './spade-reading.js', './strict-reading.js', './answer-leak.js', './solution-actions.js', './contract.js', './verdict-cache.js',
      '../run/tool-calls.js', '../run/game-type.js', '../run/random.js', '../errors.js', '../results/data-header.js',
    ]),
    [packageVersion()],
  );
  return gateFingerprint;
}

/** Reasons that depend on the machine's moment, not on the program: never cached. */
const MOMENTARY = new Set(['timeout', 'memory']);

/** One file of verdicts: one gate, one sandbox. */
class VerdictFile {
  private entries: Map<string, GateVerdict> | undefined;
  private readonly log: CacheLog;

  constructor(private readonly file: string) {
    this.log = new CacheLog(() => {
      makeFolder(path.dirname(file));
      return openSync(file, 'a');
    });
  }

  private load(): Map<string, GateVerdict> {
    if (this.entries) return this.entries;
    // Lines this process has not written yet (another evaluator's) would be misses.
    flushCacheLogs();
    this.entries = new Map();
    if (!existsSync(this.file)) return this.entries;
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const { k, v } = JSON.parse(line) as { k?: unknown; v?: GateVerdict };
        if (typeof k === 'string' && v && typeof v.verdict === 'string' && Array.isArray(v.checks)) this.entries.set(k, v);
      } catch {
        // a torn line: a miss
      }
    }
    return this.entries;
  }

  get(key: string): GateVerdict | undefined {
    return this.load().get(key);
  }

  set(key: string, verdict: GateVerdict): void {
    const entries = this.load();
    if (entries.has(key)) return;
    entries.set(key, verdict);
    this.log.add(`{"k":${JSON.stringify(key)},"v":${verdictJson(verdict)}}`);
  }
}

export interface VerdictCacheOptions {
  /** Folder of the cache files (`verdictCacheDir`). */
  dir: string;
  /** The sandbox a language's programs run in, as `id` and its code's fingerprint; undefined: not cacheable. */
  sandboxOf(language: Language): Promise<{ id: string; fingerprint: string } | undefined>;
}

/**
 * An Evaluator that takes curated tasks' verdicts from the cache (skipping the gate) and puts
 * fresh ones in it. Everything else passes through unchanged.
 */
export function withVerdictCache(evaluate: Evaluator, options: VerdictCacheOptions): Evaluator {
  const files = new Map<string, VerdictFile>();
  // Each language's cache file name (its sandbox's id and fingerprints), or undefined: not cacheable.
  const names = new Map<Language, Promise<string | undefined>>();
  const gate = gateCodeFingerprint();
  const fileName = async (language: Language): Promise<string | undefined> => {
    const sandbox = await options.sandboxOf(language);
    if (!sandbox) return undefined;
    return `${sandbox.id.replace(/[^\w.-]/g, '_')}-${createHash('sha256').update(`${gate}\0${sandbox.fingerprint}`).digest('hex').slice(0, 16)}.jsonl`;
  };
  return async (program, taskSeed, ctx) => {
    if (program.meta?.curated !== true || ctx.prior?.verdict(ctx.suite, program.id)) return evaluate(program, taskSeed, ctx);
    let nameOf = names.get(program.language);
    if (!nameOf) names.set(program.language, (nameOf = fileName(program.language)));
    const name = await nameOf;
    if (!name) return evaluate(program, taskSeed, ctx);
    let file = files.get(name);
    if (!file) files.set(name, (file = new VerdictFile(path.join(options.dir, name))));
    const key = verdictKey(program, taskSeed, ctx.limits);
    const cached = file.get(key);
    if (cached) {
      // Journaled as this run's verdict; the evaluation takes it as known and goes straight to play.
      ctx.onVerdict?.(program, cached);
      return evaluate(program, taskSeed, { ...ctx, prior: withKnownVerdicts(ctx.prior, new Map([[program.id, cached]])) });
    }
    const store = file;
    return evaluate(program, taskSeed, {
      ...ctx,
      onVerdict: (p, verdict) => {
        if (!MOMENTARY.has(verdict.reason ?? '')) store.set(key, verdict);
        ctx.onVerdict?.(p, verdict);
      },
    });
  };
}

/** What a verdict depends on besides the gate and the sandbox: the program (not where it was read from), its task seed, the limits. */
export function verdictKey(program: EnvironmentProgram, taskSeed: number, limits: unknown): string {
  const { origin, ...meta } = program.meta ?? {};
  void origin;
  const rest = stableJson({ language: program.language, meta, pythonPath: program.pythonPath, taskSeed, limits });
  const hash = createHash('sha256').update(rest);
  // A program that opens with its data is its code and its values (the source is made of them):
  // the code a template's programs share is hashed once (codeDigest), then this program's values,
  // one per line (a value is one line of JSON). Any other program is hashed whole, its length
  // first, so the parts cannot run together. JSON-quoting a whole program, a few KiB, would cost
  // more than the gate of a dataset's task.
  const header = dataHeaderOf(program);
  if (header) hash.update(`\0header\0${codeDigest(header.code)}\0${header.values.join('\n')}`);
  else hash.update(`\0${program.source.length}\0`).update(program.source);
  return hash.digest('hex');
}
