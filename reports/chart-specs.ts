/**
 * The report's chart specs (Vega-Lite 5). Each takes plain rows and returns a spec; data is
 * inline, so rendering needs no network.
 */
import type { TopLevelSpec } from 'vega-lite';

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

const WIDTH = 380;
const HEIGHT = 220;

const yAxis = (title: string, asPercent: boolean) => ({
  field: 'value',
  type: 'quantitative' as const,
  title,
  ...(asPercent && { axis: { format: '.0%' }, scale: { domain: [0, 1] } }),
});

/** Grouped bars (x: group, colour: series, the legend titled `seriesTitle`) with 95% interval whiskers where given. */
export function barChart(rows: readonly BarRow[], yTitle: string, asPercent: boolean, seriesTitle = 'run'): TopLevelSpec {
  const xOffset = { field: 'series', type: 'nominal' as const };
  return {
    width: { step: 28 } as unknown as number,
    height: HEIGHT,
    data: { values: rows.map((row) => ({ ...row })) },
    encoding: {
      x: { field: 'group', type: 'nominal', title: null, sort: null, axis: { labelAngle: 0, labelLimit: 140 } },
      xOffset,
      color: { field: 'series', type: 'nominal', title: seriesTitle, legend: { orient: 'bottom', direction: 'vertical' } },
    },
    layer: [
      { mark: { type: 'bar', cornerRadiusEnd: 2 }, encoding: { y: yAxis(yTitle, asPercent) } },
      {
        transform: [{ filter: 'isValid(datum.lo) && isValid(datum.hi)' }],
        mark: { type: 'rule', strokeWidth: 1.5, color: '#888' },
        encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } },
      },
    ],
  } as TopLevelSpec;
}

/** Lines with points (x quantitative), an optional 95% band, colour by series. */
export function lineChart(
  rows: readonly PointRow[],
  xTitle: string,
  yTitle: string,
  options: { asPercent?: boolean; step?: boolean; integerX?: boolean } = {},
): TopLevelSpec {
  const xs = [...new Set(rows.map((row) => row.x))].sort((a, b) => a - b);
  // Integer axes with few values label exactly those values (no 0.5 ticks, no repeated labels).
  const integerAxis = options.integerX && xs.length <= 16 ? { axis: { values: xs, format: 'd' } } : options.integerX ? { axis: { tickMinStep: 1, format: 'd' } } : {};
  const x = { field: 'x', type: 'quantitative' as const, title: xTitle, ...integerAxis };
  const color = { field: 'series', type: 'nominal' as const, title: null, legend: { orient: 'bottom' as const, direction: 'vertical' as const } };
  return {
    width: WIDTH,
    height: HEIGHT,
    data: { values: rows.map((row) => ({ ...row })) },
    encoding: { x, color },
    layer: [
      {
        transform: [{ filter: 'isValid(datum.lo) && isValid(datum.hi)' }],
        mark: { type: 'area', opacity: 0.15, ...(options.step && { interpolate: 'step-after' }) },
        encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } },
      },
      {
        mark: { type: 'line', point: !options.step, strokeWidth: 2, ...(options.step && { interpolate: 'step-after' }) },
        encoding: { y: yAxis(yTitle, options.asPercent ?? false) },
      },
    ],
  } as TopLevelSpec;
}
