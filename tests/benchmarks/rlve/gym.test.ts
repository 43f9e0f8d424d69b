// RLVE's Gym as data: git's ids as the check of a copy, the shared copy accepted as a cache, a
// download of the commit's archive as `git archive` writes it, from a local server (only Gym/
// and LICENSE kept), tampering refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { create as createTar, list as listTar, type ReadEntry } from 'tar';
import { DataError, UsageError } from '../../../core/errors.js';
import { sha256 } from '../../../benchmarks/download.js';
import { blobId, treeId, type TreeFile } from '../../../benchmarks/rlve/git-tree.js';
import { GYM_ARCHIVE, GYM_TREE_ID, HELDOUT_FILE, LICENSE_BLOB_ID, RLVE_COMMIT, ensureGymArchive, loadGym } from '../../../benchmarks/rlve/gym.js';
import { repoRoot } from '../../helpers/cli.js';
import { startFileServer, type FileServer } from '../file-server.js';

const shared = path.resolve(repoRoot, '../shared/datasets');
const sharedArchive = path.join(shared, 'rlve', GYM_ARCHIVE.fileName);

/** The files of a gzipped tar archive, by path. */
async function entries(archive: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const reads: Promise<unknown>[] = [];
  const onReadEntry = (entry: ReadEntry): void => {
    if (entry.type === 'File') reads.push(entry.concat().then((data) => files.set(entry.path, data)));
  };
  await listTar({ file: archive, onReadEntry });
  await Promise.all(reads);
  return files;
}

/** A folder holding these files (`/`-separated paths), made for the test. */
function folderOf(files: readonly { path: string; data: Buffer }[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spade-rlve-files-'));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(dir, file.path)), { recursive: true });
    writeFileSync(path.join(dir, file.path), file.data);
  }
  return dir;
}

/** A gzipped tar archive of these files. */
async function tarGz(files: readonly { path: string; data: Buffer }[]): Promise<Buffer> {
  const dir = folderOf(files);
  try {
    return await createTar({ gzip: true, portable: true, cwd: dir }, [...new Set(files.map((f) => f.path.split('/')[0]!))]).concat();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
let gitGymTree: string;
let license: Buffer;
let server: FileServer;
let cache: string;

test.before(async () => {
  const all = await entries(sharedArchive);
  gymFiles = [...all].filter(([p]) => p.startsWith('RLVE/Gym/')).map(([p, data]) => ({ path: p.slice('RLVE/Gym/'.length), data }));
  license = all.get('RLVE/LICENSE')!;
  // The archive of a commit as GitHub serves it (`git archive`: a pax global header naming the
  // commit, every file of the repository under RLVE-<commit>/), made by git from a repository
  // of Gym/, LICENSE and other files; git's own id of its Gym/ folder is the pinned one.
  const top = `RLVE-${RLVE_COMMIT}`;
  const repository = folderOf([
    ...gymFiles.map((f) => ({ path: `Gym/${f.path}`, data: f.data })),
    { path: 'LICENSE', data: license },
    { path: 'README.md', data: Buffer.from('# RLVE\n') },
    { path: 'data/DeepMath-103K.json', data: Buffer.alloc(3 << 20, 0x61) },
  ]);
  const git = (...args: string[]) => {
    const result = spawnSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: repository, maxBuffer: 64 << 20 });
    assert.is(result.status, 0, String(result.stderr));
    return result.stdout;
  };
  git('init', '-q', '.');
  git('add', '-A');
  git('commit', '-q', '-m', 'RLVE');
  gitGymTree = git('rev-parse', 'HEAD:Gym').toString().trim();
  const github = git('archive', '--format=tar.gz', `--prefix=${top}/`, 'HEAD');
  rmSync(repository, { recursive: true, force: true });
  const tampered = await tarGz([
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
  assert.is(gitGymTree, GYM_TREE_ID, 'git\'s own id of the folder');
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
  const notGzip = await rejection(() => ensureGymArchive({ dataDir: cache, gymUrl: `${server.url}/not-gzip.tar.gz`, offline: false }));
  assert.match(notGzip.message, /not a readable gzipped tar archive/);
  assert.not.match(notGzip.message, 'Without the network', 'an archive that came is not a network failure');
  assert.match((await rejection(() => ensureGymArchive({ dataDir: cache, gymUrl: `${server.url}/missing.tar.gz`, offline: false }))).message, /HTTP 404/);
});

test('a download that fails says where the archive goes without the network, and GitHub\'s archive put there is read', async () => {
  const local = path.join(cache, 'rlve', GYM_ARCHIVE.fileName);
  const failed = await rejection(() => ensureGymArchive({ dataDir: cache, gymUrl: `${server.url}/missing.tar.gz`, offline: false }));
  assert.instance(failed, UsageError);
  assert.match(failed.message, `Without the network, put that archive (or another machine's cached copy) at ${local}, or point --data-dir at a folder that has rlve/${GYM_ARCHIVE.fileName}.`);
  // As advised: the archive of the commit, as GitHub serves it (top folder RLVE-<commit>/, the rest of the repository beside Gym/).
  mkdirSync(path.dirname(local), { recursive: true });
  writeFileSync(local, new Uint8Array(await (await fetch(`${server.url}/archive.tar.gz`)).arrayBuffer()));
  const gym = await loadGym({ dataDir: cache, offline: true });
  assert.is(gym.files().length, 1601);
});

test('a damaged cached copy is refused with the way out; offline, a missing one names what to do', async () => {
  mkdirSync(path.join(cache, 'rlve'));
  writeFileSync(path.join(cache, 'rlve', GYM_ARCHIVE.fileName), await tarGz([...gymFiles.slice(1).map((f) => ({ path: `RLVE/Gym/${f.path}`, data: f.data })), { path: 'RLVE/LICENSE', data: license }]));
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
