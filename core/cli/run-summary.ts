/**
 * The lines `spade-bench run` prints at its end, beside the progress: the errored work by class
 * with its first messages, and the model calls (how many the response cache answered).
 */
import type { RunErrors, RunResults, UsageMetrics } from '../results/results.js';
import { addUsage, emptyUsage } from '../providers/stats.js';
import { terminalLine } from './progress.js';

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The errored work, one line per class and one per first message. */
export function errorLines(errors: RunErrors | undefined): string[] {
  if (!errors?.total) return [];
  const lines = [`errored: ${plural(errors.total, 'piece')} of work (${errors.failures} model or plugin failure${errors.failures === 1 ? '' : 's'}), no result, never scored:`];
  for (const c of errors.classes) {
    const where = Object.entries(c.byStage).map(([stage, n]) => `${n} ${stage}${n === 1 ? '' : stage === 'episode' ? 's' : 's'}`).join(', ');
    lines.push(`  ${c.errorClass}: ${c.count} (${where}; ${Object.keys(c.bySuite).join(', ')})${c.failure ? '' : ' (the environment\'s own failure)'}`);
    for (const message of c.messages) lines.push(`    ${terminalLine(message.length > 300 ? `${message.slice(0, 300)}…` : message)}`);
  }
  return lines;
}

/** "N of M model calls from cache", with tokens and cost; nothing when the run made no model call. */
export function usageLine(usage: UsageMetrics): string | undefined {
  if (!usage.calls) return undefined;
  const cost = usage.costUsd ? `, $${usage.costUsd.toFixed(4)}` : '';
  return `model calls: ${usage.calls} (${usage.cachedCalls} of ${usage.calls} from cache), tokens ${usage.inputTokens} in / ${usage.outputTokens} out${cost}`;
}

/** The run's usage over its suites. */
export const runUsage = (results: RunResults): UsageMetrics => addUsage(emptyUsage(), ...results.suites.map((s) => s.metrics.usage));
