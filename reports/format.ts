/**
 * Number formatting shared by the HTML and Markdown reports.
 */

/** 0.4231 -> "42.3%"; NaN or undefined -> "–". */
export function percent(value: number | null | undefined, digits = 1): string {
  // null: a rate with nothing to measure (no episode decided).
  if (value === null) return 'n/a';
  return value === undefined || !Number.isFinite(value) ? '–' : `${(value * 100).toFixed(digits)}%`;
}

/** [0.41, 0.52] -> "41.0–52.0%". */
export function percentInterval(interval: readonly [number, number] | undefined): string {
  if (!interval || !interval.every(Number.isFinite)) return '–';
  return `${(interval[0] * 100).toFixed(1)}–${(interval[1] * 100).toFixed(1)}%`;
}

/**
 * `value` with exactly `decimals` decimals and thousands commas, as en-US Intl writes it
 * (-1234.5, 1 -> "-1,234.5"): rounded half away from zero on the number's shortest decimal form.
 * Written out rather than through toLocaleString: a report's first Intl number costs ~10 ms of
 * ICU set-up, and each later one a new formatter.
 */
export function grouped(value: number, decimals = 0): string {
  const shortest = String(Math.abs(value));
  // Exponent forms (below 1e-6, from 1e21 on), NaN and Infinity are left to Intl.
  if (!/^\d+(\.\d+)?$/.test(shortest)) return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  const point = shortest.indexOf('.');
  const whole = point < 0 ? shortest : shortest.slice(0, point);
  const fraction = point < 0 ? '' : shortest.slice(point + 1);
  let digits = whole + fraction.slice(0, decimals).padEnd(decimals, '0');
  if (fraction.length > decimals && fraction[decimals]! >= '5') {
    // Carry the rounding up through the digits.
    let i = digits.length - 1;
    while (i >= 0 && digits[i] === '9') i--;
    digits = i < 0 ? `1${'0'.repeat(digits.length)}` : digits.slice(0, i) + String(Number(digits[i]) + 1) + '0'.repeat(digits.length - i - 1);
  }
  const integer = digits.slice(0, digits.length - decimals);
  let text = integer.length > 3 ? integer.replace(/\B(?=(\d{3})+$)/g, ',') : integer;
  if (decimals > 0) text += `.${digits.slice(digits.length - decimals)}`;
  // A negative number, -0 included, keeps its sign even when it rounds to zero, as Intl writes it.
  return value < 0 || Object.is(value, -0) ? `-${text}` : text;
}

/** A number with a sensible number of significant digits; NaN or undefined -> "–". */
export function number(value: number | undefined, digits = 3): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  if (Math.abs(value) >= 1000) return grouped(Math.round(value));
  return Number(value.toPrecision(digits)).toString();
}

/** [1.2, 3.4] -> "1.2–3.4". */
export function numberInterval(interval: readonly [number, number] | undefined, digits = 3): string {
  if (!interval || !interval.every(Number.isFinite)) return '–';
  return `${number(interval[0], digits)}–${number(interval[1], digits)}`;
}
