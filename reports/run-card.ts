/**
 * One card per run: designer and agent (labelled as what they are), sandbox and its
 * protections, and prominent warnings when the sandbox is not a security boundary.
 */
import type { RunResults } from '../core/results/results.js';
import { escapeHtml } from './escape.js';
import { isReferenceRole, protocolsText } from './runs.js';
import { howItStopped } from './banner.js';

/** `colour`: the run's colour in the charts, when the report compares runs. */
export function runCard(results: RunResults, name: string, colour?: string): string {
  const { run } = results;
  const warnings: string[] = [];
  if (run.sandboxInsecure) {
    warnings.push(
      `<div class="warning" role="alert">⚠ Sandbox <code>${escapeHtml(run.sandbox)}</code> is NOT a security boundary: ` +
        `environment code ran without real isolation. Do not run untrusted environments with it.</div>`,
    );
  }
  if (!run.complete) warnings.push(`<div class="warning">This run ${escapeHtml(howItStopped(run.stopReason))}: the numbers cover what finished.</div>`);
  const notices: string[] = [];
  for (const role of ['designer', 'agent'] as const) {
    if (isReferenceRole(run, role)) {
      notices.push(
        `<div class="notice">The ${role} is the <strong>offline reference policy</strong> (deterministic, built in), <strong>not a model</strong>.</div>`,
      );
    }
  }
  const rows: [string, string][] = [
    ['designer', `${escapeHtml(run.designerLabel)} <small class="muted">(${escapeHtml(run.designer)})</small>`],
    ['agent', `${escapeHtml(run.agentLabel)} <small class="muted">(${escapeHtml(run.agent)})</small>`],
    ['protocols', escapeHtml(protocolsText(run))],
    ['sandbox', `${escapeHtml(run.sandbox)}${run.sandboxInsecure ? ' <strong class="check-fail">(not a security boundary)</strong>' : ''}${run.pythonSandbox ? `; Python: ${escapeHtml(run.pythonSandbox)}` : ''}`],
    [run.pythonSandbox ? `protections (${escapeHtml(run.sandbox)})` : 'protections', escapeHtml(run.sandboxProtections.join('; ') || 'none recorded')],
    ['seed', escapeHtml(run.seed)],
    ['started', escapeHtml(run.startedAt)],
    ['finished', escapeHtml(run.finishedAt ?? 'not finished')],
    ['suites', escapeHtml(results.suites.map((suite) => suite.id).join(', '))],
    ['versions', escapeHtml(Object.entries(run.versions).map(([k, v]) => `${k} ${v}`).join(', '))],
  ];
  return `<section class="card" aria-label="run ${escapeHtml(name)}">
<h3>${colour ? `<span class="swatch" style="background:${colour}"></span>` : ''}Run ${escapeHtml(name)}</h3>
${warnings.join('\n')}${notices.join('\n')}
<dl>${rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('')}</dl>
</section>`;
}
