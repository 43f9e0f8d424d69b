/**
 * AIME's answer check, as SPADE's evaluation makes it (eval_offline/suites/aime.py): math-verify
 * when installed, else SPADE's fallback, Python's `int(predicted) == int(label)`, else the two
 * texts equal (both stripped).
 *
 * math-verify is a Python package (and large); spade-bench does not run it. AIME answers are
 * integers 0-999, so what matters of it is how it reads an integer written in LaTeX: before
 * SPADE's fallback, the predicted text is read as math-verify reads such forms:
 *   - math delimiters and spacing commands read as spaces: `$`, `\(`, `\)`, `\,`, `\;`, `\:`,
 *     `\!`, `~`, `\displaystyle`, `\left`, `\right` (digits with a space between stay apart:
 *     `4 2` is no integer);
 *   - a dollar sign `\$` dropped, and a degree mark `^\circ` after the number;
 *   - an equation `x = 42` read as its right-hand side;
 *   - a decimal whose fraction is zeros (`42.0`, `42.00`) read as the integer.
 * Where SPADE's fallback alone says right, this says right too; it says right where the fallback
 * says wrong only for those forms (the test fixtures list each one). Forms with braces
 * (`\text{42}`, `\mathbf{42}`, `\frac{84}{2}`) never reach the check: SPADE's extraction takes
 * no box with nested braces.
 *
 * The code is JavaScript text: it runs inside the task's sandboxed program.
 */
export const AIME_EQUIVALENCE_SOURCE = String.raw`
/** Python's int() of a text: optional spaces and sign, digits with single underscores between; null when int() raises. */
function pythonInt(text) {
  const m = /^\s*([+-]?)(\d+(?:_\d+)*)\s*$/.exec(text);
  if (!m) return null;
  const digits = BigInt(m[2].replace(/_/g, ''));
  return m[1] === '-' ? -digits : digits;
}
/** An integer written in LaTeX, read as math-verify reads it; null when it is not one of those forms. */
function latexInteger(text) {
  let t = String(text)
    .replace(/\\(?:displaystyle|left|right)\b/g, ' ')
    .replace(/\\[,;:!]/g, ' ')
    .replace(/\\[()]/g, ' ')
    .replace(/\\\$/g, ' ')
    .replace(/[$~]/g, ' ')
    .trim();
  const equation = /^([A-Za-z]\w*)\s*=\s*(.*)$/.exec(t);
  if (equation) t = equation[2];
  t = t.replace(/\s*\^\s*\\circ$/, '').trim();
  const m = /^([+-]?\d+)(?:\.0+)?$/.exec(t);
  return m ? BigInt(m[1]) : null;
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
