/**
 * "Did you mean": the known name nearest a mistyped one, for commands, flags, suite ids and
 * plugin ids. Nearness is the edit distance (insertions, deletions, substitutions and swaps of
 * two neighbours), case ignored; a name counts as near when at most a third of it differs. Failing
 * that, a name that begins the typed word or that the word begins (`--output` for `--out`), at
 * least three letters long, is what was meant, when the word is a name (not a path or a URL).
 */

/** Edit distance of `a` and `b`, with a swap of two neighbouring letters counting as one edit. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The known name nearest `word`, when one is near enough to be what was meant. */
export function closest(word: string, known: Iterable<string>): string | undefined {
  const typed = word.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(typed, name.toLowerCase());
    if (distance === 0) continue;
    if (distance <= Math.max(1, Math.floor(Math.max(typed.length, name.length) / 3)) && (!best || distance < best.distance)) best = { name, distance };
  }
  if (best || !/^[a-z][a-z0-9_-]*$/.test(typed)) return best?.name;
  let prefixed: string | undefined;
  for (const name of known) {
    const lower = name.toLowerCase();
    const [short, long] = lower.length < typed.length ? [lower, typed] : [typed, lower];
    if (short.length >= 3 && short !== long && long.startsWith(short) && (!prefixed || name.length > prefixed.length)) prefixed = name;
  }
  return prefixed;
}

/** ` Did you mean X?` (with the prefix, e.g. `--`), or nothing when no known name is near. */
export function didYouMean(word: string, known: Iterable<string>, prefix = ''): string {
  const name = closest(word, known);
  return name === undefined ? '' : ` Did you mean ${prefix}${name}?`;
}
