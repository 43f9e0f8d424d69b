/**
 * Designer dynamics: SPADE's per-step round log (core/selfplay/round-log.ts) round by round, for
 * one run or several side by side: regret and the rewards behind it, the shares SPADE's regret
 * reward floors or penalises, difficulty bands, validation and validator rates, the designer's
 * reply length and truncation, GRPO groups with nothing to learn from, mean turns. One chart per
 * group of figures, each pool keeping its colour (each run's, when several are compared); a
 * table per pool gives every figure, and a figure a run could not compute is "n/a" with the
 * reason beside it, never 0.
 */
import type { RoundLogKey, RunResults, SuiteResult } from '../core/results/results.js';
import { ROUND_LOG_FIGURES, ROUND_LOG_KEYS } from '../core/selfplay/round-log.js';
import { escapeHtml } from './escape.js';
import { number, percent } from './format.js';
import { lineChart, type PointRow } from './chart-specs.js';
import { renderChart } from './charts.js';
import { seriesColours } from './pools.js';

/** The charts: a title, the y axis, whether it is a share, the figures drawn on it. */
const CHARTS: { title: string; y: string; asPercent: boolean; keys: RoundLogKey[] }[] = [
  { title: 'Regret: mean reward with and without the hint', y: 'mean episode reward', asPercent: false, keys: ['rHint', 'rNoHint', 'meanRegret'] },
  { title: 'Regret floored, plays that timed out', y: 'share of played environments', asPercent: true, keys: ['flooredShare', 'stepTimeoutShare'] },
  { title: 'Difficulty bands (mean reward without the hint)', y: 'share of played environments', asPercent: true, keys: ['easyShare', 'mediumShare', 'hardShare'] },
  { title: 'Validation and the LLM validator', y: 'share', asPercent: true, keys: ['validationPassRate', 'validatorRejectionRate', 'validatorRejectionRateRun'] },
  { title: 'Designer reply length', y: 'output tokens', asPercent: false, keys: ['designerResponseTokens', 'designerResponseTokensMax'] },
  { title: 'Designer replies cut at the token limit', y: 'share of replies', asPercent: true, keys: ['designerTruncatedShare'] },
  { title: 'Play groups with nothing to learn from', y: 'share of played environments', asPercent: true, keys: ['zeroVarianceShare', 'allZeroShare', 'allPositiveShare'] },
  { title: 'Mean turns per play', y: 'turns', asPercent: false, keys: ['meanTurns'] },
];

/** Pools with rounds (self-play and curricula), each keeping SPADE's log. */
const logged = (suite: SuiteResult): boolean => suite.rounds.length > 0;

/** A figure as the table writes it: a share in percent, the rest as numbers; null is "n/a". */
export function roundLogValue(key: RoundLogKey, value: number | null): string {
  return ROUND_LOG_FIGURES[key].unit === 'share' ? percent(value) : number(value);
}

/** Why each figure is n/a in a pool, once per distinct reason, with the rounds it holds for. */
export function missingReasons(suite: SuiteResult): { key: RoundLogKey; reason: string; rounds: number[] }[] {
  const out: { key: RoundLogKey; reason: string; rounds: number[] }[] = [];
  for (const key of ROUND_LOG_KEYS) {
    for (const round of suite.rounds) {
      const reason = round.log.missing[key];
      if (reason === undefined) continue;
      const entry = out.find((e) => e.key === key && e.reason === reason);
      if (entry) entry.rounds.push(round.round);
      else out.push({ key, reason, rounds: [round.round] });
    }
  }
  return out;
}

const roundsText = (rounds: number[]): string => (rounds.length === 1 ? `round ${rounds[0]}` : `rounds ${rounds.join(', ')}`);

export async function designerDynamicsSection(runs: readonly RunResults[], names: readonly string[]): Promise<string> {
  const colourOf = seriesColours(runs);
  const rows = CHARTS.map((): PointRow[] => []);
  const tables: string[] = [];
  runs.forEach((results, i) => {
    for (const suite of results.suites) {
      if (!logged(suite)) continue;
      const pool = runs.length > 1 ? `${names[i]} · ${suite.id}` : suite.id;
      const colour = colourOf(i, suite.id);
      CHARTS.forEach((chart, c) => {
        for (const key of chart.keys) {
          for (const round of suite.rounds) {
            const value = round.log.figures[key];
            if (typeof value === 'number') rows[c]!.push({ series: `${pool} · ${ROUND_LOG_FIGURES[key].label}`, colour, x: round.round, value });
          }
        }
      });
      const head = ROUND_LOG_KEYS.map((key) => `<th title="SPADE: ${escapeHtml(ROUND_LOG_FIGURES[key].spade)}">${escapeHtml(ROUND_LOG_FIGURES[key].label)}</th>`).join('');
      const body = suite.rounds.map((round) => {
        const { log } = round;
        const cells = ROUND_LOG_KEYS.map((key) => {
          const value = log.figures[key];
          return value === null ? `<td class="muted" title="${escapeHtml(log.missing[key] ?? '')}">n/a</td>` : `<td>${roundLogValue(key, value)}</td>`;
        });
        return `<tr><td>${round.round}</td>${cells.join('')}</tr>`;
      });
      const reasons = missingReasons(suite).map(({ key, reason, rounds }) => `<li><b>${escapeHtml(ROUND_LOG_FIGURES[key].label)}</b> (${roundsText(rounds)}): ${escapeHtml(reason)}</li>`);
      tables.push(`<h3 data-pool="${escapeHtml(pool)}">${escapeHtml(pool)}: SPADE's round log</h3>
<div class="table-wrap"><table class="round-log"><thead><tr><th>round</th>${head}</tr></thead><tbody>
${body.join('\n')}
</tbody></table></div>
${reasons.length ? `<p class="muted">n/a, and why:</p><ul class="muted round-log-missing">${reasons.join('')}</ul>` : ''}`);
    }
  });
  if (tables.length === 0) return `<section id="designer-dynamics"><h2>Designer dynamics</h2><p class="muted">These runs have no rounds of self-play or curriculum, which SPADE's round log describes.</p></section>`;
  const drawn = CHARTS.map((chart, c) => ({ chart, rows: rows[c]! })).filter(({ rows }) => rows.length > 0);
  const charts = await Promise.all(drawn.map(({ chart, rows }) => renderChart(lineChart(rows, 'round', chart.y, { integerX: true, asPercent: chart.asPercent }), chart.title)));
  return `<section id="designer-dynamics"><h2>Designer dynamics, round by round</h2>
<p class="muted">The figures SPADE logs at each step of its self-play (the column titles give SPADE's names), from each round's designs and plays. A figure a run cannot compute is n/a, with the reason below its table.</p>
<div class="charts">${charts.map((svg, i) => `<figure><figcaption>${escapeHtml(drawn[i]!.chart.title)}</figcaption>${svg}</figure>`).join('\n')}</div>
${tables.join('\n')}
</section>`;
}

/** The same for the Markdown summary: per pool, one table of rounds, then the reasons for n/a. */
export function designerDynamicsMarkdown(runs: readonly RunResults[], names: readonly string[], cell: (value: unknown) => string): string[] {
  const lines: string[] = [];
  runs.forEach((results, i) => {
    for (const suite of results.suites) {
      if (!logged(suite)) continue;
      const pool = runs.length > 1 ? `${names[i]} · ${suite.id}` : suite.id;
      lines.push(`### ${cell(pool)}`, '');
      lines.push(`| round | ${ROUND_LOG_KEYS.map((key) => cell(ROUND_LOG_FIGURES[key].label)).join(' | ')} |`);
      lines.push(`|---|${ROUND_LOG_KEYS.map(() => '---|').join('')}`);
      for (const round of suite.rounds) {
        const cells = ROUND_LOG_KEYS.map((key) => roundLogValue(key, round.log.figures[key]));
        lines.push(`| ${round.round} | ${cells.map(cell).join(' | ')} |`);
      }
      lines.push('');
      for (const { key, reason, rounds } of missingReasons(suite)) lines.push(`- n/a: ${cell(ROUND_LOG_FIGURES[key].label)} (${roundsText(rounds)}): ${cell(reason)}`);
      lines.push('');
    }
  });
  return lines.length ? ['## Designer dynamics', '', 'SPADE\'s per-step round log, round by round (core/selfplay/round-log.ts gives SPADE\'s name of each figure).', '', ...lines] : [];
}
