/**
 * Eigenvalues of a real symmetric matrix: Householder reduction to tridiagonal form, then the
 * implicit QL algorithm with Wilkinson-style shifts (the tred2/tql2 pair of EISPACK, as in JAMA).
 * O(n^3), robust for the positive semi-definite kernels the diversity metrics build.
 */

/** Sweeps of the QL iteration for one eigenvalue before it is given up. */
const MAX_QL_ITERATIONS = 60;
/** The QL iteration's tolerance: an off-diagonal entry below EPS times the norm so far is zero. */
const EPS = 2 ** -52;

/**
 * All eigenvalues of the symmetric matrix `A` (only its lower triangle is read), ascending. An
 * entry that is not a finite number is refused (RangeError).
 */
export function symmetricEigenvalues(A: readonly (readonly number[] | Float64Array)[]): number[] {
  const n = A.length;
  if (n === 0) return [];
  // T holds V (JAMA's working matrix) by columns: T[j * n + k] = V[k][j]. tred2 reads and writes
  // V down its columns; stored this way, its inner loops walk contiguous memory.
  const T = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    if (A[j]!.length !== n) throw new RangeError(`matrix must be square: row ${j} has ${A[j]!.length} entries, expected ${n}`);
    for (let k = j; k < n; k++) {
      const value = A[k]![j]!;
      if (!Number.isFinite(value)) throw new RangeError(`matrix entry [${k}][${j}] is not a finite number`);
      T[j * n + k] = value;
    }
  }
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tridiagonalize(T, n, d, e);
  tridiagonalQL(d, e);
  return Array.from(d).sort((a, b) => a - b);
}

/**
 * Householder reduction of V (T, by columns, overwritten) to a tridiagonal matrix: diagonal d,
 * sub-diagonal e[1..]. The same arithmetic, in the same order, as JAMA's tred2; the Householder
 * vectors it keeps above the diagonal for eigenvectors are not kept (never read here).
 */
function tridiagonalize(T: Float64Array, n: number, d: Float64Array, e: Float64Array): void {
  for (let j = 0; j < n; j++) d[j] = T[j * n + n - 1]!;
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]!);
    if (scale === 0) {
      e[i] = d[i - 1]!;
      for (let j = 0; j < i; j++) {
        d[j] = T[j * n + i - 1]!;
        T[j * n + i] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] = d[k]! / scale;
        h += d[k]! * d[k]!;
      }
      let f = d[i - 1]!;
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        const column = j * n;
        f = d[j]!;
        g = e[j]! + T[column + j]! * f;
        for (let k = j + 1; k <= i - 1; k++) {
          const v = T[column + k]!;
          g += v * d[k]!;
          e[k] = e[k]! + v * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] = e[j]! / h;
        f += e[j]! * d[j]!;
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] = e[j]! - hh * d[j]!;
      for (let j = 0; j < i; j++) {
        const column = j * n;
        f = d[j]!;
        g = e[j]!;
        for (let k = j; k <= i - 1; k++) T[column + k] = T[column + k]! - (f * e[k]! + g * d[k]!);
        d[j] = T[column + i - 1]!;
        T[column + i] = 0;
      }
    }
    d[i] = h;
  }
  // Eigenvalues only: the tridiagonal matrix's diagonal is left on V's diagonal.
  for (let i = 0; i < n; i++) d[i] = T[i * n + i]!;
  e[0] = 0;
}

/** Implicit QL on the tridiagonal matrix (d, e); leaves the eigenvalues in d. */
function tridiagonalQL(d: Float64Array, e: Float64Array): void {
  const n = d.length;
  for (let i = 1; i < n; i++) e[i - 1] = e[i]!;
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]!) + Math.abs(e[l]!));
    let m = l;
    while (m < n - 1 && Math.abs(e[m]!) > EPS * tst1) m++;
    if (m > l) {
      let iterations = 0;
      do {
        if (++iterations > MAX_QL_ITERATIONS) throw new Error('symmetricEigenvalues: QL iteration did not converge');
        let g = d[l]!;
        let p = (d[l + 1]! - g) / (2 * e[l]!);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l]! / (p + r);
        d[l + 1] = e[l]! * (p + r);
        const dl1 = d[l + 1]!;
        let h = g - d[l]!;
        for (let i = l + 2; i < n; i++) d[i] = d[i]! - h;
        f += h;
        p = d[m]!;
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1]!;
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i]!;
          h = c * p;
          r = Math.hypot(p, e[i]!);
          e[i + 1] = s * r;
          s = e[i]! / r;
          c = p / r;
          p = c * d[i]! - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]!);
        }
        p = (-s * s2 * c3 * el1 * e[l]!) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]!) > EPS * tst1);
    }
    d[l] = d[l]! + f;
    e[l] = 0;
  }
}
