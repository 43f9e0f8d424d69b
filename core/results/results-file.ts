/**
 * results.json on disk (schema 2) and the environments of the journal: what each stores once
 * rather than per environment, and how it is read back.
 *
 * A suite of 1,319 dataset tasks has 1,319 programs that differ only in their data (one
 * template), and 1,319 gate verdicts made of the same few checks. On disk:
 *   - a program that opens with its data (core/results/data-header.ts) is its code, stored once per
 *     suite under `codes` and named by a key (a hash of the code), and its data values
 *     (`code` and `data` in place of `source`); any other program keeps its `source`;
 *   - a suite's distinct gate checks are listed once (`checks`), and each environment's
 *     `checks` are indexes into that list;
 *   - each environment is one line of results.json, written as the file is written (no
 *     string of the whole file is ever made).
 * readResults() gives back the RunResults every reader uses (each environment's `source` and
 * `checks` in full).
 *
 * The journal's environment lines keep neither the gate's checks, the task nor the sample
 * trajectory: the environment's verdict line and its first episode's line hold them, and
 * journaledEnvironments() puts them back. Program code is journaled once per suite as a `code`
 * line.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { EnvironmentSummary, GateCheck, GateVerdict, RunResults, SuiteResult } from './results.js';
import type { EpisodeResult } from '../types.js';
import { SCHEMA_VERSION } from './results.js';
import { codeDigest, DATA_PARAMETER, dataHeaderOf } from './data-header.js';
import { AtomicFile } from './fs.js';
import { DataError, UsageError } from '../errors.js';
import { hasJournal, type JournaledEnvironment } from './journal.js';

/** An environment as results.json (schema 2) stores it. */
export interface StoredEnvironment extends Omit<EnvironmentSummary, 'source' | 'checks'> {
  /** The program's source, when it is not stored as `code` + `data`. */
  source?: string;
  /** Key of the program's code in the suite's `codes`. */
  code?: string;
  /** The program's data values, in the order of its data header. */
  data?: unknown[];
  /** Indexes into the suite's `checks`. */
  checks: number[];
}

/** A suite as results.json (schema 2) stores it. */
export interface StoredSuite extends Omit<SuiteResult, 'environments'> {
  /** Program code by key: programs that open with their data, without it. */
  codes?: Record<string, string>;
  /** The suite's distinct gate checks. */
  checks?: GateCheck[];
  environments: StoredEnvironment[];
}

/** results.json, schema 2. */
export interface StoredResults extends Omit<RunResults, 'suites'> {
  suites: StoredSuite[];
}

/** A program as code (shared) and data (its own), when its source can be rebuilt exactly from them. */
export interface ProgramParts {
  key: string;
  code: string;
  data: unknown[];
}

/** The key of a program's code: the first 16 hex digits of its SHA-256. */
const keyOf = (code: string): string => codeDigest(code).slice(0, 16);

/**
 * A program's code and data, when it opens with its data and each value is written the way
 * JSON.stringify writes it (so that the source is rebuilt character for character); otherwise undefined.
 */
export function programParts(program: { readonly source: string }): ProgramParts | undefined {
  const header = dataHeaderOf(program);
  if (!header) return undefined;
  const data = header.values.map((text) => JSON.parse(text) as unknown);
  if (data.some((value, i) => JSON.stringify(value) !== header.values[i])) return undefined;
  return { key: keyOf(header.code), code: header.code, data };
}

const PLACEHOLDER = new RegExp(`${DATA_PARAMETER.replace(/\$/g, '\\$')}\\[(\\d+)\\]`, 'g');

/** The source of a program stored as code and data. */
export function sourceFromParts(code: string, data: readonly unknown[]): string {
  return code.replace(PLACEHOLDER, (_, i: string) => JSON.stringify(data[Number(i)]));
}

/** The suite's tables, filled as its environments are stored. */
class SuiteTables {
  readonly codes: Record<string, string> = {};
  readonly checks: GateCheck[] = [];
  private readonly checkIndex = new Map<string, number>();

  check(check: GateCheck): number {
    const key = `${check.name}\u0000${check.ok}\u0000${check.detail ?? '\u0001'}`;
    let index = this.checkIndex.get(key);
    if (index === undefined) {
      index = this.checks.length;
      this.checks.push(check.detail === undefined ? { name: check.name, ok: check.ok } : { name: check.name, ok: check.ok, detail: check.detail });
      this.checkIndex.set(key, index);
    }
    return index;
  }
}

/** An environment summary in its stored form (the suite's tables get its code and checks). */
function storeEnvironment(summary: EnvironmentSummary, tables: SuiteTables): StoredEnvironment {
  const stored: Record<string, unknown> = {};
  const parts = programParts(summary);
  // By key, so that a source made when read (a dataset task's, run-suite.ts) is made only when stored.
  for (const key of Object.keys(summary)) {
    if (key === 'checks') stored.checks = summary.checks.map((c) => tables.check(c));
    else if (key !== 'source') stored[key] = summary[key as keyof EnvironmentSummary];
    else if (!parts) stored.source = summary.source;
    else {
      tables.codes[parts.key] = parts.code;
      stored.code = parts.key;
      stored.data = parts.data;
    }
  }
  return stored as unknown as StoredEnvironment;
}

/** An environment summary from its stored form; its keys keep their order (id, language, gameType, verdict, checks, ...). */
function loadEnvironment(stored: StoredEnvironment, suite: StoredSuite, file: string): EnvironmentSummary {
  const summary: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) {
    if (key === 'data') continue;
    if (key === 'code') {
      const code = suite.codes?.[value as string];
      if (code === undefined) throw new DataError(file, undefined, `suite ${suite.id}: environment ${stored.id} names code ${String(value)}, which is not in the suite's "codes"`);
      summary.source = sourceFromParts(code, stored.data ?? []);
    } else if (key === 'checks') {
      summary.checks = (value as number[]).map((c) => {
        const check = suite.checks?.[c];
        if (check === undefined) throw new DataError(file, undefined, `suite ${suite.id}: environment ${stored.id} names check ${String(c)}, which is not in the suite's "checks"`);
        return check;
      });
    } else summary[key] = value;
  }
  summary.source ??= '';
  summary.checks ??= [];
  return summary as unknown as EnvironmentSummary;
}

/** Indent every line after the first of a pretty-printed JSON text. */
const indented = (json: string, indent: string): string => json.replace(/\n/g, `\n${indent}`);

/**
 * Write results.json into `outDir` atomically and without building it as one string: the run
 * and each suite's metrics pretty-printed, each environment on a line of its own.
 */
export function writeResults(outDir: string, results: RunResults): void {
  const file = new AtomicFile(path.join(outDir, 'results.json'));
  try {
    file.write(`{\n  "schemaVersion": ${JSON.stringify(SCHEMA_VERSION)},\n  "run": ${indented(JSON.stringify(results.run, null, 2), '  ')},\n  "suites": [`);
    results.suites.forEach((suite, s) => {
      const tables = new SuiteTables();
      const { environments, ...head } = suite;
      file.write(`${s ? ',' : ''}\n    {`);
      for (const [key, value] of Object.entries(head)) file.write(`\n      ${JSON.stringify(key)}: ${indented(JSON.stringify(value, null, 2), '      ')},`);
      file.write('\n      "environments": [');
      environments.forEach((summary, i) => file.write(`${i ? ',' : ''}\n        ${JSON.stringify(storeEnvironment(summary, tables))}`));
      file.write(`${environments.length ? '\n      ' : ''}],\n      "codes": ${indented(JSON.stringify(tables.codes, null, 2), '      ')},`);
      file.write(`\n      "checks": ${indented(JSON.stringify(tables.checks, null, 2), '      ')}\n    }`);
    });
    file.write(`${results.suites.length ? '\n  ' : ''}]\n}\n`);
    file.commit();
  } catch (error) {
    file.abort();
    throw error;
  }
}

/** The results as every reader uses them, from the parsed text of results.json. */
export function resultsFromStored(value: unknown, file = 'results.json'): RunResults {
  const stored = value as (Omit<Partial<StoredResults>, 'schemaVersion'> & { schemaVersion?: unknown }) | null;
  if (stored?.schemaVersion !== SCHEMA_VERSION) {
    throw new DataError(file, undefined, `results schemaVersion ${JSON.stringify(stored?.schemaVersion)} is not the one this spade-bench reads (${SCHEMA_VERSION})`);
  }
  if (!stored.run || !stored.run.errors || !Array.isArray(stored.suites)) throw new DataError(file, undefined, 'missing "run", "run.errors" or "suites"');
  const suites = stored.suites.map((suite): SuiteResult => {
    const { codes, checks, environments, ...rest } = suite;
    void codes, checks;
    return { ...rest, environments: (environments ?? []).map((e) => loadEnvironment(e, suite, file)) };
  });
  return { ...(stored as unknown as StoredResults), suites };
}

/** Read a run's results.json (from its folder or the file itself), checking its schema. */
export function readResults(location: string): RunResults {
  const file = existsSync(location) && statSync(location).isDirectory() ? path.join(location, 'results.json') : location;
  if (!existsSync(file)) {
    if (!existsSync(location)) throw new UsageError(`${location}: no such file or folder`);
    // A run stopped before it wrote its results (killed) still has its journal.
    if (hasJournal(path.dirname(file))) throw new UsageError(`${location}: no results.json yet: the run stopped before writing it; spade-bench run --out ${path.dirname(file)} --resume finishes it (and writes them)`);
    throw new UsageError(`${location}: no results.json (is it a run folder?)`);
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new DataError(file, undefined, `not valid JSON: ${(error as Error).message}`);
  }
  return resultsFromStored(value, file);
}

/** An environment summary as the journal stores it (checks, task and sample are in its verdict and episode lines). */
export function journalEnvironment(summary: EnvironmentSummary): { environment: JournaledEnvironment; code?: { key: string; code: string } } {
  const parts = programParts(summary);
  // By key, so that a source made when read (a dataset task's, run-suite.ts) is made only when journaled.
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(summary)) {
    if (key !== 'checks' && key !== 'task' && key !== 'sample' && key !== 'source') rest[key] = summary[key as keyof EnvironmentSummary];
  }
  if (!parts) {
    rest.source = summary.source;
    return { environment: rest as JournaledEnvironment };
  }
  rest.code = parts.key;
  rest.data = parts.data;
  return { environment: rest as JournaledEnvironment, code: { key: parts.key, code: parts.code } };
}

/** What journaledEnvironments() reads: code, verdict, episode and environment lines (others are passed over). */
export type EnvironmentLine =
  | { type: 'code'; suite: string; key: string; code: string }
  | { type: 'verdict'; suite: string; id: string; verdict: GateVerdict }
  | { type: 'episode'; episode: EpisodeResult }
  | { type: 'environment'; suite: string; environment: JournaledEnvironment }
  | { type: string };

/**
 * The environments of a journal with their summaries in full: the program's source from its
 * code line, the gate's checks and the task from its verdict line, the sample trajectory from
 * its first no-hint episode. Keyed by suite and id; the last line of an environment wins.
 */
export function journaledEnvironments(records: Iterable<EnvironmentLine>): Map<string, { suite: string; summary: EnvironmentSummary }> {
  const codes = new Map<string, string>();
  const verdicts = new Map<string, GateVerdict>();
  const samples = new Map<string, NonNullable<EnvironmentSummary['sample']>>();
  const environments = new Map<string, { suite: string; environment: JournaledEnvironment }>();
  const key = (suite: string, id: string): string => `${suite}\u0000${id}`;
  // One pass (a journal is read as a stream): what the summaries need is kept, one entry per environment.
  for (const r of records) {
    if (r.type === 'code') {
      const line = r as Extract<EnvironmentLine, { type: 'code' }>;
      codes.set(key(line.suite, line.key), line.code);
    } else if (r.type === 'verdict') {
      const line = r as Extract<EnvironmentLine, { type: 'verdict' }>;
      verdicts.set(key(line.suite, line.id), line.verdict);
    } else if (r.type === 'episode') {
      const e = (r as Extract<EnvironmentLine, { type: 'episode' }>).episode;
      if (e.attempt === 0 && !e.withHint && e.steps) samples.set(key(e.suite, e.environmentId), { outcome: e.outcome, steps: e.steps });
    } else if (r.type === 'environment') {
      const line = r as Extract<EnvironmentLine, { type: 'environment' }>;
      const k = key(line.suite, line.environment.id);
      // The last line of an environment wins, in the place of its first.
      environments.set(k, { suite: line.suite, environment: line.environment });
    }
  }
  const out = new Map<string, { suite: string; summary: EnvironmentSummary }>();
  for (const { suite, environment: e } of environments.values()) {
    const { code, data, ...rest } = e;
    const verdict = verdicts.get(key(suite, e.id));
    const source = e.source ?? (code !== undefined && codes.has(key(suite, code)) ? sourceFromParts(codes.get(key(suite, code))!, data ?? []) : '');
    const summary: EnvironmentSummary = { ...rest, checks: verdict?.checks ?? [], source };
    const task = verdict?.firstObservation;
    if (task !== undefined) summary.task = task;
    const sample = samples.get(key(suite, e.id));
    if (sample) summary.sample = sample;
    out.set(key(suite, e.id), { suite, summary });
  }
  return out;
}
