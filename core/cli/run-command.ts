/**
 * `spade-bench run`: the config (file, then flags), the run itself (the library's run), a
 * progress line, signals and exit codes. The flags come from the table of options.
 */
import path from 'node:path';
import { loadConfigFile, resolveConfig, type SpadeConfig } from '../config/config.js';
import { EXIT, RunFailedError, UsageError } from '../errors.js';
import { resumedRun, runResolved } from '../setup/api.js';
import type { PriorWork } from '../results/resume.js';
import { createProgress } from './progress.js';
import { errorLines, runUsage, usageLine } from './run-summary.js';
import { flagsToConfig, runEpilogue, runOptions, type RunArgs } from './run-options.js';

export { flagsToConfig, runEpilogue, runOptions, type RunArgs };
export { prepareOutDir } from '../setup/api.js';

/** The config of a new run: defaults, then the config file, then the flags. */
export async function resolveRunConfig(args: RunArgs, cwd = process.cwd()): Promise<{ config: SpadeConfig; configFile?: string }> {
  const { config: file, filepath } = await loadConfigFile(cwd, args.config);
  return { config: resolveConfig(file, flagsToConfig(args)), configFile: filepath };
}

export async function runCommand(args: RunArgs): Promise<number> {
  const cwd = process.cwd();
  // Paths inside the working folder are shown relative to it, others in full.
  const shown = (file: string): string => {
    const relative = path.relative(cwd, file);
    return relative.startsWith('..') ? file : relative || '.';
  };
  let config: SpadeConfig;
  let prior: PriorWork | undefined;
  if (args.retryErrored && !args.resume) throw new UsageError('--retry-errored goes with --resume: it does again the errored work of the run in --out');
  if (args.resume) {
    // API keys are never journaled: provider settings come from today's config file and environment.
    const { config: file } = await loadConfigFile(cwd, args.config);
    ({ config, prior } = resumedRun(args.out, cwd, file.providers, { retryErrored: args.retryErrored }));
  } else {
    ({ config } = await resolveRunConfig(args, cwd));
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
  try {
    const results = await runResolved(config, {
      cwd,
      prior,
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
    const rel = (f: string): string => shown(path.join(outDir, f));
    process.stdout.write(
      `${results.run.complete ? 'done' : 'stopped early (partial results, "complete": false)'} in ${wall.toFixed(1)} s: ${episodes} episodes (${(episodes / wall).toFixed(0)}/s)\n` +
        `  results  ${rel('results.json')}\n  report   ${rel('report.html')}\n  journal  ${rel('journal.jsonl')}\n`,
    );
  } catch (error) {
    progress.done();
    if (error instanceof RunFailedError) for (const line of errorLines(error.errors)) process.stderr.write(`${line}\n`);
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (signalName) return signalName === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
  return EXIT.ok;
}
