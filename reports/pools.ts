/**
 * The pools of a report: every suite of every run, one row each, in the order the report shows
 * them, with diversity at the size common to every pool.
 */
import type { EqualSizeDiversity, RunResults, SuiteResult } from '../core/results/results.js';
import { addEqualSizeDiversity } from '../core/metrics/index.js';
import { PALETTE } from './style.js';

export interface PoolRow {
  run: string;
  /** The run's place among the report's runs (0: the first, which later runs are compared with). */
  runIndex: number;
  suite: SuiteResult;
  /** Diversity of the pool at the size common to every pool of the report. */
  equalSize?: EqualSizeDiversity;
  /** The colour of this pool's series in every chart (seriesColours). */
  colour: string;
}

/** Self-play first, then curriculum pools, then static suites (each kept in run order). */
const KIND_ORDER: Record<SuiteResult['kind'], number> = { selfplay: 0, curriculum: 1, static: 2 };
export const KIND_LABEL: Record<SuiteResult['kind'], string> = { selfplay: 'self-play', curriculum: 'curriculum', static: 'static' };

/** A run's suites in the order the report shows them. */
export const orderedSuites = (results: RunResults): SuiteResult[] => [...results.suites].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);

/**
 * The colour of a pool's series in every chart: with several runs, its run's (a run keeps one
 * colour throughout the report); with one run, the pool's own.
 */
export function seriesColours(runs: readonly RunResults[]): (run: number, pool: string) => string {
  const pools = [...new Set(runs.flatMap((results) => orderedSuites(results).map((suite) => suite.id)))];
  return (run, pool) => PALETTE[(runs.length > 1 ? run : Math.max(0, pools.indexOf(pool))) % PALETTE.length]!;
}

/**
 * The pools of all runs, self-play first within each run. Equal-size diversity comes from the
 * results when every pool has it at one size; otherwise it is measured here, all pools together.
 */
export function poolRows(runs: readonly RunResults[], names: readonly string[]): PoolRow[] {
  const colour = seriesColours(runs);
  const rows = runs.flatMap((results, i) =>
    orderedSuites(results).map((suite): PoolRow => ({ run: names[i]!, runIndex: i, suite, equalSize: suite.metrics.diversity.equalSize, colour: colour(i, suite.id) })),
  );
  const sizes = new Set(rows.map((row) => row.equalSize?.size));
  if (sizes.size !== 1 || sizes.has(undefined)) {
    // Measure on shallow copies so the caller's results are not changed.
    const copies = rows.map((row, i) => ({
      ...row.suite,
      id: String(i),
      metrics: { ...row.suite.metrics, diversity: { ...row.suite.metrics.diversity, equalSize: undefined } },
    }));
    addEqualSizeDiversity(copies);
    copies.forEach((copy, i) => (rows[i]!.equalSize = copy.metrics.diversity.equalSize));
  }
  return rows;
}


/** A pool's metrics as the report reads them: diversity at the size common to the whole report. */
export function metricsOf(row: PoolRow): SuiteResult['metrics'] {
  const { metrics } = row.suite;
  return row.equalSize ? { ...metrics, diversity: { ...metrics.diversity, equalSize: row.equalSize } } : metrics;
}
