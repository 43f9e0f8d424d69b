/**
 * `spade-bench merge`: the shards of one run (`--shard i/n`) put back together into one run
 * folder whose results.json equals that of the unsharded run. Each suite's metrics are
 * recomputed with the run's own `suiteResult` from the environments' tallies each shard
 * journaled (core/metrics/plays.ts), folded over the environments in the order the unsharded
 * run would have had them (task index), so every estimate, interval and bootstrap comes out the
 * same.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { EnvironmentProgram } from '../types.js';
import type { EnvironmentSummary, GateVerdict, RunResults, SuiteResult } from '../results/results.js';
import { SCHEMA_VERSION } from '../results/results.js';
import { readResults } from '../results/results-file.js';
import type { KeptEvaluation } from '../run/run-suite.js';
import { tallyFromJson, type PlayTally } from '../metrics/plays.js';
import { hasJournal, journalRecords, Journal, JOURNAL_FILE, type JournalRecord } from '../results/journal.js';
import { doneAgainOnRetry, outsideUsage } from '../results/resume.js';
import { suiteResult, writeOutputs } from '../run/run.js';
import type { ReportRenderer } from '../run/run-setup.js';
import { addEqualSizeDiversity } from '../metrics/index.js';
import { addUsage } from '../providers/stats.js';
import { DataError, UsageError } from '../errors.js';
import { readShard, shardLabel, type Shard } from './shard.js';
import { ErrorTally } from '../run/error-class.js';
import { makeFolder } from '../results/fs.js';
import { isPlainObject, valueAt } from '../config/schema.js';

interface ShardRun {
  dir: string;
  shard: Shard;
  results: RunResults;
  records: JournalRecord[];
  /**
   * Where (as a count of journal records) the shard's last `--retry-errored` resume is, or -1:
   * that resume did the errored work journaled before it again, as its own resume forgot it.
   */
  retriedAt: number;
}

/**
 * A suite's environments rebuilt from journal records, for the environments `summaries` lists
 * (in that order): the gate verdict and the plays' tally as journaled, the program from the
 * designer's record when there is one, else from the summary (id, language, source, meta).
 */
function evaluationsFromJournal(dir: string, records: readonly JournalRecord[], suite: string, summaries: readonly EnvironmentSummary[]): KeptEvaluation[] {
  const verdicts = new Map<string, GateVerdict>();
  const tallies = new Map<string, PlayTally>();
  const programs = new Map<string, EnvironmentProgram>();
  for (const r of records) {
    if (r.type === 'verdict' && r.suite === suite) verdicts.set(r.id, r.verdict);
    else if (r.type === 'designed' && r.suite === suite) for (const p of r.programs) programs.set(p.id, p);
    else if (r.type === 'plays' && r.suite === suite) tallies.set(r.id, tallyFromJson(r.plays));
  }
  return summaries.map((summary) => {
    const verdict = verdicts.get(summary.id);
    if (!verdict) throw new DataError(path.join(dir, JOURNAL_FILE), undefined, `no gate verdict for ${suite}/${summary.id}`);
    const plays = tallies.get(summary.id);
    if (!plays) throw new DataError(path.join(dir, JOURNAL_FILE), undefined, `no plays line for ${suite}/${summary.id}`);
    const program: EnvironmentProgram = programs.get(summary.id) ?? {
      id: summary.id,
      language: summary.language as EnvironmentProgram['language'],
      source: summary.source,
      meta: { family: summary.family, difficulty: summary.difficulty, horizon: summary.horizon },
    };
    return { program, verdict, plays, summary };
  });
}

/** What merging needs of a shard's journal, read as a stream: verdicts, designs, the environments' tallies, its last retrying resume. */
function mergeRecords(dir: string): Pick<ShardRun, 'records' | 'retriedAt'> {
  const records: JournalRecord[] = [];
  let retriedAt = -1;
  let at = 0;
  for (const r of journalRecords(dir)) {
    if (r.type === 'verdict' || r.type === 'designed' || r.type === 'plays') records.push(r);
    else if (r.type === 'resume' && r.retryErrored) retriedAt = at;
    at++;
  }
  return { records, retriedAt };
}

function readShardRun(dir: string): ShardRun {
  const shard = readShard(dir);
  if (!shard) throw new UsageError(`${dir} is not a shard of a run (no shard.json): run it with --shard i/n`);
  const file = path.join(dir, 'results.json');
  if (!existsSync(file)) throw new UsageError(`${dir} holds no results.json: finish (or --resume) that shard first`);
  return { dir, shard, results: readResults(file), ...mergeRecords(dir) };
}

/** The key paths (selfplay.rounds) whose values differ between two configs. */
function differingKeys(a: unknown, b: unknown, prefix = ''): string[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort().flatMap((key) => differingKeys(a[key], b[key], `${prefix}${key}.`));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix.slice(0, -1)];
}

/** The shards, in index order, after checking they are the n slices of one run. */
function checkShards(runs: ShardRun[]): ShardRun[] {
  if (runs.length === 0) throw new UsageError('merge: name the shard folders to merge');
  const count = runs[0]!.shard.count;
  const sorted = [...runs].sort((a, b) => a.shard.index - b.shard.index);
  const indices = sorted.map((r) => r.shard.index);
  if (runs.some((r) => r.shard.count !== count) || indices.join() !== Array.from({ length: count }, (_, i) => i).join()) {
    throw new UsageError(`merge: expected the ${count} shards 1/${count} to ${count}/${count} once each, got ${runs.map((r) => shardLabel(r.shard)).join(', ')}`);
  }
  const configOf = (r: ShardRun): string => JSON.stringify({ ...r.results.run.config, out: undefined });
  const mismatch = sorted.find((r) => configOf(r) !== configOf(sorted[0]!));
  if (mismatch) {
    const differing = differingKeys(sorted[0]!.results.run.config, mismatch.results.run.config).filter((key) => key !== 'out');
    const shown = differing.slice(0, 5).map((key) => `${key} ${JSON.stringify(valueAt(sorted[0]!.results.run.config, key))} there, ${JSON.stringify(valueAt(mismatch.results.run.config, key))} here`);
    throw new UsageError(`merge: ${mismatch.dir} was run with another config than ${sorted[0]!.dir}: ${shown.join('; ')}${differing.length > 5 ? `; and ${differing.length - 5} more` : ''}`);
  }
  return sorted;
}

/** Shard i holds the unsharded tasks i, i+n, i+2n...: deal them back in that order. */
function interleave<T>(lists: T[][]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let j = 0; j < longest; j++) for (const list of lists) if (j < list.length) out.push(list[j]!);
  return out;
}

function mergeSuite(id: string, shards: ShardRun[]): SuiteResult {
  const parts = shards.map((run) => ({ run, suite: run.results.suites.find((s) => s.id === id) }));
  const present = parts.filter((p): p is { run: ShardRun; suite: SuiteResult } => p.suite !== undefined);
  const first = present[0]!.suite;
  const evaluations = interleave(present.map(({ run, suite }) => evaluationsFromJournal(run.dir, run.records, id, suite.environments)));
  // Shards run side by side: the suite took as long as its slowest shard.
  const wallSec = Math.max(...present.map(({ suite }) => suite.metrics.throughput.wallSec));
  const usage = addUsage(...present.map(({ suite }) => suite.metrics.usage));
  const result = suiteResult(id, first.kind, evaluations, wallSec, first.rounds, usage);
  if (first.skippedRecords) result.skippedRecords = first.skippedRecords;
  // Every shard counts the tasks its suite left out before the suite is split: any one has them all.
  if (first.skippedTasks) result.skippedTasks = first.skippedTasks;
  return result;
}

/** Merge the shard folders `dirs` into `outDir` (results.json, journal.jsonl, and report.html given a renderer). */
export async function mergeShardRuns(dirs: readonly string[], outDir: string, options: { renderReport?: ReportRenderer } = {}): Promise<RunResults> {
  const shards = checkShards(dirs.map(readShardRun));
  const head = shards[0]!.results.run;
  const ids = [...new Set(shards.flatMap((s) => s.results.suites.map((suite) => suite.id)))];
  const suites = addEqualSizeDiversity(ids.map((id) => mergeSuite(id, shards)));
  const times = (pick: (r: ShardRun) => string | undefined): string[] => shards.map(pick).filter((t): t is string => t !== undefined).sort();
  // The errored work of every shard, and why each shard that stopped early stopped.
  const errors = new ErrorTally();
  for (const s of shards) errors.addSummary(s.results.run.errors);
  const stops = shards.flatMap((s) => (s.results.run.stopReason ? [`shard ${shardLabel(s.shard)}: ${s.results.run.stopReason}`] : []));
  const { stopReason: _first, errors: _firstErrors, ...common } = head;
  const results: RunResults = {
    schemaVersion: SCHEMA_VERSION,
    run: {
      ...common,
      id: path.basename(path.resolve(outDir)),
      startedAt: times((r) => r.results.run.startedAt)[0]!,
      finishedAt: times((r) => r.results.run.finishedAt).at(-1),
      config: { ...head.config, out: outDir },
      complete: shards.every((s) => s.results.run.complete),
      ...(stops.length > 0 && { stopReason: stops.join('; ') }),
      errors: errors.summary(),
    },
    suites,
  };
  if (results.run.finishedAt === undefined) delete results.run.finishedAt;
  await writeMergedJournal(outDir, shards, results);
  await writeOutputs(outDir, results, options.renderReport);
  return results;
}

/**
 * One journal for the merged run: the first shard's start, every shard's work, one end. The
 * shards' `usage` lines (calls outside episodes, each invocation's running totals) become one
 * line per suite, their sum over every invocation of every shard: copied as they were, with the
 * invocations' boundaries gone, a resume of the merged run would count only the last of them.
 * Their wall-time lines (`clock`, `suite-end`) likewise become one `suite-end` per suite, the
 * merged suite's time.
 */
async function writeMergedJournal(outDir: string, shards: ShardRun[], results: RunResults): Promise<void> {
  if (hasJournal(outDir) || existsSync(path.join(outDir, 'results.json'))) {
    throw new UsageError(`${outDir} already holds a run: choose another -o`);
  }
  makeFolder(outDir);
  const journal = new Journal(outDir);
  for (const r of journalRecords(shards[0]!.dir)) {
    if (r.type !== 'start') continue;
    journal.append(r);
    break;
  }
  const outside = outsideUsage();
  for (const shard of shards) {
    // A shard resumed with --retry-errored did its errored work again after that resume: the
    // errors before it are left out, as its own resume forgot them (the merged journal has no
    // resume lines to say so).
    let at = 0;
    for (const r of journalRecords(shard.dir)) {
      outside.read(r);
      if (at++ < shard.retriedAt && doneAgainOnRetry(r)) continue;
      if (r.type === 'start' || r.type === 'resume' || r.type === 'end' || r.type === 'usage' || r.type === 'clock' || r.type === 'suite-end') continue;
      journal.append(r);
      // Written a segment's worth at a time, not the shards' whole journals at once.
      journal.flush();
    }
    outside.endInvocation();
  }
  for (const [suite, usage] of outside.totals()) journal.append({ type: 'usage', suite, usage });
  // The shards ran side by side: each suite's time is the merged result's (its slowest shard's).
  for (const suite of results.suites) journal.append({ type: 'suite-end', suite: suite.id, wallSec: suite.metrics.throughput.wallSec });
  journal.append({ type: 'end', finishedAt: results.run.finishedAt ?? new Date().toISOString(), complete: results.run.complete });
  journal.close();
  await journal.settled();
}
