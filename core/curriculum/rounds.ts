/**
 * A curriculum pool played in rounds, beside self-play: each round draws environments from the
 * pool, a difficulty for each from its sliding window, and one problem each (every attempt plays
 * that problem, as SPADE's same-problem groups do); the agent plays them; the outcomes move the
 * windows (in task order, so the result does not depend on which finished first); the round is
 * summed up like a self-play round. Every choice comes from the run seed and the outcomes before
 * it, so a resumed run makes the same tasks and finds their work in the journal.
 */
import type { CurriculumPool, Suite } from '../types.js';
import type { RoundSummary } from '../results/results.js';
import type { SpadeConfig } from '../config/config.js';
import { DEFAULTS } from '../config/options.js';
import { unlessCut, type Evaluation, type EvaluationContext, type Evaluator, type SandboxSet } from '../run/evaluate.js';
import type { Journal } from '../results/journal.js';
import type { ProgressEvent } from '../run/run-setup.js';
import { mapLimit } from '../run/concurrency.js';
import { environmentsInFlight } from '../run/play-schedule.js';
import { deriveSeed, mulberry32 } from '../run/random.js';
import { skippedNotice, suiteLoadOptions, type SuitePlan } from '../run/run-suite.js';
import { SlidingWindow, type SlidingWindowSettings } from './sliding-window.js';
import { roundLog } from '../selfplay/round-log.js';

/** A curriculum pool's settings, each from `curriculum.*` in the config, else its default. */
export interface CurriculumSettings extends SlidingWindowSettings {
  rounds: number;
  environmentsPerRound: number;
  attempts: number;
}

export function curriculumSettings(config: SpadeConfig): CurriculumSettings {
  const c = config.curriculum;
  return {
    rounds: c.rounds ?? config.selfplay.rounds,
    environmentsPerRound: c.environmentsPerRound ?? config.selfplay.envsPerRound,
    attempts: c.attempts ?? config.attempts,
    tauAcc: c.tauAcc ?? DEFAULTS.curriculum.tauAcc,
    tauNum: c.tauNum ?? DEFAULTS.curriculum.tauNum,
    width: c.width ?? DEFAULTS.curriculum.width,
    maxDifficulty: c.maxDifficulty ?? DEFAULTS.curriculum.maxDifficulty,
  };
}

/** `count` of `items`, drawn uniformly without replacement (all of them, in order, when there are no more). */
export function drawWithoutReplacement<T>(items: readonly T[], count: number, random: () => number): T[] {
  if (items.length <= count) return [...items];
  const pool = [...items];
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, count);
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** The rounds of a curriculum pool, as runSuite() plays them. */
export function curriculumPlan(
  suite: Suite & { curriculum: CurriculumPool },
  config: SpadeConfig,
  evaluate: Evaluator,
  journal: Journal,
  emit: (event: ProgressEvent) => void,
  sandboxes?: SandboxSet,
): SuitePlan {
  const settings = curriculumSettings(config);
  let environments: string[] = [];
  return {
    id: suite.id,
    kind: 'curriculum',
    async start() {
      environments = await suite.curriculum.environments(await suiteLoadOptions(suite, config, sandboxes));
      const perRound = Math.min(settings.environmentsPerRound, environments.length);
      return { environments: settings.rounds * perRound, episodes: settings.rounds * perRound * settings.attempts, notice: skippedNotice(suite) };
    },
    async play(base, record) {
      const windows = new SlidingWindow(settings);
      const evaluations: Evaluation[] = [];
      const rounds: RoundSummary[] = [];
      const { signal } = base;
      for (let round = 0; round < settings.rounds && !signal?.aborted; round++) {
        const random = mulberry32(deriveSeed(base.runSeed, suite.id, 'round', round));
        const drawn = drawWithoutReplacement(environments, settings.environmentsPerRound, random).map((environment) => {
          const difficulty = windows.sample(environment, random);
          const seed = deriveSeed(base.runSeed, suite.id, 'problem', round, environment);
          return { environment, difficulty, task: suite.curriculum.task({ environment, difficulty, seed, round }) };
        });
        emit({ type: 'designed', suite: suite.id, round, count: drawn.length });
        const context: EvaluationContext = { ...base, round, withHint: false, attempts: settings.attempts, limits: { ...base.limits, ...suite.limits, ...config.limits } };
        const played = await mapLimit(
          drawn,
          environmentsInFlight(config.environmentsInFlight, context.agent),
          async ({ task }) => {
            // Not begun before the run's stop: no result (a resumed run evaluates it).
            const e = await unlessCut(evaluate(task.program, task.seed, context), signal);
            if (e) record(e);
            return e;
          },
          () => signal?.aborted ?? false,
        );
        const done = played.filter((e): e is Evaluation => e !== undefined);
        evaluations.push(...done);
        let promotions = 0;
        drawn.forEach(({ environment, difficulty }, i) => {
          const evaluation = played[i];
          if (!evaluation) return;
          const decided = evaluation.episodes.filter((e) => !e.withHint && e.outcome !== 'errored').sort((a, b) => a.attempt - b.attempt);
          for (const episode of decided) if (windows.record(environment, difficulty, episode.outcome === 'won')) promotions++;
        });
        const accepted = done.filter((e) => e.summary.verdict !== 'invalid');
        const rated = accepted.filter((e) => e.summary.solveRate !== undefined).map((e) => e.summary.solveRate!);
        const solveRate = rated.length ? mean(rated) : null;
        const summary: RoundSummary = {
          round,
          proposed: drawn.length,
          valid: accepted.length,
          solveRate,
          // No hint exists for these tasks: what was measured is the solve rate.
          hintSolveRate: solveRate,
          meanDifficulty: drawn.some((_, i) => played[i]) ? mean(drawn.filter((_, i) => played[i]).map((d) => d.difficulty)) : null,
          // Tasks of a dataset: no designer made them.
          designerReward: null,
          window: { ...windows.summary(environments), promotions },
          log: roundLog(drawn.map((d) => d.task.program), done, { hinted: false }),
        };
        rounds.push(summary);
        if (signal?.aborted) break; // a partial round is reported, but not journaled as finished
        journal.append({ type: 'round', suite: suite.id, summary });
        journal.checkpoint();
        emit({ type: 'round', suite: suite.id, summary, rounds: settings.rounds });
      }
      return { evaluations, rounds };
    },
    skippedTasks: () => ({ ...suite.skippedTasks }),
  };
}
