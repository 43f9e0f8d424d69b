#!/usr/bin/env -S node --no-node-snapshot --max-semi-space-size=4
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
 */
import { fileURLToPath } from 'node:url';

if (!process.execArgv.includes('--no-node-snapshot')) {
  // Imported here only: node:child_process brings the net and stream modules, start-up time a run started with the flag does not spend.
  const { spawn } = await import('node:child_process');
  const flags = process.execArgv.some((flag) => flag.startsWith('--max-semi-space-size')) ? [] : ['--max-semi-space-size=4'];
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
