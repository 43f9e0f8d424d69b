/**
 * The Markdown summary (for CI step summaries): per run, one table of every pool on the four
 * axes. Strings from results are escaped for Markdown tables and cannot inject HTML.
 */
import type { RunResults } from '../core/results.js';
import { escapeHtml } from './escape.js';
import { number, percent, percentInterval } from './format.js';
import { isReferenceRole, runNames } from './runs.js';

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
        `| ${cell(suite.id)} | ${suite.kind === 'selfplay' ? 'self-play' : 'static'} | ${percent(m.validity.rate)} (${percentInterval(m.validity.interval)}) | ${readings} | ${number(m.diversity.vendi)} | ${number(m.diversity.vendiPerN)} | ${number(m.diversity.distinct2)} | ${number(m.throughput.stepsPerSec)} | ${percent(m.success.successRate)} (${percentInterval(m.success.interval)}) | ${m.success.won}/${m.success.lost}/${m.success.errored} |`,
      );
    }
    lines.push('');
  });
  return lines.join('\n');
}
