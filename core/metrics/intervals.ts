/**
 * Confidence intervals for proportions.
 */

/**
 * The 97.5% quantile of the standard normal distribution (two-sided 95%), exactly as scipy's
 * `norm.ppf(0.975)` gives it and statsmodels' `proportion_confint` uses it, so intervals agree
 * with theirs to the last digit.
 */
export const Z_95 = 1.959963984540054;

/**
 * The Wilson score interval (95%) of a proportion `successes / n`.
 * With no observations nothing is known: [0, 1].
 */
export function wilsonInterval(successes: number, n: number, z: number = Z_95): [number, number] {
  if (!(n >= 0) || !(successes >= 0) || successes > n) {
    throw new RangeError(`wilsonInterval needs 0 <= successes <= n, got ${successes}/${n}`);
  }
  if (n === 0) return [0, 1];
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
