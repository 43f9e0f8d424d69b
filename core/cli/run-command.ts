/**
 * `spade-bench run`: the config (file, then flags), the run itself (the library's run), a
 * progress line, signals and exit codes. The flags come from the table of options.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfigFile, resolveConfig, type SpadeConfig } from '../config/config.js';
import { EXIT, RunFailedError, UsageError } from '../errors.js';
import { resumedRun, runResolved, type ResumedJournal } from '../setup/api.js';
import { createProgress } from './progress.js';
import { errorLines, runUsage, usageLine } from './run-summary.js';
import { flagsToConfig, parsePairs, runEpilogue, runOptions, type RunArgs } from './run-options.js';
import { checkThresholds, missedLine, parseReporter, parseThresholds, renderReporter, type Reporter, type Threshold } from './ci-output.js';
import type { RunResults } from '../results/results.js';
import { didYouMean } from '../config/suggest.js';
import { perSecond } from '../../reports/format.js';

export { flagsToConfig, runEpilogue, runOptions, type RunArgs };
export { prepareOutDir } from '../setup/api.js';

/** The config of a new run: defaults, then the config file, then the flags. */
export async function resolveRunConfig(args: RunArgs, cwd = process.cwd()): Promise<{ config: SpadeConfig; configFile?: string }> {
  const { config: file, filepath } = await loadConfigFile(cwd, args.config);
  return { config: resolveConfig(file, flagsToConfig(args)), configFile: filepath };
}

/** The results a run wrote, or undefined when there are none to read. */
function readResults(outDir: string): RunResults | undefined {
  try {
    return JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8')) as RunResults;
  } catch {
    return undefined;
  }
}

export async function runCommand(args: RunArgs): Promise<number> {
  const cwd = process.cwd();
  // Paths inside the working folder are shown relative to it, others in full.
  const shown = (file: string): string => {
    const relative = path.relative(cwd, file);
    return relative.startsWith('..') ? file : relative || '.';
  };
  let config: SpadeConfig;
  let resumed: ResumedJournal | undefined;
  // What CI asked for is checked before anything runs: a typo is a usage error, nothing written.
  const reporter: Reporter | undefined = typeof args.reporter === 'string' ? parseReporter(args.reporter) : undefined;
  const thresholds: Threshold[] = args.failUnder === undefined ? [] : parseThresholds(parsePairs('fail-under', args.failUnder));
  // A reporter on standard output has it to itself: the run's own summary goes to standard error.
  const summaryOut = reporter && !reporter.file ? process.stderr : process.stdout;
  const report = (results: RunResults | undefined): ReturnType<typeof checkThresholds> => {
    const checks = results ? checkThresholds(results, thresholds) : [];
    if (reporter && results) {
      const text = renderReporter(reporter, results, checks);
      if (reporter.file) writeFileSync(path.resolve(cwd, reporter.file), text);
      else process.stdout.write(text);
    }
    return checks;
  };
  if (args.retryErrored && !args.resume) throw new UsageError('--retry-errored goes with --resume: it does again the errored work of the run in --out');
  if (args.resume) {
    // API keys are never journaled: provider settings come from today's config file and environment.
    const { config: file } = await loadConfigFile(cwd, args.config);
    // Today's flags: those that cannot change results apply, any other that differs refuses.
    ({ config, resumed } = resumedRun(args.out, cwd, file.providers, {
      retryErrored: args.retryErrored,
      changes: flagsToConfig(args),
      onApplied: (line) => process.stderr.write(`spade-bench: ${line}\n`),
    }));
  } else {
    ({ config } = await resolveRunConfig(args, cwd));
  }
  for (const { pool, text } of thresholds) {
    if (pool !== undefined && !config.suites.includes(pool)) {
      throw new UsageError(`--fail-under ${text}: the run has no pool "${pool}" (its pools: ${config.suites.join(', ')}).${didYouMean(pool, config.suites)}`);
    }
  }

  const progress = createProgress();
  const controller = new AbortController();
  let signalName: NodeJS.Signals | undefined;
  const onSignal = (name: NodeJS.Signals): void => {
    if (signalName) process.exit(name === 'SIGINT' ? EXIT.sigint : EXIT.sigterm); // second signal: at once
    signalName = name;
    progress.log(`${name}: stopping; in-flight work finishes, partial results are written (again to exit at once)`);
    controller.abort();
  };
  const started = performance.now();
  let outDir = '';
  let missed: ReturnType<typeof checkThresholds> = [];
  try {
    const results = await runResolved(config, {
      cwd,
      resumed,
      validateOnly: args.validateOnly,
      workers: args.workers,
      shard: args.shard,
      redis: args.redis,
      signal: controller.signal,
      onProgress: (e) => progress.onEvent(e),
      onStart: (start) => {
        // From here on a signal stops the run cleanly, with partial results written.
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        outDir = start.outDir;
        if (start.calls) progress.watchCalls(start.calls);
        progress.log(`spade-bench: designer ${start.designerLabel}; agent ${start.agentLabel}; sandbox ${config.sandbox}${config.pythonSandbox ? `, Python ${config.pythonSandbox}` : ''} (${start.evaluatedBy}); out ${shown(outDir)}`);
      },
    });
    progress.done();
    for (const line of [...errorLines(results.run.errors), usageLine(runUsage(results)) ?? []].flat()) process.stderr.write(`${line}\n`);
    const wall = (performance.now() - started) / 1000;
    const episodes = results.suites.reduce((n, s) => n + s.metrics.throughput.episodes, 0);
    // A resumed run's episodes include those of the invocations before: its rate is over the
    // time every invocation spent on the suites, as the results' rates are.
    const suitesWall = results.suites.reduce((t, s) => t + s.metrics.throughput.wallSec, 0);
    const overall = resumed ? ` (resumed: its suites took ${suitesWall.toFixed(1)} s over every invocation)` : '';
    // --validate-only plays nothing: what it did is the environments it judged.
    const count = args.validateOnly ? results.suites.reduce((n, s) => n + s.metrics.validity.proposed, 0) : episodes;
    const what = args.validateOnly ? `${count} environments judged` : `${count} episodes`;
    const rate = count / (resumed ? suitesWall : wall);
    const rel = (f: string): string => shown(path.join(outDir, f));
    summaryOut.write(
      `${results.run.complete ? 'done' : 'stopped early (partial results, "complete": false)'} in ${wall.toFixed(1)} s${overall}: ${what} (${perSecond(rate)}/s)\n` +
        `  results  ${rel('results.json')}\n  report   ${rel('report.html')}\n  journal  ${rel('journal.jsonl')}\n`,
    );
    missed = report(results).filter((check) => !check.passed);
    for (const check of missed) process.stderr.write(`spade-bench: below threshold: ${missedLine(check)}\n`);
  } catch (error) {
    progress.done();
    if (error instanceof RunFailedError) {
      for (const line of errorLines(error.errors)) process.stderr.write(`${line}\n`);
      // The failed run's results are kept: CI still gets its report, errors included.
      if (reporter && outDir) report(readResults(outDir));
    }
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (signalName) return signalName === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
  return missed.length ? EXIT.belowThreshold : EXIT.ok;
}
