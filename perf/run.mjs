#!/usr/bin/env node
// `npm run bench [-- substring...]`: runs every perf/*.bench.ts (tinybench) one after another,
// each in its own Node process, and prints their tables. A substring picks files by name.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts') && (!filters.length || filters.some((s) => f.includes(s))))
  .sort();
let failed = 0;
for (const file of files) {
  process.stdout.write(`\n=== ${file} ===\n`);
  const r = spawnSync(process.execPath, ['--no-node-snapshot', '--import', 'tsx', path.join(here, file)], { stdio: 'inherit', cwd: path.dirname(here) });
  if (r.status !== 0) failed++;
}
if (failed) {
  process.stdout.write(`\n${failed} benchmark file(s) failed\n`);
  process.exitCode = 1;
}
