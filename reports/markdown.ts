/**
 * The Markdown summary (for CI step summaries): per run, one table of every pool on the four
 * axes, and one of each pool split by game type. Strings from results are escaped for Markdown tables and cannot inject HTML.
 */
import type { RunResults } from '../core/results/results.js';
import { escapeHtml } from './escape.js';
import { number, percent, percentInterval } from './format.js';
import { isReferenceRole, runNames } from './runs.js';
import { GAME_TYPES } from '../core/run/game-type.js';

/** Safe inside a Markdown table cell: HTML-escaped, pipes and newlines neutralised. */
function cell(value: unknown): string {
  return escapeHtml(value).replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ').replace(/([\\`*_[\]])/g, '\\$1');
}

export function renderMarkdownReport(runs: readonly RunResults[]): string {
  const names = runNames(runs);
  const lines: string[] = ['# spade-bench report', ''];
  runs.forEach((results, i) => {
    const { run } = results;
    lines.push(`## Run ${cell(names[i])}`, '');
    lines.push(`- designer: ${cell(run.designerLabel)} (${cell(run.designer)})${isReferenceRole(run, 'designer') ? ' — offline reference policy, not a model' : ''}`);
    lines.push(`- agent: ${cell(run.agentLabel)} (${cell(run.agent)})${isReferenceRole(run, 'agent') ? ' — offline reference policy, not a model' : ''}`);
    lines.push(`- sandbox: ${cell(run.sandbox)}${run.sandboxInsecure ? ' — **⚠ NOT a security boundary**' : ''}`);
    if (!run.complete) lines.push('- **interrupted**: the numbers cover what finished');
    lines.push('');
    lines.push('| pool | kind | valid (95% CI) | SPADE accepts / strict valid+unproven | Vendi | Vendi/n | distinct-2 | steps/s | success (95% CI) | won/lost/errored |');
    lines.push('|---|---|---|---|---|---|---|---|---|---|');
    for (const suite of results.suites) {
      const m = suite.metrics;
      const r = m.validity.readings;
      const readings = r ? `${r.spade.valid} / ${r.strict.valid}+${r.strict.unproven} of ${m.validity.proposed}` : '–';
      lines.push(
        `| ${cell(suite.id)} | ${suite.kind === 'selfplay' ? 'self-play' : suite.kind} | ${percent(m.validity.rate)} (${percentInterval(m.validity.interval)}) | ${readings} | ${number(m.diversity.vendi)} | ${number(m.diversity.vendiPerN)} | ${number(m.diversity.distinct2)} | ${number(m.throughput.stepsPerSec)} | ${percent(m.success.successRate)} (${percentInterval(m.success.interval)}) | ${m.success.won}/${m.success.lost}/${m.success.errored} |`,
      );
    }
    lines.push('');
    const typed = results.suites.flatMap((suite) => GAME_TYPES.flatMap((type) => {
      const g = suite.metrics.byGameType?.[type];
      return g ? [`| ${cell(suite.id)} | ${type} | ${g.valid}/${g.environments} | ${g.episodes} | ${g.episodes ? `${percent(g.successRate)} (${percentInterval(g.interval)})` : '–'} | ${g.episodes ? number(g.meanTurns) : '–'} | ${g.toolCallsPerEpisode !== undefined ? number(g.toolCallsPerEpisode) : '–'} |`] : [];
    }));
    if (typed.length > 0) {
      lines.push('| pool | game type | valid/proposed | episodes | success (95% CI) | mean turns | tool calls/episode |');
      lines.push('|---|---|---|---|---|---|---|');
      lines.push(...typed, '');
    }
  });
  return lines.join('\n');
}
