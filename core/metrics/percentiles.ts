/**
 * Percentiles of a sample (latencies and the like).
 */

/**
 * The p-th percentile (0..100) of `values` by linear interpolation between closest ranks
 * (the same definition as NumPy's default and Excel's PERCENTILE.INC). NaN for an empty sample.
 */
export function percentile(values: readonly number[], p: number): number {
  return percentiles(values, [p])[0]!;
}

/** Several percentiles of one sample, sorting it once. */
export function percentiles(values: readonly number[], ps: readonly number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  return ps.map((p) => {
    if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
    if (sorted.length === 0) return Number.NaN;
    const rank = (p / 100) * (sorted.length - 1);
    const below = Math.floor(rank);
    const above = Math.min(below + 1, sorted.length - 1);
    return sorted[below]! + (rank - below) * (sorted[above]! - sorted[below]!);
  });
}
