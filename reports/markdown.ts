/**
 * The Markdown summary (for CI step summaries): a banner when episodes errored; the summary
 * table (pools as rows, runs as columns, differences from the first run: summary.ts); then per
 * run, one table of every pool on the four axes, and one of each pool split by game type. Strings from results are escaped for Markdown tables and cannot inject HTML.
 */
import type { RunResults } from '../core/results/results.js';
import { differenceInterval, formatInterval, formatValue, grouped, number, percent, percentInterval, ratio, signedDifference } from './format.js';
import type { Figure, MetricRow } from '../core/metrics/table.js';
import { kindLabel, lineLabel, summaryLines, summaryNote, type Comparison } from './summary.js';
import { poolRows } from './pools.js';
import { bannerMarkdown, erroredRuns, howItStopped } from './banner.js';
import { isReferenceRole, protocolsText, runNames } from './runs.js';
import { GAME_TYPES } from '../core/run/game-type.js';
import { designerDynamicsMarkdown } from './designer-dynamics.js';

/**
 * Safe inside a Markdown table cell: no HTML tag or entity can form (`&` and `<` escaped), pipes
 * and newlines neutralised. Quotes and `>` stay as they are, so the text reads plainly where the
 * Markdown is not rendered (a CI log).
 */
function cell(value: unknown): string {
  return String(value ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ').replace(/([\\`*_[\]])/g, '\\$1');
}

/** A figure in one cell: "75.0% (60.0–86.0%; 30 / 40)". */
function figureCell(figure: Figure | undefined, row: MetricRow<any>): string {
  if (!figure) return '–';
  const details = [
    ...(figure.value !== null && figure.interval ? [formatInterval(figure.interval, row.format)] : []),
    ...(figure.counts ? [`${grouped(figure.counts[0])} / ${grouped(figure.counts[1])}`] : []),
    ...(figure.note ? [figure.note] : []),
  ];
  const beside = (figure.beside ?? []).map((b) => `; ${b.label} ${formatValue(b.figure.value, row.format)}${b.figure.value !== null && b.figure.interval ? ` (${formatInterval(b.figure.interval, row.format)})` : ''}`).join('');
  return cell(`${formatValue(figure.value, row.format)}${details.length ? ` (${details.join('; ')})` : ''}${beside}`);
}

function comparisonCell(comparison: Comparison | undefined, row: MetricRow<any>): string {
  if (!comparison) return '–';
  if (comparison.kind === 'plain') return cell(`${signedDifference(comparison.value, row.format)}${comparison.ratio !== undefined ? ` (${ratio(comparison.ratio)})` : ''}`);
  const { value, interval, excludesZero } = comparison.difference;
  const text = `${signedDifference(value, row.format)} (${differenceInterval(interval, row.format)})`;
  return excludesZero ? `**${cell(text)}** \\*` : cell(text);
}

/** The summary: pools as rows, runs as columns, each later run's difference from the first beside it. */
function summaryTable(runs: readonly RunResults[], names: readonly string[]): string[] {
  const lines = summaryLines(poolRows(runs, names), names.length, 'markdown');
  const head = names.flatMap((name, i) => (i === 0 ? [cell(name)] : [cell(name), cell(`${name} − ${names[0]}`)]));
  return [
    '## Summary',
    '',
    `| pool | metric | ${head.join(' | ')} |`,
    `|---|---|${head.map(() => '---|').join('')}`,
    ...lines.map((line) => {
      const cells = line.figures.flatMap((figure, r) => (r === 0 ? [figureCell(figure, line.row)] : [figureCell(figure, line.row), comparisonCell(line.comparisons[r - 1], line.row)]));
      return `| ${cell(line.pool)} (${kindLabel(line.kind)}) | ${cell(lineLabel(line.row))} | ${cells.join(' | ')} |`;
    }),
    '',
    summaryNote(names.length),
    '',
  ];
}

export function renderMarkdownReport(runs: readonly RunResults[]): string {
  const names = runNames(runs);
  const lines: string[] = ['# spade-bench report', ''];
  lines.push(...bannerMarkdown(erroredRuns(runs, names), cell));
  lines.push(...summaryTable(runs, names));
  runs.forEach((results, i) => {
    const { run } = results;
    lines.push(`## Run ${cell(names[i])}`, '');
    lines.push(`- designer: ${cell(run.designerLabel)} (${cell(run.designer)})${isReferenceRole(run, 'designer') ? ' — offline reference policy, not a model' : ''}`);
    lines.push(`- agent: ${cell(run.agentLabel)} (${cell(run.agent)})${isReferenceRole(run, 'agent') ? ' — offline reference policy, not a model' : ''}`);
    lines.push(`- protocols: ${cell(protocolsText(run))}`);
    lines.push(`- sandbox: ${cell(run.sandbox)}${run.sandboxInsecure ? ' — **⚠ NOT a security boundary**' : ''}${run.pythonSandbox ? `; Python: ${cell(run.pythonSandbox)}` : ''}`);
    if (!run.complete) lines.push(`- **${cell(howItStopped(run.stopReason))}**: the numbers cover what finished`);
    lines.push('');
    lines.push('| pool | kind | valid (95% CI) | SPADE accepts / strict valid+unproven | Vendi | Vendi/n | distinct-2 | steps/s | success (95% CI) | won/lost/errored |');
    lines.push('|---|---|---|---|---|---|---|---|---|---|');
    for (const suite of results.suites) {
      const m = suite.metrics;
      const r = m.validity.readings;
      const readings = r ? `${r.spade.valid} / ${r.strict.valid}+${r.strict.unproven} of ${m.validity.proposed}` : '–';
      const valid = m.validity.proposed > 0 ? `${percent(m.validity.rate)} (${percentInterval(m.validity.interval)})` : percent(null);
      const rate = m.success.successRate;
      const success = rate === null ? percent(null) : `${percent(rate)} (${percentInterval(m.success.interval)})`;
      lines.push(
        `| ${cell(suite.id)} | ${suite.kind === 'selfplay' ? 'self-play' : suite.kind} | ${valid} | ${readings} | ${number(m.diversity.vendi)} | ${number(m.diversity.vendiPerN)} | ${number(m.diversity.distinct2)} | ${number(m.throughput.steps > 0 ? m.throughput.stepsPerSec : null)} | ${success} | ${m.success.won}/${m.success.lost}/${m.success.errored} |`,
      );
    }
    lines.push('');
    const typed = results.suites.flatMap((suite) => GAME_TYPES.flatMap((type) => {
      const g = suite.metrics.byGameType[type];
      return g ? [`| ${cell(suite.id)} | ${type} | ${g.valid}/${g.environments} | ${g.episodes} | ${!g.episodes ? '–' : g.successRate === null ? percent(null) : `${percent(g.successRate)} (${percentInterval(g.interval)})`} | ${g.episodes ? number(g.meanTurns) : '–'} | ${g.toolCallsPerEpisode !== undefined ? number(g.toolCallsPerEpisode) : '–'} |`] : [];
    }));
    if (typed.length > 0) {
      lines.push('| pool | game type | valid/proposed | episodes | success (95% CI) | mean turns | tool calls/episode |');
      lines.push('|---|---|---|---|---|---|---|');
      lines.push(...typed, '');
    }
  });
  lines.push(...designerDynamicsMarkdown(runs, names, cell));
  return lines.join('\n');
}
