/**
 * The options of the RLVE suites (`suiteOptions.rlve`, `suiteOptions["rlve-adaptive"]`, ...),
 * checked with messages that name the key, and what they choose: which environments, which
 * difficulties, how many seeds, and which tasks cannot run in the Python sandbox in force.
 */
import { UsageError } from '../../core/errors.js';
import { OFFICIAL16, type RlveEnvironment } from './catalog.js';
import type { GymOptions } from './gym.js';

export interface RlveOptions extends GymOptions {
  /** `all`, `official16` (the 16 of SPADE's RLVE runs), or RLVE identifiers (a list or comma-separated). */
  environments?: string | readonly string[];
  /** Difficulty levels, 0 the easiest (one, or a list). */
  difficulties?: number | readonly number[];
  /** Tasks (problem seeds) per environment and difficulty. */
  seedsPerLevel?: number;
  /** Base of the problem seeds: the same base gives the same tasks. */
  seed?: number;
}

/** The highest difficulty accepted (RLVE's ParameterControllers grow without bound; SPADE stops at 20). */
export const MAX_DIFFICULTY = 100;

const where = (suite: string, key: string): string => `suiteOptions["${suite}"].${key}`;

function integer(value: unknown, key: string, suite: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${where(suite, key)}: expected an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** The difficulties asked for, checked (default: `fallback`). */
export function difficultiesOf(options: RlveOptions, suite: string, fallback: readonly number[]): number[] {
  const value = options.difficulties ?? fallback;
  const list = typeof value === 'number' ? [value] : Array.isArray(value) ? value : undefined;
  if (!list || list.length === 0) throw new UsageError(`${where(suite, 'difficulties')}: expected a difficulty or a non-empty list of them, got ${JSON.stringify(value)}`);
  return [...new Set(list.map((d) => integer(d, 'difficulties', suite, 0, MAX_DIFFICULTY)))].sort((a, b) => a - b);
}

export function seedsPerLevelOf(options: RlveOptions, suite: string): number {
  return options.seedsPerLevel === undefined ? 1 : integer(options.seedsPerLevel, 'seedsPerLevel', suite, 1, 10_000);
}

export function baseSeedOf(options: RlveOptions, suite: string): number {
  return options.seed === undefined ? 0 : integer(options.seed, 'seed', suite, 0, 0xffffffff);
}

/** The environments an option names, in the catalog's order; an unknown identifier is a UsageError. */
export function chooseEnvironments(catalog: readonly RlveEnvironment[], spec: RlveOptions['environments'], suite: string, fallback: 'all' | 'official16'): RlveEnvironment[] {
  const value = spec ?? fallback;
  const names = typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : Array.isArray(value) ? value : undefined;
  if (!names || names.length === 0 || names.some((n) => typeof n !== 'string')) {
    throw new UsageError(`${where(suite, 'environments')}: expected "all", "official16" or RLVE identifiers, got ${JSON.stringify(value)}`);
  }
  if (names.length === 1 && names[0] === 'all') return [...catalog];
  const wanted = new Set(names.flatMap((n) => (n === 'official16' ? [...OFFICIAL16] : [n])));
  const known = new Set(catalog.map((e) => e.id));
  const unknown = [...wanted].filter((n) => !known.has(n));
  if (unknown.length) {
    const near = (name: string): string[] => catalog.map((e) => e.id).filter((id) => id.toLowerCase().includes(name.toLowerCase().slice(0, 4))).slice(0, 5);
    throw new UsageError(
      `${where(suite, 'environments')}: RLVE has no environment ${unknown.map((n) => JSON.stringify(n)).join(', ')}` +
        `${near(unknown[0]!).length ? ` (did you mean ${near(unknown[0]!).join(', ')}?)` : ''}; "all" names its ${catalog.length}`,
    );
  }
  return catalog.filter((e) => wanted.has(e.id));
}

/**
 * The environments the Python sandbox can run (all when its packages are not known), and the
 * others counted by reason (`networkx missing from the Python sandbox`), `weight` each.
 */
export function runnable(environments: readonly RlveEnvironment[], packages: readonly string[] | undefined, weight = 1): { runnable: RlveEnvironment[]; skipped: Record<string, number> } {
  if (!packages) return { runnable: [...environments], skipped: {} };
  const skipped: Record<string, number> = {};
  const kept = environments.filter((environment) => {
    const missing = environment.packages.filter((p) => !packages.includes(p));
    if (missing.length === 0) return true;
    const reason = `${missing.join(' and ')} missing from the Python sandbox`;
    skipped[reason] = (skipped[reason] ?? 0) + weight;
    return false;
  });
  return { runnable: kept, skipped };
}
