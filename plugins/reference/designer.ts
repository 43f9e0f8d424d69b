/**
 * The reference designer: the offline, deterministic designer of the reference policy. It writes
 * real environment programs from the parameterised families and, from the environment memory,
 * moves each family's difficulty toward SPADE's band (no-hint solve rate 0.4-0.6): up when the
 * agent solves a family too often, down when too rarely. It spreads each round over its
 * families rather than following the round's requested skills (it has no family for some of
 * SPADE's skills); each program records the skill its family exercises. A round that asks for
 * tool-use skills only (a `--game-type tool-use` run, as SPADE's tool-use runs) is spread over
 * its tool-use families only.
 */
import { isToolUseSkill } from '../../core/selfplay/skills.js';
import type { Designer, DesignRequest, EnvironmentRecord } from '../../core/concepts/roles.js';
import type { EnvironmentProgram } from '../../core/concepts/environment.js';
import { clampDifficulty, type Family } from './family.js';
import { createRandom, randomInt } from './random.js';

/** Round 0 starts every family here: low-middle, so the first rounds measure where the agent is. */
export const START_DIFFICULTY = 3;
/** SPADE's difficulty band on the no-hint solve rate. */
export const SOLVE_RATE_BAND: readonly [number, number] = [0.4, 0.6];

/**
 * The next difficulty of a family from its records of the latest round it appeared in (`band`:
 * the run's difficulty band, SPADE's [0.4, 0.6] unless configured). Above
 * the band everywhere: harder (two steps when it is solved nearly always); below it
 * everywhere: easier; otherwise the probed difficulty whose solve rate was closest to the
 * band's middle (the easier one on a tie, so a family in the band holds).
 */
export function nextDifficulty(records: readonly EnvironmentRecord[], band: readonly [number, number] = SOLVE_RATE_BAND): number {
  const rated = records.filter((r) => r.valid && typeof r.solveRate === 'number' && typeof r.difficulty === 'number');
  if (rated.length === 0) return START_DIFFICULTY;
  const latestRound = Math.max(...rated.map((r) => r.round));
  // Solve rate per probed difficulty (several environments at one difficulty are averaged).
  const byDifficulty = new Map<number, number[]>();
  for (const r of rated.filter((x) => x.round === latestRound)) {
    const rates = byDifficulty.get(r.difficulty!) ?? [];
    rates.push(r.solveRate!);
    byDifficulty.set(r.difficulty!, rates);
  }
  const points = [...byDifficulty].map(([difficulty, rates]) => ({ difficulty, rate: rates.reduce((a, b) => a + b, 0) / rates.length }));
  const [low, high] = band;
  const middle = (low + high) / 2;
  if (points.every((p) => p.rate > high)) {
    const hardest = Math.max(...points.map((p) => p.difficulty));
    return clampDifficulty(hardest + (points.every((p) => p.rate >= 0.9) ? 2 : 1));
  }
  if (points.every((p) => p.rate < low)) {
    const easiest = Math.min(...points.map((p) => p.difficulty));
    return clampDifficulty(easiest - (points.every((p) => p.rate <= 0.1) ? 2 : 1));
  }
  const best = points.reduce((a, b) => {
    const da = Math.abs(a.rate - middle);
    const db = Math.abs(b.rate - middle);
    return db < da || (db === da && b.difficulty < a.difficulty) ? b : a;
  });
  return clampDifficulty(best.difficulty);
}

/** The reference designer, over `families` (default: all of them). */
export function createReferenceDesigner(families?: readonly Family[]): Designer {
  return {
    id: 'reference',
    label: 'reference policy: parameterised family designer (offline, deterministic)',
    kind: 'reference',
    async design(request: DesignRequest): Promise<EnvironmentProgram[]> {
      // The families' program templates are loaded with the first round: a run of static suites
      // alone never designs, and its start skips them (~10 ms).
      families ??= (await import('./families/index.js')).FAMILIES;
      const toolUseOnly = (request.skills?.length ?? 0) > 0 && request.skills!.every((skill) => isToolUseSkill(skill));
      const toolUseFamilies = families.filter((f) => isToolUseSkill(f.skill));
      return designFrom(toolUseOnly && toolUseFamilies.length > 0 ? toolUseFamilies : families, request);
    },
  };
}

/** A round of `request.count` programs spread over `families`. */
function designFrom(families: readonly Family[], request: DesignRequest): EnvironmentProgram[] {
  const random = createRandom(request.seed);
  // Spread the round over the families, starting at a seeded offset.
  const offset = randomInt(random, 0, families.length - 1);
  const band = request.targetBand ?? SOLVE_RATE_BAND;
  const base = new Map(families.map((f) => [f.name, nextDifficulty(request.memory.filter((r) => r.family === f.name), band)]));
  const programs: EnvironmentProgram[] = [];
  for (let i = 0; i < request.count; i++) {
    const family = families[(offset + i) % families.length]!;
    // Repeats of a family in one round probe around its difficulty: d, then one step harder
    // in even rounds and one easier in odd ones (then the other), so probes are not biased.
    const lap = Math.floor(i / families.length);
    const probes = request.round % 2 === 0 ? [0, 1, -1] : [0, -1, 1];
    const difficulty = clampDifficulty(base.get(family.name)! + probes[lap % 3]!);
    const variant = randomInt(random, 1, 2 ** 30);
    programs.push({
      id: `r${request.round}-e${i}`,
      language: 'javascript',
      source: family.program(difficulty, variant),
      meta: {
        family: family.name,
        skill: family.skill,
        difficulty,
        horizon: family.horizon(difficulty),
        origin: 'reference-designer',
        params: { variant },
        // The family's code, with this design's parameters in its data header.
        trustedCode: true,
      },
    });
  }
  return programs;
}
