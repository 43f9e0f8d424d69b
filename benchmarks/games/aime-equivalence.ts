/**
 * AIME's answer check, as SPADE's evaluation makes it (eval_offline/suites/aime.py): math-verify
 * when installed, else SPADE's fallback, Python's `int(predicted) == int(label)`, else the two
 * texts equal (both stripped).
 *
 * math-verify is a Python package (and large); spade-bench does not run it. AIME answers are
 * integers 0-999, so what matters of it is how it reads an integer written in LaTeX. SPADE's
 * extraction takes no box with braces inside (`\text{42}`, `\frac{84}{2}` never reach the
 * check), so before SPADE's fallback the predicted text is read as math-verify reads the
 * brace-free forms of an integer:
 *   - math delimiters, spacing and font commands read as spaces: `$`, `\(`, `\)`, `\,`, `\;`,
 *     `\:`, `\!`, `~`, `\quad`, `\qquad`, `\displaystyle`, `\left`, `\right`, `\text`, `\textbf`,
 *     `\mathbf`, `\mathrm`, `\mbox` (digits with a space between stay apart: `4 2` is no integer);
 *   - a dollar sign `\$` dropped, and a degree mark `^\circ` after the number;
 *   - a relation (`=`, `\equiv`, `\approx`) read as its last side, unless a comma lists several
 *     (`m+n=42`, `\approx 42`; `x=42, y=3` is no integer);
 *   - one pair of brackets around the whole, `(42)` or `[42]`;
 *   - words after the number (`42 ways`; a single letter is a variable: `42 x` is no integer);
 *   - arithmetic of integers and decimals, exactly: `+ - * /`, `\times`, `\cdot`, `^`,
 *     parentheses (`84/2`, `6 \times 7`, `2^5+10`, `4.2\times10^1`).
 * Where SPADE's fallback alone says right, this says right too (it reads any Unicode digits,
 * as Python's int() does: `４２`). tests/fixtures/games/aime-math-verify.json holds math-verify's
 * and the fallback's verdicts on each form; the test checks this reading against them.
 *
 * The code is JavaScript text: it runs inside the task's sandboxed program.
 */
export const AIME_EQUIVALENCE_SOURCE = String.raw`
/** A Unicode decimal digit's value: digits come in runs of ten, 0 to 9 (several runs may adjoin). */
function digitValue(digit) {
  const code = digit.codePointAt(0);
  let start = code;
  while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  return (code - start) % 10;
}
/** Python's int() of a text: optional spaces and sign, digits (of any script) with single underscores between; null when int() raises. */
function pythonInt(text) {
  const m = /^\s*([+-]?)(\p{Nd}+(?:_\p{Nd}+)*)\s*$/u.exec(text);
  if (!m) return null;
  const digits = BigInt(m[2].replace(/_/g, '').replace(/\p{Nd}/gu, (d) => String(digitValue(d))));
  return m[1] === '-' ? -digits : digits;
}
/** The exact value of arithmetic on integers and decimals (+ - * / ^ and parentheses) as [numerator, denominator]; null when the text is not such arithmetic. */
function exactValue(text) {
  const tokens = text.replace(/\\times|\\cdot/g, '*').match(/\d+(?:\.\d+)?|\S/g) || [];
  let at = 0;
  const fail = () => { throw new SyntaxError('not arithmetic'); };
  const gcd = (a, b) => { a = a < 0n ? -a : a; b = b < 0n ? -b : b; while (b) [a, b] = [b, a % b]; return a; };
  const fraction = (n, d) => { if (d === 0n) fail(); if (d < 0n) { n = -n; d = -d; } const g = gcd(n, d) || 1n; return [n / g, d / g]; };
  const atom = () => {
    const t = tokens[at++];
    if (t === '(') { const v = sum(); if (tokens[at++] !== ')') fail(); return v; }
    if (t === '-' || t === '+') { const v = power(); return t === '-' ? [-v[0], v[1]] : v; }
    if (t === undefined || !/^\d/.test(t)) fail();
    const [whole, decimals = ''] = t.split('.');
    return fraction(BigInt(whole + decimals), 10n ** BigInt(decimals.length));
  };
  const power = () => {
    const base = atom();
    if (tokens[at] !== '^') return base;
    at++;
    const exponent = power();
    if (exponent[1] !== 1n || exponent[0] < 0n || exponent[0] > 64n) fail();
    return fraction(base[0] ** exponent[0], base[1] ** exponent[0]);
  };
  const product = () => {
    let v = power();
    while (tokens[at] === '*' || tokens[at] === '/') {
      const times = tokens[at++] === '*';
      const w = power();
      v = times ? fraction(v[0] * w[0], v[1] * w[1]) : fraction(v[0] * w[1], v[1] * w[0]);
    }
    return v;
  };
  const sum = () => {
    let v = product();
    while (tokens[at] === '+' || tokens[at] === '-') {
      const plus = tokens[at++] === '+';
      const w = product();
      v = fraction(plus ? v[0] * w[1] + w[0] * v[1] : v[0] * w[1] - w[0] * v[1], v[1] * w[1]);
    }
    return v;
  };
  try {
    const v = sum();
    return at === tokens.length ? v : null;
  } catch {
    return null;
  }
}
/** An integer written in LaTeX, read as math-verify reads it; null when it is not one of those forms. */
function latexInteger(text) {
  let t = String(text)
    .replace(/\\(?:displaystyle|left|right|qquad|quad|textbf|text|mathbf|mathrm|mbox)(?![A-Za-z])/g, ' ')
    .replace(/\\[,;:!]/g, ' ')
    .replace(/\\[()]/g, ' ')
    .replace(/\\\$/g, ' ')
    .replace(/[$~]/g, ' ')
    .trim();
  if (!t.includes(',')) t = t.split(/=|\\equiv(?![A-Za-z])|\\approx(?![A-Za-z])/).pop().trim();
  t = t.replace(/\s*\^\s*\\circ$/, '').trim();
  const bracketed = /^\((.*)\)$/.exec(t) || /^\[(.*)\]$/.exec(t);
  if (bracketed) t = bracketed[1].trim();
  t = t.replace(/^(.*\d)\s+[A-Za-z]{2,}(?:\s+[A-Za-z]{2,})*$/, '$1');
  const m = /^([+-]?\d+)(?:\.0+)?$/.exec(t);
  if (m) return BigInt(m[1]);
  const value = exactValue(t);
  return value && value[1] === 1n ? value[0] : null;
}
function aimeEquivalent(predicted, label) {
  const gold = pythonInt(label);
  const read = latexInteger(predicted);
  if (gold !== null && read !== null && read === gold) return true;
  const a = pythonInt(predicted);
  if (a !== null && gold !== null) return a === gold;
  return predicted.trim() === label.trim();
}
`;
