/**
 * A small WebAssembly encoder for the metrics' hot loops (householder-wasm.ts, bootstrap.ts,
 * feature-vendi.ts): each loop is written out here opcode by opcode, rather than shipped as a
 * binary, so that what runs can be read. WebAssembly neither fuses nor reorders double operations, so a loop written
 * as the JavaScript one it stands for gives the same numbers to the bit.
 *
 * Every function of such a module takes four 32-bit integers and returns nothing; it reads and
 * writes the memory the module imports as `m.memory`.
 */

export const I32 = 0x7f;
export const F64 = 0x7c;
export const VOID = 0x40;
export const op = {
  i32Load: 0x28, localGet: 0x20, localSet: 0x21, localTee: 0x22, i32Const: 0x41,
  i32Add: 0x6a, i32Sub: 0x6b, i32Mul: 0x6c, i32Or: 0x72, i32Xor: 0x73, i32Shl: 0x74, i32ShrU: 0x76, i32GeS: 0x4e,
  i32LtS: 0x48, i32GtS: 0x4a, i32Eqz: 0x45,
  i32TruncF64U: 0xab,
  f64Load: 0x2b, f64Store: 0x39, f64Const: 0x44, f64Add: 0xa0, f64Sub: 0xa1, f64Mul: 0xa2, f64Div: 0xa3, f64Floor: 0x9c,
  f64Abs: 0x99, f64Neg: 0x9a, f64Sqrt: 0x9f, f64Max: 0xa5, f64Eq: 0x61, f64Ne: 0x62, f64Lt: 0x63, f64Gt: 0x64,
  f64ConvertI32U: 0xb8,
  block: 0x02, loop: 0x03, if: 0x04, else: 0x05, br: 0x0c, brIf: 0x0d, return: 0x0f, select: 0x1b, end: 0x0b,
} as const;

export type Code = (number | Code)[];

/** A function of a module: its locals after the four parameters ([count, type] runs) and its body. */
export interface WasmFunction {
  locals: [number, number][];
  body: Code;
}

function unsignedLeb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

function signedLeb(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && !(byte & 0x40)) || (value === -1 && byte & 0x40)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

export const get = (local: number): Code => [op.localGet, local];
export const set = (local: number): Code => [op.localSet, local];
export const int = (value: number): Code => [op.i32Const, ...signedLeb(value)];
/** A double constant, as its eight little-endian bytes. */
export const double = (value: number): Code => [op.f64Const, ...new Uint8Array(new Float64Array([value]).buffer)];
export const vector = (instruction: number): Code => [0xfd, ...unsignedLeb(instruction)];
/** A load or store of 8-byte-aligned doubles (alignment 2^3, offset 0). */
export const access = (instruction: Code | number): Code => [instruction, 3, 0];
/** The byte address of double number `index` (a local) from the byte address `base` (a local). */
export const at = (base: number, index: number): Code => [get(base), get(index), int(3), op.i32Shl, op.i32Add];
/** `while (counter < bound) { body }` (signed comparison). */
export const whileBelow = (counter: number, bound: number, body: Code): Code => [
  op.block, VOID, op.loop, VOID, get(counter), get(bound), op.i32GeS, op.brIf, 1, body, op.br, 0, op.end, op.end,
];
export const increment = (local: number, by = 1): Code => [get(local), int(by), op.i32Add, set(local)];

/** The code as bytes (Array.prototype.flat: the engine's own loop, faster than a recursive one while V8 has not compiled it). */
const flat = (code: Code): number[] => (code as unknown[]).flat(Infinity) as number[];
const section = (id: number, content: number[]): number[] => [id, ...unsignedLeb(content.length), ...content];
const name = (text: string): number[] => [...unsignedLeb(text.length), ...[...text].map((c) => c.charCodeAt(0))];

/** A module of (i32, i32, i32, i32) -> () functions, exported by their names, on imported memory `m.memory`. */
export function wasmModuleBytes(functions: Record<string, WasmFunction>): Uint8Array {
  const entries = Object.entries(functions);
  const body = (fn: WasmFunction): number[] => {
    const code = [...unsignedLeb(fn.locals.length), ...fn.locals.flatMap(([count, type]) => [...unsignedLeb(count), type]), ...flat(fn.body)];
    return [...unsignedLeb(code.length), ...code];
  };
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 4, I32, I32, I32, I32, 0]), // one type: (i32, i32, i32, i32) -> ()
    ...section(2, [1, ...name('m'), ...name('memory'), 0x02, 0x00, 1]), // memory, at least one page
    ...section(3, [entries.length, ...entries.map(() => 0)]), // every function of that type
    ...section(7, [entries.length, ...entries.flatMap(([exported], i) => [...name(exported), 0x00, i])]),
    ...section(10, [entries.length, ...entries.flatMap(([, fn]) => body(fn))]),
  ]);
}

/** What the metrics use of the WebAssembly API (the project's TypeScript libraries do not declare it). */
export interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}

/** The engine's WebAssembly, or undefined where it has none (`--jitless`). */
export const wasmApi = (): WasmApi | undefined => (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
