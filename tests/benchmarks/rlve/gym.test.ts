// RLVE's Gym as data: the archive format (read what GNU tar writes, write what it reads), git's
// ids as the check of a copy, the shared copy accepted as a cache, a download of GitHub's
// archive of the commit from a local server (only Gym/ and LICENSE kept), tampering refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DataError, UsageError } from '../../../core/errors.js';
import { sha256 } from '../../../benchmarks/download.js';
import { blobId, treeId, type TreeFile } from '../../../benchmarks/rlve/git-tree.js';
import { readTarGz, writeTarGz } from '../../../benchmarks/rlve/tar.js';
import { GYM_ARCHIVE, GYM_TREE_ID, HELDOUT_FILE, LICENSE_BLOB_ID, RLVE_COMMIT, ensureGymArchive, loadGym } from '../../../benchmarks/rlve/gym.js';
import { repoRoot } from '../../helpers/cli.js';
import { startFileServer, type FileServer } from '../file-server.js';

const shared = path.resolve(repoRoot, '../shared/datasets');
const sharedArchive = path.join(shared, 'rlve', GYM_ARCHIVE.fileName);

async function entries(archive: Buffer | string): Promise<Map<string, Buffer>> {
  const source = typeof archive === 'string' ? createReadStream(archive) : Readable.from([archive]);
  const files = new Map<string, Buffer>();
  for await (const entry of readTarGz(source, () => true)) if (entry.data) files.set(entry.path, entry.data);
  return files;
}

/** The error `run` rejects with (failing the test when it resolves). */
async function rejection(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new assert.Assertion({ message: 'expected a rejection' } as never);
}

let gymFiles: TreeFile[];
let license: Buffer;
let server: FileServer;
let cache: string;

test.before(async () => {
  const all = await entries(sharedArchive);
  gymFiles = [...all].filter(([p]) => p.startsWith('RLVE/Gym/')).map(([p, data]) => ({ path: p.slice('RLVE/Gym/'.length), data }));
  license = all.get('RLVE/LICENSE')!;
  // GitHub's archive of a commit: every file of the repository under RLVE-<commit>/, Gym/ among them.
  const top = `RLVE-${RLVE_COMMIT}`;
  const github = writeTarGz([
    ...gymFiles.map((f) => ({ path: `${top}/Gym/${f.path}`, data: f.data })),
    { path: `${top}/LICENSE`, data: license },
    { path: `${top}/README.md`, data: Buffer.from('# RLVE\n') },
    { path: `${top}/data/DeepMath-103K.json`, data: Buffer.alloc(3 << 20, 0x61) },
  ]);
  const tampered = writeTarGz([
    ...gymFiles.map((f) => ({ path: `${top}/Gym/${f.path}`, data: f.path === 'environments/sorting/environment.py' ? Buffer.concat([f.data, Buffer.from('\nimport os\n')]) : f.data })),
    { path: `${top}/LICENSE`, data: license },
  ]);
  server = await startFileServer({
    '/archive.tar.gz': github,
    '/tampered.tar.gz': tampered,
    '/test.json': readFileSync(path.join(shared, 'rlve', 'test.json')),
    '/not-gzip.tar.gz': 'hello',
  });
});
test.after(() => server.close());
test.before.each(() => {
  cache = mkdtempSync(path.join(os.tmpdir(), 'spade-rlve-cache-'));
});
test.after.each(() => rmSync(cache, { recursive: true, force: true }));

test("the shared copy is RLVE's Gym and LICENSE at the pinned commit, by git's own ids", () => {
  assert.is(gymFiles.length, 1601);
  assert.is(treeId(gymFiles), GYM_TREE_ID);
  assert.is(blobId(license), LICENSE_BLOB_ID);
  // One changed byte changes the tree id.
  const changed = gymFiles.map((f, i) => (i === 10 ? { ...f, data: Buffer.concat([f.data, Buffer.from(' ')]) } : f));
  assert.is.not(treeId(changed), GYM_TREE_ID);
  assert.is(sha256(readFileSync(path.join(shared, 'rlve', 'test.json'))), HELDOUT_FILE.sha256);
});

test('blob and tree ids are git\'s (checked against git hash-object and write-tree)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spade-git-'));
  try {
    const files: TreeFile[] = [
      { path: 'a.py', data: Buffer.from('print(1)\n') },
      { path: 'a/b.py', data: Buffer.from('') },
      { path: 'a-b/c.txt', data: Buffer.from('x') },
      { path: 'run.sh', data: Buffer.from('#!/bin/sh\n'), executable: true },
    ];
    for (const f of files) {
      mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
      writeFileSync(path.join(dir, f.path), f.data, { mode: f.executable ? 0o755 : 0o644 });
    }
    const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, encoding: 'utf8' }).stdout.trim();
    git('init', '-q', '.');
    git('add', '-A');
    assert.is(treeId(files), git('write-tree'));
    assert.is(blobId(files[0]!.data), git('hash-object', 'a.py'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reads what GNU tar writes (pax headers, long names) and GNU tar reads what it writes', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spade-tar-'));
  try {
    const long = `${'deep/'.repeat(30)}${'n'.repeat(120)}.py`;
    mkdirSync(path.join(dir, 'src', path.dirname(long)), { recursive: true });
    writeFileSync(path.join(dir, 'src', long), 'long\n');
    writeFileSync(path.join(dir, 'src', 'short.txt'), 'short\n');
    for (const format of ['pax', 'gnu']) {
      const archive = path.join(dir, `${format}.tar.gz`);
      assert.is(spawnSync('tar', [`--format=${format}`, '-czf', archive, '-C', path.join(dir, 'src'), '.']).status, 0);
      const read = await entries(archive);
      assert.is(read.get(`./${long}`)?.toString(), 'long\n', format);
      assert.is(read.get('./short.txt')?.toString(), 'short\n', format);
    }
    const ours = path.join(dir, 'ours.tar.gz');
    const name = `RLVE/Gym/${'x'.repeat(90)}/${'y'.repeat(90)}.py`;
    writeFileSync(ours, writeTarGz([{ path: name, data: Buffer.from('ok\n') }, { path: 'RLVE/LICENSE', data: Buffer.from('MIT\n') }]));
    const listing = spawnSync('tar', ['-tzf', ours], { encoding: 'utf8' });
    assert.is(listing.status, 0, listing.stderr);
    assert.ok(listing.stdout.split('\n').includes(name), listing.stdout);
    assert.is(spawnSync('tar', ['-xzf', ours, '-O', name], { encoding: 'utf8' }).stdout, 'ok\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the shared folder is a ready cache: --data-dir ../shared/datasets reads it offline', async () => {
  assert.is(await ensureGymArchive({ dataDir: shared, offline: true }), sharedArchive);
  const gym = await loadGym({ dataDir: shared, offline: true });
  assert.ok(gym.source('environment.py')!.includes('class VerifiableEnvironment'));
  assert.ok(existsSync(path.join(gym.root, 'Gym', 'environments', 'sorting', 'environment.py')));
  assert.ok(existsSync(path.join(gym.root, 'torch', '__init__.py')), 'a torch stand-in beside Gym/');
  assert.ok(existsSync(path.join(gym.root, 'LICENSE')));
  // Readable by every user: the jail runs programs as uid 65534.
  assert.is(statSync(gym.root).mode & 0o005, 0o005);
  assert.is(statSync(path.join(gym.root, 'Gym', 'environment.py')).mode & 0o004, 0o004);
});

test('downloads GitHub\'s archive of the commit once, keeps only Gym/ and LICENSE, then works offline', async () => {
  const url = `${server.url}/archive.tar.gz`;
  const before = server.requests.length;
  const local = await ensureGymArchive({ dataDir: cache, gymUrl: url, offline: false });
  assert.is(local, path.join(cache, 'rlve', GYM_ARCHIVE.fileName));
  assert.is(server.requests.length, before + 1);
  const kept = await entries(local);
  assert.is(kept.size, 1602);
  assert.ok(kept.has('RLVE/LICENSE') && !kept.has(`RLVE/README.md`) && ![...kept.keys()].some((p) => p.includes('DeepMath')));
  assert.ok(statSync(local).size < 1 << 20, 'the 3 MiB of other data is not cached');
  const gym = await loadGym({ dataDir: cache, offline: true });
  assert.is(gym.files().length, 1601);
  assert.is(await ensureGymArchive({ dataDir: cache, gymUrl: url, offline: false }), local);
  assert.is(server.requests.length, before + 1);
});

test('an archive whose Gym/ is not the pinned commit\'s is refused, and nothing is cached', async () => {
  try {
    await ensureGymArchive({ dataDir: cache, gymUrl: `${server.url}/tampered.tar.gz`, offline: false });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, DataError);
    assert.match((error as Error).message, new RegExp(`not RLVE's at commit ${RLVE_COMMIT}.*expected ${GYM_TREE_ID}.*nothing was written`));
  }
  assert.not.ok(existsSync(path.join(cache, 'rlve', GYM_ARCHIVE.fileName)));
  assert.match((await rejection(() => ensureGymArchive({ dataDir: cache, gymUrl: `${server.url}/not-gzip.tar.gz`, offline: false }))).message, /not a readable gzipped tar archive/);
  assert.match((await rejection(() => ensureGymArchive({ dataDir: cache, gymUrl: `${server.url}/missing.tar.gz`, offline: false }))).message, /HTTP 404/);
});

test('a damaged cached copy is refused with the way out; offline, a missing one names what to do', async () => {
  mkdirSync(path.join(cache, 'rlve'));
  writeFileSync(path.join(cache, 'rlve', GYM_ARCHIVE.fileName), writeTarGz([...gymFiles.slice(1).map((f) => ({ path: `RLVE/Gym/${f.path}`, data: f.data })), { path: 'RLVE/LICENSE', data: license }]));
  const damaged = await rejection(() => loadGym({ dataDir: cache, offline: true }));
  assert.instance(damaged, DataError);
  assert.match(damaged.message, /delete it to download it again/);
  const empty = path.join(cache, 'empty');
  try {
    await ensureGymArchive({ dataDir: empty, offline: true });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, UsageError);
    assert.match((error as Error).message, /offline mode.*RLVE-Gym-73cccd97\.tar\.gz is missing.*--data-dir/);
  }
});

test('a copy the jail could not read is refused with the fix (the jail runs programs as uid 65534)', async () => {
  if (process.getuid?.() !== 0) return; // only a root host starts the jail as another user
  const closed = path.join(cache, 'closed');
  mkdirSync(closed, { mode: 0o700 });
  const error = await rejection(() => loadGym({ dataDir: shared, offline: true, extractDir: closed }));
  assert.instance(error, UsageError);
  assert.match(error.message, /which the Python sandbox cannot read: .* is not searchable by other users \(mode 700\).*uid 65534.*set TMPDIR/);
});

test.run();
