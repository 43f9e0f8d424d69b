/**
 * The report's chart specs. Each takes plain rows and returns a spec that svg-chart.ts draws;
 * data is inline, so rendering needs no network. A row may name its colour (series.ts gives
 * each run, or each pool of a single run, one colour in every chart).
 */
import type { BarDatum, ChartSpec, PointDatum } from './svg-chart.js';

/** A bar: x is its group (a pool, a game type), colour its series (a run, a pool); a null value is drawn "n/a". */
export type BarRow = BarDatum;

/** A point of a line (x quantitative). */
export type PointRow = PointDatum;

/** Grouped bars with 95% interval whiskers where given; `log`: a log axis when the values span magnitudes. */
export function barChart(rows: readonly BarRow[], yTitle: string, asPercent: boolean, seriesTitle = 'run', options: { log?: boolean } = {}): ChartSpec {
  return { kind: 'bar', rows: rows.map((row) => ({ ...row })), yTitle, asPercent, seriesTitle, log: options.log ?? false };
}

/** Lines with points, an optional 95% band; `logX`: a log x axis when the x values span magnitudes. */
export function lineChart(
  rows: readonly PointRow[],
  xTitle: string,
  yTitle: string,
  options: { asPercent?: boolean; step?: boolean; integerX?: boolean; logX?: boolean } = {},
): ChartSpec {
  return {
    kind: 'line',
    rows: rows.map((row) => ({ ...row })),
    xTitle,
    yTitle,
    asPercent: options.asPercent ?? false,
    step: options.step ?? false,
    integerX: options.integerX ?? false,
    seriesTitle: null,
    logX: options.logX ?? false,
  };
}
