/**
 * The environment browser: each pool's environments with their game type, code, gate verdicts
 * and a sample trajectory, searchable and filterable by run, pool, game type and verdict (a
 * small inline script; everything is readable without it). Large pools are capped, and the page says how many are shown of how many.
 */
import type { EnvironmentSummary, RunResults } from '../core/results/results.js';
import { GAME_TYPES } from '../core/run/game-type.js';
import { countToolCalls } from '../core/run/tool-calls.js';
import { escapeHtml, truncate } from './escape.js';
import { percent } from './format.js';
import { DEFAULTS } from '../core/config/options.js';

export interface BrowserLimits {
  /** Environments shown per pool. */
  environmentsPerPool: number;
  sourceChars: number;
  trajectorySteps: number;
  textChars: number;
}

export const DEFAULT_BROWSER_LIMITS: BrowserLimits = { environmentsPerPool: 150, sourceChars: 6000, trajectorySteps: 12, textChars: 600 };

/** The filter script. Static text (no data from results): its hash goes into the page's CSP. */
export const BROWSER_SCRIPT = `(() => {
  const by = (id) => document.getElementById(id);
  const search = by('env-search'), run = by('env-run'), suite = by('env-suite'), type = by('env-type'), verdict = by('env-verdict'), count = by('env-count');
  const items = Array.from(document.querySelectorAll('details.env'));
  const apply = () => {
    const text = search.value.trim().toLowerCase();
    let shown = 0;
    for (const item of items) {
      const ok = (!run.value || item.dataset.run === run.value) && (!suite.value || item.dataset.suite === suite.value)
        && (!type.value || item.dataset.gameType === type.value) && (!verdict.value || item.dataset.verdict === verdict.value)
        && (!text || item.textContent.toLowerCase().includes(text));
      item.hidden = !ok;
      if (ok) shown++;
    }
    count.textContent = shown + ' of ' + items.length + ' listed environments match';
  };
  for (const control of [search, run, suite, type, verdict]) control.addEventListener('input', apply);
  apply();
})();`;

/** Up to `max` environments, taken in turn from each verdict so rejections stay visible. */
export function sampleEnvironments(environments: readonly EnvironmentSummary[], max: number): EnvironmentSummary[] {
  if (environments.length <= max) return [...environments];
  const groups = new Map<string, EnvironmentSummary[]>();
  for (const env of environments) {
    const group = groups.get(env.verdict);
    if (group) group.push(env);
    else groups.set(env.verdict, [env]);
  }
  const picked: EnvironmentSummary[] = [];
  const queues = [...groups.values()];
  for (let i = 0; picked.length < max; i++) {
    for (const queue of queues) if (i < queue.length && picked.length < max) picked.push(queue[i]!);
  }
  return picked;
}

const readingWhy = (reading: NonNullable<EnvironmentSummary['readings']>['spade'], limits: BrowserLimits): string =>
  reading.verdict === 'invalid' && reading.reason
    ? ` <span class="muted">${escapeHtml(reading.reason)}${reading.detail ? `: ${escapeHtml(truncate(reading.detail, limits.textChars))}` : ''}</span>`
    : '';

function environmentEntry(env: EnvironmentSummary, run: string, suite: string, limits: BrowserLimits): string {
  const { gameType } = env;
  const facts = [
    env.round !== undefined ? `round ${env.round}` : '',
    env.family ? `family ${escapeHtml(env.family)}` : '',
    env.skill ? `skill ${escapeHtml(env.skill)}` : '',
    env.difficulty !== undefined ? `difficulty ${escapeHtml(env.difficulty)}` : '',
    env.horizon !== undefined ? `horizon ${escapeHtml(env.horizon)}` : '',
    env.solveRate !== undefined ? `solve ${percent(env.solveRate)}` : '',
    env.hintSolveRate !== undefined ? `with hint ${percent(env.hintSolveRate)}` : '',
    env.designerReward !== undefined ? `reward ${escapeHtml(env.designerReward.toFixed(3))}` : '',
  ].filter(Boolean);
  const checks = env.checks
    .map((check) => `<li class="${check.ok ? 'check-ok' : 'check-fail'}">${check.ok ? '✓' : '✗'} ${escapeHtml(check.name)}${check.detail ? ` <span class="muted">— ${escapeHtml(truncate(check.detail, limits.textChars))}</span>` : ''}</li>`)
    .join('');
  let trajectory = '<p class="muted">No sample trajectory (not played).</p>';
  if (env.sample) {
    const steps = env.sample.steps.slice(0, limits.trajectorySteps);
    const more = env.sample.steps.length - steps.length;
    const calls = gameType === 'tool-use' ? `, ${countToolCalls(env.sample.steps.map((step) => step.action))} of them tool calls` : '';
    trajectory = `<p>Sample trajectory (first attempt without the hint): <strong>${escapeHtml(env.sample.outcome)}</strong> in ${env.sample.steps.length} turns${calls}${more > 0 ? `, first ${steps.length} shown` : ''}.</p>
<ol class="trajectory">${steps
      .map((step) => `<li><div><strong>agent:</strong> <code>${escapeHtml(truncate(step.action, limits.textChars))}</code></div><div><strong>environment:</strong> ${escapeHtml(truncate(step.observation, limits.textChars))} <small class="muted">reward ${escapeHtml(step.reward)}${step.terminated ? ', terminated' : ''}${step.truncated ? ', truncated' : ''}</small></div></li>`)
      .join('')}</ol>`;
  }
  return `<details class="env" data-run="${escapeHtml(run)}" data-suite="${escapeHtml(suite)}" data-game-type="${escapeHtml(gameType)}" data-verdict="${escapeHtml(env.verdict)}">
<summary><span class="badge ${escapeHtml(env.verdict)}">${escapeHtml(env.verdict)}${env.reason && env.reason !== env.verdict ? ` · ${escapeHtml(env.reason)}` : ''}</span> <span class="badge game-type">${escapeHtml(gameType)}</span> <code>${escapeHtml(env.id)}</code> <span class="muted">${escapeHtml(suite)}${facts.length ? ' · ' + facts.join(' · ') : ''}</span></summary>
<div><p><strong>Task:</strong> ${env.task !== undefined ? escapeHtml(truncate(env.task, limits.textChars)) : '<span class="muted">none (did not reset)</span>'}</p>
${env.readings ? `<p><strong>Readings</strong> <small class="muted">(${escapeHtml(env.gate ?? DEFAULTS.gate)} decides play)</small>: SPADE's checks <span class="badge ${escapeHtml(env.readings.spade.verdict)}">${escapeHtml(env.readings.spade.verdict)}</span>${readingWhy(env.readings.spade, limits)} · strict <span class="badge ${escapeHtml(env.readings.strict.verdict)}">${escapeHtml(env.readings.strict.verdict)}</span>${readingWhy(env.readings.strict, limits)}</p>` : ''}
${env.designerHint !== undefined ? `<p><strong>Hint</strong> <small class="muted">(written by the designer model)</small>: ${escapeHtml(truncate(env.designerHint, limits.textChars))}</p>` : env.hintError ? `<p><strong>Hint</strong>: <span class="muted">none (${escapeHtml(truncate(env.hintError, limits.textChars))})</span></p>` : ''}
<p><strong>Gate checks</strong></p><ul>${checks || '<li class="muted">none recorded</li>'}</ul>
${trajectory}
<p><strong>Program</strong> <small class="muted">(${escapeHtml(env.language)}, ${env.source.length} characters)</small></p>
<pre><code>${escapeHtml(truncate(env.source, limits.sourceChars))}</code></pre></div>
</details>`;
}

/** The browser section in parts: its head, each environment's entry, its end (joined, the section's HTML). */
export function browserSectionParts(runs: readonly RunResults[], names: readonly string[], limits: BrowserLimits = DEFAULT_BROWSER_LIMITS): string[] {
  const entries: string[] = [];
  const counts: string[] = [];
  const suites = new Set<string>();
  runs.forEach((results, i) => {
    for (const suite of results.suites) {
      suites.add(suite.id);
      const shown = sampleEnvironments(suite.environments, limits.environmentsPerPool);
      counts.push(`<li>${escapeHtml(names[i])} · ${escapeHtml(suite.id)}: ${shown.length} shown of ${suite.environments.length}</li>`);
      for (const env of shown) entries.push(environmentEntry(env, names[i]!, suite.id, limits));
    }
  });
  const options = (values: Iterable<string>) => [...values].map((value) => `<option value="${escapeHtml(value)}">${escapeHtml(value)}</option>`).join('');
  const head = `<section id="environments"><h2>Environment browser</h2>
<ul class="muted">${counts.join('')}</ul>
<div class="filters" role="search">
<input id="env-search" type="search" placeholder="Search ids, tasks, code, checks…" aria-label="search environments">
<select id="env-run" aria-label="run"><option value="">all runs</option>${options(names)}</select>
<select id="env-suite" aria-label="pool"><option value="">all pools</option>${options(suites)}</select>
<select id="env-type" aria-label="game type"><option value="">all game types</option>${options(GAME_TYPES)}</select>
<select id="env-verdict" aria-label="verdict"><option value="">all verdicts</option>${options(['valid', 'unproven', 'invalid'])}</select>
<span id="env-count" class="muted"></span>
</div>
`;
  return [head, ...entries.flatMap((entry, i) => (i ? ['\n', entry] : [entry])), '\n</section>'];
}
