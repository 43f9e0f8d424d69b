/**
 * Per-round charts of the curricula, side by side: SPADE's self-play pools (the designer moves
 * the difficulty) and curriculum pools such as rlve-adaptive (RLVE's sliding window moves it):
 * solve rate (self-play with and without the hint), difficulty (and a window's top), validity,
 * diversity, self-play's designer reward, and the solve rate of each game type per round (its
 * legend says how many of each type were designed); one line per pool of each run.
 */
import type { RunResults, SuiteResult } from '../core/results/results.js';
import { GAME_TYPES } from '../core/run/game-type.js';
import { equalSizeDiversity } from '../core/metrics/index.js';
import { escapeHtml } from './escape.js';
import { percent } from './format.js';
import { lineChart, type PointRow } from './chart-specs.js';
import { renderChart } from './charts.js';
import { seriesColours } from './pools.js';

/** Rounds compared at one size: resamples per round when measuring here (the mean is plotted). */
const ROUND_REPLICATES = 10;

/** Pools played in rounds: self-play, and curriculum pools. */
const inRounds = (suite: SuiteResult): boolean => (suite.kind === 'selfplay' || suite.kind === 'curriculum') && suite.rounds.length > 0;

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

/**
 * Whether any play of the round was decided, without the hint and with it: a round whose plays
 * all errored has no solve rate (its environments have none), whatever the round records.
 */
function decidedIn(suite: SuiteResult, round: number): { plain: boolean; hinted: boolean } {
  const environments = suite.environments.filter((env) => env.round === round);
  return { plain: environments.some((env) => env.solveRate !== undefined), hinted: environments.some((env) => env.hintSolveRate !== undefined) };
}

export async function curriculumSection(runs: readonly RunResults[], names: readonly string[]): Promise<string> {
  const byType: PointRow[] = [];
  const solve: PointRow[] = [];
  const difficulty: PointRow[] = [];
  const validity: PointRow[] = [];
  const diversity: PointRow[] = [];
  const reward: PointRow[] = [];
  const windows: string[] = [];
  const colourOf = seriesColours(runs);
  runs.forEach((results, i) => {
    results.suites.forEach((suite, s) => {
      if (!inRounds(suite)) return;
      const series = runs.length > 1 ? `${names[i]} · ${suite.id}` : suite.id;
      const colour = colourOf(i, suite.id);
      const vendi = roundDiversity(results, s);
      const selfplay = suite.kind === 'selfplay';
      const designed = new Map(GAME_TYPES.map((type) => [type, suite.environments.filter((env) => env.gameType === type).length]));
      for (const round of suite.rounds) {
        for (const type of GAME_TYPES) {
          const rated = suite.environments.filter((env) => env.round === round.round && env.solveRate !== undefined && env.gameType === type);
          if (rated.length > 0) byType.push({ series: `${series} · ${type} (${designed.get(type)} designed)`, colour, x: round.round, value: rated.reduce((sum, env) => sum + env.solveRate!, 0) / rated.length });
        }
        const played = decidedIn(suite, round.round);
        if (played.plain && typeof round.solveRate === 'number') solve.push({ series: selfplay ? `${series} · no hint` : series, colour, x: round.round, value: round.solveRate });
        if (selfplay && played.hinted && typeof round.hintSolveRate === 'number') solve.push({ series: `${series} · with hint`, colour, x: round.round, value: round.hintSolveRate });
        if (typeof round.meanDifficulty === 'number') difficulty.push({ series: `${series} · played`, colour, x: round.round, value: round.meanDifficulty });
        if (round.window) difficulty.push({ series: `${series} · window top`, colour, x: round.round, value: round.window.meanHigh });
        if (round.proposed > 0) validity.push({ series, colour, x: round.round, value: round.valid / round.proposed });
        diversity.push({ series, colour, x: round.round, value: vendi.get(round.round) ?? 0 });
        if (selfplay && played.plain && typeof round.designerReward === 'number') reward.push({ series, colour, x: round.round, value: round.designerReward });
      }
      if (!selfplay) {
        const rows = suite.rounds.map((round) => `<tr><td>${round.round}</td><td>${round.valid} / ${round.proposed}</td><td>${decidedIn(suite, round.round).plain ? percent(round.solveRate) : percent(null)}</td><td>${round.meanDifficulty?.toFixed(2) ?? 'n/a'}</td><td>${round.window ? `${round.window.meanLow.toFixed(2)}–${round.window.meanHigh.toFixed(2)}` : '–'}</td><td>${round.window?.maxHigh ?? '–'}</td><td>${round.window?.promotions ?? '–'}</td></tr>`);
        windows.push(`<h3>${escapeHtml(runs.length > 1 ? `${names[i]} · ${suite.id}` : suite.id)}: difficulty windows by round</h3>
<div class="table-wrap"><table><thead><tr><th>round</th><th>valid / proposed</th><th>solve rate</th><th>mean difficulty played</th><th>mean window [low–high]</th><th>highest top</th><th>windows moved up</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></div>`);
      }
    });
  });
  if (solve.length === 0) return `<section id="curriculum"><h2>Curricula, round by round</h2><p class="muted">No self-play or curriculum rounds in these runs.</p></section>`;
  const options = { integerX: true };
  const charts = await Promise.all([
    renderChart(lineChart(solve, 'round', 'solve rate', { ...options, asPercent: true }), 'Solve rate per round'),
    renderChart(lineChart(difficulty, 'round', 'mean difficulty (each pool\u2019s scale)', options), 'Difficulty per round'),
    renderChart(lineChart(validity, 'round', 'valid share', { ...options, asPercent: true }), 'Validity per round'),
    renderChart(lineChart(diversity, 'round', 'Vendi score of the round', options), 'Diversity per round'),
    ...(reward.length ? [renderChart(lineChart(reward, 'round', 'mean designer reward', options), 'Designer reward per round')] : []),
    renderChart(lineChart(byType, 'round', 'mean solve rate', { ...options, asPercent: true }), 'Solve rate per round by game type'),
  ]);
  const titles = [
    'Solve rate (self-play with and without the hint)',
    'Difficulty: played, and a curriculum window\u2019s mean top',
    'Validity (proven share of proposed)',
    'Diversity (Vendi of the round\u2019s tasks, at equal size)',
    ...(reward.length ? ['Designer reward (self-play)'] : []),
    'Solve rate by game type (mean over the round\u2019s played environments, no hint)',
  ];
  return `<section id="curriculum"><h2>Curricula, round by round: self-play beside adaptive difficulty</h2>
<p class="muted">Self-play's designer moves its difficulty toward the band where the agent wins 40–60% of the time; a curriculum pool (such as rlve-adaptive, RLVE's sliding window) moves each environment's window [low, high] up once the agent wins often enough at its top. Difficulty is on each pool's own scale (the reference designer's 1–10, RLVE's 0 and up).</p>
<div class="charts">${charts.map((svg, i) => `<figure><figcaption>${titles[i]}</figcaption>${svg}</figure>`).join('\n')}</div>
${windows.join('\n')}
</section>`;
}
