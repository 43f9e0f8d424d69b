/**
 * Pools of different sizes compared fairly: Vendi grows with pool size, so every pool is
 * measured on random subsets (drawn without replacement, seeded) of one common size — by default
 * the smallest pool's size, capped at DEFAULT_MAX_SIZE to bound the cost. This is rarefaction,
 * as ecologists compare species richness: a subset holds no task twice, so a pool of exactly the
 * common size scores its own Vendi (every subset is the whole pool, and its interval is that one
 * value), and a larger pool scores what a pool of that size drawn from it would. Drawing with
 * replacement instead would repeat about a third of the smallest pool's tasks in every draw and
 * few of a large pool's, lowering the smallest pool's score the most: enough to reverse a ranking.
 */
import type { DiversityMetrics, EqualSizeDiversity, Estimate, SuiteResult } from '../results/results.js';
import type { Language } from '../types.js';
import { mulberry32 } from '../run/random.js';
import { prepareFeatures, prepareIdBags, preparedVendi } from './feature-vendi.js';
import { distinct2Of, programFeatures, textFeatureIds, type PreparedDiversity } from './diversity.js';
import { percentileInterval, subsample } from './bootstrap.js';
import type { ProgramForStructure } from './structure.js';

export const DEFAULT_MAX_SIZE = 64;
export const DEFAULT_DIVERSITY_REPLICATES = 30;

export interface DiversityPool {
  id: string;
  tasks: readonly string[];
  /** The programs behind the tasks, index for index (adds the structural score). */
  programs?: readonly ProgramForStructure[];
  /** The tasks' features (and the programs'), index for index, when already prepared. */
  prepared?: PreparedDiversity;
}

/** Pools whose features the suite's own diversity metric prepared, by that metric: not prepared twice. */
const preparedPools = new WeakMap<DiversityMetrics, Omit<DiversityPool, 'id'>>();

/** Remember the pool addEqualSizeDiversity would build for the suite whose diversity is `metric`, with its features already prepared. */
export function rememberDiversityPool(metric: DiversityMetrics, pool: Omit<DiversityPool, 'id'>): void {
  preparedPools.set(metric, pool);
}

export interface EqualSizeOptions {
  /** Common size; default min(smallest pool, DEFAULT_MAX_SIZE). */
  size?: number;
  replicates?: number;
  seed?: number;
}

/** Equal-size diversity of each pool (pools with fewer than 2 tasks are left out). */
export function equalSizeDiversity(pools: readonly DiversityPool[], options: EqualSizeOptions = {}): Map<string, EqualSizeDiversity> {
  const measured = pools.filter((pool) => pool.tasks.length >= 2);
  const result = new Map<string, EqualSizeDiversity>();
  if (measured.length === 0) return result;
  const size = options.size ?? Math.min(DEFAULT_MAX_SIZE, ...measured.map((pool) => pool.tasks.length));
  const replicates = options.replicates ?? DEFAULT_DIVERSITY_REPLICATES;
  for (const pool of measured) {
    const random = mulberry32(options.seed ?? 1);
    const words = pool.prepared?.words ?? textFeatureIds(pool.tasks);
    const text = pool.prepared?.text ?? prepareIdBags(words.bags, words.dimension);
    const seen = new Int32Array(words.dimension);
    const structureBags = pool.prepared ? pool.prepared.structure : pool.programs && pool.programs.length === pool.tasks.length ? prepareFeatures(pool.programs.map(programFeatures)) : undefined;
    const indices = pool.tasks.map((_, i) => i);
    const vendi: number[] = [];
    const distinct2: number[] = [];
    const structure: number[] = [];
    for (let r = 0; r < replicates; r++) {
      const drawn = subsample(indices, size, random);
      vendi.push(preparedVendi(text, drawn).vendi);
      distinct2.push(distinct2Of(words, drawn, seen, r + 1));
      if (structureBags) structure.push(preparedVendi(structureBags, drawn).vendi);
    }
    const entry: EqualSizeDiversity = { size, replicates, vendi: estimate(vendi), distinct2: estimate(distinct2) };
    if (structureBags) entry.structureVendi = estimate(structure);
    result.set(pool.id, entry);
  }
  return result;
}

function estimate(replicates: readonly number[]): Estimate {
  return { mean: replicates.reduce((sum, x) => sum + x, 0) / replicates.length, interval: percentileInterval(replicates) };
}

/**
 * Fill `metrics.diversity.equalSize` of every suite from its accepted environments (verdict not
 * invalid, with a task text), all pools at one common size. Returns the same suites, updated.
 */
export function addEqualSizeDiversity<T extends SuiteResult>(suites: T[], options: EqualSizeOptions = {}): T[] {
  const pools = suites.map((suite): DiversityPool => {
    const known = preparedPools.get(suite.metrics.diversity);
    if (known) return { id: suite.id, ...known };
    const accepted = suite.environments.filter((environment) => environment.verdict !== 'invalid' && environment.task !== undefined);
    return {
      id: suite.id,
      tasks: accepted.map((environment) => environment.task!),
      programs: accepted.map((environment) => ({ source: environment.source, language: environment.language as Language })),
    };
  });
  const measured = equalSizeDiversity(pools, options);
  for (const suite of suites) {
    const entry = measured.get(suite.id);
    if (entry) suite.metrics.diversity.equalSize = entry;
  }
  return suites;
}
