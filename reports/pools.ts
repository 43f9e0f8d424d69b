/**
 * The pools of a report: every suite of every run, one row each, in the order the report shows
 * them, with diversity at the size common to every pool.
 */
import type { EqualSizeDiversity, RunResults, SuiteResult } from '../core/results/results.js';
import { addEqualSizeDiversity } from '../core/metrics/index.js';

export interface PoolRow {
  run: string;
  suite: SuiteResult;
  /** Diversity of the pool at the size common to every pool of the report. */
  equalSize?: EqualSizeDiversity;
}

/** Self-play first, then curriculum pools, then static suites (each kept in run order). */
const KIND_ORDER: Record<SuiteResult['kind'], number> = { selfplay: 0, curriculum: 1, static: 2 };
export const KIND_LABEL: Record<SuiteResult['kind'], string> = { selfplay: 'self-play', curriculum: 'curriculum', static: 'static' };

/**
 * The pools of all runs, self-play first within each run. Equal-size diversity comes from the
 * results when every pool has it at one size; otherwise it is measured here, all pools together.
 */
export function poolRows(runs: readonly RunResults[], names: readonly string[]): PoolRow[] {
  const rows = runs.flatMap((results, i) =>
    [...results.suites]
      .sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind])
      .map((suite): PoolRow => ({ run: names[i]!, suite, equalSize: suite.metrics.diversity.equalSize })),
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

