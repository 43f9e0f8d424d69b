/**
 * Output for a CI pipeline: `--fail-under METRIC=VALUE`, a gate on the headline figures of the
 * metrics table (core/metrics/table.ts), and `--reporter junit|json-summary`, the run's outcome
 * in a form CI systems read. Both read a run's results (results.json's shape).
 *
 * JUnit mapping: one <testsuite> per pool (self-play, each static suite), one <testcase> per
 * environment (task) of it, named by the environment's id:
 * - invalid (the gate rejected it, so it was never played): <skipped> with the gate's reason;
 * - no play decided (its plays errored, or none was made): <error>;
 * - every decided play lost (solve rate 0): <failure>;
 * - otherwise it passes, its solve rate in <system-out>.
 * The run's errored work gets a <testsuite name="errors"> with one <error> per error class, and
 * each --fail-under a <testcase> in <testsuite name="fail-under">, failed when below.
 */
import { UsageError } from '../errors.js';
import { headlineOf, METRICS } from '../metrics/table.js';
import { didYouMean } from '../config/suggest.js';
import type { RunResults } from '../results/results.js';

export const REPORTERS = ['junit', 'json-summary'] as const;
export type ReporterName = (typeof REPORTERS)[number];

/** `--reporter NAME` (standard output) or `--reporter NAME=FILE`. */
export interface Reporter {
  name: ReporterName;
  file?: string;
}

export function parseReporter(text: string): Reporter {
  const at = text.indexOf('=');
  const name = (at < 0 ? text : text.slice(0, at)).trim();
  const file = at < 0 ? undefined : text.slice(at + 1).trim();
  if (!(REPORTERS as readonly string[]).includes(name)) {
    throw new UsageError(`--reporter: expected ${REPORTERS.join(' or ')} (optionally =FILE), got ${JSON.stringify(text)}.${didYouMean(name, REPORTERS)}`);
  }
  if (file === '') throw new UsageError(`--reporter ${name}=: expected a file name after "="`);
  return { name: name as ReporterName, ...(file ? { file } : {}) };
}

/** One --fail-under: a metric's headline (in one pool, or in every pool that has it) must be at least `value`. */
export interface Threshold {
  metric: string;
  pool?: string;
  value: number;
  /** As typed, for messages. */
  text: string;
}

const GATED = METRICS.filter((row) => row.headline && row.format);

/** `success=0.6`, `success=60%`, `success@gsm8k=0.6` (the metric in pool gsm8k only). */
export function parseThresholds(pairs: Record<string, string> | undefined): Threshold[] {
  return Object.entries(pairs ?? {}).map(([key, raw]) => {
    const [metric, pool] = key.split('@') as [string, string | undefined];
    const row = GATED.find((r) => r.key === metric);
    if (!row) {
      throw new UsageError(`--fail-under ${key}=${raw}: unknown metric "${metric}" (one of ${GATED.map((r) => r.key).join(', ')}).${didYouMean(metric, GATED.map((r) => r.key))}`);
    }
    const percent = /^\s*(-?\d+(\.\d+)?)\s*%\s*$/.exec(raw);
    const value = percent ? Number(percent[1]) / 100 : raw.trim() === '' ? NaN : Number(raw);
    if (!Number.isFinite(value)) throw new UsageError(`--fail-under ${key}=${raw}: expected a number${row.format === 'percent' ? ' (0.6 or 60%)' : ''}`);
    if (percent && row.format !== 'percent') throw new UsageError(`--fail-under ${key}=${raw}: ${metric} is not a share: give a number`);
    return { metric, ...(pool ? { pool } : {}), value, text: `${key}=${raw}` };
  });
}

/** One threshold met or missed in one pool. */
export interface ThresholdCheck {
  threshold: Threshold;
  pool: string;
  label: string;
  /** The headline value; null when there was nothing to measure (n/a), which misses any threshold. */
  value: number | null;
  passed: boolean;
}

const showValue = (value: number | null, format: string | undefined): string =>
  value === null ? 'n/a' : format === 'percent' ? `${(value * 100).toFixed(1)}%` : String(Number(value.toPrecision(4)));

/** Each threshold against each pool it names (every pool with the metric, when none is named). */
export function checkThresholds(results: RunResults, thresholds: readonly Threshold[]): ThresholdCheck[] {
  const checks: ThresholdCheck[] = [];
  for (const threshold of thresholds) {
    const row = GATED.find((r) => r.key === threshold.metric)!;
    const pools = results.suites.filter((s) => threshold.pool === undefined || s.id === threshold.pool);
    if (threshold.pool !== undefined && pools.length === 0) {
      throw new UsageError(`--fail-under ${threshold.text}: the run has no pool "${threshold.pool}" (its pools: ${results.suites.map((s) => s.id).join(', ')}).${didYouMean(threshold.pool, results.suites.map((s) => s.id))}`);
    }
    for (const suite of pools) {
      const figure = headlineOf(row, suite.metrics);
      if (!figure) continue;
      checks.push({ threshold, pool: suite.id, label: row.label, value: figure.value, passed: figure.value !== null && figure.value >= threshold.value });
    }
  }
  return checks;
}

/** "success of gsm8k is 42.0%, under 60.0% (--fail-under success=60%)". */
export function missedLine(check: ThresholdCheck): string {
  const row = GATED.find((r) => r.key === check.threshold.metric);
  return `${check.label} of ${check.pool} is ${showValue(check.value, row?.format)}, under ${showValue(check.threshold.value, row?.format)} (--fail-under ${check.threshold.text})`;
}

// ---------------------------------------------------------------------------------------------
// Reporters
// ---------------------------------------------------------------------------------------------

const xml = (text: string): string =>
  text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface Case {
  name: string;
  classname: string;
  time?: number;
  outcome?: { kind: 'failure' | 'error' | 'skipped'; message: string; text?: string };
  out?: string;
}

function testsuite(name: string, cases: readonly Case[], time?: number): string {
  const count = (kind: string): number => cases.filter((c) => c.outcome?.kind === kind).length;
  const lines = [`  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}" skipped="${count('skipped')}"${time !== undefined ? ` time="${time.toFixed(3)}"` : ''}>`];
  for (const c of cases) {
    const open = `    <testcase classname="${xml(c.classname)}" name="${xml(c.name)}"${c.time !== undefined ? ` time="${c.time.toFixed(3)}"` : ''}`;
    if (!c.outcome && !c.out) {
      lines.push(`${open}/>`);
      continue;
    }
    lines.push(`${open}>`);
    if (c.outcome) {
      const tag = c.outcome.kind;
      lines.push(c.outcome.text === undefined
        ? `      <${tag} message="${xml(c.outcome.message)}"/>`
        : `      <${tag} message="${xml(c.outcome.message)}">${xml(c.outcome.text)}</${tag}>`);
    }
    if (c.out) lines.push(`      <system-out>${xml(c.out)}</system-out>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>');
  return lines.join('\n');
}

/** The run as JUnit XML (the mapping is in this file's header). */
export function junitReport(results: RunResults, checks: readonly ThresholdCheck[] = []): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  const add = (name: string, cases: Case[], time?: number): void => {
    if (!cases.length) return;
    suites.push(testsuite(name, cases, time));
    tests += cases.length;
    failures += cases.filter((c) => c.outcome?.kind === 'failure').length;
    errors += cases.filter((c) => c.outcome?.kind === 'error').length;
  };
  for (const suite of results.suites) {
    const cases = suite.environments.map((env): Case => {
      const base = { name: env.id, classname: suite.id };
      if (env.verdict === 'invalid') return { ...base, outcome: { kind: 'skipped', message: `invalid: ${env.reason ?? 'rejected by the gate'}` } };
      if (env.solveRate === undefined || env.solveRate === null) return { ...base, outcome: { kind: 'error', message: 'no play decided (errored or not played)' } };
      if (env.solveRate === 0) return { ...base, outcome: { kind: 'failure', message: 'every decided play lost' } };
      return { ...base, out: `solve rate ${(env.solveRate * 100).toFixed(1)}%` };
    });
    add(suite.id, cases, suite.metrics.throughput?.wallSec);
  }
  add('errors', results.run.errors.classes.map((c) => ({
    name: c.errorClass,
    classname: 'errors',
    outcome: { kind: 'error', message: `${c.count} errored (${Object.entries(c.bySuite).map(([s, n]) => `${s}: ${n}`).join(', ')})`, text: c.messages.join('\n') },
  })));
  add('fail-under', checks.map((check) => ({
    name: `${check.threshold.metric} of ${check.pool} >= ${check.threshold.value}`,
    classname: 'fail-under',
    ...(check.passed ? {} : { outcome: { kind: 'failure' as const, message: missedLine(check) } }),
  })));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="spade-bench ${xml(results.run.id)}" tests="${tests}" failures="${failures}" errors="${errors}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/** The run in a few lines of JSON: each pool's headline figures, the errors by class, the thresholds. */
export function jsonSummary(results: RunResults, checks: readonly ThresholdCheck[] = []): string {
  const summary = {
    run: { id: results.run.id, complete: results.run.complete, designer: results.run.designer, agent: results.run.agent },
    pools: results.suites.map((suite) => ({
      id: suite.id,
      kind: suite.kind,
      metrics: Object.fromEntries(GATED.flatMap((row) => {
        const figure = headlineOf(row, suite.metrics);
        return figure ? [[row.key, { value: figure.value, ...(figure.interval && { interval: figure.interval }), ...(figure.counts && { counts: figure.counts }) }]] : [];
      })),
    })),
    errors: { total: results.run.errors.total, classes: results.run.errors.classes.map((c) => ({ errorClass: c.errorClass, count: c.count, messages: c.messages })) },
    failUnder: checks.map((c) => ({ metric: c.threshold.metric, pool: c.pool, value: c.value, threshold: c.threshold.value, passed: c.passed })),
    passed: results.run.complete && !results.run.errors.failures && checks.every((c) => c.passed),
  };
  return `${JSON.stringify(summary, null, 2)}\n`;
}

export function renderReporter(reporter: Reporter, results: RunResults, checks: readonly ThresholdCheck[]): string {
  return reporter.name === 'junit' ? junitReport(results, checks) : jsonSummary(results, checks);
}
