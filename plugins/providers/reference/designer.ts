/**
 * The reference designer: the offline, deterministic designer of the reference policy. It writes
 * real environment programs from the parameterised families and, from the environment memory,
 * moves each family's difficulty toward SPADE's band (no-hint solve rate 0.4-0.6): up when the
 * agent solves a family too often, down when too rarely.
 */
import type { Designer, DesignRequest, EnvironmentProgram, EnvironmentRecord } from '../../../core/types.js';
import { clampDifficulty, type Family } from './family.js';
import { FAMILIES } from './families/index.js';
import { createRandom, randomInt } from './random.js';

/** Round 0 starts every family here: low-middle, so the first rounds measure where the agent is. */
export const START_DIFFICULTY = 3;
/** SPADE's difficulty band on the no-hint solve rate. */
export const SOLVE_RATE_BAND: readonly [number, number] = [0.4, 0.6];

/** The next difficulty of a family from its records of the latest round it appeared in. */
export function nextDifficulty(records: readonly EnvironmentRecord[]): number {
  const rated = records.filter((r) => r.valid && typeof r.solveRate === 'number' && typeof r.difficulty === 'number');
  if (rated.length === 0) return START_DIFFICULTY;
  const latestRound = Math.max(...rated.map((r) => r.round));
  const latest = rated.filter((r) => r.round === latestRound);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const difficulty = mean(latest.map((r) => r.difficulty!));
  const solveRate = mean(latest.map((r) => r.solveRate!));
  const [low, high] = SOLVE_RATE_BAND;
  // Far outside the band: take two steps; just outside: one; inside: stay.
  let step = 0;
  if (solveRate > high) step = solveRate >= 0.9 ? 2 : 1;
  else if (solveRate < low) step = solveRate <= 0.1 ? -2 : -1;
  return clampDifficulty(difficulty + step);
}

export function createReferenceDesigner(families: readonly Family[] = FAMILIES): Designer {
  return {
    id: 'reference',
    label: 'reference policy: parameterised family designer (offline, deterministic)',
    kind: 'reference',
    async design(request: DesignRequest): Promise<EnvironmentProgram[]> {
      const random = createRandom(request.seed);
      // Spread the round over the families, starting at a seeded offset.
      const offset = randomInt(random, 0, families.length - 1);
      const base = new Map(families.map((f) => [f.name, nextDifficulty(request.memory.filter((r) => r.family === f.name))]));
      const programs: EnvironmentProgram[] = [];
      for (let i = 0; i < request.count; i++) {
        const family = families[(offset + i) % families.length]!;
        // Repeats of a family in one round probe around its difficulty: d, d+1, d-1, d, ...
        const lap = Math.floor(i / families.length);
        const difficulty = clampDifficulty(base.get(family.name)! + [0, 1, -1][lap % 3]!);
        const variant = randomInt(random, 1, 2 ** 30);
        programs.push({
          id: `r${request.round}-e${i}`,
          language: 'javascript',
          source: family.program(difficulty, variant),
          meta: {
            family: family.name,
            difficulty,
            horizon: family.horizon(difficulty),
            origin: 'reference-designer',
            params: { variant },
          },
        });
      }
      return programs;
    },
  };
}
