/**
 * Text in the report's charts: how wide a label will be, and how to make it fit a width —
 * wrapped on word boundaries, else cut with an ellipsis. Charts are drawn when the report is
 * made, with no browser to measure in, so widths are estimated from DejaVu Sans' advance widths
 * (the widest of the common sans-serif fonts, and the one Debian's Chromium falls back on), plus
 * a margin: a label estimated to fit does fit, in that font and in narrower ones.
 */

/** Advance widths of DejaVu Sans, in hundredths of an em, by character; others count as `DEFAULT`. */
const WIDTHS: Record<string, number> = {
  ' ': 32, '!': 40, '"': 46, '#': 84, $: 64, '%': 95, '&': 78, "'": 28, '(': 39, ')': 39, '*': 50, '+': 84, ',': 32, '-': 36, '.': 32, '/': 34,
  ':': 34, ';': 34, '<': 84, '=': 84, '>': 84, '?': 53, '@': 100, '[': 39, '\\': 34, ']': 39, '^': 84, _: 50, '`': 50, '{': 64, '|': 34, '}': 64, '~': 84,
  A: 68, B: 69, C: 70, D: 77, E: 63, F: 58, G: 78, H: 75, I: 30, J: 30, K: 66, L: 56, M: 86, N: 75, O: 79, P: 60, Q: 79, R: 69, S: 63, T: 61,
  U: 73, V: 68, W: 99, X: 69, Y: 61, Z: 69,
  a: 61, b: 63, c: 55, d: 63, e: 62, f: 35, g: 63, h: 63, i: 28, j: 28, k: 58, l: 28, m: 97, n: 63, o: 61, p: 63, q: 63, r: 41, s: 52, t: 39,
  u: 63, v: 59, w: 82, x: 59, y: 59, z: 53, '–': 50, '·': 32, '…': 100, '×': 84, '−': 84,
};
const DIGIT = 64;
const DEFAULT = 84;
const MARGIN = 1.06;

/** Estimated width, in pixels, of `text` at `size` pixels. */
export function textWidth(text: string, size: number): number {
  let hundredths = 0;
  for (const ch of text) hundredths += ch >= '0' && ch <= '9' ? DIGIT : (WIDTHS[ch] ?? DEFAULT);
  return (hundredths / 100) * size * MARGIN;
}

/** `text` cut to fit `width` pixels at `size`, with an ellipsis when cut. */
export function fitText(text: string, width: number, size: number): string {
  if (textWidth(text, size) <= width) return text;
  let cut = text;
  while (cut.length > 1 && textWidth(`${cut}…`, size) > width) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * `text` wrapped into at most `maxLines` lines of at most `width` pixels at `size`, broken after
 * spaces, hyphens, slashes, underscores and middle dots (the separators of pool and series
 * names); undefined when it does not fit so.
 */
export function wrapText(text: string, width: number, size: number, maxLines: number): string[] | undefined {
  const pieces = text.match(/[^\s\-/_·]+[\s\-/_·]*|[\s\-/_·]+/g) ?? [text];
  const lines: string[] = [];
  let line = '';
  for (const piece of pieces) {
    const candidate = line + piece;
    if (textWidth(candidate.trimEnd(), size) <= width) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line.trimEnd());
    line = piece;
    if (textWidth(line.trimEnd(), size) > width) return undefined;
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines.length <= maxLines ? lines : undefined;
}
