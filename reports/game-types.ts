/**
 * The pools split by game type (single-turn, multi-turn, tool-use): validity, success with its
 * interval, turns and tool calls of each type in each pool, as a table and a chart, so self-play
 * and the static suites compare type by type.
 */
import type { GameTypeMetrics } from '../core/results/results.js';
import type { GameType } from '../core/types.js';
import { GAME_TYPES } from '../core/run/game-type.js';
import { escapeHtml } from './escape.js';
import { number, percent, percentInterval } from './format.js';
import { barChart, type BarRow } from './chart-specs.js';
import { renderChart } from './charts.js';
import type { PoolRow } from './pools.js';

interface TypeRow {
  pool: PoolRow;
  type: GameType;
  metrics: GameTypeMetrics;
}

function typeRows(rows: readonly PoolRow[]): TypeRow[] {
  return rows.flatMap((pool) =>
    GAME_TYPES.flatMap((type) => {
      const metrics = pool.suite.metrics.byGameType[type];
      return metrics ? [{ pool, type, metrics }] : [];
    }),
  );
}

/** Success of a game type: n/a when no episode of it was decided, – when none was played. */
function successCell(m: GameTypeMetrics): string {
  if (!m.episodes) return '–';
  const rate = m.successRate;
  return rate === null ? percent(null) : `${percent(rate)} <small>${percentInterval(m.interval)}</small>`;
}

export async function gameTypeSection(rows: readonly PoolRow[], multipleRuns: boolean): Promise<string> {
  const typed = typeRows(rows);
  if (typed.length === 0) return '<h3>By game type</h3><p class="muted">These runs have no environment to split by game type.</p>';
  const poolName = (row: TypeRow) => (multipleRuns ? `${row.pool.run} · ${row.pool.suite.id}` : row.pool.suite.id);
  // One chart (success); validity by game type is in the table: each chart costs a good share of the report's time.
  const success: BarRow[] = typed
    .filter((row) => row.metrics.episodes > 0)
    .map((row) => {
      const rate = row.metrics.successRate;
      return { group: row.type, series: poolName(row), value: rate, colour: row.pool.colour, ...(rate !== null && { lo: row.metrics.interval[0], hi: row.metrics.interval[1] }) };
    });
  const chart = success.length > 0
    ? `<figure><figcaption>Success by game type</figcaption>${await renderChart(barChart(success, 'success rate (no hint)', true, 'pool'), 'Success by game type')}<div class="muted">Episodes won without the hint, of episodes decided, per game type and pool; whiskers: Wilson 95% interval.</div></figure>`
    : '';
  const body = typed.map((row) => {
    const m = row.metrics;
    const cells = [
      `<strong>${escapeHtml(row.pool.suite.id)}</strong>${multipleRuns ? `<br><small>${escapeHtml(row.pool.run)}</small>` : ''}`,
      `<span class="badge game-type">${escapeHtml(row.type)}</span>`,
      `${m.valid} / ${m.environments} <small>${percent(m.environments ? m.valid / m.environments : undefined)}</small>`,
      String(m.episodes),
      successCell(m),
      m.episodes ? number(m.meanTurns) : '–',
      m.toolCallsPerEpisode !== undefined ? number(m.toolCallsPerEpisode) : '–',
    ];
    return `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`;
  });
  return `<h3>By game type</h3>
<div class="charts">${chart}</div>
<div class="table-wrap"><table><thead><tr><th>pool</th><th>game type</th><th>valid / proposed</th><th>episodes</th><th>success (95% interval)</th><th>mean turns</th><th>tool calls / episode</th></tr></thead><tbody>
${body.join('\n')}
</tbody></table></div>
<p class="muted">Single-turn: one answer ends the episode. Multi-turn: the state changes over turns. Tool-use: SPADE's ToolUseBaseEnv games, played with tool calls and a final answer; a tool call is a turn whose action the environment read as a well-formed call.</p>`;
}
