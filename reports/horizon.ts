/**
 * Success charts: success against horizon, by difficulty, success@T (won within T turns), and
 * pass@k / pass^k against k, one line per pool of each run, with 95% bands.
 */
import { lineChart, type PointRow } from './chart-specs.js';
import { renderChart } from './charts.js';
import type { PoolRow } from './pools.js';

export async function horizonSection(rows: readonly PoolRow[], multipleRuns: boolean): Promise<string> {
  const byHorizon: PointRow[] = [];
  const withinT: PointRow[] = [];
  const passK: PointRow[] = [];
  const byDifficulty: PointRow[] = [];
  for (const row of rows) {
    const series = multipleRuns ? `${row.run} · ${row.suite.id}` : row.suite.id;
    const { colour } = row;
    const success = row.suite.metrics.success;
    for (const bucket of success.byHorizon) {
      if (bucket.episodes === 0) continue;
      byHorizon.push({ series, colour, x: bucket.horizon, value: bucket.successRate, lo: bucket.interval[0], hi: bucket.interval[1] });
    }
    for (const bucket of success.byDifficulty ?? []) {
      byDifficulty.push({ series, colour, x: bucket.difficulty, value: bucket.successRate, lo: bucket.interval[0], hi: bucket.interval[1] });
    }
    for (const point of success.successAtT ?? []) {
      withinT.push({ series, colour, x: point.turns, value: point.successRate, lo: point.interval[0], hi: point.interval[1] });
    }
    for (const point of success.passAtK ?? []) {
      if (point.environments === 0) continue;
      passK.push({ series: `${series} · pass@k`, colour, x: point.k, value: point.passAtK.mean, lo: point.passAtK.interval[0], hi: point.passAtK.interval[1] });
      passK.push({ series: `${series} · pass^k`, colour, x: point.k, value: point.passHatK.mean, lo: point.passHatK.interval[0], hi: point.passHatK.interval[1] });
    }
  }
  const figures: string[] = [];
  if (byHorizon.length > 0) {
    const svg = await renderChart(lineChart(byHorizon, 'horizon (most turns allowed)', 'success rate', { asPercent: true, integerX: true, logX: true }), 'Success against horizon');
    figures.push(`<figure><figcaption>Success against horizon</figcaption>${svg}<div class="muted">Band: Wilson 95% interval.</div></figure>`);
  }
  if (byDifficulty.length > 0) {
    const svg = await renderChart(lineChart(byDifficulty, 'difficulty (each pool\u2019s own scale)', 'success rate', { asPercent: true, integerX: true }), 'Success by difficulty');
    figures.push(`<figure><figcaption>Success by difficulty</figcaption>${svg}<div class="muted">Episodes won without the hint, by the difficulty of the environment played: the reference designer's 1–10, RLVE's levels from 0 (a fresh ParameterController updated d times). Band: Wilson 95% interval.</div></figure>`);
  }
  if (withinT.length > 0) {
    const svg = await renderChart(lineChart(withinT, 'turns T', 'won within T turns', { asPercent: true, step: true, integerX: true, logX: true }), 'Success within T turns');
    figures.push(`<figure><figcaption>success@T: solved within T turns</figcaption>${svg}<div class="muted">Share of decided episodes won within T turns.</div></figure>`);
  }
  if (passK.length > 0) {
    const svg = await renderChart(lineChart(passK, 'k attempts', 'pass@k / pass^k', { asPercent: true, integerX: true }), 'pass@k and pass^k');
    figures.push(`<figure><figcaption>pass@k (any of k wins) and pass^k (all k win)</figcaption>${svg}<div class="muted">Unbiased estimators (Chen et al. 2021; tau-bench) averaged over environments; band: 95% bootstrap over environments.</div></figure>`);
  }
  return `<section id="horizon"><h2>Success: by horizon, by difficulty</h2>${
    figures.length > 0 ? `<div class="charts">${figures.join('\n')}</div>` : '<p class="muted">No decided episodes.</p>'
  }</section>`;
}
