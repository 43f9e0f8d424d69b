/**
 * `rlve`: RLVE's verifiable environments as a static suite. A task is (environment, difficulty,
 * seed), made in the sandbox by RLVE's own code (see program.ts). By default every one of the
 * 400 environments at difficulty 0, one seed each; `suiteOptions.rlve` chooses environments
 * (`all`, `official16`, identifiers), difficulties and seeds per level. Environments whose
 * packages the Python sandbox lacks are left out and counted with the reason.
 */
import { deriveSeed } from '../../core/run/random.js';
import type { Suite, SuiteLoadOptions, SuiteTask } from '../../core/concepts/suite.js';
import { readCatalog, type RlveEnvironment } from './catalog.js';
import { loadGym, type Gym } from './gym.js';
import { baseSeedOf, chooseEnvironments, difficultiesOf, runnable, seedsPerLevelOf, type RlveOptions } from './options.js';
import { generatedTaskSource, rlveProgram } from './program.js';

/**
 * RLVE gives a generator and a scorer 10 s each (generator()'s timeout_second, the timeout of its
 * sympy scorers); the sandbox's per-call limit stands in for them. Some generators build large
 * tables at higher difficulties.
 */
export const RLVE_LIMITS = { callTimeoutMs: 10_000, memoryMb: 256 } as const;

/** RLVE's Gym and its environments, read once per data folder. */
export async function loadRlve(options: RlveOptions, dataDir: string | undefined): Promise<{ gym: Gym; catalog: RlveEnvironment[] }> {
  const gym = await loadGym({ ...options, dataDir: dataDir ?? options.dataDir });
  return { gym, catalog: readCatalog(gym) };
}

/** The problem seed of a task: the same (base, environment, difficulty, index) gives the same problem. */
export const problemSeed = (base: number, environment: string, difficulty: number, index: number): number => deriveSeed(base, 'rlve', environment, difficulty, index);

export function generatedTask(environment: RlveEnvironment, gymRoot: string, prefix: string, difficulty: number, seed: number, idSuffix = `s${seed}`): SuiteTask {
  return {
    program: rlveProgram(`${prefix}/${environment.id}/d${difficulty}/${idSuffix}`, generatedTaskSource(environment, difficulty, seed), environment, gymRoot, {
      difficulty,
      origin: `RLVE Gym ${environment.module}`,
      params: { environment: environment.id, difficulty, seed },
    }),
    seed,
  };
}

export function createRlveSuite(options: RlveOptions = {}): Suite {
  const id = 'rlve';
  const difficulties = difficultiesOf(options, id, [0]);
  const seeds = seedsPerLevelOf(options, id);
  const base = baseSeedOf(options, id);
  let skippedTasks: Record<string, number> = {};
  return {
    id,
    description: "RLVE's verifiable environments (Zhiyuan-Zeng/RLVE, 400): tasks (environment, difficulty, seed) made and scored by RLVE's own code in the Python sandbox.",
    language: 'python',
    limits: RLVE_LIMITS,
    get skippedTasks() {
      return skippedTasks;
    },
    async tasks(load: SuiteLoadOptions = {}) {
      const { gym, catalog } = await loadRlve(options, load.dataDir);
      const chosen = chooseEnvironments(catalog, options.environments, id, 'all');
      const usable = runnable(chosen, load.pythonPackages, difficulties.length * seeds);
      skippedTasks = usable.skipped;
      const tasks: SuiteTask[] = [];
      for (const environment of usable.runnable) {
        for (const difficulty of difficulties) {
          for (let i = 0; i < seeds; i++) tasks.push(generatedTask(environment, gym.root, id, difficulty, problemSeed(base, environment.id, difficulty, i)));
        }
      }
      return load.limit !== undefined && load.limit >= 0 ? tasks.slice(0, load.limit) : tasks;
    },
  };
}
