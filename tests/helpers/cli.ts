/**
 * Run the real `spade-bench` command line (from source) in a child process.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(repoRoot, 'core/cli/bin.ts');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Folders made by tempDir(), removed when the test file's process exits (each file runs in its own). */
const madeDirs = new Set<string>();
process.on('exit', () => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix = 'spade-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  madeDirs.add(dir);
  return dir;
}

export function startCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', import.meta.resolve('tsx'), bin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, FORCE_COLOR: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/** The npm packages a fresh process has loaded (as CommonJS) after importing `entry` (a path from the repository root). */
export function packagesLoadedBy(entry: string): string[] {
  const code = `await import(${JSON.stringify(entry)}); const M = (await import('node:module')).default;
    const names = new Set(Object.keys(M._cache).map((f) => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean));
    console.log(JSON.stringify([...names]));`;
  const child = spawnSync(process.execPath, ['--no-node-snapshot', '--import', 'tsx', '--input-type=module', '-e', code], { cwd: repoRoot, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`importing ${entry} failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as string[];
}
