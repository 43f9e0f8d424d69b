/**
 * The paper's games table (core/results/paper-table.ts) at the top of the report, when any run
 * has its figures: one row per run, each figure a percentage with its 95% interval.
 */
import type { RunResults } from '../core/results/results.js';
import { PAPER_TABLES, figureText, hasPaperFigures, paperRows } from '../core/results/paper-table.js';
import { escapeHtml } from './escape.js';

export function paperTableSection(runs: readonly RunResults[], names: readonly string[]): string {
  if (!runs.some((run) => hasPaperFigures(run, 'RQ1'))) return '';
  const columns = PAPER_TABLES.RQ1!;
  const rows = paperRows(runs, 'RQ1', names);
  const head = ['Method', ...columns.map((c) => c.label)].map((l) => `<th>${escapeHtml(l)}</th>`).join('');
  const body = rows.map((r) => `<tr><td>${escapeHtml(r.method)}</td>${r.cells.map((s) => `<td>${escapeHtml(figureText(s))}</td>`).join('')}</tr>`).join('\n');
  return `<section id="paper"><h2>The paper's games table</h2>
<p class="muted">SPADE's evaluation (eval_offline, RQ1): each figure a percentage, its 95% interval in brackets; self-play's pool is compared below.</p>
<table><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table></section>`;
}
