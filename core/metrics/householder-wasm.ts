/**
 * The eigen-decomposition's loops (eigenvalues.ts) as a small WebAssembly module: the two O(n^3)
 * loops of the Householder reduction (tridiagonalize), and the QL iteration on the tridiagonal
 * form (tridiagonalQL). Each does the same IEEE-754 double operations, in the same order, as the
 * JavaScript it replaces (WebAssembly neither fuses nor reorders them), so the eigenvalues are
 * the same to the bit; a run's one 400 x 400 decomposition takes ~15-20 ms instead of ~50-80 (no
 * bounds checks, no numbers boxed while V8 has not yet optimised the loops, and two lanes at
 * once in the update, whose elements are independent).
 *
 * The module is written out below, opcode by opcode (wasm-code.ts encodes it), rather than
 * shipped as a binary, so that what runs can be read. Where WebAssembly is unavailable
 * (`--jitless`) or rejects the SIMD instructions, the module without them is used, or the
 * JavaScript loops.
 *
 * One more function sums sparse outer products into T, for a caller that builds the matrix there
 * (a covariance, feature-vendi.ts).
 *
 * Memory layout (in 8-byte slots): T, the n x n working matrix by columns (T[j * n + k]), then d,
 * then e, each n long: the arrays tridiagonalize() works on; then n slots of ids (32-bit), then
 * values and scaled values, n each, for the outer products.
 */

import { access, at, double, F64, get, I32, increment, int, op, set, vector, VOID, whileBelow, wasmApi, wasmModuleBytes, type Code, type WasmFunction } from './wasm-code.js';

/** Sweeps of the QL iteration for one eigenvalue before it is given up (here and in eigenvalues.ts). */
export const MAX_QL_ITERATIONS = 60;
/** The QL iteration's tolerance: an off-diagonal entry below QL_EPS times the norm so far is zero. */
export const QL_EPS = 2 ** -52;

/** SIMD instructions: the 0xfd prefix, then the instruction's number. */
const simd = { v128Load: 0x00, v128Store: 0x0b, f64x2Splat: 0x14, f64x2Add: 0xf0, f64x2Sub: 0xf1, f64x2Mul: 0xf2 } as const;

// Both functions take (n, i, dBase, eBase): the matrix's side, the reduction's step, and the byte
// addresses of d and e (T starts at byte 0).
const N = 0, I = 1, D = 2, E = 3;

/**
 * The product of the step's Householder vector with the lower triangle, as tridiagonalize()'s
 * first inner loop:
 *   for (j = 0; j < i; j++) { f = d[j]; g = e[j] + T[j*n + j] * f;
 *     for (k = j + 1; k < i; k++) { v = T[j*n + k]; g += v * d[k]; e[k] = e[k] + v * f; }
 *     e[j] = g; }
 */
function productFunction(): WasmFunction {
  const j = 4, k = 5, column = 6, f = 7, g = 8, v = 9;
  return {
    locals: [[3, I32], [3, F64]],
    body: [
      int(0), set(j),
      whileBelow(j, I, [
        get(j), get(N), op.i32Mul, int(3), op.i32Shl, set(column),
        at(D, j), access(op.f64Load), set(f),
        at(E, j), access(op.f64Load), at(column, j), access(op.f64Load), get(f), op.f64Mul, op.f64Add, set(g),
        get(j), int(1), op.i32Add, set(k),
        whileBelow(k, I, [
          at(column, k), access(op.f64Load), set(v),
          get(g), get(v), at(D, k), access(op.f64Load), op.f64Mul, op.f64Add, set(g),
          at(E, k), at(E, k), access(op.f64Load), get(v), get(f), op.f64Mul, op.f64Add, access(op.f64Store),
          increment(k),
        ]),
        at(E, j), get(g), access(op.f64Store),
        increment(j),
      ]),
      op.end,
    ],
  };
}

/**
 * The rank-two update of the lower triangle, as tridiagonalize()'s second inner loop:
 *   for (j = 0; j < i; j++) { f = d[j]; g = e[j];
 *     for (k = j; k < i; k++) T[j*n + k] = T[j*n + k] - (f * e[k] + g * d[k]);
 *     d[j] = T[j*n + i - 1]; T[j*n + i] = 0; }
 * With `lanes`, the k loop takes two elements at a time (each lane the same operations).
 */
function updateFunction(lanes: boolean): WasmFunction {
  const j = 4, k = 5, column = 6, last = 7, f = 8, g = 9;
  const one: Code = [
    at(column, k), at(column, k), access(op.f64Load), get(f), at(E, k), access(op.f64Load), op.f64Mul,
    get(g), at(D, k), access(op.f64Load), op.f64Mul, op.f64Add, op.f64Sub, access(op.f64Store),
    increment(k),
  ];
  const two: Code = [
    at(column, k), at(column, k), access(vector(simd.v128Load)), get(f), vector(simd.f64x2Splat), at(E, k), access(vector(simd.v128Load)), vector(simd.f64x2Mul),
    get(g), vector(simd.f64x2Splat), at(D, k), access(vector(simd.v128Load)), vector(simd.f64x2Mul), vector(simd.f64x2Add), vector(simd.f64x2Sub), access(vector(simd.v128Store)),
    increment(k, 2),
  ];
  return {
    locals: [[4, I32], [2, F64]],
    body: [
      int(0), set(j),
      get(I), int(1), op.i32Sub, set(last),
      whileBelow(j, I, [
        get(j), get(N), op.i32Mul, int(3), op.i32Shl, set(column),
        at(D, j), access(op.f64Load), set(f),
        at(E, j), access(op.f64Load), set(g),
        get(j), set(k),
        // Pairs while two elements remain (k < i - 1), then the last one alone.
        lanes ? whileBelow(k, last, two) : [],
        whileBelow(k, I, one),
        at(D, j), at(column, last), access(op.f64Load), access(op.f64Store),
        at(column, I), op.f64Const, 0, 0, 0, 0, 0, 0, 0, 0, access(op.f64Store),
        increment(j),
      ]),
      op.end,
    ],
  };
}

/**
 * One sparse vector's outer product added to the lower triangle by columns, as
 * covarianceEigenvalues() adds it (ids ascending, scaled[a] = value[a] x copies / items):
 *   for (b = 0; b < count; b++) { column = ids[b] * n; v = values[b];
 *     for (a = b; a < count; a++) T[column + ids[a]] = T[column + ids[a]] + scaled[a] * v; }
 * Parameters (n, count, idsBase, valuesBase); the scaled values follow the values.
 */
function outerFunction(): WasmFunction {
  const COUNT = 1, IDS = 2, VALUES = 3;
  const b = 4, a = 5, column = 6, cell = 7, scaled = 8, v = 9;
  const idAt = (index: number): Code => [get(IDS), get(index), int(2), op.i32Shl, op.i32Add, op.i32Load, 2, 0];
  return {
    locals: [[5, I32], [1, F64]],
    body: [
      get(VALUES), get(N), int(3), op.i32Shl, op.i32Add, set(scaled),
      int(0), set(b),
      whileBelow(b, COUNT, [
        idAt(b), get(N), op.i32Mul, int(3), op.i32Shl, set(column),
        at(VALUES, b), access(op.f64Load), set(v),
        get(b), set(a),
        whileBelow(a, COUNT, [
          get(column), idAt(a), int(3), op.i32Shl, op.i32Add, set(cell),
          get(cell), get(cell), access(op.f64Load), at(scaled, a), access(op.f64Load), get(v), op.f64Mul, op.f64Add, access(op.f64Store),
          increment(a),
        ]),
        increment(b),
      ]),
      op.end,
    ],
  };
}

/**
 * The implicit QL iteration on the tridiagonal form (eigenvalues.ts: tridiagonalQL), with its
 * hypot written out the same way (eigenvalues.ts: hypot): the same operations in the same order,
 * branches included, so the same eigenvalues. It runs once per decomposition, and V8 ran the
 * JavaScript loop unoptimised for much of a run's one 400 x 400 matrix. Parameters (n, _, dBase,
 * eBase). It stops where the JavaScript throws (more than MAX_QL_ITERATIONS sweeps for one
 * eigenvalue), leaving that eigenvalue's e[l] non-zero; on success every e[l] is zero.
 */
function qlFunction(): WasmFunction {
  const l = 4, m = 5, i = 6, iterations = 7, last = 8;
  const f = 9, tst1 = 10, g = 11, p = 12, r = 13, h = 14, dl1 = 15, c = 16, c2 = 17, c3 = 18, el1 = 19, s = 20, s2 = 21;
  const x = 22, y = 23, max = 24, nx = 25, ny = 26;
  /** The byte address of element (local + plus) of the array at `base`. */
  const element = (base: number, local: number, plus = 0): Code => [get(base), get(local), int(plus), op.i32Add, int(3), op.i32Shl, op.i32Add];
  const load = (base: number, local: number, plus = 0): Code => [element(base, local, plus), access(op.f64Load)];
  const store = (base: number, local: number, plus: number, value: Code): Code => [element(base, local, plus), value, access(op.f64Store)];
  /** hypot(a, b), as eigenvalues.ts writes it: its value left on the stack. */
  const hypot = (a: Code, b: Code): Code => [
    a, op.f64Abs, set(x), b, op.f64Abs, set(y),
    get(x), double(Infinity), op.f64Eq, get(y), double(Infinity), op.f64Eq, op.i32Or,
    // Each `if` gives a double (block type f64).
    op.if, F64, double(Infinity),
    op.else,
    get(x), get(x), op.f64Ne, get(y), get(y), op.f64Ne, op.i32Or,
    op.if, F64, double(Number.NaN),
    op.else,
    get(x), get(y), get(x), get(y), op.f64Gt, op.select, set(max),
    get(max), double(0), op.f64Eq,
    op.if, F64, double(0),
    op.else,
    get(x), get(max), op.f64Div, set(nx), get(y), get(max), op.f64Div, set(ny),
    get(nx), get(nx), op.f64Mul, get(ny), get(ny), op.f64Mul, op.f64Add, op.f64Sqrt, get(max), op.f64Mul,
    op.end, op.end, op.end,
  ];
  /** |value| > EPS * tst1, as an i32 on the stack. */
  const aboveTolerance = (value: Code): Code => [value, op.f64Abs, double(QL_EPS), get(tst1), op.f64Mul, op.f64Gt];
  return {
    locals: [[5, I32], [18, F64]],
    body: [
      get(N), int(1), op.i32Sub, set(last),
      // e shifts down by one: e[i - 1] = e[i]; e[n - 1] = 0.
      int(1), set(i),
      whileBelow(i, N, [store(E, i, -1, load(E, i)), increment(i)]),
      store(E, last, 0, double(0)),
      double(0), set(f),
      double(0), set(tst1),
      int(0), set(l),
      whileBelow(l, N, [
        get(tst1), load(D, l), op.f64Abs, load(E, l), op.f64Abs, op.f64Add, op.f64Max, set(tst1),
        get(l), set(m),
        // while (m < n - 1 && |e[m]| > EPS * tst1) m++
        op.block, VOID, op.loop, VOID,
        get(m), get(last), op.i32GeS, op.brIf, 1,
        aboveTolerance(load(E, m)), op.i32Eqz, op.brIf, 1,
        increment(m), op.br, 0,
        op.end, op.end,
        get(m), get(l), op.i32GtS,
        op.if, VOID,
        int(0), set(iterations),
        op.loop, VOID,
        increment(iterations),
        get(iterations), int(MAX_QL_ITERATIONS), op.i32GtS, op.if, VOID, op.return, op.end,
        load(D, l), set(g),
        load(D, l, 1), get(g), op.f64Sub, double(2), load(E, l), op.f64Mul, op.f64Div, set(p),
        hypot(get(p), double(1)), set(r),
        get(p), double(0), op.f64Lt, op.if, VOID, get(r), op.f64Neg, set(r), op.end,
        store(D, l, 0, [load(E, l), get(p), get(r), op.f64Add, op.f64Div]),
        store(D, l, 1, [load(E, l), get(p), get(r), op.f64Add, op.f64Mul]),
        load(D, l, 1), set(dl1),
        get(g), load(D, l), op.f64Sub, set(h),
        get(l), int(2), op.i32Add, set(i),
        whileBelow(i, N, [store(D, i, 0, [load(D, i), get(h), op.f64Sub]), increment(i)]),
        get(f), get(h), op.f64Add, set(f),
        load(D, m), set(p),
        double(1), set(c), get(c), set(c2), get(c), set(c3),
        load(E, l, 1), set(el1),
        double(0), set(s), double(0), set(s2),
        get(m), int(1), op.i32Sub, set(i),
        // for (i = m - 1; i >= l; i--)
        op.block, VOID, op.loop, VOID,
        get(i), get(l), op.i32LtS, op.brIf, 1,
        get(c2), set(c3), get(c), set(c2), get(s), set(s2),
        get(c), load(E, i), op.f64Mul, set(g),
        get(c), get(p), op.f64Mul, set(h),
        hypot(get(p), load(E, i)), set(r),
        store(E, i, 1, [get(s), get(r), op.f64Mul]),
        load(E, i), get(r), op.f64Div, set(s),
        get(p), get(r), op.f64Div, set(c),
        get(c), load(D, i), op.f64Mul, get(s), get(g), op.f64Mul, op.f64Sub, set(p),
        store(D, i, 1, [get(h), get(s), get(c), get(g), op.f64Mul, get(s), load(D, i), op.f64Mul, op.f64Add, op.f64Mul, op.f64Add]),
        get(i), int(1), op.i32Sub, set(i), op.br, 0,
        op.end, op.end,
        // p = (-s * s2 * c3 * el1 * e[l]) / dl1; e[l] = s * p; d[l] = c * p
        get(s), op.f64Neg, get(s2), op.f64Mul, get(c3), op.f64Mul, get(el1), op.f64Mul, load(E, l), op.f64Mul, get(dl1), op.f64Div, set(p),
        store(E, l, 0, [get(s), get(p), op.f64Mul]),
        store(D, l, 0, [get(c), get(p), op.f64Mul]),
        aboveTolerance(load(E, l)), op.brIf, 0,
        op.end,
        op.end,
        store(D, l, 0, [load(D, l), get(f), op.f64Add]),
        store(E, l, 0, double(0)),
        increment(l),
      ]),
      op.end,
    ],
  };
}

/** The module: memory imported as `m.memory`, functions `product`, `update`, `outer` and `ql` exported. */
export function householderModuleBytes(lanes: boolean): Uint8Array {
  return wasmModuleBytes({ product: productFunction(), update: updateFunction(lanes), outer: outerFunction(), ql: qlFunction() });
}

/** The working arrays of one reduction, in the module's memory, and its two loops. */
export interface HouseholderKernels {
  T: Float64Array;
  d: Float64Array;
  e: Float64Array;
  /** tridiagonalize()'s first inner loop, for step i. */
  product(i: number): void;
  /** tridiagonalize()'s second inner loop, for step i. */
  update(i: number): void;
  /** Room for one sparse vector (at most n entries): its ids, values and scaled values. */
  ids: Int32Array;
  values: Float64Array;
  scaled: Float64Array;
  /** Add the outer product of the first `count` entries there to T (outerFunction). */
  outer(count: number): void;
  /** The QL iteration on d and e (qlFunction): false where it did not converge. */
  ql(): boolean;
}

type Loop = (n: number, i: number, dBase: number, eBase: number) => void;

let compiled: object | null | undefined;

/** The module, with SIMD if this engine takes it; null without WebAssembly. */
function householderModule(wasm: ReturnType<typeof wasmApi>): object | null {
  if (compiled !== undefined) return compiled;
  compiled = null;
  if (!wasm) return compiled;
  for (const lanes of [true, false]) {
    try {
      return (compiled = new wasm.Module(householderModuleBytes(lanes)));
    } catch {
      // no SIMD here: the module without it, else the JavaScript loops
    }
  }
  return compiled;
}

/**
 * Kernels for an n x n reduction, in memory of their own (released with them): undefined where
 * WebAssembly cannot run them, or the matrix does not fit its 32-bit addresses.
 */
export function householderKernels(n: number): HouseholderKernels | undefined {
  const bytes = (n * n + 5 * n) * 8;
  if (n < 2 || bytes > 2 ** 31) return undefined;
  const wasm = wasmApi();
  const module = householderModule(wasm);
  if (!wasm || !module) return undefined;
  try {
    const memory = new wasm.Memory({ initial: Math.ceil(bytes / 65_536) });
    const { product, update, outer, ql } = new wasm.Instance(module, { m: { memory } }).exports as Record<'product' | 'update' | 'outer' | 'ql', Loop>;
    const dBase = n * n * 8;
    const eBase = dBase + n * 8;
    const idsBase = eBase + n * 8;
    const valuesBase = idsBase + n * 8;
    const e = new Float64Array(memory.buffer, eBase, n);
    return {
      T: new Float64Array(memory.buffer, 0, n * n),
      d: new Float64Array(memory.buffer, dBase, n),
      e,
      product: (i) => product(n, i, dBase, eBase),
      update: (i) => update(n, i, dBase, eBase),
      ids: new Int32Array(memory.buffer, idsBase, n),
      values: new Float64Array(memory.buffer, valuesBase, n),
      scaled: new Float64Array(memory.buffer, valuesBase + n * 8, n),
      outer: (count) => outer(n, count, idsBase, valuesBase),
      ql: () => {
        ql(n, 0, dBase, eBase);
        return e.every((value) => value === 0);
      },
    };
  } catch {
    return undefined; // memory refused: the JavaScript loops
  }
}
