/**
 * Normalised compression distance (Cilibrasi & Vitányi 2005) with zlib (deflate, level 9):
 *   NCD(x, y) = (C(xy) - min(C(x), C(y))) / max(C(x), C(y))
 * about 0 for identical texts and about 1 for unrelated ones (slightly above 1 is possible).
 */
import { constants, deflateRawSync, DeflateRaw } from 'node:zlib';
import { mulberry32 } from '../run/random.js';

/** Pairs measured at most: beyond, a seeded random sample of pairs (an unbiased estimate). */
export const MAX_NCD_PAIRS = 2000;

/**
 * Output buffer of one compression. zlib's default (16 KiB) is a fresh buffer per call, garbage
 * that thousands of calls pile up until a collection (tens of MiB for a 2,000-pair mean); a task's
 * compressed text fits in far less, and a longer one simply takes more buffers. The size of the
 * output does not depend on it.
 */
const CHUNK_BYTES = 1024;

/** The compressed size of a text through Node's public API: raw deflate, level 9, zlib's defaults otherwise. */
export const deflatedSize = (text: string): number => deflateRawSync(Buffer.from(text, 'utf8'), { level: 9, chunkSize: CHUNK_BYTES }).length;

/** zlib's handle under a DeflateRaw, as Node's own synchronous compression drives it. */
interface ZlibHandle {
  init(windowBits: number, level: number, memLevel: number, strategy: number, state: Uint32Array, onWrite: () => void, dictionary: undefined): void;
  writeSync(flush: number, input: Uint8Array, inOffset: number, inLength: number, output: Uint8Array, outOffset: number, outLength: number): void;
  close(): void;
}

/**
 * The same size from a zlib stream made for the text alone, without the Node stream object
 * deflateRawSync builds around it (its Transform, Readable and Writable states: about a third of
 * the time of a 2,000-pair mean). The stream is Node's own zlib handle, made, initialised with
 * deflateRawSync's parameters (window 2^15, level 9, memory level 8, default strategy), written
 * with Z_FINISH and closed, as deflateRawSync does. Where the handle cannot be reached or gives
 * another size for probe texts (another Node version), deflatedSize is used.
 */
export function handleDeflate(): (text: string) => number {
  try {
    const probe = new DeflateRaw() as DeflateRaw & { _handle?: object };
    const Handle = probe._handle?.constructor as (new (mode: number) => ZlibHandle) | undefined;
    probe.close();
    if (typeof Handle !== 'function') return deflatedSize;
    // [avail_out, avail_in] after each write, as zlib reports them.
    const state = new Uint32Array(2);
    const output = Buffer.allocUnsafe(CHUNK_BYTES);
    const size = (text: string): number => {
      const input = Buffer.from(text, 'utf8');
      const handle = new Handle(constants.DEFLATERAW);
      try {
        handle.init(15, 9, 8, constants.Z_DEFAULT_STRATEGY, state, () => {}, undefined);
        let total = 0;
        let offset = 0;
        let left = input.length;
        for (;;) {
          handle.writeSync(constants.Z_FINISH, input, offset, left, output, 0, output.length);
          total += output.length - state[0]!;
          offset += left - state[1]!;
          left = state[1]!;
          // With Z_FINISH, deflate is done when it leaves output space unused.
          if (state[0] !== 0) return total;
        }
      } finally {
        handle.close();
      }
    };
    // Random text that stays longer than the output buffer compressed: several writes.
    const random = mulberry32(1);
    const noise = Array.from({ length: 3_000 }, () => String.fromCharCode(33 + Math.floor(random() * 90))).join('');
    const probes = ['', 'a', 'the answer is \\boxed{42}. '.repeat(20), `d\u00e9j\u00e0 vu \u{1F600} ${noise}`];
    return probes.every((text) => size(text) === deflatedSize(text)) ? size : deflatedSize;
  } catch {
    return deflatedSize;
  }
}

let sizeOfText: ((text: string) => number) | undefined;

/** The compressed size of a text (raw deflate, level 9): deflatedSize's number. */
export const compressedSize = (text: string): number => (sizeOfText ??= handleDeflate())(text);

export function normalizedCompressionDistance(x: string, y: string): number {
  return ncdWithSizes(x, y, compressedSize(x), compressedSize(y));
}

function ncdWithSizes(x: string, y: string, cx: number, cy: number): number {
  const cxy = compressedSize(x + y);
  return (cxy - Math.min(cx, cy)) / Math.max(cx, cy);
}

/**
 * Mean NCD over pairs of distinct items: every pair when there are at most MAX_NCD_PAIRS,
 * otherwise MAX_NCD_PAIRS pairs drawn with a seeded generator. NaN for fewer than 2 items.
 */
export function meanPairwiseNcd(texts: readonly string[], seed: number = 1): number {
  const n = texts.length;
  if (n < 2) return Number.NaN;
  const sizes = new Map<number, number>();
  const sizeOf = (i: number) => {
    let size = sizes.get(i);
    if (size === undefined) sizes.set(i, (size = compressedSize(texts[i]!)));
    return size;
  };
  const pair = (i: number, j: number) => ncdWithSizes(texts[i]!, texts[j]!, sizeOf(i), sizeOf(j));
  let sum = 0;
  let count = 0;
  if ((n * (n - 1)) / 2 <= MAX_NCD_PAIRS) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++, count++) sum += pair(i, j);
  } else {
    const random = mulberry32(seed);
    for (; count < MAX_NCD_PAIRS; count++) {
      const i = Math.floor(random() * n);
      let j = Math.floor(random() * (n - 1));
      if (j >= i) j++;
      sum += pair(i, j);
    }
  }
  return sum / count;
}
