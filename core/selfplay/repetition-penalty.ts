/**
 * R-Zero's repetition penalty: the round's tasks are clustered by BLEU distance and each task
 * is penalised by the share of the round in its cluster, so a designer that repeats itself
 * earns less. As in R-Zero: sentence BLEU (NLTK's, 4-grams, uniform weights, smoothing
 * method 1 with ε = 0.1) on whitespace tokens, distance = 1 − BLEU, average-linkage
 * agglomerative clustering that merges while the distance is below 0.5, and
 * penalty = cluster size / round size. Pure functions.
 */
import { ngrams } from '../metrics/ngrams.js';

/** R-Zero's distance threshold: clusters at or beyond it are not merged. */
export const REPETITION_DISTANCE_THRESHOLD = 0.5;

const SMOOTHING_EPSILON = 0.1;
const MAX_ORDER = 4;

const tokens = (text: string): string[] => text.split(/\s+/u).filter((t) => t.length > 0);

function counts(items: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const item of items) m.set(item, (m.get(item) ?? 0) + 1);
  return m;
}

/** Sentence BLEU of `hypothesis` against one `reference` (NLTK sentence_bleu with SmoothingFunction().method1). */
export function sentenceBleu(hypothesis: string, reference: string): number {
  const hyp = tokens(hypothesis);
  const ref = tokens(reference);
  let logSum = 0;
  for (let n = 1; n <= MAX_ORDER; n++) {
    const hypGrams = ngrams(hyp, n);
    const refCounts = counts(ngrams(ref, n));
    let matches = 0;
    for (const [gram, count] of counts(hypGrams)) matches += Math.min(count, refCounts.get(gram) ?? 0);
    if (n === 1 && matches === 0) return 0;
    const denominator = Math.max(1, hypGrams.length);
    logSum += Math.log((matches === 0 ? SMOOTHING_EPSILON : matches) / denominator) / MAX_ORDER;
  }
  const brevity = hyp.length > ref.length ? 1 : Math.exp(1 - ref.length / hyp.length);
  return brevity * Math.exp(logSum);
}

/** Symmetric matrix of 1 − BLEU (row i as hypothesis, column j as reference, for i < j; 0 on the diagonal). */
export function bleuDistances(texts: readonly string[]): number[][] {
  const d = texts.map(() => texts.map(() => 0));
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) d[i]![j] = d[j]![i] = 1 - sentenceBleu(texts[i]!, texts[j]!);
  }
  return d;
}

/** Average-linkage agglomerative clustering: a cluster label per item (0, 1, ... in order of first item). */
export function averageLinkageClusters(distances: readonly (readonly number[])[], threshold = REPETITION_DISTANCE_THRESHOLD): number[] {
  let clusters = distances.map((_, i) => [i]);
  const linkage = (a: number[], b: number[]): number => {
    let sum = 0;
    for (const i of a) for (const j of b) sum += distances[i]![j]!;
    return sum / (a.length * b.length);
  };
  for (;;) {
    let best: [number, number] | undefined;
    let bestDistance = threshold;
    for (let a = 0; a < clusters.length; a++) {
      for (let b = a + 1; b < clusters.length; b++) {
        const d = linkage(clusters[a]!, clusters[b]!);
        if (d < bestDistance) [best, bestDistance] = [[a, b], d];
      }
    }
    if (!best) break;
    const [a, b] = best;
    clusters = [...clusters.filter((_, k) => k !== a && k !== b), [...clusters[a]!, ...clusters[b]!].sort((x, y) => x - y)];
  }
  const labels = new Array<number>(distances.length);
  clusters.sort((x, y) => x[0]! - y[0]!).forEach((members, label) => members.forEach((i) => (labels[i] = label)));
  return labels;
}

/** Each task's penalty: the size of its BLEU-distance cluster over the number of tasks. */
export function repetitionPenalties(tasks: readonly string[], threshold = REPETITION_DISTANCE_THRESHOLD): number[] {
  const labels = averageLinkageClusters(bleuDistances(tasks), threshold);
  const sizes = counts(labels.map(String));
  return labels.map((label) => sizes.get(String(label))! / tasks.length);
}
