/**
 * The overview: every pool of every run, self-play beside each static suite, on the four axes
 * (validity, diversity, throughput, long-horizon success), as tables, and as one bar chart per
 * metric the metrics table shows in the report (core/metrics/table.ts); validity
 * under both readings of the gate (SPADE's own checks and strict) side by side, with reasons;
 * success by SPADE's skill (cognitive, or tool-use for tool-use games); and SPADE's difficulty bands; then split by game type
 * (game-types.ts).
 */
import type { SuiteResult } from '../core/results/results.js';
import { escapeHtml } from './escape.js';
import { number, numberInterval, percent, percentInterval } from './format.js';
import { barChart, type BarRow } from './chart-specs.js';
import { headlineOf, METRICS, metricsShownIn } from '../core/metrics/table.js';
import { lineLabel } from './summary.js';
import { renderChart } from './charts.js';
import { gameTypeSection } from './game-types.js';
import { KIND_LABEL, metricsOf, type PoolRow } from './pools.js';
import { DEFAULTS } from '../core/config/options.js';

const VALIDITY = METRICS.find((row) => row.key === 'validity')!;

/** RLVE's pool of environments (`rlve`), the diversity yardstick when a report has it. */
const YARDSTICK = 'rlve';

/** Distinct environment families of the pool's accepted environments (RLVE: its environments; self-play: the designer's families). */
const families = (suite: SuiteResult): number | undefined => {
  const named = suite.environments.filter((e) => e.verdict !== 'invalid' && e.family !== undefined).map((e) => e.family);
  return named.length ? new Set(named).size : undefined;
};

const poolCell = (row: PoolRow, multipleRuns: boolean) =>
  `<td><strong>${escapeHtml(row.suite.id)}</strong> <small>${KIND_LABEL[row.suite.kind]}</small>${
    multipleRuns ? `<br><small>${escapeHtml(row.run)}</small>` : ''
  }</td>`;

const byCount = (reasons: Record<string, number>): string =>
  Object.entries(reasons).sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${escapeHtml(reason)} ${count}`).join(', ') || '–';

/** Validity under the gate's two readings, side by side. */
function readingsTable(rows: PoolRow[], multipleRuns: boolean): string {
  const withReadings = rows.filter((row) => row.suite.metrics.validity.readings);
  if (withReadings.length === 0) {
    const judged = rows.some((row) => row.suite.metrics.validity.proposed > 0);
    return `<p class="muted">${judged ? 'These results predate the two readings of the gate.' : 'No program reached the gate, so neither reading judged one.'}</p>`;
  }
  return table(['decides play', "SPADE's checks: accepted", 'rejected by reason', 'strict: valid / unproven', 'rejected by reason', 'SPADE accepts, strict rejects'], withReadings, (row) => {
    const m = row.suite.metrics.validity;
    const { spade, strict, spadeOnly } = m.readings!;
    return [
      escapeHtml(m.gate ?? DEFAULTS.gate),
      `${percent(spade.rate)} <small>${spade.valid} / ${m.proposed}</small>`,
      byCount(spade.reasons),
      `${percent(strict.rate)} / ${percent(strict.playedRate - strict.rate)} <small>${strict.valid} + ${strict.unproven} / ${m.proposed}</small>`,
      byCount(strict.reasons),
      spadeOnly.count ? `${spadeOnly.count}: ${byCount(spadeOnly.reasons)}` : '0',
    ];
  }, multipleRuns);
}

/** Per skill (SPADE's cognitive skills; its tool-use skills for tool-use games), for pools whose environments have one. */
function skillsTable(rows: PoolRow[], multipleRuns: boolean): string {
  const lines = rows.flatMap((row) =>
    (row.suite.metrics.bySkill ?? []).map((s) =>
      `<tr>${poolCell(row, multipleRuns)}<td>${escapeHtml(s.skill)}</td><td>${s.environments}</td><td>${s.valid}</td><td>${s.episodes ? percent(s.successRate) : '–'} <small>${s.episodes} plays</small></td></tr>`),
  );
  if (lines.length === 0) return '<p class="muted">No pool records skills.</p>';
  return `<div class="table-wrap"><table><thead><tr><th>pool</th><th>skill</th><th>environments</th><th>played</th><th>success (no hint)</th></tr></thead><tbody>
${lines.join('\n')}
</tbody></table></div>`;
}

function table(headers: string[], rows: PoolRow[], cells: (row: PoolRow) => string[], multipleRuns: boolean): string {
  return `<div class="table-wrap"><table><thead><tr><th>pool</th>${headers.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>
${rows.map((row) => `<tr>${poolCell(row, multipleRuns)}${cells(row).map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('\n')}
</tbody></table></div>`;
}

/** One bar chart per metric the table shows in the HTML report: pools as groups, runs as series. */
async function metricCharts(rows: PoolRow[]): Promise<string[]> {
  const size = rows.find((row) => row.equalSize)?.equalSize?.size;
  return Promise.all(metricsShownIn('html').map(async (metric) => {
    const bars: BarRow[] = rows.flatMap((row) => {
      const figure = headlineOf(metric, metricsOf(row));
      if (!figure) return [];
      const interval = figure.value !== null && figure.interval;
      return [{ group: row.suite.id, series: row.run, value: figure.value, colour: row.colour, ...(interval && { lo: interval[0], hi: interval[1] }) }];
    });
    const title = lineLabel(metric) + (metric.key === 'diversity' && size ? ` at n = ${size}` : '');
    const svg = await renderChart(barChart(bars, title, metric.format === 'percent', 'run', { log: metric.scale === 'log' }), `${metric.label} by pool`);
    const whiskers = bars.some((bar) => bar.lo !== undefined) ? ' Whiskers: 95% interval.' : '';
    return `<figure><figcaption>${escapeHtml(capitalise(metric.label))}</figcaption>${svg}<div class="muted">${escapeHtml(metric.describe)}${whiskers}</div></figure>`;
  }));
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

export async function overviewSection(rows: PoolRow[], multipleRuns: boolean): Promise<string> {
  const size = rows.find((row) => row.equalSize)?.equalSize?.size;
  // Each run's pools are compared with that run's own RLVE pool.
  const yardsticks = new Map(rows.filter((row) => row.suite.id === YARDSTICK && row.equalSize).map((row) => [row.run, row]));
  const yardstick = yardsticks.size > 0;
  const [byType, charts] = await Promise.all([gameTypeSection(rows, multipleRuns), metricCharts(rows)]);
  const v = (row: PoolRow) => row.suite.metrics;
  // Self-play's readings of validity beside the headline: at the first try, per slot, per program.
  const besideOf = (row: PoolRow, label: string) => headlineOf(VALIDITY, v(row))?.beside?.find((b) => b.label === label)?.figure;
  const besides = [['first try', 'first try (before repairs)'], ['per slot', 'per slot (SPADE\'s pass rate)'], ['per program', 'per program']]
    .filter(([label]) => rows.some((row) => besideOf(row, label!)));
  const passAt = (row: PoolRow) => {
    const points = v(row).success.passAtK ?? [];
    const last = points.filter((p) => p.environments > 0).at(-1);
    return last ? `${percent(last.passAtK.mean)} / ${percent(last.passHatK.mean)} <small>k = ${last.k}</small>` : '–';
  };
  return `<section id="overview"><h2>Overview: self-play beside each static suite</h2>
<div class="charts">
${charts.join('\n')}
</div>
<h3>Verifier validity</h3>
${table(['valid (proven)', '95% interval', 'valid / proposed', ...besides.map(([, heading]) => heading!), 'unproven', 'rejected by reason', 'left out (cannot run here)'], rows, (row) => {
  const m = v(row).validity;
  const left = Object.entries(row.suite.skippedTasks ?? {}).map(([reason, count]) => `${count}: ${escapeHtml(reason)}`).join('; ');
  const rate = m.proposed > 0 ? m.rate : null;
  const cells = besides.map(([label]) => {
    const figure = besideOf(row, label!);
    if (!figure) return '–';
    const counts = figure.counts ? ` <small>${figure.counts[0]} / ${figure.counts[1]}</small>` : '';
    return `${percent(figure.value)}${figure.value !== null && figure.interval ? ` <small>${percentInterval(figure.interval)}</small>` : ''}${counts}`;
  });
  return [percent(rate), rate === null ? '–' : percentInterval(m.interval), `${m.valid} / ${m.proposed}`,
    ...cells,
    String(m.unproven), byCount(m.reasons), left || '–'];
}, multipleRuns)}
<h3>Both readings of the gate</h3>
${readingsTable(rows, multipleRuns)}
<p class="muted">SPADE's checks: exactly what SPADE's own loader and validate_game check (what SPADE would play). Strict: SPADE's checks, then spade-bench's (determinism, the reference wins, wrong answers and random play lose, no answer leak); unproven programs pass every check but nothing proves them winnable. "Decides play" names the reading the run played by (--gate).</p>
<h3>Goal diversity</h3>
${table(['n', 'families', 'Vendi (text)', 'Vendi / n', `Vendi at n = ${size ?? '?'}`, ...(yardstick ? [`of ${YARDSTICK}'s at n = ${size}`] : []), 'Vendi (structure)', 'distinct-1', 'distinct-2', 'NCD'], rows, (row) => {
  const m = v(row).diversity;
  const reference = yardsticks.get(row.run)?.equalSize;
  const relative = reference && row.equalSize ? percent(row.equalSize.vendi.mean / reference.vendi.mean) : '–';
  return [
    String(m.n), number(families(row.suite)), number(m.vendi) + (m.approximate ? ' <small>≈</small>' : ''), number(m.vendiPerN),
    row.equalSize ? `${number(row.equalSize.vendi.mean)} <small>${numberInterval(row.equalSize.vendi.interval)}</small>` : '–',
    ...(yardstick ? [relative] : []),
    number(m.structureVendi), number(m.distinct1), number(m.distinct2), number(m.ncd),
  ];
}, multipleRuns)}
<p class="muted">The yardstick of diversity is RLVE's pool of 400 hand-written environments${yardstick ? `: the column "of ${YARDSTICK}'s" is each pool's Vendi at n = ${size} as a share of that of the ${YARDSTICK} pool of the same run` : ` (run the ${YARDSTICK} suite beside the others to compare each pool with it)`}; families counts the distinct environment families (RLVE environments, designer families) of a pool's accepted environments.</p>
<p class="muted">Vendi: exp of the Shannon entropy of the eigenvalues of K/n, K the cosine similarity of word 1–2-gram counts of the task texts (structure: of AST node-type 1–3-grams of the programs). ≈ marks a hashed-feature approximation (pools over 400 items with over 400 features). NCD: mean pairwise normalised compression distance (zlib) of the task texts.</p>
<h3>Throughput</h3>
${table(['episodes / s', 'steps / s', 'environments / s', 'valid / s', 'tokens / s', 'provider call p50 / p95', 'sandbox call p50 / p95', 'wall time'], rows, (row) => {
  const m = v(row).throughput;
  const latency = (summary?: { p50Ms: number; p95Ms: number }) => (summary ? `${number(summary.p50Ms)} / ${number(summary.p95Ms)} ms` : '–');
  // Nothing played (validation only, or every episode errored): no rate, not 0.
  return [number(m.episodes > 0 ? m.episodesPerSec : null), number(m.steps > 0 ? m.stepsPerSec : null), number(m.environmentsPerSec), number(m.validPerSec), number(m.tokensPerSec),
    latency(m.latency?.providerCall), latency(m.latency?.sandboxCall), `${number(m.wallSec)} s`];
}, multipleRuns)}
<h3>Success by skill</h3>
${skillsTable(rows, multipleRuns)}
<p class="muted">SPADE's nine cognitive skills; a tool-use game has one of SPADE's tool-use skills (API Orchestration, Data Retrieval, State Modification...) instead.</p>
<h3>Difficulty bands (SPADE's)</h3>
${table(['environments played', 'easy (mean reward > 0.8)', 'medium', 'hard (< 0.2)', 'every play the same reward'], rows, (row) => {
  const b = v(row).bands;
  return b ? [String(b.environments), percent(b.easy), percent(b.medium), percent(b.hard), percent(b.sameReward)] : ['0', '–', '–', '–', '–'];
}, multipleRuns)}
<p class="muted">Over the environments played, by the mean episode reward of their plays without the hint (the last reward clamped to [-1, 1] when the episode terminated, else 0), as SPADE bands them; an environment whose plays all got the same reward teaches nothing to a GRPO learner.</p>
<h3>Long-horizon success</h3>
${table(['success', '95% interval', 'won / lost / errored', 'pass@k / pass^k', 'tokens in / out', 'cost'], rows, (row) => {
  const m = v(row).success;
  const u = v(row).usage;
  const rate = m.successRate;
  return [percent(rate), rate === null ? '–' : percentInterval(m.interval), `${m.won} / ${m.lost} / ${m.errored}`, passAt(row),
    `${number(u.inputTokens)} / ${number(u.outputTokens)}`, u.costUsd > 0 ? `$${u.costUsd.toFixed(4)}` : '–'];
}, multipleRuns)}
${byType}
</section>`;
}
