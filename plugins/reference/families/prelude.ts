/**
 * Plain ES2022 source shared by every program the families write: a seeded PRNG (mulberry32),
 * small random helpers, and the `\boxed{...}` reader. Programs are self-contained, so this text
 * is pasted into each of them; it uses no host API, no Date and no Math.random.
 */
export const PRELUDE = String.raw`
function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function toSeed(seed) {
  const n = Number(seed);
  return Number.isFinite(n) ? Math.floor(Math.abs(n)) % 4294967296 : 0;
}
/** The episode's generator: the reset seed mixed with the program's variant number (P.variant). */
function episodeRandom(seed) {
  return mulberry32((toSeed(seed) ^ Math.imul(P.variant | 0, 0x9e3779b1)) >>> 0);
}
function randInt(rng, lo, hi) {
  return lo + Math.floor(rng() * (hi - lo + 1));
}
function pick(rng, list) {
  return list[Math.floor(rng() * list.length)];
}
function shuffle(rng, list) {
  const out = list.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const t = out[i]; out[i] = out[j]; out[j] = t;
  }
  return out;
}
/** A window [a, b] of the given width inside [lo, hi] that contains value, placed at random. */
function windowAround(rng, value, lo, hi, width) {
  const w = Math.max(1, Math.min(width, hi - lo + 1));
  const start = randInt(rng, Math.max(lo, value - w + 1), Math.min(value, hi - w + 1));
  return [start, start + w - 1];
}
function asText(value) {
  try { return typeof value === 'string' ? value : String(value); } catch (e) { return ''; }
}
/** The content of the last \boxed{...} in a reply (braces balanced), or null. */
function lastBoxed(reply) {
  const text = asText(reply);
  const at = text.lastIndexOf('\\boxed{');
  if (at < 0) return null;
  let depth = 1;
  for (let i = at + 7; i < text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(at + 7, i).trim();
  }
  return null;
}
function normalizeAnswer(text) {
  return asText(text).toLowerCase().replace(/[\s,;]+/g, ' ').trim();
}
/** True when the answer appears in the text as a whole token (not inside a longer number or word). */
function containsToken(text, answer) {
  const t = normalizeAnswer(text);
  const a = normalizeAnswer(answer);
  let from = 0;
  while (a.length > 0) {
    const i = t.indexOf(a, from);
    if (i < 0) return false;
    const before = i === 0 ? ' ' : t[i - 1];
    const after = i + a.length >= t.length ? ' ' : t[i + a.length];
    if (!/[0-9a-z]/.test(before) && !/[0-9a-z]/.test(after)) return true;
    from = i + 1;
  }
  return false;
}
`;
