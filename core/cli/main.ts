/**
 * The `spade-bench` command line.
 */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { EXIT, RunStoppedError, UsageError } from '../errors.js';
import { runCommand, runOptions, type RunArgs } from './run-command.js';
import { listCommand } from './list-command.js';
import { workerCommand, workerOptions, type WorkerArgs } from './worker-command.js';
import { mergeCommand, mergeOptions, type MergeArgs } from './merge-command.js';
import { exportCommand, exportOptions, type ExportArgs } from './export-command.js';
import { reportCommand, reportOptions, type ReportArgs } from './report-command.js';
import { benchCommand, benchOptions, type BenchArgs } from './bench-command.js';
import { validateCommand, validateOptions, type ValidateArgs } from './validate-command.js';
import { packageVersion } from '../versions.js';

/** Whether the command line asks for help (--help, -h, or the help command). */
function asksForHelp(argv: readonly string[]): boolean {
  return argv.some((arg) => arg === '--help' || arg === '-h' || arg === 'help');
}

export async function main(argv: string[] = hideBin(process.argv)): Promise<number> {
  let exitCode: number = EXIT.ok;
  const cli: Argv = yargs(argv)
    .scriptName('spade-bench')
    .usage('$0 [command] [options]\n\nRuns SPADE self-play (a model designs executable environments and plays them) beside static benchmark suites, and writes a comparison report. With no key and no network it uses the built-in offline reference policy.')
    .command(
      ['run', '$0'],
      'Run self-play and the static suites, write results.json, report.html and the journal (the default command)',
      runOptions,
      async (args) => {
        exitCode = await runCommand(args as RunArgs);
      },
    )
    .command('list', 'List plugins (designers, agents, providers, sandboxes, suites) with a line of description each', (y) =>
      y.option('config', { type: 'string', describe: 'Config file (to list the plugins it loads)' }),
      async (args) => {
        exitCode = await listCommand(args as { config?: string });
      },
    )
    .command('validate <files..>', 'Run the validation gate on environment programs (.js, .mjs, .py); exit 1 when one is invalid', validateOptions, async (args) => {
      exitCode = await validateCommand(args as ValidateArgs);
    })
    .command('report <runs..>', 'Build the comparison report of one or more runs (HTML, Markdown or JSON), or publish a static site', reportOptions, async (args) => {
      exitCode = await reportCommand(args as ReportArgs);
    })
    .command('bench <run>', "Time each valid environment's reset and step in its sandbox (tinybench): what an RL trainer pays per step", benchOptions, async (args) => {
      exitCode = await benchCommand(args as BenchArgs);
    })
    .command('export <run>', 'Export a run: episodes as JSONL for RL trainers, or the valid environments as a pool of program files', exportOptions, async (args) => {
      exitCode = await exportCommand(args as unknown as ExportArgs);
    })
    .command('worker', 'Take validation and episode jobs of distributed runs from Redis (BullMQ) until stopped', workerOptions, async (args) => {
      exitCode = await workerCommand(args as unknown as WorkerArgs);
    })
    .command('merge <dirs..>', 'Combine the shards of a run (--shard i/n) into one run folder', mergeOptions, async (args) => {
      exitCode = await mergeCommand(args as unknown as MergeArgs);
    })
    .example('$0', 'the offline default: reference designer and agent, self-play + procedural suite, into runs/<time>')
    .example('$0 run --out runs/x --rounds 4 --suites spade,procedural', 'choose rounds and suites')
    .example('$0 run --agent openai:gpt-4.1-mini --suites procedural --limit 20', 'a model plays 20 static tasks')
    .strict()
    .version(packageVersion())
    .help()
    .alias('h', 'help')
    // Help is wrapped to the terminal only when it is asked for: yargs renders a command's help
    // on every run (kept in case the command fails), and wrapping it costs 30-40 ms a run never shows.
    .wrap(asksForHelp(argv) ? Math.min(110, process.stdout.columns ?? 100) : null)
    .fail((message, error) => {
      // yargs' own errors (YError: unknown option, a flag's coerce) are usage errors; others are ours.
      if (error && error.name !== 'YError') throw error;
      throw new UsageError(`${message ?? error?.message}\nRun "spade-bench --help" for usage.`);
    });
  try {
    await cli.parseAsync();
  } catch (error) {
    if (error instanceof UsageError || error instanceof RunStoppedError) {
      process.stderr.write(`spade-bench: ${error instanceof RunStoppedError ? 'stopped: ' : ''}${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
  return exitCode;
}
