/**
 * `rlve-adaptive`: RLVE's environments under RLVE's adaptive difficulty, the fixed-pool baseline
 * of SPADE's paper (cmd/games/train_fixed_rlve_*.sh), as a curriculum pool the run plays in
 * rounds beside self-play. The run's curriculum (core/curriculum/, `curriculum.*` in the config:
 * tauAcc 0.9, tauNum 128, width 4, at most difficulty 20 by default, as in SPADE's runs) picks
 * each round's environments and their difficulties; this pool makes the tasks, as `rlve` does.
 * By default the 16 environments of SPADE's RLVE runs (`official16`); `suiteOptions
 * ["rlve-adaptive"].environments` may name others, or `all`.
 */
import type { CurriculumPool, Suite, SuiteLoadOptions, SuiteTask } from '../../core/concepts/suite.js';
import type { RlveEnvironment } from './catalog.js';
import { baseSeedOf, chooseEnvironments, runnable, type RlveOptions } from './options.js';
import { generatedTask, loadRlve, problemSeed, RLVE_LIMITS } from './suite.js';

export function createRlveAdaptiveSuite(options: RlveOptions = {}): Suite {
  const id = 'rlve-adaptive';
  const base = baseSeedOf(options, id);
  let loaded: { root: string; byId: Map<string, RlveEnvironment>; environments: RlveEnvironment[] } | undefined;
  let skippedTasks: Record<string, number> = {};

  async function load(options_: SuiteLoadOptions): Promise<NonNullable<typeof loaded>> {
    const { gym, catalog } = await loadRlve(options, options_.dataDir);
    const usable = runnable(chooseEnvironments(catalog, options.environments, id, 'official16'), options_.pythonPackages);
    skippedTasks = Object.fromEntries(Object.entries(usable.skipped).map(([reason, n]) => [`${reason} (environments left out of the pool)`, n]));
    loaded = { root: gym.root, byId: new Map(usable.runnable.map((e) => [e.id, e])), environments: usable.runnable };
    return loaded;
  }

  const curriculum: CurriculumPool = {
    async environments(options_) {
      return (await load(options_)).environments.map((e) => e.id);
    },
    task({ environment, difficulty, seed, round }): SuiteTask {
      const found = loaded?.byId.get(environment);
      if (!loaded || !found) throw new Error(`rlve-adaptive: ${loaded ? `no environment ${environment} in the pool` : 'environments() was not called'}`);
      return generatedTask(found, loaded.root, `${id}/r${round}`, difficulty, seed);
    },
  };

  return {
    id,
    description: "RLVE's adaptive difficulty (the baseline of SPADE's paper): RLVE environments (official16 by default) in rounds, each environment's difficulty drawn from a sliding window that moves up when the agent wins (curriculum.* in the config).",
    language: 'python',
    limits: RLVE_LIMITS,
    curriculum,
    get skippedTasks() {
      return skippedTasks;
    },
    /** Outside the run's rounds (the pool listed on its own): each environment once, at difficulty 0. */
    async tasks(options_: SuiteLoadOptions = {}) {
      const { environments, root } = await load(options_);
      const tasks = environments.map((e) => generatedTask(e, root, id, 0, problemSeed(base, e.id, 0, 0)));
      return options_.limit !== undefined ? tasks.slice(0, options_.limit) : tasks;
    },
  };
}
