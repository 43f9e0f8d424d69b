/**
 * Number formatting shared by the HTML and Markdown reports.
 */

/** 0.4231 -> "42.3%"; NaN or undefined -> "–". */
export function percent(value: number | undefined, digits = 1): string {
  return value === undefined || !Number.isFinite(value) ? '–' : `${(value * 100).toFixed(digits)}%`;
}

/** [0.41, 0.52] -> "41.0–52.0%". */
export function percentInterval(interval: readonly [number, number] | undefined): string {
  if (!interval || !interval.every(Number.isFinite)) return '–';
  return `${(interval[0] * 100).toFixed(1)}–${(interval[1] * 100).toFixed(1)}%`;
}

/** A number with a sensible number of significant digits; NaN or undefined -> "–". */
export function number(value: number | undefined, digits = 3): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(digits)).toString();
}

/** [1.2, 3.4] -> "1.2–3.4". */
export function numberInterval(interval: readonly [number, number] | undefined, digits = 3): string {
  if (!interval || !interval.every(Number.isFinite)) return '–';
  return `${number(interval[0], digits)}–${number(interval[1], digits)}`;
}
