/**
 * Every metric of a pool, in one table, as every option is in core/config/options.ts: its key in
 * results.json, its label, how it is computed, its headline figure and that figure's format,
 * and where it shows. The suite result (core/run/run-suite.ts), the console's summary of a
 * suite (core/cli/progress.ts), the Markdown and HTML reports and docs/metrics.md all read this
 * table; a test checks docs/metrics.md against it.
 *
 * Adding a metric: its file under core/metrics/ (a function of one pool's evidence), one row
 * here, and its test. docs/plugins.md walks through it.
 */
import type { EnvironmentSummary, GateVerdict, SuiteResult, UsageMetrics } from '../results/results.js';
import { playsOf, type PlayTally, type WithPlays } from './plays.js';
import type { ProgramForStructure } from './structure.js';
import { firstTryValidity, slotValidity, validityMetrics } from './validity.js';
import { diversityMetrics, type PreparedDiversity } from './diversity.js';
import { rememberDiversityPool } from './equal-size.js';
import { throughputMetrics } from './throughput.js';
import { successByDifficulty, successOfTallies } from './success.js';
import { gameTypeMetrics } from './game-type.js';
import { difficultyBands, skillMetrics } from './skills-bands.js';
import { turnsToWinOf } from './turns-to-win.js';
import { DEFAULTS } from '../config/options.js';

// ---------------------------------------------------------------------------------------------
// The shape of a row
// ---------------------------------------------------------------------------------------------

/**
 * One environment of a pool as the gate judged it and the agent played it. Its plays are given
 * as their tally (a run folds each environment's plays as it ends: core/metrics/plays.ts) or as
 * the episodes themselves; the rows read them through playsOf().
 */
export interface EvaluatedEnvironment extends WithPlays {
  program: ProgramForStructure;
  verdict: GateVerdict;
  summary: EnvironmentSummary;
  /** Wall time (ms) of each sandboxed call made while playing. */
  sandboxCallMs?: readonly number[];
}

/** What a metric is computed from: one pool (a suite, or the self-play pool) once it has been played. */
export interface PoolEvidence {
  kind: SuiteResult['kind'];
  environments: readonly EvaluatedEnvironment[];
  /** The pool's wall time, in seconds: over a resume, every invocation's time on it. */
  wallSec: number;
  /** Model calls over the pool's span. */
  usage: UsageMetrics;
  /** Wall time (ms) of each model call over the pool's span. */
  providerCallMs: readonly number[];
  /** Wall time (ms) of the pool's sandboxed calls (a bounded sample: core/metrics/reservoir.ts); absent: the environments' own. */
  sandboxCallMs?: readonly number[];
  /** Sandboxed calls made, when sandboxCallMs is a sample of them. */
  sandboxCalls?: number;
}

/**
 * A metric's headline: a value, its 95% interval when it has one, and what it is out of. A value
 * of `null` means there was nothing to measure (no episode decided): it shows as "n/a", never 0.
 */
export interface Figure {
  value: number | null;
  interval?: readonly [number, number];
  /** The counts behind a share: [part, whole], shown as "part / whole". */
  counts?: readonly [number, number];
  /** A few words shown after the value wherever it shows (plain text: "3 errored", a size). */
  note?: string;
  /** Longer words for the console and a tooltip, left out of tables. */
  detail?: string;
  /** Figures shown beside this one, in the same format (first-try validity beside validity). */
  beside?: readonly { label: string; figure: Figure }[];
}

/**
 * How a figure is written: `percent` a share in [0, 1] ("42.3%", differences in percentage
 * points), `number` a quantity (three significant digits, thousands grouped).
 */
export type MetricFormat = 'percent' | 'number';

/** Where a metric's headline shows, beside results.json (every metric is kept there, under its key). */
export type MetricPlace = 'console' | 'markdown' | 'html';

export interface MetricRow<T = unknown> {
  /** Its key under a suite's `metrics` in results.json. */
  key: string;
  /** Its name in tables, charts and the console. */
  label: string;
  /** One sentence: how it is computed (docs/metrics.md, the report's notes). */
  describe: string;
  /** The metric of one pool; undefined when it does not apply there (the key is then absent). */
  compute(pool: PoolEvidence): T | undefined;
  /**
   * The headline figure the summary tables, charts and console show. Metrics without one
   * (breakdowns by game type, skill or band) are shown by their own sections of the report.
   * It reads results of any age: a field added later may be absent.
   */
  headline?(metric: T): Figure | undefined;
  /** How its headline is written (rows with a headline). */
  format?: MetricFormat;
  /** The unit after a number ("steps/s"). */
  unit?: string;
  /** Where the headline shows. */
  shows: readonly MetricPlace[];
  /** The axis of its chart: `log` when values span orders of magnitude between pools or runs. */
  scale?: 'linear' | 'log';
}

/** A row of the table, typed by what its computation returns. */
export function defineMetric<T>(row: MetricRow<T>): MetricRow<T> {
  return row;
}

// ---------------------------------------------------------------------------------------------
// What the rows share
// ---------------------------------------------------------------------------------------------

const accepted = (pool: PoolEvidence): EvaluatedEnvironment[] => pool.environments.filter((e) => e.verdict.verdict !== 'invalid');
const tallies = (pool: PoolEvidence): PlayTally[] => pool.environments.map(playsOf);

/** A share whose whole may be 0 (nothing measured): n/a then, with no interval. */
const share = (part: number, whole: number, rate: number | null | undefined, interval: readonly [number, number] | undefined): Figure =>
  whole > 0 && typeof rate === 'number' ? { value: rate, ...(interval && { interval }), counts: [part, whole] } : { value: null, counts: [part, whole] };

/** Validity's first-try reading, when the results record it (before repairs). */
interface FirstTry {
  valid: number;
  proposed?: number;
  rate: number | null;
  interval?: [number, number];
}

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

export const METRICS = [
  defineMetric({
    key: 'validity',
    label: 'validity',
    describe: 'Share of proposed environments the deciding reading of the gate proved valid (valid / proposed), with its Wilson 95% interval; unproven ones and the reasons of the rest are counted apart, and both readings (SPADE\'s checks, strict) are kept side by side. Self-play adds, beside it, validity of the slots\' first designs, per slot (SPADE\'s pass rate: slots that ended valid after their repairs and fresh designs) and per program (every program the slots went through), each counting a program the LLM reviewer rejected as not valid.',
    compute: (pool) => {
      const metric = validityMetrics(pool.environments.map((e) => e.verdict));
      // Self-play repairs rejected drafts: the validity of the first drafts is shown beside.
      if (pool.kind === 'selfplay') {
        const slots = pool.environments.map((e) => e.summary);
        Object.assign(metric, { firstTry: firstTryValidity(slots) }, slotValidity(slots));
      }
      return metric;
    },
    headline: (m) => {
      const figure = share(m.valid, m.proposed, m.rate, m.interval);
      const r = m.readings;
      const detail = r ? `SPADE's checks accept ${r.spade.valid}, strict ${r.strict.valid} valid + ${r.strict.unproven} unproven; --gate ${m.gate ?? DEFAULTS.gate}` : undefined;
      const firstTry = (m as { firstTry?: FirstTry }).firstTry;
      const beside = [
        ...(firstTry ? [{ label: 'first try', figure: share(firstTry.valid, firstTry.proposed ?? m.proposed, firstTry.rate, firstTry.interval) }] : []),
        ...(m.perSlot ? [{ label: 'per slot', figure: share(m.perSlot.valid, m.perSlot.slots, m.perSlot.rate, m.perSlot.interval) }] : []),
        ...(m.perProgram ? [{ label: 'per program', figure: share(m.perProgram.valid, m.perProgram.programs, m.perProgram.rate, m.perProgram.interval) }] : []),
      ];
      return { ...figure, ...(detail && { detail }), ...(beside.length && { beside }) };
    },
    format: 'percent',
    shows: ['console', 'markdown', 'html'],
  }),
  defineMetric({
    key: 'diversity',
    label: 'diversity (Vendi)',
    describe: 'Vendi score (q = 1, the effective number of distinct tasks) of the accepted environments\' task texts, and of their programs\' structure; Vendi/n, distinct-1 and -2, compression distance; and, at the run\'s end, every pool at one common size (the mean over random subsets of that size, drawn without replacement, and their 95% range; a pool of exactly that size is its own one subset), which is the headline, so pools of different sizes compare fairly.',
    compute: (pool) => {
      const kept = accepted(pool);
      const tasks = kept.map((e) => e.verdict.firstObservation ?? '').filter((t) => t !== '');
      let prepared: PreparedDiversity | undefined;
      const metric = diversityMetrics(tasks, kept.map((e) => e.program), (p) => (prepared = p));
      // The equal-size comparison at the run's end measures the same pool when every accepted
      // environment has a task text: it reuses these features rather than preparing them again.
      if (prepared && tasks.length === kept.length) rememberDiversityPool(metric, { tasks, prepared });
      return metric;
    },
    headline: (m) => (m.equalSize
      ? { value: m.equalSize.vendi.mean, interval: m.equalSize.vendi.interval, note: `at n = ${m.equalSize.size}` }
      : { value: m.n > 0 ? m.vendi : null, note: `over ${m.n} tasks` }),
    format: 'number',
    shows: ['console', 'markdown', 'html'],
  }),
  defineMetric({
    key: 'throughput',
    label: 'throughput',
    describe: 'Environment steps (and episodes, environments, tokens) per second of the pool\'s wall time (over a resume, the time every invocation spent on it), every episode counted, errored and hinted ones too; the latencies (p50, p95) of model and sandbox calls.',
    compute: (pool) => {
      const valid = accepted(pool).length;
      const played = tallies(pool).reduce((sum, t) => ({ episodes: sum.episodes + t.episodes, steps: sum.steps + t.steps }), { episodes: 0, steps: 0 });
      return throughputMetrics(played, pool.wallSec, pool.kind === 'static' ? undefined : pool.environments.length, {
        valid,
        tokens: pool.usage.inputTokens + pool.usage.outputTokens,
        providerCallMs: pool.providerCallMs,
        sandboxCallMs: pool.sandboxCallMs ?? pool.environments.flatMap((e) => [...(e.sandboxCallMs ?? [])]),
        ...(pool.sandboxCallMs && { sandboxCalls: pool.sandboxCalls }),
      });
    },
    // No step taken (every episode errored before its first step): no rate to show, not 0.
    headline: (m) => (m.wallSec > 0 && m.steps > 0 ? { value: m.stepsPerSec } : { value: null, note: 'no environment step was taken' }),
    format: 'number',
    unit: 'steps/s',
    shows: ['console', 'markdown', 'html'],
    scale: 'log',
  }),
  defineMetric({
    key: 'success',
    label: 'success',
    describe: 'Episodes won without the hint, of those decided: won / (won + lost), with its Wilson 95% interval (errored episodes are counted apart, never as losses); by horizon, by difficulty, within T turns, and pass@k / pass^k over environments.',
    compute: (pool) => {
      // Success is measured without the hint, the way the agent meets the task.
      const success = successOfTallies(tallies(pool));
      const byDifficulty = successByDifficulty(pool.environments.map((e) => ({ difficulty: e.summary.difficulty, plays: playsOf(e) })));
      if (byDifficulty.length) success.byDifficulty = byDifficulty;
      return success;
    },
    headline: (m) => {
      const figure = share(m.won, m.won + m.lost, m.successRate, m.interval);
      return m.errored ? { ...figure, note: `${m.errored.toLocaleString('en-US')} errored` } : figure;
    },
    format: 'percent',
    shows: ['console', 'markdown', 'html'],
  }),
  defineMetric({
    key: 'turnsToWin',
    label: 'turns to win',
    describe: 'Mean turns of the episodes won without the hint, with its 95% bootstrap interval: how directly the agent reaches a win.',
    compute: (pool) => turnsToWinOf(tallies(pool)),
    headline: (m) => ({ value: m.mean, ...(m.interval && { interval: m.interval }), note: `${m.won.toLocaleString('en-US')} won` }),
    format: 'number',
    shows: ['console', 'markdown', 'html'],
  }),
  defineMetric({
    key: 'byGameType',
    label: 'by game type',
    describe: 'The pool split by game type (single-turn, multi-turn, tool-use): environments proposed and valid, success without the hint with its interval, mean turns, and tool calls per episode for tool-use games.',
    compute: (pool) => gameTypeMetrics(pool.environments.map((e) => ({
      gameType: e.summary.gameType,
      verdict: e.verdict.verdict,
      plays: playsOf(e),
    }))),
    shows: [],
  }),
  defineMetric({
    key: 'usage',
    label: 'model usage',
    describe: 'Model calls for the pool (the `spent` of its episodes, and the calls outside episodes over its span), their input and output tokens, their cost where a price is known, and how many were answered from the response cache; after a resume, as in an uninterrupted run.',
    compute: (pool) => pool.usage,
    shows: [],
  }),
  defineMetric({
    key: 'bySkill',
    label: 'by skill',
    describe: 'Per SPADE skill (pools whose environments have one: self-play): environments, how many were played, and success without the hint.',
    compute: (pool) => skillMetrics(pool.environments),
    shows: [],
  }),
  defineMetric({
    key: 'bands',
    label: 'difficulty bands',
    describe: 'SPADE\'s bands over the played environments: the share whose mean episode reward without the hint is above 0.8 (easy), below 0.2 (hard) or between, and the share whose plays all got the same reward.',
    compute: (pool) => difficultyBands(pool.environments),
    shows: [],
  }),
] as const satisfies readonly MetricRow<any>[];

/** A row of the table, whatever its metric's type. */
export type AnyMetricRow = (typeof METRICS)[number] | MetricRow<any>;

/** Every metric of one pool, computed by the rows of the table, in the table's order (metrics that do not apply are absent). */
export function computeMetrics(pool: PoolEvidence, rows: readonly MetricRow<any>[] = METRICS): SuiteResult['metrics'] {
  const metrics: Record<string, unknown> = {};
  for (const row of rows) {
    const value = row.compute(pool);
    if (value !== undefined) metrics[row.key] = value;
  }
  return metrics as SuiteResult['metrics'];
}

/** A row's headline for one pool's metrics, or undefined when the pool has no such metric (one that does not apply to it). */
export function headlineOf(row: MetricRow<any>, metrics: SuiteResult['metrics']): Figure | undefined {
  const metric = (metrics as Record<string, unknown>)[row.key];
  return metric === undefined || metric === null ? undefined : row.headline?.(metric);
}

/** The rows whose headline shows in `place`. */
export function metricsShownIn(place: MetricPlace, rows: readonly MetricRow<any>[] = METRICS): MetricRow<any>[] {
  return rows.filter((row) => row.headline && row.shows.includes(place));
}

/** The table as Markdown, for docs/metrics.md (a test keeps the page in step with the table). */
export function metricsMarkdown(rows: readonly MetricRow<any>[] = METRICS): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const lines = ['| results key | label | how it is computed | headline | shows |', '|---|---|---|---|---|'];
  for (const row of rows) {
    const headline = row.headline ? `${row.format ?? 'number'}${row.unit ? ` (${row.unit})` : ''}${row.scale === 'log' ? ', log axis' : ''}` : 'none: its own section of the report';
    lines.push(`| \`metrics.${row.key}\` | ${cell(row.label)} | ${cell(row.describe)} | ${headline} | ${row.shows.join(', ') || 'results only'} |`);
  }
  return lines.join('\n');
}
