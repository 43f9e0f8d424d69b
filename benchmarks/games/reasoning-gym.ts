/**
 * `reasoning-gym`: Reasoning-Gym's hard split, the 100 tasks of SPADE's games table
 * (eval_offline/configs/_games_gem.yaml; `reasoning-gym:TASK` for one), played as SPADE's GEM
 * evaluation plays them (reasoning-gym-program.ts): 8 episodes per task, each its own entry of
 * the task's dataset (entry k for episode k), one sample at temperature 0.6 with the Qwen3
 * non-thinking sampling SPADE's evaluator sets (top_p 0.8, top_k 20), 8,192 tokens, at most 2
 * turns (SPADE's environment ends the episode on the first answer). Figures, as gem_evaluator
 * writes them: a win rate per task (`gem_eval/task_rg_<task>_hard/win_rate`: its task id
 * `rg:<task>-hard` with `:` and `-` as `_`, lower case), the four
 * categories of its Golden Goose roll-up (`gem_eval/category_rg_<math|algorithmic|cognition|
 * logic>/win_rate`, wins over the category's played episodes) and overall. An episode that
 * errored is left out, as SPADE's evaluator leaves out an episode that raised; a task whose
 * module cannot load here (a package Debian lacks) is invalid at the gate with the missing
 * module named, counted in `reasoning_gym_unavailable_tasks`, and left out of its category.
 *
 * SPADE draws each episode's question with Python's process-wide `random.choice` (unseeded), so
 * the paper's exact questions cannot be replayed; entry k of the same seeded dataset is the same
 * distribution, and the same questions on every run.
 */
import { DataError, UsageError } from '../../core/errors.js';
import type { ScoredTask, SuiteSampling, SuiteScore, SuiteTask } from '../../core/concepts/suite.js';
import { defineStaticSuite, type StaticSuite } from '../static-suite.js';
import type { DataOptions } from '../download.js';
import { loadReasoningGym } from './reasoning-gym-source.js';
import { reasoningGymProgram } from './reasoning-gym-program.js';
import { literalsAfter, pythonDict, spadeFiles, template } from './spade-source.js';
import { count, shareWithInterval, withOverrides } from './scores.js';

/** SPADE's settings for the hard split (_games_gem.yaml; top_p and top_k from gem_evaluator). */
export const RG_SAMPLING: SuiteSampling = { n: 1, temperature: 0.6, topP: 0.8, topK: 20, maxTokens: 8192, maxTurns: 2 };
export const RG_EPISODES = 8;
export const RG_DATASET = { size: 500, seed: 42 } as const;

export interface ReasoningGymOptions extends DataOptions {
  sampling?: unknown;
  /** Episodes per task (default 8, SPADE's). */
  episodes?: number;
  /** Where the checked copy is extracted for the sandbox (default: the system's temporary folder). */
  extractDir?: string;
}

/** What SPADE's files say of the hard split: the tasks in order, their configs and categories, the prompt. */
export interface HardSplit {
  tasks: string[];
  configs: Record<string, Record<string, unknown>>;
  categories: Record<string, string>;
  promptTemplate: string;
  questionSuffix: string;
}

export async function readHardSplit(options: DataOptions): Promise<HardSplit> {
  const files = await spadeFiles(['hardConfigs', 'gemTasks', 'gemEvaluator', 'gemAdapter', 'gamesGem'], options);
  const configs = pythonDict(files.hardConfigs, 'A3_HARD_CONFIGS', 'spade/core/eval/rg_a3_hard.py') as Record<string, Record<string, unknown>>;
  const categories = pythonDict(files.gemTasks, 'RG_GOLDEN_GOOSE', 'spade/core/eval/gem_tasks.py') as Record<string, string>;
  const tasks = [...files.gamesGem.matchAll(/task_id: "rg:(\w+)-hard"/g)].map((m) => m[1]!);
  const promptTemplate = template(literalsAfter(files.gemEvaluator, /if category == "rg" and [^\n]*\n\s*return \(/, 'spade/core/eval/gem_evaluator.py'));
  const questionSuffix = template(literalsAfter(files.gemAdapter, /question = data\["question"\] \+/, 'spade/core/envs/gem_adapter.py'));
  if (!promptTemplate.includes('{observation}')) throw new DataError('spade/core/eval/gem_evaluator.py', undefined, 'the Reasoning-Gym prompt has no {observation}');
  return { tasks, configs, categories, promptTemplate, questionSuffix };
}

/** The figures under gem_evaluator's keys. */
export function reasoningGymScores(tasks: readonly ScoredTask[], categories: Record<string, string>): Record<string, SuiteScore> {
  const byTask = new Map<string, { wins: number; played: number; available: boolean }>();
  for (const t of tasks) {
    const task = String(t.meta?.params?.task);
    const entry = byTask.get(task) ?? { wins: 0, played: 0, available: true };
    if (t.verdict === 'invalid') entry.available = false;
    for (const e of t.episodes) {
      if (e.outcome === 'errored') continue;
      entry.played++;
      if (e.outcome === 'won') entry.wins++;
    }
    byTask.set(task, entry);
  }
  const scores: Record<string, SuiteScore> = {};
  const buckets = new Map<string, { wins: number; played: number; rates: number[] }>();
  let wins = 0;
  let played = 0;
  for (const [task, entry] of byTask) {
    if (entry.played === 0) continue;
    const rate = entry.wins / entry.played;
    // Each episode is a fresh instance of the task: its wins are a share of independent draws.
    // gem_evaluator's key of the task id `rg:<task>-hard`: ':' and '-' as '_', lower case.
    scores[`gem_eval/task_rg_${task.replace(/-/g, '_').toLowerCase()}_hard/win_rate`] = { ...shareWithInterval(entry.wins, entry.played), value: rate };
    wins += entry.wins;
    played += entry.played;
    const category = categories[task];
    if (!category) continue;
    const bucket = buckets.get(category) ?? { wins: 0, played: 0, rates: [] };
    bucket.wins += entry.wins;
    bucket.played += entry.played;
    bucket.rates.push(rate);
    buckets.set(category, bucket);
  }
  for (const [category, bucket] of buckets) {
    // The category's figure pools its tasks' episodes (GEM's win rate), and so does its interval.
    scores[`gem_eval/category_rg_${category}/win_rate`] = shareWithInterval(bucket.wins, bucket.played);
    scores[`gem_eval/category_rg_${category}/num_tasks`] = count(bucket.rates.length);
    scores[`gem_eval/category_rg_${category}/num_episodes`] = count(bucket.played);
  }
  if (played) scores['gem_eval/overall_win_rate'] = { value: wins / played, n: played };
  scores.reasoning_gym_unavailable_tasks = count([...byTask.values()].filter((e) => !e.available).length);
  return scores;
}

export function createReasoningGymSuite(argument: string | undefined, options: ReasoningGymOptions = {}): StaticSuite {
  const id = argument ? `reasoning-gym:${argument}` : 'reasoning-gym';
  const sampling = withOverrides(RG_SAMPLING, options.sampling, `suiteOptions["${id}"].sampling`);
  const episodes = options.episodes ?? RG_EPISODES;
  if (!Number.isInteger(episodes) || episodes < 1) throw new UsageError(`suiteOptions["${id}"].episodes: expected a whole number of at least 1`);
  let categories: Record<string, string> = {};
  const suite = defineStaticSuite(
    {
      id,
      description: `Reasoning-Gym's hard split${argument ? ` (${argument})` : ' (100 tasks)'}, played as SPADE's GEM evaluation: ${episodes} episodes per task, reasoning-gym's own generators and scorers in the Python sandbox; win rates per SPADE category.`,
      language: 'python',
      limits: { callTimeoutMs: 60_000, memoryMb: 1024 },
      async load(dataDir) {
        const split = await readHardSplit({ ...options, dataDir });
        categories = split.categories;
        const names = argument ? [argument] : split.tasks;
        for (const name of names) if (!split.configs[name]) throw new UsageError(`reasoning-gym:${name}: not a task of the hard split (known: ${split.tasks.join(', ')})`);
        const gym = await loadReasoningGym({ ...options, dataDir });
        const tasks: SuiteTask[] = [];
        for (const name of names) {
          const module = gym.modules.get(name);
          if (!module) throw new DataError(gym.folder, undefined, `no module of reasoning-gym registers ${name}`);
          for (let index = 0; index < episodes; index++) {
            const program = reasoningGymProgram({
              task: name,
              module,
              config: split.configs[name]!,
              index,
              ...RG_DATASET,
              promptTemplate: split.promptTemplate,
              questionSuffix: split.questionSuffix,
              category: split.categories[name] ?? 'unknown',
              folder: gym.folder,
              packages: gym.packages.get(module) ?? [],
            });
            tasks.push({ program, seed: index });
          }
        }
        return { tasks, skipped: 0 };
      },
    },
    options.dataDir,
  );
  return Object.assign(suite, { sampling, score: (tasks: readonly ScoredTask[]) => reasoningGymScores(tasks, categories) });
}
