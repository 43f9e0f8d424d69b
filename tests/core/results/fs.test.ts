// File helpers: the cache logs' batched appends (a turn's lines written together as it ends,
// nothing left unwritten at exit, a log that cannot be written only drops its lines).
import { spawnSync } from 'node:child_process';
import { existsSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AtomicFile, CacheLog, flushCacheLogs, makeFolder } from '../../../core/results/fs.js';
import { repoRoot, tempDir } from '../../helpers/cli.js';

test('makeFolder makes the missing folders above; where none can be made it fails at once, never loops', () => {
  const dir = tempDir();
  makeFolder(path.join(dir, 'a', 'b', 'c'));
  assert.ok(statSync(path.join(dir, 'a', 'b', 'c')).isDirectory());
  makeFolder(path.join(dir, 'a', 'b'));
  writeFileSync(path.join(dir, 'file'), 'x');
  assert.throws(() => makeFolder(path.join(dir, 'file', 'sub')), (e: NodeJS.ErrnoException) => e.code === 'ENOTDIR');
  // Node's recursive mkdir spins forever here (mkdir fails with ENOENT under /proc/self, which exists).
  if (existsSync('/proc/self')) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { makeFolder } from ${JSON.stringify(path.join(repoRoot, 'core/results/fs.ts'))}; try { makeFolder('/proc/self/x/y'); } catch (e) { console.log(e.code); }`], { cwd: repoRoot, encoding: 'utf8', timeout: 30_000 });
    assert.is(child.stdout.trim(), 'ENOENT', child.stderr);
  }
});

test("a turn's lines go out together when the turn ends, whole and in order", async () => {
  const file = path.join(tempDir(), 'log.jsonl');
  let opened = 0;
  const log = new CacheLog(() => {
    opened++;
    return openSync(file, 'a');
  });
  for (let i = 0; i < 100; i++) log.add(JSON.stringify({ i }));
  assert.is(opened, 0, 'nothing is written before the turn ends');
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(opened, 1);
  const lines = readFileSync(file, 'utf8').split('\n');
  assert.is(lines.pop(), '');
  assert.equal(lines.map((l) => (JSON.parse(l) as { i: number }).i), Array.from({ length: 100 }, (_, i) => i));
  log.add('"next turn"');
  flushCacheLogs();
  assert.ok(readFileSync(file, 'utf8').endsWith('}\n"next turn"\n'));
});

test('an atomic file is its pieces in order, small or large, any characters, and appears whole at commit', () => {
  const dir = tempDir();
  const file = path.join(dir, 'out.txt');
  const out = new AtomicFile(file);
  const pieces = ['{"a": "é’✓ 😀"}\n', 'x'.repeat(30_000), '’'.repeat(21_000), 'tail', '😀'.repeat(40_000), ''];
  for (let i = 0; i < 500; i++) pieces.push(`line ${i} — ’\n`);
  for (const piece of pieces) out.write(piece);
  assert.not.ok(existsSync(file), 'nothing under its name before commit');
  out.commit();
  assert.is(readFileSync(file, 'utf8'), pieces.join(''));
  assert.equal(readdirSync(dir), ['out.txt'], 'no temporary file left');
});

test("a turn's lines of any length and characters are written whole, in order, whatever the buffer holds", async () => {
  const file = path.join(tempDir(), 'long.jsonl');
  const log = new CacheLog(() => openSync(file, 'a'));
  const lines = ['first', '’'.repeat(30_000), 'x'.repeat(70_000), ...Array.from({ length: 3000 }, (_, i) => `{"i":${i},"t":"é ✓ 😀 ${'y'.repeat(i % 50)}"}`), '😀'.repeat(21_845), 'last'];
  for (const line of lines) log.add(line);
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(readFileSync(file, 'utf8'), `${lines.join('\n')}\n`);
});

test('lines added just before the process exits are written', () => {
  const file = path.join(tempDir(), 'exit.jsonl');
  const code = `
    import { openSync } from 'node:fs';
    import { CacheLog } from ${JSON.stringify(path.join(repoRoot, 'core/results/fs.ts'))};
    const log = new CacheLog(() => openSync(${JSON.stringify(file)}, 'a'));
    for (let i = 0; i < 3; i++) log.add('line ' + i);
    process.exit(0);`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: repoRoot, encoding: 'utf8' });
  assert.is(child.status, 0, child.stderr);
  assert.is(readFileSync(file, 'utf8'), 'line 0\nline 1\nline 2\n');
});

test('a log that cannot be opened drops its lines without throwing', async () => {
  let tries = 0;
  const log = new CacheLog(() => {
    tries++;
    throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
  });
  log.add('a');
  await new Promise((resolve) => setImmediate(resolve));
  log.add('b');
  flushCacheLogs();
  assert.is(tries, 1, 'given up after the first failure');
});

test.run();
