/**
 * Dataset files for the static suites: downloaded once from their public upstream source,
 * checked against a pinned SHA-256, and cached as `<dataDir>/<suite>/<upstream file name>`
 * (so `--data-dir ../shared/datasets` reads a copy laid out the same way). Offline mode
 * (`offline: true` or SPADE_BENCH_OFFLINE=1) uses only the cache and names what is missing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DataError, UsageError } from '../core/errors.js';
import { writeFileAtomic, makeFolder } from '../core/results/fs.js';
import { defaultDataDir } from '../core/config/options.js';

/** One upstream file a suite needs. */
export interface DataFile {
  /** Folder in the cache: `humaneval`, `gsm8k`, `hf/owner__dataset`... */
  suite: string;
  /** File name in that folder: the upstream file's own name. */
  fileName: string;
  /** Where it is downloaded from. */
  url: string;
  /** Pinned SHA-256 (hex) of the file's bytes; unchecked when absent (user datasets). */
  sha256?: string;
}

/** Options every downloading suite accepts. */
export interface DataOptions {
  /** Cache folder (default: SPADE_BENCH_DATA_DIR, else $XDG_CACHE_HOME/spade-bench, else ~/.cache/spade-bench). */
  dataDir?: string;
  /** Use only the cache; also on when SPADE_BENCH_OFFLINE=1. */
  offline?: boolean;
  /** The fetch to download with (tests pass none: they override the URL instead). */
  fetch?: typeof fetch;
  /** Give up a download after this long (default 120 s). */
  timeoutMs?: number;
}

export const OFFLINE_ENV = 'SPADE_BENCH_OFFLINE';

/** Where datasets are cached by default (the `dataDir` option's fallback). */
export { defaultDataDir };

/** True when the option says so, or (when unset) SPADE_BENCH_OFFLINE is 1 / true / yes. */
export function isOffline(option?: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (option !== undefined) return option;
  return /^(1|true|yes)$/i.test(env[OFFLINE_ENV] ?? '');
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Where a data file lives in the cache. */
export function cachedPath(file: DataFile, dataDir?: string): string {
  return path.join(path.resolve(dataDir ?? defaultDataDir()), file.suite, file.fileName);
}

/** Fetch a URL's bytes, with a timeout; any failure is a UsageError that names the URL. */
export async function fetchBytes(url: string, options: Pick<DataOptions, 'fetch' | 'timeoutMs'> = {}): Promise<Uint8Array> {
  const response = await fetchOk(url, options, 120_000);
  return new Uint8Array(await response.arrayBuffer());
}

/** A request for a file that got no answer, or an HTTP error: the network, the address or the server. */
export class DownloadError extends UsageError {}

/** A successful response to a GET of `url` (its body unread), or a DownloadError that says why there is none. */
export async function fetchOk(url: string, options: Pick<DataOptions, 'fetch' | 'timeoutMs'>, defaultTimeoutMs: number): Promise<Response> {
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? defaultTimeoutMs), redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new DownloadError(`cannot download ${url}: ${(error as Error).message}${cause ? ` (${cause})` : ''}`);
  }
  if (!response.ok || !response.body) throw new DownloadError(`cannot download ${url}: HTTP ${response.status} ${response.statusText}`);
  return response;
}

function checkDigest(where: string, bytes: Uint8Array, expected: string | undefined, advice: string): void {
  if (expected === undefined) return;
  const actual = sha256(bytes);
  if (actual !== expected.toLowerCase()) {
    throw new DataError(where, undefined, `checksum mismatch: expected SHA-256 ${expected}, got ${actual}; ${advice}`);
  }
}

/**
 * The local path of a data file: the cached copy (checked against its checksum), else a fresh
 * download written atomically into the cache. Offline, a missing file is a UsageError naming
 * the file and the URL to get it from.
 */
export async function ensureDataFile(file: DataFile, options: DataOptions = {}): Promise<string> {
  const local = cachedPath(file, options.dataDir);
  if (existsSync(local)) {
    checkDigest(local, await readFile(local), file.sha256, 'the cached copy is damaged or another version: delete it to download it again');
    return local;
  }
  if (isOffline(options.offline)) {
    throw new UsageError(
      `offline mode (${OFFLINE_ENV}=1 or offline: true): ${local} is missing. ` +
        `Download it from ${file.url} into that folder, or run once without offline mode, or point --data-dir at a folder that has ${file.suite}/${file.fileName}.`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = await fetchBytes(file.url, options);
  } catch (error) {
    // As offline mode says it: where the file is wanted, and how to give it without the network.
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(`${error.message}. Without the network, put the file at ${local}, or point --data-dir at a folder that has ${file.suite}/${file.fileName}.`);
  }
  checkDigest(file.url, bytes, file.sha256, 'nothing was written to the cache');
  try {
    writeFileAtomic(local, bytes);
  } catch (error) {
    throw new UsageError(`cannot write the download of ${file.url} to ${local}: ${(error as Error).message} (choose a writable --data-dir)`);
  }
  return local;
}

/**
 * A folder made once and shared by later runs (an extracted source for the sandbox): written by
 * `write` into a fresh staging folder beside it, then renamed into place. A copy already there
 * that `trusted` accepts is used as it is; a place taken by anything else (another user's copy, a
 * damaged one) is left alone and the staging copy is used apart.
 */
export function placeFolder(folder: string, write: (staging: string) => void, trusted: (folder: string) => boolean): string {
  if (trusted(folder)) return folder;
  makeFolder(path.dirname(folder));
  const staging = mkdtempSync(`${folder}-`);
  write(staging);
  if (existsSync(folder)) return staging;
  try {
    renameSync(staging, folder);
    return folder;
  } catch {
    // Another process renamed its copy into place first: use it when it is sound.
    if (trusted(folder)) {
      rmSync(staging, { recursive: true, force: true });
      return folder;
    }
    return staging;
  }
}
