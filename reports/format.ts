/**
 * How numbers are written in the HTML and Markdown reports and on the console, through
 * Intl.NumberFormat (en-US: thousands grouped with commas). A missing value is "–"; a rate
 * with nothing to measure (null: no episode decided) is "n/a", never 0.
 */
import type { Figure, MetricFormat } from '../core/metrics/table.js';

/** One formatter per set of options, made when first asked for. */
const formatters = new Map<string, Intl.NumberFormat>();

function intl(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = JSON.stringify(options);
  let formatter = formatters.get(key);
  if (!formatter) formatters.set(key, (formatter = new Intl.NumberFormat('en-US', options)));
  return formatter;
}

export const MISSING = '–';
export const NOT_APPLICABLE = 'n/a';

const known = (value: number | null | undefined): value is number => typeof value === 'number' && Number.isFinite(value);
const absent = (value: number | null | undefined): string => (value === null ? NOT_APPLICABLE : MISSING);

/** `value` with exactly `decimals` decimals and thousands commas (-1234.5, 1 -> "-1,234.5"). */
export function grouped(value: number, decimals = 0): string {
  return intl({ minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(value);
}

/** 0.4231 -> "42.3%"; null -> "n/a"; undefined or NaN -> "–". */
export function percent(value: number | null | undefined, digits = 1): string {
  return known(value) ? intl({ style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value) : absent(value);
}

/** [0.41, 0.52] -> "41.0–52.0%". */
export function percentInterval(interval: readonly [number, number] | null | undefined): string {
  if (!interval || !interval.every(Number.isFinite)) return MISSING;
  return `${grouped(interval[0] * 100, 1)}–${percent(interval[1])}`;
}

/** A number with a few significant digits, thousands grouped from 1,000 on; null -> "n/a"; undefined or NaN -> "–". */
export function number(value: number | null | undefined, digits = 3): string {
  if (!known(value)) return absent(value);
  if (Math.abs(value) >= 1000) return grouped(value, 0);
  return intl({ maximumSignificantDigits: digits }).format(value);
}

/** A rate with the digits it needs: 760, 12.5, 0.47 (a slow model's run is not "0/s"). */
export const perSecond = (rate: number): string => (rate >= 100 ? rate.toFixed(0) : rate >= 1 ? rate.toFixed(1) : rate.toPrecision(2));

/** [1.2, 3.4] -> "1.2–3.4". */
export function numberInterval(interval: readonly [number, number] | null | undefined, digits = 3): string {
  if (!interval || !interval.every(Number.isFinite)) return MISSING;
  return `${number(interval[0], digits)}–${number(interval[1], digits)}`;
}

/** A metric's value in its format: "42.3%", "1,234 steps/s". */
export function formatValue(value: number | null | undefined, format: MetricFormat = 'number', unit?: string): string {
  if (format === 'percent') return percent(value);
  return known(value) && unit ? `${number(value)} ${unit}` : number(value);
}

/** A metric's 95% interval in its format: "38.1–46.5%", "10.2–12.9". */
export function formatInterval(interval: readonly [number, number] | undefined, format: MetricFormat = 'number'): string {
  return format === 'percent' ? percentInterval(interval) : numberInterval(interval);
}

/** A figure as one line of text, its details included (the console): "42.3% (38.1–46.5%, 40 / 48)"; "n/a (0 / 0)" when nothing was measured. */
export function figureText(figure: Figure, format: MetricFormat = 'number', unit?: string): string {
  const details = [
    ...(figure.value !== null && figure.interval ? [formatInterval(figure.interval, format)] : []),
    ...(figure.counts ? [`${grouped(figure.counts[0])} / ${grouped(figure.counts[1])}`] : []),
    ...(figure.note ? [figure.note] : []),
    ...(figure.detail ? [figure.detail] : []),
  ];
  const beside = (figure.beside ?? []).map((b) => `; ${b.label} ${figureText(b.figure, format, unit)}`).join('');
  return `${formatValue(figure.value, format, unit)}${details.length ? ` (${details.join(', ')})` : ''}${beside}`;
}

/**
 * A difference in a metric's format, signed: percentage points for shares ("+3.2 pp"), else
 * the number ("-1.25").
 */
export function signedDifference(value: number, format: MetricFormat = 'number'): string {
  if (!Number.isFinite(value)) return MISSING;
  if (format === 'percent') return `${intl({ minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: 'exceptZero' }).format(value * 100)} pp`;
  const magnitude = Math.abs(value) >= 1000 ? { maximumFractionDigits: 0 } : { maximumSignificantDigits: 3 };
  return intl({ ...magnitude, signDisplay: 'exceptZero' }).format(value);
}

/** The 95% interval of a difference, signed, the unit once: "-20.1 to +3.5 pp". */
export function differenceInterval(interval: readonly [number, number], format: MetricFormat = 'number'): string {
  const [low, high] = interval.map((x) => signedDifference(x, format).replace(/ pp$/, ''));
  return `${low} to ${high}${format === 'percent' ? ' pp' : ''}`;
}

/** A ratio: 1.8 -> "×1.8", 0.031 -> "×0.031". */
export function ratio(value: number): string {
  return Number.isFinite(value) ? `×${number(value, 2)}` : MISSING;
}
