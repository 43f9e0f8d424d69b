/**
 * The summary that opens the report: pools as rows, runs as columns, the headline of every
 * metric the metrics table shows there (core/metrics/table.ts) with its 95% interval, and, with
 * two or more runs, each later run's difference from the first with a 95% interval of that
 * difference (MOVER, core/metrics/difference.ts), marked where that interval excludes zero.
 * A metric without an interval is compared by the ratio of the two runs. The HTML and Markdown
 * reports draw the same lines.
 */
import type { RunResults, SuiteResult } from '../core/results/results.js';
import { headlineOf, metricsShownIn, type Figure, type MetricPlace, type MetricRow } from '../core/metrics/table.js';
import { differenceOf, type Difference } from '../core/metrics/difference.js';
import { KIND_LABEL, metricsOf, type PoolRow } from './pools.js';
import { escapeHtml } from './escape.js';
import { isReferenceRole } from './runs.js';
import { differenceInterval, formatInterval, formatValue, grouped, ratio, signedDifference } from './format.js';

/** How a later run's figure compares with the first run's. */
export type Comparison =
  | { kind: 'difference'; difference: Difference }
  /** Neither has an interval: the difference alone, and the ratio for metrics on a log scale. */
  | { kind: 'plain'; value: number; ratio?: number };

export interface SummaryLine {
  pool: string;
  kind: SuiteResult['kind'];
  row: MetricRow<any>;
  /** One per run: undefined where the run has no such pool (or no such metric). */
  figures: (Figure | undefined)[];
  /** One per run after the first: how it compares with the first. */
  comparisons: (Comparison | undefined)[];
}

/** `later` against `first`, when both were measured. */
export function compare(first: Figure | undefined, later: Figure | undefined, row: MetricRow<any>): Comparison | undefined {
  if (!first || !later || first.value === null || later.value === null) return undefined;
  if (first.interval && later.interval) {
    return { kind: 'difference', difference: differenceOf({ value: first.value, interval: first.interval }, { value: later.value, interval: later.interval }) };
  }
  const ratio = row.scale === 'log' && first.value > 0 ? later.value / first.value : undefined;
  return { kind: 'plain', value: later.value - first.value, ...(ratio !== undefined && { ratio }) };
}

/** The summary's lines: for each pool (in the report's order), one per metric shown in `place`. */
export function summaryLines(rows: readonly PoolRow[], runs: number, place: MetricPlace): SummaryLine[] {
  const pools = new Map<string, PoolRow[]>();
  for (const row of rows) pools.set(row.suite.id, [...(pools.get(row.suite.id) ?? []), row]);
  const metrics = metricsShownIn(place);
  return [...pools.values()].flatMap((ofPool) => {
    const byRun = Array.from({ length: runs }, (_, i) => ofPool.find((row) => row.runIndex === i));
    return metrics.map((metric): SummaryLine => {
      const figures = byRun.map((row) => (row ? headlineOf(metric, metricsOf(row)) : undefined));
      return {
        pool: ofPool[0]!.suite.id,
        kind: ofPool[0]!.suite.kind,
        row: metric,
        figures,
        comparisons: figures.slice(1).map((figure) => compare(figures[0], figure, metric)),
      };
    });
  });
}

/** The label of a metric's line: its name and unit. */
export const lineLabel = (row: MetricRow<any>): string => (row.unit ? `${row.label} (${row.unit})` : row.label);

export const kindLabel = (kind: SuiteResult['kind']): string => KIND_LABEL[kind];

/** What the summary's cells mean, in one paragraph. */
export function summaryNote(runs: number): string {
  const cells = 'Each cell: the headline with its 95% interval (Wilson for shares, random subsets of one size for diversity, bootstrap for means) and the counts behind it. n/a: nothing to measure (no episode decided or won); –: not in this run, or nothing to compare.';
  if (runs < 2) return cells;
  return `${cells} Differences: each run minus the first, in percentage points (pp) for shares, with a 95% interval of the difference (MOVER, from the two runs' intervals, taken as independent); * marks an interval that excludes zero. Throughput has no interval (one measurement): the ratio of the two runs is shown.`;
}

// ---------------------------------------------------------------------------------------------
// The HTML section
// ---------------------------------------------------------------------------------------------

function figureCell(figure: Figure | undefined, row: MetricRow<any>): string {
  if (!figure) return '<td class="missing">–</td>';
  const parts = [`<span class="value">${escapeHtml(formatValue(figure.value, row.format))}</span>`];
  if (figure.value !== null && figure.interval) parts.push(`<small class="interval">${escapeHtml(formatInterval(figure.interval, row.format))}</small>`);
  const small = [...(figure.counts ? [`${grouped(figure.counts[0])} / ${grouped(figure.counts[1])}`] : []), ...(figure.note ? [figure.note] : [])];
  if (small.length) parts.push(`<small>${escapeHtml(small.join(' · '))}</small>`);
  for (const { label, figure: other } of figure.beside ?? []) {
    // An interval is never split over two lines, where a narrow page wraps the cell.
    const interval = other.value !== null && other.interval ? ` <span class="interval">${escapeHtml(formatInterval(other.interval, row.format))}</span>` : '';
    parts.push(`<small class="beside">${escapeHtml(label)} <strong>${escapeHtml(formatValue(other.value, row.format))}</strong>${interval}</small>`);
  }
  const title = figure.detail ? ` title="${escapeHtml(figure.detail)}"` : '';
  return `<td${title}>${parts.join('')}</td>`;
}

function comparisonCell(comparison: Comparison | undefined, row: MetricRow<any>): string {
  if (!comparison) return '<td class="diff missing">–</td>';
  if (comparison.kind === 'plain') {
    const ratioText = comparison.ratio !== undefined ? `<small>${escapeHtml(ratio(comparison.ratio))}</small>` : '';
    return `<td class="diff"><span class="value">${escapeHtml(signedDifference(comparison.value, row.format))}</span>${ratioText}</td>`;
  }
  const { value, interval, excludesZero } = comparison.difference;
  const mark = excludesZero ? '<span class="mark" title="the 95% interval of the difference excludes zero">*</span>' : '';
  return `<td class="diff${excludesZero ? ' excludes-zero' : ''}"><span class="value">${escapeHtml(signedDifference(value, row.format))}${mark}</span><small>${escapeHtml(differenceInterval(interval, row.format))}</small></td>`;
}

/** The summary section: one table, pools as rows, runs as columns, differences beside each later run. */
export function summarySection(rows: readonly PoolRow[], names: readonly string[], runs: readonly RunResults[]): string {
  const lines = summaryLines(rows, names.length, 'html');
  const runColour = (i: number): string => rows.find((row) => row.runIndex === i)?.colour ?? '';
  const head = names.map((name, i) => {
    const swatch = names.length > 1 ? `<span class="swatch" style="background:${runColour(i)}"></span>` : '';
    const { run } = runs[i]!;
    const agent = isReferenceRole(run, 'agent') ? 'agent: the offline reference policy' : `agent: ${run.agentLabel}`;
    const column = `<th scope="col">${swatch}${escapeHtml(name)}<br><small>${escapeHtml(agent)}</small></th>`;
    return i === 0 ? column : `${column}<th scope="col" class="diff">${escapeHtml(name)} − ${escapeHtml(names[0])}<br><small>difference, 95% interval</small></th>`;
  });
  const columns = 1 + names.length * 2 - 1;
  // Each pool opens with a row of its own, so the pool's name takes no column.
  const pools = [...new Set(lines.map((line) => line.pool))];
  const body = pools.map((pool) => {
    const ofPool = lines.filter((line) => line.pool === pool);
    const heading = `<tr class="pool"><th scope="rowgroup" colspan="${columns}">${escapeHtml(pool)} <small>${kindLabel(ofPool[0]!.kind)}</small></th></tr>`;
    const metrics = ofPool.map((line) => {
      const cells = line.figures.map((figure, r) => figureCell(figure, line.row) + (r === 0 ? '' : comparisonCell(line.comparisons[r - 1], line.row)));
      return `<tr><th scope="row" class="metric">${escapeHtml(lineLabel(line.row))}</th>${cells.join('')}</tr>`;
    });
    return `<tbody data-pool="${escapeHtml(pool)}">${heading}\n${metrics.join('\n')}</tbody>`;
  });
  return `<section id="summary"><h2>Summary</h2>
<div class="table-wrap"><table class="summary"><thead><tr><th scope="col">pool · metric</th>${head.join('')}</tr></thead>
${body.join('\n')}
</table></div>
<p class="muted">${escapeHtml(summaryNote(names.length))}</p>
</section>`;
}
