/**
 * The banner a report opens with when episodes errored: per run, how many of its episodes
 * errored and in which pools, and the classes of its errors with their first messages, as
 * results list them (`run.errors`). Errored episodes are left out of every rate, so a run whose
 * episodes all errored has rates of "n/a": the banner says why. Beside it, a run whose sandbox
 * is not a security boundary, or that was interrupted, is flagged at the top too.
 */
import type { ErrorClassSummary, RunResults } from '../core/results/results.js';
import { escapeHtml } from './escape.js';
import { grouped } from './format.js';

/** What a run's banner says. */
export interface ErroredRun {
  run: string;
  /** Episodes that errored, and all episodes (without the hint). */
  errored: number;
  episodes: number;
  /** Errored episodes by pool, pools with none left out. */
  byPool: { pool: string; errored: number }[];
  /** Error classes with their first messages. */
  classes: ErrorClassSummary[];
  /** Errored work in all, design and hint calls included. */
  work: number;
}

/** The runs whose banner shows: those with errored episodes or errored work. */
export function erroredRuns(runs: readonly RunResults[], names: readonly string[]): ErroredRun[] {
  return runs.flatMap((results, i) => {
    const byPool = results.suites.map((suite) => ({ pool: suite.id, errored: suite.metrics.success.errored ?? 0 }));
    const errored = byPool.reduce((sum, pool) => sum + pool.errored, 0);
    const episodes = results.suites.reduce((sum, suite) => sum + (suite.metrics.success.episodes ?? 0), 0);
    const { total, classes } = results.run.errors;
    if (errored === 0 && total === 0) return [];
    return [{ run: names[i]!, errored, episodes, byPool: byPool.filter((pool) => pool.errored > 0), classes, work: total }];
  });
}

const MESSAGE_CHARS = 240;
const cut = (text: string): string => (text.length <= MESSAGE_CHARS ? text : `${text.slice(0, MESSAGE_CHARS)}…`);

/** The banner's text for one run, in plain words (the Markdown report uses it as is). */
export function bannerHeadline(run: ErroredRun): string {
  const all = run.episodes > 0 && run.errored === run.episodes;
  const where = run.byPool.map((pool) => `${pool.pool} ${grouped(pool.errored)}`).join(', ');
  const episodes = `${grouped(run.errored)} of ${grouped(run.episodes)} episodes errored${where ? ` (${where})` : ''}`;
  const consequence = all
    ? 'no episode was decided, so its success rates are n/a'
    : 'they are left out of every rate, never counted as losses';
  const work = run.work !== run.errored ? ` ${grouped(run.work)} pieces of work errored in all, design and hint calls included.` : '';
  return `Run ${run.run}: ${episodes}; ${consequence}.${work}`;
}

export function bannerHtml(runs: readonly ErroredRun[]): string {
  return runs.map((run) => {
    const classes = run.classes.length
      ? `<ul class="error-classes">${run.classes.map((c) => `<li><code>${escapeHtml(c.errorClass)}</code> ×${grouped(c.count)}${c.messages.slice(0, 2).map((m) => ` — <q>${escapeHtml(cut(m))}</q>`).join('')}</li>`).join('')}</ul>`
      : '';
    return `<div class="warning errored" role="alert"><div>⚠ ${escapeHtml(bannerHeadline(run))}</div>${classes}</div>`;
  }).join('\n');
}

export function bannerMarkdown(runs: readonly ErroredRun[], cell: (text: string) => string): string[] {
  return runs.flatMap((run) => [
    `> **⚠ ${cell(bannerHeadline(run))}**`,
    ...run.classes.map((c) => `> - ${cell(c.errorClass)} ×${grouped(c.count)}${c.messages.slice(0, 1).map((m) => `: ${cell(cut(m))}`).join('')}`),
    '',
  ]);
}

/** How a run that did not finish stopped: interrupted (a signal, or no reason recorded), or stopped early, and why. */
export function howItStopped(stopReason: string | undefined): string {
  return stopReason === undefined || stopReason === 'interrupted' ? 'was interrupted' : `stopped early (${stopReason})`;
}

/** Warnings that belong on the first screen: a sandbox that is not a security boundary, a run that did not finish. */
export function runWarnings(runs: readonly RunResults[], names: readonly string[]): string {
  return runs.flatMap(({ run }, i) => [
    ...(run.sandboxInsecure ? [`<div class="warning" role="alert">⚠ Run ${escapeHtml(names[i])}: sandbox <code>${escapeHtml(run.sandbox)}</code> is NOT a security boundary.</div>`] : []),
    ...(!run.complete ? [`<div class="warning">Run ${escapeHtml(names[i])} ${escapeHtml(howItStopped(run.stopReason))}: the numbers cover what finished.</div>`] : []),
  ]).join('\n');
}
