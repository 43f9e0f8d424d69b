/**
 * Goal diversity of a pool of environments, over their task texts (first observations) and,
 * when the programs are given, over their structure.
 *
 * Text kernel: each task text becomes the bag of its word unigrams and bigrams (whitespace
 * tokens, lowercased); K[i][j] is the cosine similarity of the two count vectors (see
 * feature-vendi.ts). Structure kernel: the same over AST node-type 1..3-grams (structure.ts).
 * The Vendi score (q = 1) of K is the effective number of distinct items; vendiPerN divides it
 * by the pool size (1 = all different, 1/n = all the same).
 */
import type { DiversityMetrics } from '../results.js';
import { ngrams, words } from './ngrams.js';
import { meanPairwiseNcd } from './compression.js';
import { dataNodeTypes, programNodeTypes, structureFeatures, type ProgramForStructure } from './structure.js';
import { splitDataHeader } from '../data-header.js';
import { prepareFeatures, preparedVendi, type PreparedFeatures } from './feature-vendi.js';

/** Word unigrams and bigrams of a text: the features of the task-text kernel. */
export function textFeatures(text: string): string[] {
  const tokens = words(text);
  // A unigram has no space and a bigram has one, so the two kinds never collide.
  return [...ngrams(tokens, 1), ...ngrams(tokens, 2)];
}

/**
 * Structural features of a program: its AST node-type n-grams.
 *
 * Static suites repeat a few sources across thousands of tasks (one program per family and
 * difficulty), and the equal-size comparison asks again: each distinct source is parsed once.
 * Dataset suites write one program per task from one template (GSM8K: only the question
 * differs), so programs with the same node types share one features array, which the Vendi
 * computation then turns into one vector (feature-vendi.ts).
 */
const featureCache = new Map<string, string[]>();
const structureCache = new Map<string, string[]>();
const FEATURE_CACHE_LIMIT = 5_000;

function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    if (cache.size >= FEATURE_CACHE_LIMIT) cache.clear();
    cache.set(key, value);
  }
  return value;
}

function featuresOfTypes(nodeTypes: readonly string[]): string[] {
  return remember(structureCache, nodeTypes.join(' '), () => structureFeatures(nodeTypes));
}

/** Features of programs that open with their data, by their code, then by their data's node types. */
const templateCache = new Map<string, Map<string, string[]>>();

export function programFeatures(program: ProgramForStructure): string[] {
  if (program.nodeTypes) return featuresOfTypes(program.nodeTypes);
  // One template's programs differ in their data only: cached by code, not by the whole source
  // (a cache keyed by 1,319 sources would keep 1,319 copies of the template alive).
  const header = program.language === 'javascript' ? splitDataHeader(program.source) : undefined;
  if (header) {
    const data = dataNodeTypes(header.values).join(' ');
    const byData = remember(templateCache, header.code, () => new Map<string, string[]>());
    return remember(byData, data, () => featuresOfTypes(programNodeTypes(program)));
  }
  return remember(featureCache, `${program.language}\u0000${program.source}`, () => featuresOfTypes(programNodeTypes(program)));
}

/**
 * distinct-1 and distinct-2 (as distinctN gives them) from the tasks' text features, which
 * hold their word unigrams (no space) and bigrams (one space): the texts are not split again.
 */
function distinctOfBags(bags: readonly (readonly string[])[]): { distinct1: number; distinct2: number } {
  const unigrams = new Set<string>();
  const bigrams = new Set<string>();
  let ones = 0;
  let twos = 0;
  for (const bag of bags) {
    for (const feature of bag) {
      if (feature.includes(' ')) {
        bigrams.add(feature);
        twos++;
      } else {
        unigrams.add(feature);
        ones++;
      }
    }
  }
  return { distinct1: ones === 0 ? 0 : unigrams.size / ones, distinct2: twos === 0 ? 0 : bigrams.size / twos };
}

/** A pool's features as diversityMetrics prepared them (the equal-size comparison reuses them). */
export interface PreparedDiversity {
  text: PreparedFeatures;
  structure?: PreparedFeatures;
}

/**
 * Diversity of one pool. `programs`, when given, are the pool's programs (any order, any
 * count); they add structureVendi. NCD is measured over the task texts. `keep` is given the
 * prepared features.
 */
export function diversityMetrics(tasks: readonly string[], programs?: readonly ProgramForStructure[], keep?: (prepared: PreparedDiversity) => void): DiversityMetrics {
  const n = tasks.length;
  const bags = tasks.map(textFeatures);
  const preparedText = prepareFeatures(bags);
  const text = preparedVendi(preparedText);
  const metrics: DiversityMetrics = {
    n,
    vendi: text.vendi,
    vendiPerN: n === 0 ? 0 : text.vendi / n,
    ...distinctOfBags(bags),
  };
  if (n >= 2) metrics.ncd = meanPairwiseNcd(tasks);
  let approximate = text.approximate;
  let preparedStructure: PreparedFeatures | undefined;
  if (programs && programs.length > 0) {
    preparedStructure = prepareFeatures(programs.map(programFeatures));
    const structure = preparedVendi(preparedStructure);
    metrics.structureVendi = structure.vendi;
    metrics.structureVendiPerN = structure.vendi / programs.length;
    approximate ||= structure.approximate;
  }
  keep?.({ text: preparedText, ...(preparedStructure && { structure: preparedStructure }) });
  if (approximate) metrics.approximate = true;
  return metrics;
}
