/**
 * The report's chart specs. Each takes plain rows and returns a spec that svg-chart.ts draws;
 * data is inline, so rendering needs no network.
 */
import type { ChartSpec } from './svg-chart.js';

export interface BarRow {
  /** Category on the x axis (a suite, or a game type). */
  group: string;
  /** Series (a run, or a pool). */
  series: string;
  value: number;
  lo?: number;
  hi?: number;
}

export interface PointRow {
  series: string;
  x: number;
  value: number;
  lo?: number;
  hi?: number;
}

/** Grouped bars (x: group, colour: series, the legend titled `seriesTitle`) with 95% interval whiskers where given. */
export function barChart(rows: readonly BarRow[], yTitle: string, asPercent: boolean, seriesTitle = 'run'): ChartSpec {
  return { kind: 'bar', rows: rows.map((row) => ({ ...row })), yTitle, asPercent, seriesTitle };
}

/** Lines with points (x quantitative), an optional 95% band, colour by series. */
export function lineChart(
  rows: readonly PointRow[],
  xTitle: string,
  yTitle: string,
  options: { asPercent?: boolean; step?: boolean; integerX?: boolean } = {},
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
  };
}
