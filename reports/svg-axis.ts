/**
 * The axes of the report's charts: linear or logarithmic scales, round ticks, and tick labels
 * thinned so that no two overlap. An axis asked to be logarithmic is so only where its values
 * are all positive and span more than a factor of LOG_SPAN: a model at 20 steps/s stays
 * visible beside one at 6,345, and values of one magnitude keep the plainer linear axis.
 */
import { grouped, number } from './format.js';
import { textWidth } from './svg-text.js';

/** Values spanning more than this factor get a log axis, where one is asked for. */
export const LOG_SPAN = 20;

export interface Axis {
  log: boolean;
  min: number;
  max: number;
  ticks: number[];
  /** Where `value` falls along the axis, from 0 (min) to 1 (max), clamped. */
  at(value: number): number;
  label(value: number): string;
}

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

/** Whether `values` call for a log axis: the positive ones span more than LOG_SPAN (zeros are drawn apart, at the axis' foot). */
export function spansMagnitudes(values: readonly number[]): boolean {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  return positive.length >= 2 && Math.max(...positive) / Math.min(...positive) > LOG_SPAN;
}

const clamp = (x: number): number => Math.max(0, Math.min(1, x));

function linearAxis(lo: number, hi: number, integer: boolean, exact?: readonly number[]): Axis {
  const ticks = exact ? [...exact] : niceTicks(lo, hi, 5).filter((t) => !integer || Number.isInteger(t));
  const min = Math.min(lo, ...ticks);
  const max = Math.max(hi, ...ticks, min + (integer ? 1 : 1e-9));
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1;
  const decimals = integer || step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step) - 1e-9));
  return { log: false, min, max, ticks, at: (v) => clamp((v - min) / (max - min)), label: (v) => grouped(v, decimals) };
}

function logAxis(lo: number, hi: number): Axis {
  const min = 10 ** Math.floor(Math.log10(lo) + 1e-9);
  const max = 10 ** Math.ceil(Math.log10(hi) - 1e-9);
  const decades = Math.round(Math.log10(max / min));
  const multiples = decades <= 2 ? [1, 2, 5] : [1];
  const ticks: number[] = [];
  for (let power = min; power <= max * (1 + 1e-9); power *= 10) for (const m of multiples) if (m * power <= max * (1 + 1e-9)) ticks.push(Number((m * power).toPrecision(12)));
  const span = Math.log10(max / min) || 1;
  return { log: true, min, max, ticks, at: (v) => (v > 0 ? clamp(Math.log10(v / min) / span) : 0), label: (v) => number(v) };
}

/**
 * The value (y) axis of a chart: shares from 0 to 100%; other values from 0 up, or on a log
 * axis when `log` is asked and the values span magnitudes.
 */
export function valueAxis(values: readonly number[], options: { percent?: boolean; log?: boolean } = {}): Axis {
  if (options.percent) {
    return { log: false, min: 0, max: 1, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], at: (v) => clamp(v), label: (v) => `${Math.round(v * 100)}%` };
  }
  const finite = values.filter(Number.isFinite);
  const positive = finite.filter((v) => v > 0);
  if (options.log && spansMagnitudes(finite)) return logAxis(Math.min(...positive), Math.max(...positive));
  const top = Math.max(0, ...finite);
  return linearAxis(0, top > 0 ? top : 1, false);
}

/**
 * The x axis of a line chart over `xs`: from the least to the greatest, log when asked and they
 * span magnitudes. Integer axes with few values label exactly those values.
 */
export function positionAxis(xs: readonly number[], options: { integer?: boolean; log?: boolean } = {}): Axis {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  if (options.log && spansMagnitudes(xs)) return logAxis(lo, hi);
  const exact = options.integer && xs.length <= 16 ? [...xs] : undefined;
  return linearAxis(lo, hi > lo ? hi : lo + 1, options.integer ?? false, exact);
}

/**
 * The ticks whose labels can be drawn at `size` along an axis `length` pixels long without two
 * overlapping (a gap of `gap` pixels at least), kept from the first: horizontal labels centred
 * on their tick.
 */
export function spacedTicks(axis: Axis, length: number, size: number, gap = 6): number[] {
  const kept: number[] = [];
  let right = -Infinity;
  for (const tick of axis.ticks) {
    const centre = axis.at(tick) * length;
    const half = textWidth(axis.label(tick), size) / 2;
    if (centre - half < right + gap) continue;
    kept.push(tick);
    right = centre + half;
  }
  return kept;
}
