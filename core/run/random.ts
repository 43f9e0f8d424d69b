/**
 * Deterministic randomness for the harness itself: seeds derived from the run seed, so the
 * same seed gives the same run whatever the order work finishes in.
 */

/**
 * A 32-bit seed derived from a base seed and any labels (FNV-1a over their text, one step per
 * code point, with its first UTF-16 unit, then a final mix). Read by index, not with a string
 * iterator, which made a string per character.
 */
export function deriveSeed(base: number, ...parts: (string | number)[]): number {
  let h = 0x811c9dc5 ^ (base >>> 0);
  const text = parts.join('\u0000');
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    h ^= unit;
    h = Math.imul(h, 0x01000193);
    // A surrogate pair is one code point: its second unit is not hashed.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return finalMix(h);
}

/**
 * deriveSeed(base, index) for a non-negative integer index below 2^53, without making the
 * index's text: the Vendi score's feature hashing derives one seed per feature id, tens of
 * thousands of them. Its decimal digits are hashed, most significant first, as deriveSeed hashes
 * the text.
 */
export function deriveSeedFromIndex(base: number, index: number): number {
  let h = 0x811c9dc5 ^ (base >>> 0);
  let scale = 1;
  while (scale * 10 <= index) scale *= 10;
  for (let rest = index; scale >= 1; scale /= 10) {
    const digit = Math.floor(rest / scale);
    rest -= digit * scale;
    h ^= 0x30 + digit;
    h = Math.imul(h, 0x01000193);
  }
  return finalMix(h);
}

/** The last step of both derivations: spreads the FNV-1a state's bits, as an unsigned 32-bit seed. */
function finalMix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x45d9f3b);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * mulberry32: a small, fast PRNG returning floats in [0, 1). Its state lives in a Uint32Array
 * (which wraps the addition mod 2^32 on store): a closure variable holding a number above 2^30
 * would be a new heap number per draw, and a bootstrap draws millions.
 */
export function mulberry32(seed: number): () => number {
  const state = new Uint32Array(1);
  state[0] = seed >>> 0;
  return () => {
    state[0] += 0x6d2b79f5;
    let t = state[0]!;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
