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
import type { DiversityMetrics } from '../results/results.js';
import { ngrams, words } from './ngrams.js';
import { meanPairwiseNcd } from './compression.js';
import { dataNodeTypes, programNodeTypes, structureFeatures, type ProgramForStructure } from './structure.js';
import { dataHeaderOf } from '../results/data-header.js';
import { EMPTY_FEATURE, prepareFeatures, prepareIdBags, preparedVendi, type PreparedFeatures } from './feature-vendi.js';

/**
 * Word unigrams and bigrams of a text, as strings: the features of the task-text kernel. A pool's
 * metrics read them as ids (textFeatureIds), which give the same scores.
 */
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
  const header = program.language === 'javascript' ? dataHeaderOf(program) : undefined;
  if (header) {
    const data = dataNodeTypes(header.values).join(' ');
    const byData = remember(templateCache, header.code, () => new Map<string, string[]>());
    return remember(byData, data, () => featuresOfTypes(programNodeTypes(program)));
  }
  return remember(featureCache, `${program.language}\u0000${program.source}`, () => featuresOfTypes(programNodeTypes(program)));
}

/** A pool's task texts as feature ids (textFeatureIds). */
export interface TextFeatures {
  /** Per text: its unigram ids, then its bigram ids. */
  bags: Int32Array[];
  /** Per text: where its bigrams start in its bag (an empty text's `<empty>` is no unigram). */
  bigramStart: Int32Array;
  /** Distinct features over the pool. */
  dimension: number;
  /** distinct-1 and distinct-2 of the pool, as distinctN gives them. */
  distinct1: number;
  distinct2: number;
}

/** 2^26: a pair of ids below it is one exact number (below 2^52). */
const PAIR_BASE = 67_108_864;

/**
 * A pool's task texts as feature ids: each text's word unigrams, then its bigrams, numbered in
 * order of first appearance over the pool (the numbering prepareFeatures gives the strings of
 * textFeatures, so every score is the same), without making a string per bigram. A text with
 * no words has the one feature `<empty>`.
 */
export function textFeatureIds(texts: readonly string[]): TextFeatures {
  const unigrams = new Map<string, number>();
  // A bigram by its two unigram ids, as one number (exact: ids stay below PAIR_BASE).
  const bigrams = new Map<number, number>();
  let dimension = 0;
  let distinctUnigrams = 0;
  // Ids that are a word of some text (`<empty>` is counted only if a text has it as a word).
  const isWord: boolean[] = [];
  let ones = 0;
  let twos = 0;
  const bigramStart = new Int32Array(texts.length);
  const bags = texts.map((text, t) => {
    const tokens = words(text);
    if (tokens.length === 0) {
      let id = unigrams.get(EMPTY_FEATURE);
      if (id === undefined) unigrams.set(EMPTY_FEATURE, (id = dimension++));
      bigramStart[t] = 1;
      return Int32Array.of(id);
    }
    if (dimension + 2 * tokens.length >= PAIR_BASE) throw new RangeError(`text features: more than ${PAIR_BASE} distinct words and word pairs`);
    const bag = new Int32Array(tokens.length * 2 - 1);
    for (let i = 0; i < tokens.length; i++) {
      let id = unigrams.get(tokens[i]!);
      if (id === undefined) unigrams.set(tokens[i]!, (id = dimension++));
      if (!isWord[id]) {
        isWord[id] = true;
        distinctUnigrams++;
      }
      bag[i] = id;
    }
    for (let i = 1; i < tokens.length; i++) {
      const key = bag[i - 1]! * PAIR_BASE + bag[i]!;
      let id = bigrams.get(key);
      if (id === undefined) bigrams.set(key, (id = dimension++));
      bag[tokens.length + i - 1] = id;
    }
    bigramStart[t] = tokens.length;
    ones += tokens.length;
    twos += tokens.length - 1;
    return bag;
  });
  return {
    bags,
    bigramStart,
    dimension,
    distinct1: ones === 0 ? 0 : distinctUnigrams / ones,
    distinct2: twos === 0 ? 0 : bigrams.size / twos,
  };
}

/** distinct-2 of the texts at `indices` (repeats counted, as distinctN counts a text given twice). */
export function distinct2Of(features: TextFeatures, indices: readonly number[], seen = new Int32Array(features.dimension), mark = 1): number {
  let total = 0;
  let distinct = 0;
  for (const t of indices) {
    const bag = features.bags[t]!;
    for (let i = features.bigramStart[t]!; i < bag.length; i++) {
      total++;
      if (seen[bag[i]!] !== mark) {
        seen[bag[i]!] = mark;
        distinct++;
      }
    }
  }
  return total === 0 ? 0 : distinct / total;
}

/** A pool's features as diversityMetrics prepared them (the equal-size comparison reuses them). */
export interface PreparedDiversity {
  text: PreparedFeatures;
  /** The texts' feature ids (for distinct-2 of a resample). */
  words: TextFeatures;
  structure?: PreparedFeatures;
}

/**
 * Diversity of one pool. `programs`, when given, are the pool's programs (any order, any
 * count); they add structureVendi. NCD is measured over the task texts. `keep` is given the
 * prepared features.
 */
export function diversityMetrics(tasks: readonly string[], programs?: readonly ProgramForStructure[], keep?: (prepared: PreparedDiversity) => void): DiversityMetrics {
  const n = tasks.length;
  const features = textFeatureIds(tasks);
  const preparedText = prepareIdBags(features.bags, features.dimension);
  const text = preparedVendi(preparedText);
  const metrics: DiversityMetrics = {
    n,
    vendi: text.vendi,
    vendiPerN: n === 0 ? 0 : text.vendi / n,
    distinct1: features.distinct1,
    distinct2: features.distinct2,
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
  keep?.({ text: preparedText, words: features, ...(preparedStructure && { structure: preparedStructure }) });
  if (approximate) metrics.approximate = true;
  return metrics;
}
