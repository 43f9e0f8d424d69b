/**
 * The action in a reply: the content of its last `\boxed{...}`, with nested braces kept
 * (`\boxed{\frac{1}{2}}` gives `\frac{1}{2}`). Environments read the whole reply themselves;
 * this is for the harness's own use (the agent's turn digest, the reviewer's verdict).
 */

/** The content of the last complete `\boxed{...}` in `text`, or undefined when there is none. */
export function boxedAction(text: string): string | undefined {
  let found: string | undefined;
  let from = 0;
  for (;;) {
    const start = text.indexOf('\\boxed{', from);
    if (start < 0) return found;
    let depth = 1;
    let i = start + '\\boxed{'.length;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}') depth--;
    }
    if (depth === 0) found = text.slice(start + '\\boxed{'.length, i - 1).trim();
    from = start + 1;
  }
}
