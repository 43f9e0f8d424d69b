/**
 * The report's two kinds of chart, drawn as SVG text: grouped bars with 95% whiskers, and lines
 * with points and an optional 95% band (straight or as steps). Linear y axis (0-100% for
 * shares), gridlines, axis titles, a legend under the plot; every text from results escaped.
 * The class names of axes and grid follow the stylesheet (style.ts), which recolours them to
 * the page's theme.
 */
import { escapeHtml } from './escape.js';
import { PALETTE } from './style.js';
import { grouped } from './format.js';

export interface BarDatum {
  group: string;
  series: string;
  value: number;
  lo?: number;
  hi?: number;
}

export interface PointDatum {
  series: string;
  x: number;
  value: number;
  lo?: number;
  hi?: number;
}

export type ChartSpec =
  | { kind: 'bar'; rows: readonly BarDatum[]; yTitle: string; asPercent: boolean; seriesTitle: string | null }
  | { kind: 'line'; rows: readonly PointDatum[]; xTitle: string; yTitle: string; asPercent: boolean; step: boolean; integerX: boolean; seriesTitle: null };

const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif';
const PLOT_HEIGHT = 220;
const LINE_WIDTH = 380;
const BAR_STEP = 28;
const LABEL_SIZE = 11;
const TITLE_SIZE = 12;
/** Rough width of one character at 11px, for margins and label limits. */
const CHAR = 6.2;
const LEGEND_ROW = 17;

const round = (x: number): string => String(Math.round(x * 100) / 100);
const finite = (x: number | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/** About `count` round tick values from `lo` to `hi` (1, 2 or 5 times a power of ten apart). */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

function formatNumber(x: number, step: number): string {
  const decimals = step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step) - 1e-9));
  return grouped(x, decimals);
}

/** The y axis: its domain, ticks and labels. */
function yAxis(values: number[], asPercent: boolean): { max: number; ticks: number[]; label: (v: number) => string } {
  if (asPercent) return { max: 1, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], label: (v) => `${Math.round(v * 100)}%` };
  const top = Math.max(0, ...values);
  const ticks = niceTicks(0, top > 0 ? top : 1);
  const max = Math.max(ticks.at(-1)!, top);
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1;
  return { max, ticks, label: (v) => formatNumber(v, step) };
}

const text = (x: number, y: number, content: string, attributes = ''): string =>
  `<text x="${round(x)}" y="${round(y)}" font-size="${LABEL_SIZE}"${attributes}>${escapeHtml(content)}</text>`;

/** `s` cut to fit `width` pixels, with an ellipsis. */
const fit = (s: string, width: number): string => {
  const most = Math.max(3, Math.floor(width / CHAR));
  return s.length <= most ? s : `${s.slice(0, most - 1)}…`;
};

/** Series in order of first appearance, each with its colour. */
function seriesOf(rows: readonly { series: string }[]): Map<string, string> {
  const colours = new Map<string, string>();
  for (const row of rows) if (!colours.has(row.series)) colours.set(row.series, PALETTE[colours.size % PALETTE.length]!);
  return colours;
}

function legend(colours: Map<string, string>, title: string | null, x: number, y: number, shape: 'square' | 'line'): string {
  const parts: string[] = [];
  let row = 0;
  if (title) parts.push(text(x, y + 12, title, ` font-weight="600" font-size="${TITLE_SIZE}"`)), row++;
  for (const [name, colour] of colours) {
    const cy = y + row * LEGEND_ROW + 8;
    parts.push(shape === 'square'
      ? `<path d="M${round(x)},${round(cy - 5)}h10v10h-10z" fill="${colour}"/>`
      : `<path d="M${round(x)},${round(cy)}h14" stroke="${colour}" stroke-width="2"/><circle cx="${round(x + 7)}" cy="${round(cy)}" r="3" fill="${colour}"/>`);
    parts.push(text(x + 20, cy + 4, fit(name, 380)));
    row++;
  }
  return `<g class="role-legend">${parts.join('')}</g>`;
}

const legendHeight = (colours: Map<string, string>, title: string | null): number => (colours.size + (title ? 1 : 0)) * LEGEND_ROW + 6;

/** Grid lines, the y axis (domain, ticks, labels) and its title, for a plot at (left, top) of the given size. */
function yFrame(left: number, top: number, width: number, height: number, axis: ReturnType<typeof yAxis>, title: string): string {
  const y = (v: number): number => top + height - (v / axis.max) * height;
  const grid = axis.ticks.map((t) => `<line x1="${round(left)}" x2="${round(left + width)}" y1="${round(y(t))}" y2="${round(y(t))}"/>`).join('');
  const ticks = axis.ticks.map((t) => `<line x1="${round(left - 5)}" x2="${round(left)}" y1="${round(y(t))}" y2="${round(y(t))}"/>`).join('');
  const labels = axis.ticks.map((t) => text(left - 8, y(t) + 4, axis.label(t), ' text-anchor="end"')).join('');
  const titleY = top + height / 2;
  return `<g class="role-axis-grid" stroke="#dddddd" stroke-width="1">${grid}</g>`
    + `<g class="role-axis-tick" stroke="#888888" stroke-width="1">${ticks}</g><g class="role-axis-domain" stroke="#888888"><line x1="${round(left)}" x2="${round(left)}" y1="${round(top)}" y2="${round(top + height)}"/></g>`
    + `<g class="role-axis-label">${labels}</g>`
    + `<text transform="translate(14,${round(titleY)}) rotate(-90)" text-anchor="middle" font-size="${TITLE_SIZE}" font-weight="600">${escapeHtml(fit(title, height))}</text>`;
}

const svg = (width: number, height: number, body: string): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${round(width)}" height="${round(height)}" viewBox="0 0 ${round(width)} ${round(height)}" font-family="${FONT}">${body}</svg>`;

function barChart(spec: Extract<ChartSpec, { kind: 'bar' }>): string {
  const colours = seriesOf(spec.rows);
  const groups = [...new Set(spec.rows.map((r) => r.group))];
  const series = [...colours.keys()];
  const axis = yAxis(spec.rows.flatMap((r) => [r.value, ...(finite(r.hi) ? [r.hi] : [])]), spec.asPercent);
  const left = 30 + CHAR * Math.max(...axis.ticks.map((t) => axis.label(t).length));
  const top = 10;
  const groupWidth = BAR_STEP * Math.max(1, series.length) + 12;
  const width = Math.max(groupWidth * Math.max(1, groups.length), 120);
  const y = (v: number): number => top + PLOT_HEIGHT - (Math.max(0, Math.min(axis.max, v)) / axis.max) * PLOT_HEIGHT;
  const marks: string[] = [];
  for (const row of spec.rows) {
    const g = groups.indexOf(row.group);
    const s = series.indexOf(row.series);
    const x = left + g * groupWidth + 6 + s * BAR_STEP + 2;
    const barWidth = BAR_STEP - 4;
    const y0 = y(0);
    const y1 = y(row.value);
    marks.push(`<path class="mark-bar" d="M${round(x)},${round(y1)}h${round(barWidth)}V${round(y0)}h${round(-barWidth)}Z" fill="${colours.get(row.series)}"><title>${escapeHtml(`${row.group} · ${row.series}: ${axis.label(row.value)}`)}</title></path>`);
    if (finite(row.lo) && finite(row.hi)) {
      const cx = x + barWidth / 2;
      marks.push(`<path class="mark-rule" d="M${round(cx)},${round(y(row.lo))}V${round(y(row.hi))}" stroke="#888" stroke-width="1.5"/>`);
    }
  }
  const labels = groups.map((g, i) => text(left + i * groupWidth + groupWidth / 2, top + PLOT_HEIGHT + 16, fit(g, Math.min(140, groupWidth + 40)), ' text-anchor="middle"')).join('');
  const plotBottom = top + PLOT_HEIGHT + 26;
  const legendTop = plotBottom + 6;
  const total = legendTop + legendHeight(colours, spec.seriesTitle);
  return svg(left + width + 10, total,
    yFrame(left, top, width, PLOT_HEIGHT, axis, spec.yTitle)
    + `<g class="role-axis-domain" stroke="#888888"><line x1="${round(left)}" x2="${round(left + width)}" y1="${round(top + PLOT_HEIGHT)}" y2="${round(top + PLOT_HEIGHT)}"/></g>`
    + `<g class="role-axis-label">${labels}</g><g class="role-mark">${marks.join('')}</g>`
    + legend(colours, spec.seriesTitle, left, legendTop, 'square'));
}

function lineChart(spec: Extract<ChartSpec, { kind: 'line' }>): string {
  const colours = seriesOf(spec.rows);
  const xs = [...new Set(spec.rows.map((r) => r.x))].sort((a, b) => a - b);
  const axis = yAxis(spec.rows.flatMap((r) => [r.value, ...(finite(r.hi) ? [r.hi] : [])]), spec.asPercent);
  const left = 30 + CHAR * Math.max(...axis.ticks.map((t) => axis.label(t).length));
  const top = 10;
  const lo = xs[0] ?? 0;
  const hi = xs.at(-1) ?? 1;
  // Integer axes with few values label exactly those values (no 0.5 ticks, no repeated labels).
  const xTicks = spec.integerX && xs.length <= 16 ? xs : niceTicks(lo, hi, 6).filter((t) => !spec.integerX || Number.isInteger(t));
  const xMin = Math.min(lo, ...xTicks);
  const xMax = Math.max(hi, ...xTicks);
  const x = (v: number): number => left + (xMax > xMin ? ((v - xMin) / (xMax - xMin)) * LINE_WIDTH : LINE_WIDTH / 2);
  const y = (v: number): number => top + PLOT_HEIGHT - (Math.max(0, Math.min(axis.max, v)) / axis.max) * PLOT_HEIGHT;
  const step = (points: [number, number][]): string =>
    points.map(([px, py], i) => (i === 0 ? `M${round(px)},${round(py)}` : spec.step ? `H${round(px)}V${round(py)}` : `L${round(px)},${round(py)}`)).join('');
  const bands: string[] = [];
  const lines: string[] = [];
  for (const [name, colour] of colours) {
    const rows = spec.rows.filter((r) => r.series === name).sort((a, b) => a.x - b.x);
    const banded = rows.filter((r) => finite(r.lo) && finite(r.hi));
    if (banded.length > 0) {
      const upper = step(banded.map((r) => [x(r.x), y(r.hi!)]));
      const lower = banded.map((r) => [x(r.x), y(r.lo!)] as [number, number]).reverse();
      const back = lower.map(([px, py], i) => (spec.step && i > 0 ? `V${round(py)}H${round(px)}` : `L${round(px)},${round(py)}`)).join('');
      bands.push(`<path class="mark-area" d="${upper}${back}Z" fill="${colour}" opacity="0.15"/>`);
    }
    lines.push(`<path class="mark-line" d="${step(rows.map((r) => [x(r.x), y(r.value)]))}" fill="none" stroke="${colour}" stroke-width="2"><title>${escapeHtml(name)}</title></path>`);
    if (!spec.step) for (const r of rows) lines.push(`<circle cx="${round(x(r.x))}" cy="${round(y(r.value))}" r="3" fill="${colour}"><title>${escapeHtml(`${name}: ${spec.xTitle} ${r.x}, ${axis.label(r.value)}`)}</title></circle>`);
  }
  const xLabels = xTicks.map((t) => text(x(t), top + PLOT_HEIGHT + 16, spec.integerX ? String(Math.round(t)) : formatNumber(t, xTicks.length > 1 ? xTicks[1]! - xTicks[0]! : 1), ' text-anchor="middle"')).join('');
  const xTickMarks = xTicks.map((t) => `<line x1="${round(x(t))}" x2="${round(x(t))}" y1="${round(top + PLOT_HEIGHT)}" y2="${round(top + PLOT_HEIGHT + 5)}"/>`).join('');
  const titleY = top + PLOT_HEIGHT + 36;
  const legendTop = titleY + 8;
  const total = legendTop + legendHeight(colours, null);
  return svg(left + LINE_WIDTH + 14, total,
    yFrame(left, top, LINE_WIDTH, PLOT_HEIGHT, axis, spec.yTitle)
    + `<g class="role-axis-domain" stroke="#888888"><line x1="${round(left)}" x2="${round(left + LINE_WIDTH)}" y1="${round(top + PLOT_HEIGHT)}" y2="${round(top + PLOT_HEIGHT)}"/></g>`
    + `<g class="role-axis-tick" stroke="#888888" stroke-width="1">${xTickMarks}</g><g class="role-axis-label">${xLabels}</g>`
    + `<text x="${round(left + LINE_WIDTH / 2)}" y="${round(titleY)}" text-anchor="middle" font-size="${TITLE_SIZE}" font-weight="600">${escapeHtml(spec.xTitle)}</text>`
    + `<g class="role-mark">${bands.join('')}${lines.join('')}</g>`
    + legend(colours, null, left, legendTop, 'line'));
}

/** The chart as one SVG element. */
export function drawChart(spec: ChartSpec): string {
  return spec.kind === 'bar' ? barChart(spec) : lineChart(spec);
}
