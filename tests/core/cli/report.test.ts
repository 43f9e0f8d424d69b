// `spade-bench report` and `spade-bench bench` on a real run's folder.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, tempDir } from '../../helpers/cli.js';
import type { RunResults } from '../../../core/results/results.js';

const dir = tempDir();
const runA = path.join(dir, 'a');
const runB = path.join(dir, 'b');

test.before(async () => {
  const small = ['--rounds', '1', '--envs-per-round', '4', '--attempts', '1', '--limit', '6'];
  const [a, b] = await Promise.all([runCli(['run', '--out', runA, '--seed', '1', ...small]), runCli(['run', '--out', runB, '--seed', '2', ...small])]);
  assert.is(a.code, 0, a.stderr);
  assert.is(b.code, 0, b.stderr);
});

test('report: two runs side by side in one self-contained HTML file', async () => {
  const out = path.join(dir, 'both.html');
  const r = await runCli(['report', runA, runB, '-o', out]);
  assert.is(r.code, 0, r.stderr);
  const html = readFileSync(out, 'utf8');
  assert.match(html, '<svg');
  assert.not.match(html, /<script[^>]+src=|<link[^>]+href="http/);
  assert.match(html, '>a<');
  assert.match(html, '>b<');
});

test('report --format markdown and json, to a file or standard output', async () => {
  const md = await runCli(['report', runA, '--format', 'markdown', '-o', '-']);
  assert.is(md.code, 0, md.stderr);
  assert.match(md.stdout, '| spade | self-play |');
  assert.match(md.stdout, '| procedural | static |');
  const json = await runCli(['report', runA, runB, '--format', 'json', '-o', path.join(dir, 'r.json')]);
  assert.is(json.code, 0, json.stderr);
  const runs = JSON.parse(readFileSync(path.join(dir, 'r.json'), 'utf8')) as RunResults[];
  assert.equal(runs.map((r) => r.run.seed), [1, 2]);
});

test('report --publish: an index and one page per run', async () => {
  const site = path.join(dir, 'site');
  const r = await runCli(['report', runA, runB, '--publish', site]);
  assert.is(r.code, 0, r.stderr);
  for (const f of ['index.html', 'runs/a.html', 'runs/b.html', 'results.json']) assert.ok(existsSync(path.join(site, f)), f);
  assert.match(readFileSync(path.join(site, 'index.html'), 'utf8'), 'runs/a.html');
});

test('report: a folder without results, or a malformed or foreign results.json, is a usage error naming the file', async () => {
  let r = await runCli(['report', tempDir()]);
  assert.is(r.code, 2);
  assert.match(r.stderr, 'no results.json');
  const bad = path.join(tempDir(), 'results.json');
  writeFileSync(bad, '{ "schemaVersion": 1, ');
  r = await runCli(['report', bad]);
  assert.is(r.code, 2);
  assert.match(r.stderr, `${bad}: not valid JSON`);
  writeFileSync(bad, JSON.stringify({ schemaVersion: 99, run: {}, suites: [] }));
  r = await runCli(['report', bad]);
  assert.is(r.code, 2);
  assert.match(r.stderr, 'schemaVersion 99');
});

test('an output that is a folder, or a file where a folder goes: exit 2 naming it, no stack trace, no temporary file left', async () => {
  const here = tempDir();
  mkdirSync(path.join(here, 'taken'));
  writeFileSync(path.join(here, 'one.html'), 'x');
  const cases: [string[], string][] = [
    [['report', runA, '-o', 'taken'], 'cannot write taken: it is a folder, not a file'],
    [['report', runA, '--format', 'markdown', '-o', path.join('one.html', 'r.md')], 'cannot write one.html: a file stands where its path needs a folder'],
    [['report', runA, '--publish', 'one.html'], 'cannot write one.html: a file stands where its path needs a folder'],
    [['export', runA, '-o', 'taken'], 'taken: it is a folder, not a file'],
    [['export', runA, '--format', 'pool', '-o', 'one.html'], 'one.html is a file: a pool is exported into a new or empty folder'],
    [['report', runA, '-o', '/proc/self/r/report.html'], 'cannot write /proc/self/r: no folder can be made there'],
    [['run', '--out', '/proc/self/x', '--suites', 'procedural', '--limit', '1'], '/proc/self/x'],
  ];
  for (const [argv, message] of cases) {
    const r = await runCli(argv, { cwd: here });
    assert.is(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^spade-bench: (cannot (write|create output folder) |\S+ is a file)/, r.stderr);
    assert.match(r.stderr, message, r.stderr);
    assert.not.match(r.stderr, '    at ');
  }
  assert.equal(readdirSync(here).sort(), ['one.html', 'taken']);
  assert.equal(readdirSync(path.join(here, 'taken')), []);
});

test('export: episodes to standard output with "-"; its flags that do not fit the format are refused', async () => {
  const printed = await runCli(['export', runA, '-o', '-']);
  assert.is(printed.code, 0, printed.stderr);
  const lines = printed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { suite: string });
  assert.ok(lines.length > 0 && lines.every((l) => typeof l.suite === 'string'));
  assert.match(printed.stderr, `${lines.length} episodes written to standard output`);
  assert.not.ok(existsSync(path.join(repoRoot, '-')), 'no file named "-" where the command ran');
  for (const [argv, message] of [
    [['export', runA, '--format', 'pool', '-o', '-'], '--format pool writes a folder'],
    [['export', runA, '--suites', 'procedural', '-o', path.join(dir, 'e.jsonl')], '--suites chooses the suites of --format pool'],
  ] as [string[], string][]) {
    const r = await runCli(argv);
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
  }
});

test('bench: reset and step cost of every valid environment', async () => {
  const r = await runCli(['bench', runA, '--json', '--time', '20']);
  assert.is(r.code, 0, r.stderr);
  const costs = JSON.parse(r.stdout) as { suite: string; id: string; resetUs: number; stepUs: number; samples: number }[];
  const results = JSON.parse(readFileSync(path.join(runA, 'results.json'), 'utf8')) as RunResults;
  const valid = results.suites.flatMap((s) => s.environments.filter((e) => e.verdict !== 'invalid').map((e) => `${s.id}/${e.id}`));
  assert.equal(costs.map((c) => `${c.suite}/${c.id}`), valid);
  for (const c of costs) {
    assert.ok(Number.isFinite(c.resetUs) && c.resetUs > 0, `${c.id} reset measured`);
    assert.ok(Number.isFinite(c.stepUs) && c.stepUs > 0, `${c.id} step measured`);
    assert.ok(c.samples > 0);
  }
});

test('bench: an environment that does not load is reported and the rest are timed; bad numbers and a stopped run are usage errors', async () => {
  const copy = path.join(tempDir(), 'copy');
  mkdirSync(copy);
  const results = JSON.parse(readFileSync(path.join(runA, 'results.json'), 'utf8')) as RunResults;
  const valid = results.suites.flatMap((s) => s.environments.filter((e) => e.verdict !== 'invalid'));
  const broken = valid[0]!;
  broken.source = 'export default class {';
  writeFileSync(path.join(copy, 'results.json'), JSON.stringify(results));
  const r = await runCli(['bench', copy, '--time', '10']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`${broken.id}\\s.*not timed: `));
  assert.match(r.stdout, /: \d+ environments timed, step p50 [\d.]+ µs, p95 [\d.]+ µs; 1 not timed \(above\)/);
  for (const [argv, message] of [
    [['bench', runA, '--limit', '-1'], '--limit: expected a positive integer, got -1'],
    [['bench', runA, '--time', '0'], '--time: expected a positive number of milliseconds, got 0'],
  ] as [string[], string][]) {
    const bad = await runCli(argv);
    assert.is(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, message);
  }
  // A run stopped before its results (its journal only) is told how to finish.
  const stopped = path.join(tempDir(), 'stopped');
  mkdirSync(stopped);
  writeFileSync(path.join(stopped, 'journal.jsonl'), readFileSync(path.join(runA, 'journal.jsonl')));
  const told = await runCli(['bench', stopped]);
  assert.is(told.code, 2);
  assert.match(told.stderr, `${stopped}: no results.json yet: the run stopped before writing it; spade-bench run --out ${stopped} --resume finishes it`);
});

test.run();
