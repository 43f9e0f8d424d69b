#!/usr/bin/env -S node --no-node-snapshot --max-semi-space-size=4 --v8-pool-size=0 --no-sparkplug
/**
 * Entry point of `npx spade-bench`. isolated-vm needs Node started with --no-node-snapshot
 * (its README). The first line starts this file with it (env -S splits the line: GNU coreutils
 * 8.30 and later, macOS, the BSDs; npm's Windows shims read it too), so the command is one
 * process. Started without it (`node bin.js`, or an `env` without -S such as BusyBox's, where
 * `node --no-node-snapshot .../bin.js` is the way), we run ourselves again with it.
 *
 * --max-semi-space-size=4 caps V8's young generation at 3 x 4 MiB instead of letting it grow to
 * 3 x 16: a run allocates many short-lived objects (observations, journal lines, metrics'
 * features), and the larger nursery held ~25 MiB more memory at its peak for no speed measured
 * (GSM8K with an instant model, the offline default: npm run bench).
 *
 * --v8-pool-size=0 sizes V8's pool of background threads (compiling, collecting garbage) to the
 * machine: one fewer than the cores Node sees, at least one (Node's default is four on any
 * machine), as --workers follows the cores. On two cores, four background threads took turns
 * with the run's own thread: GSM8K's first run took ~20% less wall time and ~9 MiB less memory
 * with one (8 alternating runs each). On six cores or more it gives V8 more threads than the
 * default, which the worker threads share; each costs some memory (README: V8's background
 * threads).
 *
 * --no-sparkplug leaves out V8's baseline compiler: functions run in the interpreter until they
 * are hot enough for the optimising compiler. A run executes much code a few times (start-up, the
 * gate's and the report's code), and compiling it to baseline code cost more than it gave back:
 * GSM8K's first run took ~4.5% less wall time and ~15% less CPU, and ~3 MiB less memory (12
 * alternating runs each); the offline default 2.71 -> 2.69 s and 186 -> 177 MiB (14 runs each).
 *
 * These flags follow the first line's, so they win over NODE_OPTIONS; to choose others, start
 * node with them (`node --no-node-snapshot --max-semi-space-size=4 --v8-pool-size=2 --sparkplug
 * .../bin.js run`), or without --no-node-snapshot: the restart then adds only the flags whose
 * setting (or its opposite) was not given.
 */
import { fileURLToPath } from 'node:url';

/** The first line's flags after --no-node-snapshot, for a start without them (each unless node was given it, or its opposite). */
const RESTART_FLAGS = ['--max-semi-space-size=4', '--v8-pool-size=0', '--no-sparkplug'];

/** A flag's name without its value or a leading `no-`: --v8-pool-size=2 and --sparkplug name what --v8-pool-size=0 and --no-sparkplug do. */
const flagName = (flag: string): string => flag.split('=')[0]!.replace(/^--no-/, '--');

if (!process.execArgv.includes('--no-node-snapshot')) {
  // Imported here only: node:child_process brings the net and stream modules, start-up time a run started with the flag does not spend.
  const { spawn } = await import('node:child_process');
  const flags = RESTART_FLAGS.filter((flag) => !process.execArgv.some((given) => flagName(given) === flagName(flag)));
  const child = spawn(process.execPath, ['--no-node-snapshot', ...flags, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  // The terminal's Ctrl-C reaches both processes; a SIGTERM sent to us is passed on.
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGTERM', forward);
  process.on('SIGINT', () => {});
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1)));
} else {
  const { main } = await import('./main.js');
  process.exitCode = await main();
}
