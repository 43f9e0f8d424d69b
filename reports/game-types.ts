/**
 * The pools split by game type (single-turn, multi-turn, tool-use): validity, success with its
 * interval, turns and tool calls of each type in each pool, as a table and a chart, so self-play
 * and the static suites compare type by type. Results written before game types were recorded
 * have no split; their pools are left out here.
 */
import type { EnvironmentSummary, GameTypeMetrics } from '../core/results.js';
import type { GameType } from '../core/types.js';
import { GAME_TYPES, gameTypeOf } from '../core/game-type.js';
import { escapeHtml } from './escape.js';
import { number, percent, percentInterval } from './format.js';
import { barChart, type BarRow } from './chart-specs.js';
import { renderChart } from './charts.js';
import { wilsonInterval } from '../core/metrics/intervals.js';
import type { PoolRow } from './overview.js';

/** An environment's game type, as recorded, else as its program and horizon say (results written before game types were). */
export function gameTypeOfSummary(env: EnvironmentSummary): GameType {
  return env.gameType ?? gameTypeOf({ language: env.language === 'python' ? 'python' : 'javascript', source: env.source }, { horizon: env.horizon });
}

interface TypeRow {
  pool: PoolRow;
  type: GameType;
  metrics: GameTypeMetrics;
}

function typeRows(rows: readonly PoolRow[]): TypeRow[] {
  return rows.flatMap((pool) =>
    GAME_TYPES.flatMap((type) => {
      const metrics = pool.suite.metrics.byGameType?.[type];
      return metrics ? [{ pool, type, metrics }] : [];
    }),
  );
}

export async function gameTypeSection(rows: readonly PoolRow[], multipleRuns: boolean): Promise<string> {
  const typed = typeRows(rows);
  if (typed.length === 0) return '<h3>By game type</h3><p class="muted">These results do not record game types.</p>';
  const poolName = (row: TypeRow) => (multipleRuns ? `${row.pool.run} · ${row.pool.suite.id}` : row.pool.suite.id);
  const validity: BarRow[] = typed.map((row) => {
    const [lo, hi] = wilsonInterval(row.metrics.valid, row.metrics.environments);
    return { group: row.type, series: poolName(row), value: row.metrics.environments ? row.metrics.valid / row.metrics.environments : 0, lo, hi };
  });
  const success: BarRow[] = typed
    .filter((row) => row.metrics.episodes > 0)
    .map((row) => ({ group: row.type, series: poolName(row), value: row.metrics.successRate, lo: row.metrics.interval[0], hi: row.metrics.interval[1] }));
  const figure = async (title: string, rows: BarRow[], axis: string, note: string) =>
    rows.length > 0 ? `<figure><figcaption>${title}</figcaption>${await renderChart(barChart(rows, axis, true, 'pool'), title)}<div class="muted">${note}</div></figure>` : '';
  const charts = await Promise.all([
    figure('Validity by game type', validity, 'valid (proven) share', 'Share of proposed environments proven valid, per game type and pool; whiskers: Wilson 95% interval.'),
    figure('Success by game type', success, 'success rate (no hint)', 'Episodes won without the hint, of episodes decided, per game type and pool; whiskers: Wilson 95% interval.'),
  ]);
  const body = typed.map((row) => {
    const m = row.metrics;
    const cells = [
      `<strong>${escapeHtml(row.pool.suite.id)}</strong>${multipleRuns ? `<br><small>${escapeHtml(row.pool.run)}</small>` : ''}`,
      `<span class="badge game-type">${escapeHtml(row.type)}</span>`,
      `${m.valid} / ${m.environments} <small>${percent(m.environments ? m.valid / m.environments : undefined)}</small>`,
      String(m.episodes),
      m.episodes ? `${percent(m.successRate)} <small>${percentInterval(m.interval)}</small>` : '–',
      m.episodes ? number(m.meanTurns) : '–',
      m.toolCallsPerEpisode !== undefined ? number(m.toolCallsPerEpisode) : '–',
    ];
    return `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`;
  });
  return `<h3>By game type</h3>
<div class="charts">${charts.join('\n')}</div>
<div class="table-wrap"><table><thead><tr><th>pool</th><th>game type</th><th>valid / proposed</th><th>episodes</th><th>success (95% interval)</th><th>mean turns</th><th>tool calls / episode</th></tr></thead><tbody>
${body.join('\n')}
</tbody></table></div>
<p class="muted">Single-turn: one answer ends the episode. Multi-turn: the state changes over turns. Tool-use: SPADE's ToolUseBaseEnv games, played with tool calls and a final answer; a tool call is a turn whose action the environment read as a well-formed call.</p>`;
}
