/**
 * Benchmarks that run the spade-bench command as users do (the built bin, `dist/`) build it
 * first when a source file is newer than the build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function newest(dir: string): number {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) time = Math.max(time, newest(full));
    else if (/\.(ts|py)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) time = Math.max(time, statSync(full).mtimeMs);
  }
  return time;
}

/** Build `root` (npm run build) when dist/ is missing or older than its sources. */
export function ensureBuilt(root: string): void {
  const bin = path.join(root, 'dist', 'core', 'cli', 'bin.js');
  const sources = Math.max(statSync(path.join(root, 'index.ts')).mtimeMs, ...['api', 'core', 'plugins', 'benchmarks', 'reports'].map((d) => newest(path.join(root, d))));
  if (existsSync(bin) && statSync(bin).mtimeMs >= sources) return;
  console.log('building spade-bench (npm run build): the sources are newer than dist/...');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}
