/**
 * `spade-pool:hf:OWNER/NAME@REVISION`: a pool published on the Hugging Face Hub in SPADE's layout
 * (games/, manifest.jsonl, checksums.sha256), such as the paper's GPT-5.5 pool
 * (`spare-rl/spare-gpt55-static-corpus@e179a371bc7764dacf0bcee1f808100beb463137`, 7,872 games).
 * It is downloaded once through the dataset cache (benchmarks/download.ts): checksums.sha256
 * first, which lists every file to fetch, then each file, checked against its digest before it
 * is written to `<dataDir>/spade-pool/hf/<owner>__<name>/<revision>/`. A dataset without
 * checksums.sha256 is read as SPADE's tool-use environment release, whose manifest.json lists
 * its files (downloadRelease). Offline, only the cache
 * is used. The Hub's address is HF_ENDPOINT's when set (huggingface_hub's convention), and
 * HF_TOKEN is sent for gated datasets.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CHECKSUMS_FILE, MANIFEST_FILE, insidePool, parseChecksums } from '../core/results/pool-layout.js';
import { DataError, UsageError } from '../core/errors.js';
import { writeFileAtomic } from '../core/results/fs.js';
import { cachedPath, ensureDataFile, fetchBytes, isOffline, OFFLINE_ENV, type DataFile, type DataOptions } from './download.js';
import { RELEASE_MANIFEST, releaseCandidates, releaseListing } from './spade-pool-layout.js';

export const HF_HUB = 'https://huggingface.co';

export interface HubPoolOptions extends DataOptions {
  /** The Hub's address (default: HF_ENDPOINT, else https://huggingface.co). */
  hubUrl?: string;
  /** Sent as a bearer token (default: HF_TOKEN). */
  token?: string;
  /** Files downloaded at once (default 8). */
  downloads?: number;
}

const REPO = /^[\w.-]+\/[\w.-]+$/;

/**
 * `OWNER/NAME@REVISION` (the revision defaults to `main`, which can change: pin a commit), or
 * `OWNER/NAME@REVISION:FILE` for one table file of the dataset (such as the GPT-5.5 tool-use pool).
 */
export function parseHubPool(spec: string): { repo: string; revision: string; file?: string } {
  const at = spec.lastIndexOf('@');
  const repo = at < 0 ? spec : spec.slice(0, at);
  const [revision = 'main', file] = at < 0 ? ['main'] : spec.slice(at + 1).split(/:(.*)/s, 2);
  if (!REPO.test(repo) || !/^[\w./-]+$/.test(revision) || revision.includes('..') || (file !== undefined && (!/^[\w./-]+$/.test(file) || !insidePool(file)))) {
    throw new UsageError(`spade-pool:hf:${spec}: expected spade-pool:hf:OWNER/NAME@REVISION, e.g. spade-pool:hf:spare-rl/spare-gpt55-static-corpus@e179a371bc7764dacf0bcee1f808100beb463137 (or ...@REVISION:FILE for one table file)`);
  }
  return { repo, revision, ...(file !== undefined ? { file } : {}) };
}

/** The cache folder of one revision of a pool. */
export function hubPoolFolder(repo: string, revision: string, dataDir?: string): string {
  return path.dirname(cachedPath({ suite: hubSuite(repo, revision), fileName: CHECKSUMS_FILE, url: '' }, dataDir));
}

const hubSuite = (repo: string, revision: string): string => `spade-pool/hf/${repo.replace('/', '__')}/${revision.replace(/\//g, '__')}`;

/**
 * The files a cached copy lists, when every one of them is there (a complete copy); a release's
 * copy is complete once its manifest.json is written (the last file its download writes).
 */
function completeCopy(folder: string): boolean {
  const sums = path.join(folder, CHECKSUMS_FILE);
  if (!existsSync(sums)) return existsSync(path.join(folder, RELEASE_MANIFEST));
  try {
    return parseChecksums(readFileSync(sums, 'utf8')).every((e) => existsSync(path.join(folder, e.file)));
  } catch {
    return false;
  }
}

/** fetch with HF_TOKEN (or the given token) sent as a bearer token. */
function authorisedFetch(options: HubPoolOptions): typeof fetch {
  const token = options.token ?? process.env.HF_TOKEN;
  const baseFetch = options.fetch ?? fetch;
  return token ? (input, init) => baseFetch(input, { ...init, headers: { Authorization: `Bearer ${token}` } }) : baseFetch;
}

/** The local folder of the pool `spec` (its local file, for `...:FILE`), downloading what the cache does not hold yet. */
export async function ensureHubPool(spec: string, options: HubPoolOptions = {}): Promise<string> {
  const { repo, revision, file } = parseHubPool(spec);
  const base = (options.hubUrl ?? process.env.HF_ENDPOINT ?? HF_HUB).replace(/\/+$/, '');
  const folder = hubPoolFolder(repo, revision, options.dataDir);
  const url = (file: string): string => `${base}/datasets/${repo}/resolve/${encodeURIComponent(revision)}/${file.split('/').map(encodeURIComponent).join('/')}`;
  if (file !== undefined) {
    // One table file: its rows carry each program's sha256, which the loader checks.
    try {
      return await ensureDataFile({ suite: hubSuite(repo, revision), fileName: file, url: url(file) }, { ...options, fetch: authorisedFetch(options) });
    } catch (error) {
      if (error instanceof UsageError && !isOffline(options.offline)) throw new UsageError(`spade-pool:hf:${spec}: ${error.message}. Check the name, the revision, the file and the network (HF_ENDPOINT sets another address).`);
      throw error;
    }
  }
  if (completeCopy(folder)) return folder;
  if (isOffline(options.offline)) {
    throw new UsageError(
      `offline mode (${OFFLINE_ENV}=1 or offline: true): spade-pool:hf:${spec} is not in the cache at ${folder}. ` +
        `Run once online to download it from ${url(CHECKSUMS_FILE)} and the files it lists, or download the dataset yourself ` +
        `(hf download ${repo} --repo-type dataset --revision ${revision} --local-dir DIR) and use spade-pool:DIR.`,
    );
  }
  const download: DataOptions = { ...options, fetch: authorisedFetch(options), offline: false };
  const suite = hubSuite(repo, revision);

  let sums: Uint8Array;
  try {
    sums = await fetchBytes(url(CHECKSUMS_FILE), download);
  } catch (error) {
    // No checksums.sha256: SPADE's tool-use environment release, whose manifest.json lists its files.
    if (/HTTP 404/.test((error as Error).message)) {
      const release = await downloadRelease(url, folder, suite, download, options.downloads).catch((e: Error) => e);
      if (!(release instanceof Error)) return folder;
      if (!/HTTP 404/.test(release.message)) throw release;
    }
    throw new UsageError(
      `spade-pool:hf:${spec}: ${(error as Error).message}. The pool needs its ${CHECKSUMS_FILE} (a pool's list of its files) or ${RELEASE_MANIFEST} (a release's) from the Hub at ${base}: ` +
        `check the name, the revision and the network (HF_ENDPOINT sets another address), or download the dataset yourself and use spade-pool:DIR.`,
    );
  }
  let entries: { file: string; sha256: string }[];
  try {
    entries = parseChecksums(Buffer.from(sums).toString('utf8'));
  } catch (error) {
    throw new DataError(url(CHECKSUMS_FILE), undefined, (error as Error).message);
  }
  const leaving = entries.find((e) => !insidePool(e.file));
  if (leaving) throw new DataError(url(CHECKSUMS_FILE), undefined, `the path ${JSON.stringify(leaving.file)} leaves the pool's folder`);
  // The manifest is optional in the layout: a pool without one loads from file names.
  try {
    const manifest = await fetchBytes(url(MANIFEST_FILE), download);
    writeFileAtomic(path.join(folder, MANIFEST_FILE), manifest);
  } catch (error) {
    if (!/HTTP 404/.test((error as Error).message)) throw error;
  }
  const files: DataFile[] = entries.map((e) => ({ suite, fileName: e.file, url: url(e.file), sha256: e.sha256 }));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) await ensureDataFile(files[next++]!, download);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.downloads ?? 8, files.length)) }, worker));
  // Written last: its presence (with every file it lists) marks the copy complete.
  writeFileAtomic(path.join(folder, CHECKSUMS_FILE), sums);
  return folder;
}

/**
 * SPADE's tool-use environment release from the Hub: manifest.json first (it lists each file,
 * under one of the paths the loader looks at, with its sha256 when given), then each file at the
 * first of those paths the Hub has, checked against the manifest's digest; manifest.json is
 * written last, marking the copy complete. A file the Hub has under none of the paths is left
 * for the loader to report (or skip, with --skip-bad).
 */
async function downloadRelease(url: (file: string) => string, folder: string, suite: string, download: DataOptions, downloads = 8): Promise<void> {
  const bytes = await fetchBytes(url(RELEASE_MANIFEST), download);
  let listed: unknown[] | undefined;
  try {
    listed = releaseListing(JSON.parse(Buffer.from(bytes).toString('utf8')));
  } catch (error) {
    throw new DataError(url(RELEASE_MANIFEST), undefined, `not valid JSON (${(error as Error).message})`);
  }
  if (!listed) throw new DataError(url(RELEASE_MANIFEST), undefined, 'expected a JSON array of environments, or an object holding one');
  const entries = listed.flatMap((entry) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return [];
    const record = entry as Record<string, unknown>;
    const { candidates } = releaseCandidates(record);
    return candidates ? [{ candidates, sha256: typeof record.sha256 === 'string' ? record.sha256.toLowerCase() : undefined }] : [];
  });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const { candidates, sha256 } = entries[next++]!;
      for (const candidate of candidates) {
        try {
          await ensureDataFile({ suite, fileName: candidate, url: url(candidate), ...(sha256 ? { sha256 } : {}) }, download);
          break;
        } catch (error) {
          if (!/HTTP 404/.test((error as Error).message)) throw error;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(downloads, entries.length)) }, worker));
  writeFileAtomic(path.join(folder, RELEASE_MANIFEST), bytes);
}
