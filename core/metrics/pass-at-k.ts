/**
 * pass@k and pass^k: the chance that k attempts drawn without replacement from n recorded
 * attempts (c of them correct) contain at least one success (pass@k), or only successes (pass^k).
 */

function checkCounts(n: number, c: number, k: number): void {
  for (const [name, value] of [['n', n], ['c', c], ['k', k]] as const) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
  if (c > n) throw new RangeError(`c (${c}) cannot exceed n (${n})`);
  if (k < 1 || k > n) throw new RangeError(`k must be between 1 and n (${n}), got ${k}`);
}

/**
 * The unbiased pass@k estimator of Chen et al. 2021 (Codex paper):
 *   1 - C(n - c, k) / C(n, k),
 * computed in the numerically stable product form 1 - prod_{i = n-c+1..n} (1 - k / i).
 */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/**
 * tau-bench's pass^k: the chance that k attempts drawn from n all succeed,
 *   C(c, k) / C(n, k) = prod_{i = 0..k-1} (c - i) / (n - i).
 */
export function passHatK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  if (c < k) return 0;
  let all = 1;
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i);
  return all;
}
