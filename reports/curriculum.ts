/**
 * Per-round curriculum charts of the self-play pools: solve rate (with and without the hint),
 * difficulty, validity, diversity and designer reward, one line per run, and the solve rate
 * of each game type per round (its legend says how many of each type were designed).
 */
import type { RunResults } from '../core/results.js';
import { GAME_TYPES } from '../core/game-type.js';
import { gameTypeOfSummary } from './game-types.js';
import { equalSizeDiversity } from '../core/metrics/index.js';
import { lineChart, type PointRow } from './chart-specs.js';
import { renderChart } from './charts.js';

/** Rounds compared at one size: resamples per round when measuring here (the mean is plotted). */
const ROUND_REPLICATES = 10;

/**
 * Diversity of each round: from the results when recorded, else the Vendi score of the round's
 * accepted task texts measured at one common size across rounds (so rounds with more valid
 * environments do not look more diverse just for being larger).
 */
function roundDiversity(results: RunResults, suiteIndex: number): Map<number, number> {
  const suite = results.suites[suiteIndex]!;
  const byRound = new Map<number, number>();
  const missing = suite.rounds.filter((round) => round.diversity === undefined);
  for (const round of suite.rounds) if (round.diversity !== undefined) byRound.set(round.round, round.diversity);
  const measured = equalSizeDiversity(
    missing.map((round) => ({
      id: String(round.round),
      tasks: suite.environments.filter((env) => env.round === round.round && env.verdict !== 'invalid' && env.task !== undefined).map((env) => env.task!),
    })),
    { replicates: ROUND_REPLICATES },
  );
  for (const [round, entry] of measured) byRound.set(Number(round), entry.vendi.mean);
  return byRound;
}

export async function curriculumSection(runs: readonly RunResults[], names: readonly string[]): Promise<string> {
  const byType: PointRow[] = [];
  const solve: PointRow[] = [];
  const difficulty: PointRow[] = [];
  const validity: PointRow[] = [];
  const diversity: PointRow[] = [];
  const reward: PointRow[] = [];
  runs.forEach((results, i) => {
    results.suites.forEach((suite, s) => {
      if (suite.kind !== 'selfplay' || suite.rounds.length === 0) return;
      const series = runs.length > 1 || results.suites.filter((x) => x.kind === 'selfplay').length > 1 ? `${names[i]} · ${suite.id}` : suite.id;
      const vendi = roundDiversity(results, s);
      const designed = new Map(GAME_TYPES.map((type) => [type, suite.environments.filter((env) => gameTypeOfSummary(env) === type).length]));
      for (const round of suite.rounds) {
        for (const type of GAME_TYPES) {
          const rated = suite.environments.filter((env) => env.round === round.round && env.solveRate !== undefined && gameTypeOfSummary(env) === type);
          if (rated.length > 0) byType.push({ series: `${series} · ${type} (${designed.get(type)} designed)`, x: round.round, value: rated.reduce((sum, env) => sum + env.solveRate!, 0) / rated.length });
        }
        solve.push({ series: `${series} · no hint`, x: round.round, value: round.solveRate });
        solve.push({ series: `${series} · with hint`, x: round.round, value: round.hintSolveRate });
        difficulty.push({ series, x: round.round, value: round.meanDifficulty });
        validity.push({ series, x: round.round, value: round.proposed === 0 ? 0 : round.valid / round.proposed });
        diversity.push({ series, x: round.round, value: vendi.get(round.round) ?? 0 });
        reward.push({ series, x: round.round, value: round.designerReward });
      }
    });
  });
  if (solve.length === 0) return `<section id="curriculum"><h2>Self-play curriculum</h2><p class="muted">No self-play rounds in these runs.</p></section>`;
  const options = { integerX: true };
  const charts = await Promise.all([
    renderChart(lineChart(solve, 'round', 'solve rate', { ...options, asPercent: true }), 'Solve rate per round'),
    renderChart(lineChart(difficulty, 'round', 'mean difficulty (1–10)', options), 'Difficulty per round'),
    renderChart(lineChart(validity, 'round', 'valid share', { ...options, asPercent: true }), 'Validity per round'),
    renderChart(lineChart(diversity, 'round', 'Vendi score of the round', options), 'Diversity per round'),
    renderChart(lineChart(reward, 'round', 'mean designer reward', options), 'Designer reward per round'),
    renderChart(lineChart(byType, 'round', 'mean solve rate', { ...options, asPercent: true }), 'Solve rate per round by game type'),
  ]);
  const titles = ['Solve rate (agent, with and without the hint)', 'Difficulty of valid environments', 'Validity (proven share of proposed)', 'Diversity (Vendi of the round’s tasks, at equal size)', 'Designer reward',
    'Solve rate by game type (mean over the round’s played environments, no hint)'];
  return `<section id="curriculum"><h2>Self-play curriculum, round by round</h2>
<div class="charts">${charts.map((svg, i) => `<figure><figcaption>${titles[i]}</figcaption>${svg}</figure>`).join('\n')}</div>
</section>`;
}
