/**
 * Word n-grams: whitespace tokens, lowercased. Shared by distinct-n and the text kernel.
 */

/** Whitespace tokens of `text`, lowercased. */
export function words(text: string): string[] {
  return text.toLowerCase().split(/\s+/u).filter((token) => token.length > 0);
}

/** The n-grams of a token sequence, each joined with a single space (n-grams never cross texts). */
export function ngrams(tokens: readonly string[], n: number): string[] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n must be a positive integer, got ${n}`);
  if (n === 1) return [...tokens];
  const grams: string[] = [];
  if (n === 2) for (let i = 0; i + 2 <= tokens.length; i++) grams.push(`${tokens[i]} ${tokens[i + 1]}`);
  else for (let i = 0; i + n <= tokens.length; i++) grams.push(tokens.slice(i, i + n).join(' '));
  return grams;
}

/**
 * distinct-n (Li et al. 2016): distinct n-grams / total n-grams over all `texts`,
 * whitespace tokens lowercased. 0 when there are no n-grams at all.
 */
export function distinctN(texts: readonly string[], n: number): number {
  const seen = new Set<string>();
  let total = 0;
  for (const text of texts) {
    for (const gram of ngrams(words(text), n)) {
      seen.add(gram);
      total++;
    }
  }
  return total === 0 ? 0 : seen.size / total;
}
