#!/usr/bin/env node
// The test command (`npm test`): runs every tests/**/*.test.ts file with uvu, each in its own
// Node process (a test that crashes its process cannot take the others down), as many at once
// as there are cores, and ends with one plain line: `N passed, M failed, K skipped`. The tests see
// none of the user's own settings: each file gets a cache folder of its own (XDG_CACHE_HOME),
// removed at the end, so no test reads a reply, verdict or dataset cached by an earlier run or by
// another file (and the user's ~/.cache stays untouched); and the user's API keys, base URLs,
// Hugging Face token and SPADE_BENCH_* settings are left out, so no test reaches a real model
// with a real key or runs differently on a machine that has them.
// Usage: node tests/run.mjs [substring ...]   (only files whose path contains a substring)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const filters = process.argv.slice(2);

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === 'fixtures' || name === 'artifacts' ? [] : find(file);
    return name.endsWith('.test.ts') ? [file] : [];
  });
}

const files = find(path.join(root, 'tests'))
  .map((f) => path.relative(root, f))
  .filter((f) => !filters.length || filters.some((s) => f.includes(s)))
  .sort();

const USER_SETTING = /^(OPENAI|ANTHROPIC|OLLAMA|VLLM|HF|HUGGING_FACE|SPADE_BENCH)_|_API_KEY$|_BASE_URL$/;
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !USER_SETTING.test(name)));

const caches = mkdtempSync(path.join(os.tmpdir(), 'spade-test-caches-'));
process.on('exit', () => rmSync(caches, { recursive: true, force: true }));

const strip = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');
const count = (text, label) => {
  const m = strip(text).match(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm'));
  return m ? Number(m[1]) : undefined;
};

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', file], {
      cwd: root,
      env: { ...baseEnv, FORCE_COLOR: '0', XDG_CACHE_HOME: mkdtempSync(path.join(caches, 'file-')) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code, signal) => {
      const total = count(out, 'Total');
      const passed = count(out, 'Passed');
      const skipped = count(out, 'Skipped') ?? 0;
      let failed = total !== undefined && passed !== undefined ? total - passed : 0;
      // A file that died, or failed without uvu's summary, counts as one failure.
      if ((code !== 0 || signal) && failed === 0) failed = 1;
      resolve({ file, out, passed: passed ?? 0, failed, skipped, seconds: (Date.now() - started) / 1000, code, signal });
    });
  });
}

const results = [];
let next = 0;
const lanes = Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, files.length));
await Promise.all(
  Array.from({ length: lanes }, async () => {
    while (next < files.length) {
      const r = await runFile(files[next++]);
      results.push(r);
      const status = r.failed ? 'FAIL' : 'ok  ';
      process.stdout.write(`${status} ${r.file} (${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped, ${r.seconds.toFixed(1)} s)\n`);
      const body = strip(r.out).trim();
      const notes = body.split("\n").filter((l) => /skipped:\s+[^\d\s]/i.test(l));
      if (r.failed) process.stdout.write(`${body.replace(/^/gm, '    ')}\n${r.signal ? `    (killed by ${r.signal})\n` : ''}`);
      else for (const n of notes) process.stdout.write(`    ${n.trim()}\n`);
    }
  }),
);

const sum = (k) => results.reduce((n, r) => n + r[k], 0);
if (!files.length) process.stdout.write('no test files matched\n');
process.stdout.write(`${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped\n`);
process.exitCode = sum('failed') > 0 || !files.length ? 1 : 0;
