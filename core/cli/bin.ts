#!/usr/bin/env -S node --no-node-snapshot
/**
 * Entry point of `npx spade-bench`. isolated-vm asks for Node to be started with
 * --no-node-snapshot (its README, for Node 20 and later). The first line passes it (`env -S`
 * splits the line: GNU coreutils 8.30 and later, macOS, the BSDs; npm's Windows shims read it
 * too). Started without it (`node bin.js`, or an `env` without -S), the command starts Node again
 * with it, keeping the flags Node was given.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

if (process.execArgv.includes('--no-node-snapshot')) {
  const { main } = await import('./main.js');
  process.exitCode = await main();
} else {
  const child = spawn(process.execPath, ['--no-node-snapshot', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // The terminal's Ctrl-C reaches both processes; a SIGTERM sent to this one is passed on.
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGINT', () => {});
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1)));
}
