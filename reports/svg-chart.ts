/**
 * The report's two kinds of chart, drawn as SVG text: grouped bars with 95% whiskers, and lines
 * with points and an optional 95% band (straight or as steps). Every chart is drawn CHART_WIDTH
 * units wide and scaled by the page to fill its card. Axes are linear, or logarithmic where
 * asked and the values span magnitudes (svg-axis.ts). X labels never overlap: a bar chart's
 * group names wrap on word boundaries and turn upright when a word is still too wide; a line
 * chart's ticks are thinned. A series keeps the colour it is given (the report gives each run
 * one colour in every chart); series of one colour differ by dash, marker and shade. A series
 * identical to an earlier one stays visible: the earlier is drawn wider beneath it, and the
 * legend says so. Every text from results is escaped. Class names of axes and grid follow the
 * stylesheet (style.ts), which recolours them to the page's theme.
 */
import { escapeHtml } from './escape.js';
import { PALETTE } from './style.js';
import { positionAxis, spacedTicks, valueAxis, type Axis } from './svg-axis.js';
import { fitText, textWidth, wrapText } from './svg-text.js';

export interface BarDatum {
  group: string;
  series: string;
  /** null: nothing to measure (drawn as "n/a"). */
  value: number | null;
  lo?: number;
  hi?: number;
  /** The bar's colour (default: its series', from the palette in order of first appearance). */
  colour?: string;
}

export interface PointDatum {
  series: string;
  x: number;
  value: number;
  lo?: number;
  hi?: number;
  colour?: string;
}

export type ChartSpec =
  | { kind: 'bar'; rows: readonly BarDatum[]; yTitle: string; asPercent: boolean; seriesTitle: string | null; log?: boolean }
  | { kind: 'line'; rows: readonly PointDatum[]; xTitle: string; yTitle: string; asPercent: boolean; step: boolean; integerX: boolean; seriesTitle: null; logX?: boolean };

/** Width of every chart, in SVG units; the page scales it to its card. */
export const CHART_WIDTH = 640;
const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif';
const PLOT_HEIGHT = 230;
const LABEL_SIZE = 11;
const TITLE_SIZE = 12;
const LINE_HEIGHT = 13;
const LEGEND_ROW = 18;
/** Narrowest bar, in units: a chart with more bars grows wider (and its card scrolls). */
const MIN_BAR = 7;
const WIDEST_BAR = 44;
/** Longest upright x label, in units. */
const UPRIGHT_MAX = 120;
/** Dash patterns and markers of the series that share a colour, in turn. */
const DASHES = ['', '7 4', '2 3', '9 3 2 3'];
const MARKERS = ['circle', 'square', 'triangle', 'diamond'] as const;
/** Fill opacity of bars that share a colour, in turn. */
const SHADES = [1, 0.55, 0.3, 0.75];

const round = (x: number): string => String(Math.round(x * 100) / 100);
const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

const text = (x: number, y: number, content: string, attributes = ''): string =>
  `<text x="${round(x)}" y="${round(y)}" font-size="${LABEL_SIZE}"${attributes}>${escapeHtml(content)}</text>`;

interface SeriesStyle {
  colour: string;
  /** Its turn among the series of its colour: picks its dash, marker and shade. */
  variant: number;
  /** An earlier series with the same values, if any. */
  sameAs?: string;
  /** How many later series have its values: it is drawn wider beneath them. */
  covered: number;
}

/** Series in order of first appearance, each with its colour and its turn within that colour. */
function stylesOf(rows: readonly { series: string; colour?: string }[], signature?: (series: string) => string): Map<string, SeriesStyle> {
  const styles = new Map<string, SeriesStyle>();
  const perColour = new Map<string, number>();
  for (const row of rows) {
    if (styles.has(row.series)) continue;
    const colour = row.colour ?? PALETTE[styles.size % PALETTE.length]!;
    const variant = perColour.get(colour) ?? 0;
    perColour.set(colour, variant + 1);
    styles.set(row.series, { colour, variant, covered: 0 });
  }
  if (signature) {
    const seen = new Map<string, string>();
    for (const [name, style] of styles) {
      const key = signature(name);
      const first = seen.get(key);
      if (first === undefined) seen.set(key, name);
      else style.sameAs = first;
    }
    for (const style of styles.values()) if (style.sameAs) styles.get(style.sameAs)!.covered++;
  }
  return styles;
}

function marker(shape: (typeof MARKERS)[number], x: number, y: number, r: number, colour: string, title: string): string {
  const tip = `<title>${escapeHtml(title)}</title>`;
  if (shape === 'circle') return `<circle cx="${round(x)}" cy="${round(y)}" r="${round(r)}" fill="${colour}">${tip}</circle>`;
  if (shape === 'square') return `<path d="M${round(x - r)},${round(y - r)}h${round(2 * r)}v${round(2 * r)}h${round(-2 * r)}Z" fill="${colour}">${tip}</path>`;
  if (shape === 'triangle') return `<path d="M${round(x)},${round(y - r * 1.2)}L${round(x + r * 1.1)},${round(y + r * 0.8)}H${round(x - r * 1.1)}Z" fill="${colour}">${tip}</path>`;
  return `<path d="M${round(x)},${round(y - r * 1.3)}L${round(x + r)},${round(y)}L${round(x)},${round(y + r * 1.3)}L${round(x - r)},${round(y)}Z" fill="${colour}">${tip}</path>`;
}

/** The legend: one item per series, flowing into rows `width` wide; returns its markup and height. */
function legend(styles: Map<string, SeriesStyle>, title: string | null, x: number, y: number, width: number, shape: 'bar' | 'line'): { svg: string; height: number } {
  const parts: string[] = [];
  let row = 0;
  if (title) parts.push(text(x, y + 12, title, ` font-weight="600" font-size="${TITLE_SIZE}"`)), row++;
  let left = x;
  for (const [name, style] of styles) {
    const label = fitText(style.sameAs ? `${name} (same values as ${style.sameAs})` : name, width - 40, LABEL_SIZE);
    const itemWidth = 24 + textWidth(label, LABEL_SIZE) + 18;
    if (left > x && left + itemWidth > x + width) {
      row++;
      left = x;
    }
    const cy = y + row * LEGEND_ROW + 9;
    parts.push(`<g class="legend-item" data-series="${escapeHtml(name)}" data-colour="${style.colour}">`);
    if (shape === 'bar') {
      parts.push(`<path d="M${round(left)},${round(cy - 5)}h12v10h-12z" fill="${style.colour}" fill-opacity="${SHADES[style.variant % SHADES.length]}" stroke="${style.colour}"/>`);
    } else {
      const dash = DASHES[style.variant % DASHES.length];
      parts.push(`<path d="M${round(left)},${round(cy)}h18" stroke="${style.colour}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`);
      parts.push(marker(MARKERS[style.variant % MARKERS.length]!, left + 9, cy, 3.2, style.colour, name));
    }
    parts.push(text(left + 24, cy + 4, label), '</g>');
    left += itemWidth;
  }
  return { svg: `<g class="role-legend">${parts.join('')}</g>`, height: (row + 1) * LEGEND_ROW + 6 };
}

/** Grid lines, the y axis (domain, ticks, labels) and its title, for a plot at (left, top). */
function yFrame(left: number, top: number, width: number, axis: Axis, title: string): string {
  const y = (v: number): number => top + PLOT_HEIGHT - axis.at(v) * PLOT_HEIGHT;
  const { ticks } = axis;
  const grid = ticks.map((t) => `<line x1="${round(left)}" x2="${round(left + width)}" y1="${round(y(t))}" y2="${round(y(t))}"/>`).join('');
  const marks = ticks.map((t) => `<line x1="${round(left - 5)}" x2="${round(left)}" y1="${round(y(t))}" y2="${round(y(t))}"/>`).join('');
  const labels = ticks.map((t) => text(left - 8, y(t) + 4, axis.label(t), ' text-anchor="end"')).join('');
  const scale = axis.log ? ' (log scale)' : '';
  return `<g class="role-axis-grid" stroke="#dddddd" stroke-width="1">${grid}</g>`
    + `<g class="role-axis-tick" stroke="#888888" stroke-width="1">${marks}</g><g class="role-axis-domain" stroke="#888888"><line x1="${round(left)}" x2="${round(left)}" y1="${round(top)}" y2="${round(top + PLOT_HEIGHT)}"/></g>`
    + `<g class="role-axis-label">${labels}</g>`
    + `<text transform="translate(14,${round(top + PLOT_HEIGHT / 2)}) rotate(-90)" text-anchor="middle" font-size="${TITLE_SIZE}" font-weight="600">${escapeHtml(fitText(title + scale, PLOT_HEIGHT, TITLE_SIZE))}</text>`;
}

/** Left margin: room for the widest y label and the axis title. */
const leftMargin = (axis: Axis): number => 34 + Math.max(...axis.ticks.map((t) => textWidth(axis.label(t), LABEL_SIZE)));

const svg = (width: number, height: number, body: string): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${round(width)}" height="${round(height)}" viewBox="0 0 ${round(width)} ${round(height)}" font-family="${FONT}">${body}</svg>`;

/** Group labels under their slots: wrapped to three lines, else upright; with the height they take. */
function groupLabels(groups: readonly string[], centre: (i: number) => number, slot: number, top: number): { svg: string; height: number } {
  const room = slot - 6;
  const wrapped = groups.map((g) => wrapText(g, room, LABEL_SIZE, 3));
  if (wrapped.every(Boolean)) {
    const lines = Math.max(...wrapped.map((w) => w!.length));
    const labels = wrapped.map((w, i) => `<text class="x-label" x="${round(centre(i))}" y="${round(top + 14)}" font-size="${LABEL_SIZE}" text-anchor="middle">${w!
      .map((line, n) => `<tspan x="${round(centre(i))}" dy="${n === 0 ? 0 : LINE_HEIGHT}">${escapeHtml(line)}</tspan>`).join('')}</text>`);
    return { svg: labels.join(''), height: 8 + lines * LINE_HEIGHT };
  }
  // Upright labels, read from the bottom up, each as wide as one line of text.
  const shown = groups.map((g) => fitText(g, UPRIGHT_MAX, LABEL_SIZE));
  const longest = Math.max(...shown.map((g) => textWidth(g, LABEL_SIZE)));
  const labels = shown.map((g, i) => `<text class="x-label" transform="translate(${round(centre(i) + 4)},${round(top + 8)}) rotate(-90)" font-size="${LABEL_SIZE}" text-anchor="end">${escapeHtml(g)}</text>`);
  return { svg: labels.join(''), height: 14 + longest };
}

function barChart(spec: Extract<ChartSpec, { kind: 'bar' }>): string {
  const styles = stylesOf(spec.rows);
  const groups = [...new Set(spec.rows.map((r) => r.group))];
  const series = [...styles.keys()];
  const axis = valueAxis(spec.rows.flatMap((r) => (finite(r.value) ? [r.value, ...(finite(r.hi) ? [r.hi] : []), ...(finite(r.lo) && r.lo > 0 ? [r.lo] : [])] : [])), { percent: spec.asPercent, log: spec.log });
  const left = leftMargin(axis);
  const top = 10;
  const perGroup = Math.max(1, series.length);
  const width = Math.max(CHART_WIDTH - left - 12, groups.length * (perGroup * MIN_BAR + 10));
  const slot = width / Math.max(1, groups.length);
  const barWidth = Math.min(WIDEST_BAR, (slot * 0.8) / perGroup);
  const y = (v: number): number => top + PLOT_HEIGHT - axis.at(v) * PLOT_HEIGHT;
  const base = top + PLOT_HEIGHT;
  const marks: string[] = [];
  const centre = (g: number): number => left + g * slot + slot / 2;
  for (const row of spec.rows) {
    const g = groups.indexOf(row.group);
    const s = series.indexOf(row.series);
    const style = styles.get(row.series)!;
    const x = centre(g) - (perGroup * barWidth) / 2 + s * barWidth + 1;
    const w = barWidth - 2;
    const cx = x + w / 2;
    const cap = Math.min(6, w / 2);
    if (!finite(row.value) || row.value <= 0) {
      // Nothing measured, or a zero (no bar to see, none at all on a log axis): say so where the bar would stand,
      // beside the interval's whisker when there is one (an upright text's glyphs reach about 8 units left of its line).
      const aside = finite(row.lo) && finite(row.hi) ? cap + 8 : 0;
      marks.push(`<text class="mark-missing" transform="translate(${round(cx + 3.5 + aside)},${round(base - 4)}) rotate(-90)" font-size="10" fill-opacity="0.75">${row.value === null ? 'n/a' : '0'}</text>`);
    } else {
      const tip = `<title>${escapeHtml(`${row.group} · ${row.series}: ${axis.label(row.value)}${finite(row.lo) && finite(row.hi) ? ` (95% interval ${axis.label(row.lo)}–${axis.label(row.hi)})` : ''}`)}</title>`;
      const colour = row.colour ?? style.colour;
      marks.push(`<path class="mark-bar" d="M${round(x)},${round(y(row.value))}h${round(w)}V${round(base)}h${round(-w)}Z" fill="${colour}" fill-opacity="${SHADES[style.variant % SHADES.length]}" stroke="${colour}">${tip}</path>`);
    }
    // The interval, when there is one, also around a zero (a share of 0 out of few is uncertain).
    if (finite(row.value) && finite(row.lo) && finite(row.hi) && !(axis.log && row.value <= 0)) {
      marks.push(`<path class="mark-rule" d="M${round(cx)},${round(y(row.lo))}V${round(y(row.hi))}M${round(cx - cap)},${round(y(row.lo))}h${round(2 * cap)}M${round(cx - cap)},${round(y(row.hi))}h${round(2 * cap)}" stroke="#777" stroke-width="1.5"/>`);
    }
  }
  const labels = groupLabels(groups, centre, slot, base);
  const legendTop = base + labels.height + 8;
  const total = left + width + 12;
  // One series whose bars take their groups' colours (one run's pools) needs no legend.
  const own = styles.size === 1 && new Set(spec.rows.map((r) => r.colour)).size > 1;
  const key = own ? { svg: '', height: 0 } : legend(styles, spec.seriesTitle, left, legendTop, total - left - 4, 'bar');
  return svg(total, legendTop + key.height,
    yFrame(left, top, width, axis, spec.yTitle)
    + `<g class="role-axis-domain" stroke="#888888"><line x1="${round(left)}" x2="${round(left + width)}" y1="${round(base)}" y2="${round(base)}"/></g>`
    + `<g class="role-axis-label">${labels.svg}</g><g class="role-mark">${marks.join('')}</g>`
    + key.svg);
}

function lineChart(spec: Extract<ChartSpec, { kind: 'line' }>): string {
  const byName = new Map<string, PointDatum[]>();
  for (const row of spec.rows) byName.set(row.series, [...(byName.get(row.series) ?? []), row]);
  for (const rows of byName.values()) rows.sort((a, b) => a.x - b.x);
  const styles = stylesOf(spec.rows, (name) => JSON.stringify(byName.get(name)!.map((r) => [r.x, r.value, r.lo, r.hi])));
  const xs = [...new Set(spec.rows.map((r) => r.x))].sort((a, b) => a - b);
  const axis = valueAxis(spec.rows.flatMap((r) => [r.value, ...(finite(r.hi) ? [r.hi] : [])]), { percent: spec.asPercent });
  const xAxis = positionAxis(xs.length ? xs : [0], { integer: spec.integerX, log: spec.logX });
  const left = leftMargin(axis);
  const top = 10;
  const width = CHART_WIDTH - left - 18;
  const x = (v: number): number => left + xAxis.at(v) * width;
  const y = (v: number): number => top + PLOT_HEIGHT - axis.at(v) * PLOT_HEIGHT;
  const path = (points: [number, number][]): string =>
    points.map(([px, py], i) => (i === 0 ? `M${round(px)},${round(py)}` : spec.step ? `H${round(px)}V${round(py)}` : `L${round(px)},${round(py)}`)).join('');
  const bands: string[] = [];
  const lines: string[] = [];
  for (const [name, style] of styles) {
    const rows = byName.get(name)!;
    const banded = rows.filter((r) => finite(r.lo) && finite(r.hi));
    if (banded.length > 0 && !style.sameAs) {
      const upper = path(banded.map((r) => [x(r.x), y(r.hi!)]));
      const lower = banded.map((r) => [x(r.x), y(r.lo!)] as [number, number]).reverse();
      const back = lower.map(([px, py], i) => (spec.step && i > 0 ? `V${round(py)}H${round(px)}` : `L${round(px)},${round(py)}`)).join('');
      bands.push(`<path class="mark-area" d="${upper}${back}Z" fill="${style.colour}" opacity="0.12"/>`);
    }
    // A series that later ones repeat is drawn wider, so that it shows around them.
    const covered = Math.min(1, style.covered);
    const strokeWidth = 2 + 2.5 * covered;
    const dash = DASHES[style.variant % DASHES.length];
    lines.push(`<path class="mark-line" d="${path(rows.map((r) => [x(r.x), y(r.value)]))}" fill="none" stroke="${style.colour}" stroke-width="${strokeWidth}"${dash ? ` stroke-dasharray="${dash}"` : ''} stroke-linejoin="round"><title>${escapeHtml(name)}</title></path>`);
    // Lines have a marker at each point; steps at their end only (a series of one point is still seen).
    const shape = MARKERS[style.variant % MARKERS.length]!;
    for (const r of spec.step ? rows.slice(-1) : rows) lines.push(marker(shape, x(r.x), y(r.value), 3.2 + 2 * covered, style.colour, `${name}: ${spec.xTitle} ${xAxis.label(r.x)}, ${axis.label(r.value)}`));
  }
  const ticks = spacedTicks(xAxis, width, LABEL_SIZE);
  const base = top + PLOT_HEIGHT;
  const xLabels = ticks.map((t) => text(x(t), base + 16, xAxis.label(t), ' class="x-label" text-anchor="middle"')).join('');
  const xTickMarks = ticks.map((t) => `<line x1="${round(x(t))}" x2="${round(x(t))}" y1="${round(base)}" y2="${round(base + 5)}"/>`).join('');
  const titleY = base + 36;
  const legendTop = titleY + 10;
  const key = legend(styles, null, left, legendTop, width, 'line');
  return svg(CHART_WIDTH, legendTop + key.height,
    yFrame(left, top, width, axis, spec.yTitle)
    + `<g class="role-axis-domain" stroke="#888888"><line x1="${round(left)}" x2="${round(left + width)}" y1="${round(base)}" y2="${round(base)}"/></g>`
    + `<g class="role-axis-tick" stroke="#888888" stroke-width="1">${xTickMarks}</g><g class="role-axis-label">${xLabels}</g>`
    + `<text x="${round(left + width / 2)}" y="${round(titleY)}" text-anchor="middle" font-size="${TITLE_SIZE}" font-weight="600">${escapeHtml(spec.xTitle + (xAxis.log ? ' (log scale)' : ''))}</text>`
    + `<g class="role-mark">${bands.join('')}${lines.join('')}</g>`
    + key.svg);
}

/** The chart as one SVG element. */
export function drawChart(spec: ChartSpec): string {
  return spec.kind === 'bar' ? barChart(spec) : lineChart(spec);
}
