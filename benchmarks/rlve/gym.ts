/**
 * RLVE's Gym/ package (Zhiyuan-Zeng/RLVE, MIT): where it comes from, how it is cached, checked
 * and made importable by the Python sandbox.
 *
 *  - Pinned to commit 73cccd97 and checked by git's own ids: the Gym/ folder must have the tree
 *    id, and LICENSE the blob id, they have in that commit, whatever archive they came in.
 *  - Cached as `<dataDir>/rlve/RLVE-Gym-73cccd97.tar.gz` (Gym/ and LICENSE under `RLVE/`), so
 *    `--data-dir ../shared/datasets` reads the shared copy; downloaded otherwise from GitHub's
 *    archive of the commit, of which only Gym/ and LICENSE are kept (the rest streams by).
 *  - Extracted for the sandbox into a folder of its own under the system's temporary folder:
 *    the cpython sandbox's jail runs programs as uid 65534, which must be able to read it (a
 *    data folder under /root is not readable by other users). Beside Gym/ it holds a stand-in
 *    `torch` module: Gym/environment.py imports torch only to seed it, and the sandbox has none.
 */
import { chmodSync, createReadStream, existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { create as createTar, Parser, type ReadEntry } from 'tar';
import { DataError, UsageError } from '../../core/errors.js';
import { defaultDataDir } from '../../core/config/options.js';
import { writeFileAtomic, makeFolder } from '../../core/results/fs.js';
import { cachedPath, DownloadError, fetchOk, isOffline, placeFolder, type DataFile, type DataOptions } from '../download.js';
import { blobId, treeId, type TreeFile } from './git-tree.js';

export const RLVE_REPOSITORY = 'Zhiyuan-Zeng/RLVE';
export const RLVE_COMMIT = '73cccd971230b50a1a4f5d921027c0853d1eb227';
/** git's id of the Gym/ folder, and of LICENSE, at that commit. */
export const GYM_TREE_ID = '52e9531b799922cc62a522cb7849ce99685a8541';
export const LICENSE_BLOB_ID = '5677eb6d02ee26cd27b6dce1cbfaa9676b1a2382';

/** RLVE's Gym/ and LICENSE, as cached (checked by git ids, not by the archive's own bytes). */
export const GYM_ARCHIVE: DataFile = {
  suite: 'rlve',
  fileName: 'RLVE-Gym-73cccd97.tar.gz',
  url: `https://codeload.github.com/${RLVE_REPOSITORY}/tar.gz/${RLVE_COMMIT}`,
};

/** RLVE's held-out test set: 2,500 tasks of 50 environments held out of training. */
export const HELDOUT_FILE: DataFile = {
  suite: 'rlve',
  fileName: 'test.json',
  url: `https://raw.githubusercontent.com/${RLVE_REPOSITORY}/${RLVE_COMMIT}/data/HELD-OUT_ENVIRONMENTS/test.json`,
  sha256: 'a839bb16e2e6ca3b16665b2e9e827699947d1355c3ede4d06a2f6c8243b28efa',
};

/** The uid the cpython sandbox's jail runs programs as (when the host runs as root, bwrap too). */
const JAIL_UID = 65534;

const TORCH_STUB = `"""A stand-in for torch, put beside RLVE's Gym by spade-bench. Gym/environment.py imports torch
only to seed it (manual_seed, cuda.manual_seed_all, the cudnn flags); no environment uses it
otherwise, and the Python sandbox has no torch."""


def manual_seed(seed):
    return None


class _Cuda:
    @staticmethod
    def manual_seed_all(seed):
        return None


class _Cudnn:
    deterministic = False
    benchmark = False


class _Backends:
    cudnn = _Cudnn()


cuda = _Cuda()
backends = _Backends()
`;

export interface GymOptions extends DataOptions {
  /** Download Gym/ from this archive of the commit instead (a mirror); it is checked all the same. */
  gymUrl?: string;
  /** Where the checked copy is extracted for the sandbox (default: the system's temporary folder). */
  extractDir?: string;
}

/** RLVE's Gym, checked and extracted. */
export interface Gym {
  /** The cached archive it was read from. */
  archive: string;
  /** The folder holding Gym/ and the torch stand-in: put on the Python sandbox's path. */
  root: string;
  /** The text of a file of Gym/ (`environments/__init__.py`), undefined when absent. */
  source(file: string): string | undefined;
  /** Every file path of Gym/, `/`-separated. */
  files(): string[];
}

interface GymFiles {
  gym: TreeFile[];
  license?: Buffer;
}

/** Entry types that are files (a tar's `0`, `\0` and `7`): links and devices are never read. */
const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/** The Gym/ files and LICENSE of a gzipped tar archive of RLVE (top folder `RLVE-<commit>/`, `RLVE/`...). */
async function gymFilesOf(compressed: Readable, where: string): Promise<GymFiles> {
  const found: GymFiles = { gym: [] };
  const tops = new Set<string>();
  const wanted = /^([^/]+)\/(Gym\/.+|LICENSE)$/;
  const reads: Promise<void>[] = [];
  const onEntry = (entry: ReadEntry): void => {
    const match = wanted.exec(entry.path)!;
    tops.add(match[1]!);
    reads.push(entry.concat().then((data) => {
      if (match[2] === 'LICENSE') found.license = data;
      else found.gym.push({ path: match[2]!.slice('Gym/'.length), data, executable: ((entry.mode ?? 0) & 0o111) !== 0 });
    }));
  };
  // Only Gym/ and LICENSE are read; the rest of the archive streams by.
  const parser = new Parser({ strict: true, filter: (p, entry) => wanted.test(p) && FILE_TYPES.has((entry as ReadEntry).type), onReadEntry: onEntry });
  try {
    await new Promise<void>((resolve, reject) => {
      parser.on('error', reject);
      compressed.on('error', reject);
      parser.on('end', resolve);
      compressed.pipe(parser as unknown as NodeJS.WritableStream);
    });
    await Promise.all(reads);
  } catch (error) {
    compressed.destroy();
    throw new DataError(where, undefined, `not a readable gzipped tar archive: ${(error as Error).message}`);
  }
  if (tops.size > 1) throw new DataError(where, undefined, `the archive holds several copies of RLVE (${[...tops].join(', ')})`);
  return found;
}

/** Throws unless the files are Gym/ and LICENSE as they are at the pinned commit. */
function checkGymFiles(files: GymFiles, where: string, advice: string): void {
  if (files.gym.length === 0) throw new DataError(where, undefined, `no RLVE Gym/ folder in the archive (expected <top>/Gym/...); ${advice}`);
  const tree = treeId(files.gym);
  if (tree !== GYM_TREE_ID) {
    throw new DataError(where, undefined, `its Gym/ is not RLVE's at commit ${RLVE_COMMIT} (git tree ${tree}, expected ${GYM_TREE_ID}); ${advice}`);
  }
  if (!files.license || blobId(files.license) !== LICENSE_BLOB_ID) {
    throw new DataError(where, undefined, `${files.license ? 'its LICENSE is not RLVE\'s' : 'it has no LICENSE beside Gym/'} (RLVE is MIT-licensed; the licence travels with the code); ${advice}`);
  }
}

async function download(url: string, options: GymOptions): Promise<GymFiles> {
  const response = await fetchOk(url, options, 600_000);
  return gymFilesOf(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>), url);
}

/**
 * The cached archive of Gym/ and LICENSE: the cache's copy, else a download of the pinned
 * commit, checked, then written to the cache (only Gym/ and LICENSE, under `RLVE/`).
 */
export async function ensureGymArchive(options: GymOptions = {}): Promise<string> {
  const file: DataFile = { ...GYM_ARCHIVE, url: options.gymUrl ?? GYM_ARCHIVE.url };
  const local = cachedPath(file, options.dataDir);
  if (existsSync(local)) return local;
  if (isOffline(options.offline)) {
    throw new UsageError(
      `offline mode (SPADE_BENCH_OFFLINE=1 or offline: true): ${local} is missing. ` +
        `Run once without offline mode to download RLVE's Gym/ at commit ${RLVE_COMMIT.slice(0, 8)}, or point --data-dir at a folder that has rlve/${file.fileName}.`,
    );
  }
  let files: GymFiles;
  try {
    files = await download(file.url, options);
  } catch (error) {
    // As offline mode says it: how to give the archive without the network (an archive that
    // came but is not RLVE's is a DataError, said as it is).
    if (!(error instanceof DownloadError)) throw error;
    throw new UsageError(`${error.message}. Without the network, put that archive (or another machine's cached copy) at ${local}, or point --data-dir at a folder that has rlve/${file.fileName}.`);
  }
  checkGymFiles(files, file.url, 'nothing was written to the cache');
  // The cache's archive holds Gym/ and LICENSE under RLVE/, written from a folder laid out so.
  const staging = mkdtempSync(path.join(os.tmpdir(), 'spade-bench-rlve-archive-'));
  try {
    for (const f of files.gym) writeIn(staging, `RLVE/Gym/${f.path}`, f.data, f.executable ? 0o755 : 0o644);
    writeIn(staging, 'RLVE/LICENSE', files.license!, 0o644);
    const archive = await createTar({ gzip: true, portable: true, cwd: staging }, ['RLVE']).concat();
    writeFileAtomic(local, archive);
  } catch (error) {
    throw new UsageError(`cannot write RLVE's Gym to ${local}: ${(error as Error).message} (choose a writable --data-dir)`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return local;
}

/** Why uid 65534 could not read `folder` (when the host runs as root, the jail runs as that uid), or undefined. */
export function unreadableByJail(folder: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const parts = path.resolve(folder).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const dir = path.sep + parts.slice(0, i).join(path.sep);
    const mode = statSync(dir).mode;
    const needed = i === parts.length ? 0o005 : 0o001;
    if ((mode & needed) !== needed) return `${dir} is not ${i === parts.length ? 'readable' : 'searchable'} by other users (mode ${(mode & 0o777).toString(8)})`;
  }
  return undefined;
}

const MARKER = '.spade-bench-rlve';
const markerText = (): string => `${GYM_TREE_ID}\n${blobId(Buffer.from(TORCH_STUB))}\n`;

/** A folder this process's user made, that nobody else can write to, holding a complete copy. */
function trusted(folder: string): boolean {
  try {
    const info = lstatSync(folder);
    return info.isDirectory() && info.uid === process.getuid?.() && (info.mode & 0o022) === 0 && readFileSync(path.join(folder, MARKER), 'utf8') === markerText();
  } catch {
    return false;
  }
}

/** Write a file at `relative` (`/`-separated) inside `folder`, making the folders on its way. */
function writeIn(folder: string, relative: string, data: Buffer | string, mode: number): void {
  const target = path.join(folder, ...relative.split('/'));
  makeFolder(path.dirname(target), 0o755);
  writeFileSync(target, data, { mode });
}

function writeCopy(folder: string, files: GymFiles): void {
  for (const file of files.gym) writeIn(folder, `Gym/${file.path}`, file.data, 0o644);
  writeIn(folder, 'LICENSE', files.license!, 0o644);
  writeIn(folder, 'torch/__init__.py', TORCH_STUB, 0o644);
  writeIn(folder, MARKER, markerText(), 0o644); // last: its presence means the copy is complete
  // Folders readable and searchable by all, whatever the umask.
  const open = (dir: string): void => {
    chmodSync(dir, 0o755);
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) open(path.join(dir, entry.name));
  };
  open(folder);
}

/** The checked copy of Gym/ for the sandbox: reused when this user already made one. */
function extract(files: GymFiles, base: string): string {
  const folder = path.join(base, `spade-bench-rlve-${GYM_TREE_ID.slice(0, 12)}`);
  return placeFolder(folder, (staging) => writeCopy(staging, files), trusted);
}

const loaded = new Map<string, Promise<Gym>>();

/**
 * RLVE's Gym, checked against the pinned commit and extracted where the Python sandbox can read
 * it (once per process for each archive). A copy that is not RLVE's at that commit is a
 * DataError naming the file; a folder the jail cannot read is a UsageError naming the fix.
 */
export function loadGym(options: GymOptions = {}): Promise<Gym> {
  const key = JSON.stringify([options.dataDir ?? defaultDataDir(), options.gymUrl, options.extractDir]);
  let pending = loaded.get(key);
  if (!pending) {
    pending = (async (): Promise<Gym> => {
      const archive = await ensureGymArchive(options);
      const files = await gymFilesOf(createReadStream(archive), archive);
      checkGymFiles(files, archive, 'delete it to download it again, or point --data-dir at a good copy');
      const base = path.resolve(options.extractDir ?? os.tmpdir());
      let root: string;
      try {
        root = extract(files, base);
      } catch (error) {
        throw new UsageError(`cannot extract RLVE's Gym into ${base}: ${(error as Error).message} (set suiteOptions.rlve.extractDir, or TMPDIR, to a writable folder)`);
      }
      const problem = unreadableByJail(root);
      if (problem) {
        throw new UsageError(
          `RLVE's Gym is extracted to ${root}, which the Python sandbox cannot read: ${problem}. The sandbox's jail runs programs as uid ${JAIL_UID}: ` +
            'set TMPDIR (or suiteOptions.rlve.extractDir) to a folder every user can read, such as /tmp',
        );
      }
      const byPath = new Map(files.gym.map((f) => [f.path, f.data]));
      return { archive, root, source: (file) => byPath.get(file)?.toString('utf8'), files: () => [...byPath.keys()] };
    })();
    loaded.set(key, pending);
    pending.catch(() => loaded.delete(key));
  }
  return pending;
}
