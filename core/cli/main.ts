/**
 * The `spade-bench` command line.
 */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { RunStoppedError, UsageError } from '../errors.js';
import { runCommand, runOptions, type RunArgs } from './run-command.js';
import { listCommand } from './list-command.js';
import { workerCommand, workerOptions, type WorkerArgs } from './worker-command.js';
import { mergeCommand, mergeOptions, type MergeArgs } from './merge-command.js';
import { exportCommand, exportOptions, type ExportArgs } from './export-command.js';
import { reportCommand, reportOptions, type ReportArgs } from './report-command.js';
import { benchCommand, benchOptions, type BenchArgs } from './bench-command.js';
import { validateCommand, validateOptions, type ValidateArgs } from './validate-command.js';
import { packageVersion } from '../versions.js';

/** A command's handler, called after yargs has parsed and validated the whole command line. */
type Handler = (args: Record<string, unknown>) => Promise<number>;

export async function main(argv: string[] = hideBin(process.argv)): Promise<number> {
  // The commands are declared to yargs without handlers and run here once parsing is done:
  // with a handler, yargs renders and keeps the command's whole help text on every run in case
  // it fails later (30-40 ms of string-width), which a run never shows.
  const handlers: Record<string, Handler> = {
    run: (args) => runCommand(args as unknown as RunArgs),
    list: (args) => listCommand(args as { config?: string }),
    validate: (args) => validateCommand(args as unknown as ValidateArgs),
    report: (args) => reportCommand(args as unknown as ReportArgs),
    bench: (args) => benchCommand(args as unknown as BenchArgs),
    export: (args) => exportCommand(args as unknown as ExportArgs),
    worker: (args) => workerCommand(args as unknown as WorkerArgs),
    merge: (args) => mergeCommand(args as unknown as MergeArgs),
  };
  const cli: Argv = yargs(argv)
    .scriptName('spade-bench')
    .usage('$0 [command] [options]\n\nRuns SPADE self-play (a model designs executable environments and plays them) beside static benchmark suites, and writes a comparison report. With no key and no network it uses the built-in offline reference policy.')
    .command(['run', '$0'], 'Run self-play and the static suites, write results.json, report.html and the journal (the default command)', runOptions)
    .command('list', 'List plugins (designers, agents, providers, sandboxes, suites) with a line of description each', (y) =>
      y.option('config', { type: 'string', describe: 'Config file (to list the plugins it loads)' }),
    )
    .command('validate <files..>', 'Run the validation gate on environment programs (.js, .mjs, .py); exit 1 when one is invalid', validateOptions)
    .command('report <runs..>', 'Build the comparison report of one or more runs (HTML, Markdown or JSON), or publish a static site', reportOptions)
    .command('bench <run>', "Time each valid environment's reset and step in its sandbox (tinybench): what an RL trainer pays per step", benchOptions)
    .command('export <run>', 'Export a run: episodes as JSONL for RL trainers, or the valid environments as a pool of program files', exportOptions)
    .command('worker', 'Take validation and episode jobs of distributed runs from Redis (BullMQ) until stopped', workerOptions)
    .command('merge <dirs..>', 'Combine the shards of a run (--shard i/n) into one run folder', mergeOptions)
    .example('$0', 'the offline default: reference designer and agent, self-play + procedural suite, into runs/<time>')
    .example('$0 run --out runs/x --rounds 4 --suites spade,procedural', 'choose rounds and suites')
    .example('$0 run --agent openai:gpt-4.1-mini --suites procedural --limit 20', 'a model plays 20 static tasks')
    .strict()
    .version(packageVersion())
    .help()
    .alias('h', 'help')
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .fail((message, error) => {
      // yargs' own errors (YError: unknown option, a flag's coerce) are usage errors; others are ours.
      if (error && error.name !== 'YError') throw error;
      throw new UsageError(`${message ?? error?.message}\nRun "spade-bench --help" for usage.`);
    });
  try {
    const args = (await cli.parseAsync()) as Record<string, unknown> & { _: (string | number)[] };
    const name = String(args._[0] ?? 'run');
    const handler = handlers[name];
    // strict() has refused any other command already.
    if (!handler) throw new UsageError(`unknown command "${name}"\nRun "spade-bench --help" for usage.`);
    return await handler(args);
  } catch (error) {
    if (error instanceof UsageError || error instanceof RunStoppedError) {
      process.stderr.write(`spade-bench: ${error instanceof RunStoppedError ? 'stopped: ' : ''}${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
