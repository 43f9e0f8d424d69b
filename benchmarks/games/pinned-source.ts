/**
 * Files of a public repository at a pinned commit, read from GitHub's archive of that commit:
 * downloaded once into `<dataDir>/<folder>/<file name>` (so `--data-dir ../shared/datasets`
 * reads a copy laid out so), and each file read checked by its git blob id, whatever archive
 * it came in. Offline (SPADE_BENCH_OFFLINE=1), only the cache is used.
 *
 * SPADE's evaluation is the yardstick of the paper's suites: their prompt text is read from
 * SPADE's own source at run time, not copied into spade-bench.
 */
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { DataError } from '../../core/errors.js';
import { ensureDataFile, type DataFile, type DataOptions } from '../download.js';

export interface PinnedArchive {
  /** `owner/name` on GitHub. */
  repository: string;
  commit: string;
  /** Where the archive is cached: `<dataDir>/<folder>/<fileName>`. */
  folder: string;
  fileName: string;
  /** The folder the archive puts every file under (GitHub's `<name>-<commit>/`, or a copy's own). */
  root?: string;
}

/** The git blob id of a file's bytes (hex). */
export function blobId(data: Buffer): string {
  return createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
}

/** The archive's cache entry and its download address (GitHub's archive of the commit). */
export function archiveFile(archive: PinnedArchive): DataFile {
  return { suite: archive.folder, fileName: archive.fileName, url: `https://codeload.github.com/${archive.repository}/tar.gz/${archive.commit}` };
}

/** Every file of the archive whose path (without its first folder) `keep` accepts, by that path. */
export async function readArchive(local: string, keep: (path: string) => boolean): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const pending: Promise<void>[] = [];
  // tar is loaded only when an archive is read: most runs never read one.
  const tar = await import('tar');
  await tar.t({
    file: local,
    onReadEntry: (entry) => {
      const inner = entry.path.split('/').slice(1).join('/');
      if (entry.type !== 'File' || !keep(inner)) {
        entry.resume();
        return;
      }
      const chunks: Buffer[] = [];
      pending.push(
        new Promise((resolve) => {
          entry.on('data', (chunk: Buffer) => chunks.push(chunk));
          entry.on('end', () => {
            files.set(inner, Buffer.concat(chunks));
            resolve();
          });
        }),
      );
    },
  });
  await Promise.all(pending);
  return files;
}

/** The local copy of the archive (downloaded when not cached). */
export async function ensureArchive(archive: PinnedArchive, options: DataOptions = {}): Promise<string> {
  return ensureDataFile(archiveFile(archive), options);
}

const cache = new Map<string, Promise<Map<string, string>>>();

/**
 * The text of files of the archive, each checked against its pinned git blob id; a file
 * missing or different is a DataError naming it and what to do.
 */
export function pinnedFiles(archive: PinnedArchive, wanted: Record<string, string>, options: DataOptions = {}): Promise<Map<string, string>> {
  const key = `${archive.repository}@${archive.commit}\0${options.dataDir ?? ''}\0${Object.keys(wanted).join('\0')}`;
  let found = cache.get(key);
  if (!found) {
    found = (async () => {
      const local = await ensureArchive(archive, options);
      const files = await readArchive(local, (path) => path in wanted);
      const texts = new Map<string, string>();
      for (const [path, id] of Object.entries(wanted)) {
        const data = files.get(path);
        const advice = existsSync(local) ? `delete ${local} to download it again from ${archiveFile(archive).url}` : '';
        if (!data) throw new DataError(local, undefined, `${path} is missing from ${archive.repository} at ${archive.commit.slice(0, 7)}; ${advice}`);
        const actual = blobId(data);
        if (actual !== id) throw new DataError(local, undefined, `${path} is not ${archive.repository}'s at ${archive.commit.slice(0, 7)} (git blob ${actual}, expected ${id}); ${advice}`);
        texts.set(path, data.toString('utf8'));
      }
      return texts;
    })();
    cache.set(key, found);
    found.catch(() => cache.delete(key));
  }
  return found;
}
