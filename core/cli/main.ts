/**
 * The `spade-bench` command line: its commands, declared to the command layer (./commands.ts),
 * and the exit code of the one the command line names.
 */
import { format } from 'node:util';
import { EXIT, RunFailedError, RunStoppedError, UsageError } from '../errors.js';
import { parseCommandLine, type ProgramSpec } from './commands.js';
import { runCommand, runEpilogue, runOptions, type RunArgs } from './run-command.js';
import { listCommand } from './list-command.js';
import { workerCommand, workerOptions, type WorkerArgs } from './worker-command.js';
import { mergeCommand, mergeOptions, mergePositionals, type MergeArgs } from './merge-command.js';
import { exportCommand, exportOptions, exportPositionals, type ExportArgs } from './export-command.js';
import { reportCommand, reportOptions, reportPositionals, type ReportArgs } from './report-command.js';
import { benchCommand, benchOptions, benchPositionals, type BenchArgs } from './bench-command.js';
import { validateCommand, validateOptions, validatePositionals, type ValidateArgs } from './validate-command.js';
import { tableCommand, tableOptions, tablePositionals, type TableArgs } from './table-command.js';
import { packageVersion } from '../results/versions.js';
import { RENAMED_FLAGS, RENAMED_WORKER_FLAGS } from '../config/options.js';

/**
 * For a command that starts sandboxes and has no stop of its own (validate, bench): a signal ends
 * it through process.exit, with the signal's exit code, so that the 'exit' handlers run (the
 * cpython sandbox's removes its channel folders from /dev/shm). A death by a signal's default
 * action runs none, and left a folder behind on every Ctrl-C.
 */
function exitOnSignals(): void {
  process.once('SIGINT', () => process.exit(EXIT.sigint));
  process.once('SIGTERM', () => process.exit(EXIT.sigterm));
  process.once('SIGHUP', () => process.exit(129));
}

export const PROGRAM: ProgramSpec = {
  name: 'spade-bench',
  describe: 'Runs SPADE self-play (a model designs executable environments and plays them) beside static benchmark suites, and writes a comparison report. With no key and no network it uses the built-in offline reference policy.',
  version: packageVersion,
  commands: [
    {
      name: 'run',
      isDefault: true,
      describe: 'Run self-play and the static suites, write results.json, report.html and the journal (the default command)',
      options: runOptions(),
      epilogue: runEpilogue(),
      renamed: RENAMED_FLAGS,
      run: (args) => runCommand(args as RunArgs),
    },
    {
      name: 'list',
      describe: 'List plugins (designers, agents, providers, sandboxes, suites) with a line of description each',
      options: { config: { type: 'string', arg: 'FILE', describe: 'Config file (to list the plugins it loads)' } },
      run: (args) => listCommand(args as { config?: string }),
    },
    {
      name: 'validate',
      describe: 'Run the validation gate on environment programs (.js, .mjs, .py); exit 1 when one is invalid',
      positionals: validatePositionals,
      options: validateOptions,
      run: (args) => (exitOnSignals(), validateCommand(args as ValidateArgs)),
    },
    {
      name: 'report',
      describe: 'Build the comparison report of one or more runs (HTML, Markdown or JSON), or publish a static site',
      positionals: reportPositionals,
      options: reportOptions,
      run: (args) => reportCommand(args as ReportArgs),
    },
    {
      name: 'table',
      describe: "Print the paper's table (RQ1: AIME, GPQA-Diamond, LiveCodeBench, Reasoning-Gym) of one or more runs, one row each, with 95% intervals",
      positionals: tablePositionals,
      options: tableOptions,
      run: (args) => tableCommand(args as TableArgs),
    },
    {
      name: 'bench',
      describe: "Time each valid environment's reset and step in its sandbox (tinybench): what an RL trainer pays per step",
      positionals: benchPositionals,
      options: benchOptions,
      run: (args) => (exitOnSignals(), benchCommand(args as BenchArgs)),
    },
    {
      name: 'export',
      describe: 'Export a run: episodes as JSONL for RL trainers, or the environments it played (none rejected) as a pool of program files',
      positionals: exportPositionals,
      options: exportOptions,
      run: (args) => exportCommand(args as unknown as ExportArgs),
    },
    {
      name: 'worker',
      describe: 'Take validation and episode jobs of distributed runs from Redis (BullMQ) until stopped',
      options: workerOptions,
      renamed: RENAMED_WORKER_FLAGS,
      run: (args) => workerCommand(args as WorkerArgs),
    },
    {
      name: 'merge',
      describe: 'Combine the shards of a run (--shard i/n) into one run folder',
      positionals: mergePositionals,
      options: mergeOptions,
      run: (args) => mergeCommand(args as MergeArgs),
    },
  ],
  examples: [
    ['$0', 'the offline default: reference designer and agent, self-play + procedural suite, into runs/<time>'],
    ['$0 --rounds 4 --suites spade,gsm8k', 'choose rounds and suites'],
    ['$0 --agent openai:gpt-4.1-mini', 'a model plays (OPENAI_API_KEY set); the designer stays the reference policy'],
    ['$0 report runs/a runs/b', 'one report comparing two runs'],
  ],
};

/**
 * Output piped into a reader that stops early (`spade-bench list | head -1`) ends the command
 * quietly, as other command-line tools do: a closed pipe is not an error of ours.
 */
function endQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listeners('error').includes(onPipeError)) continue;
    stream.on('error', onPipeError);
  }
}

function onPipeError(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(EXIT.ok);
  throw error;
}

/** What the file system refused, in words, for a path the user gave (an output that is a folder, a file in a folder's place). */
const FILE_PROBLEMS: Record<string, string> = {
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a file stands where its path needs a folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
};

/** The line for a file system error on a path, or undefined for any other error (then a bug, with its stack). */
function fileProblem(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const e = error as NodeJS.ErrnoException & { dest?: string };
  // A folder the system will not make where its parent exists (under /proc) fails with ENOENT.
  const problem = e.code === 'ENOENT' && e.syscall === 'mkdir' ? 'no folder can be made there' : e.code ? FILE_PROBLEMS[e.code] : undefined;
  const file = e.dest ?? e.path;
  if (!problem || !file) return undefined;
  const verb = e.syscall === 'open' ? 'open' : e.syscall === 'rename' || e.syscall === 'mkdir' || e.syscall === 'write' ? 'write' : 'use';
  return `cannot ${verb} ${file}: ${problem}`;
}

/**
 * A library's warning repeated on every call (the Anthropic SDK warns of a deprecated model at
 * each request) is printed once: thousands of copies would bury the run's own output.
 */
function warnOnce(): void {
  if ((console.warn as { once?: boolean }).once) return;
  const warn = console.warn.bind(console);
  const seen = new Set<string>();
  console.warn = Object.assign((...args: unknown[]) => {
    const text = format(...args);
    if (seen.has(text)) return;
    seen.add(text);
    warn(...args);
  }, { once: true });
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  endQuietlyOnClosedPipe();
  warnOnce();
  try {
    const invocation = parseCommandLine(PROGRAM, argv, Math.min(110, process.stdout.columns ?? 100));
    if (invocation.kind === 'output') {
      process.stdout.write(invocation.text);
      return EXIT.ok;
    }
    return await invocation.command.run(invocation.args);
  } catch (error) {
    if (error instanceof UsageError || error instanceof RunStoppedError || error instanceof RunFailedError) {
      const prefix = error instanceof RunStoppedError ? 'stopped: ' : error instanceof RunFailedError ? 'failed: ' : '';
      process.stderr.write(`spade-bench: ${prefix}${error.message}\n`);
      return error.exitCode;
    }
    const problem = fileProblem(error);
    if (problem) {
      process.stderr.write(`spade-bench: ${problem}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
