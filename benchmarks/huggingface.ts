/**
 * `hf:owner/dataset`: rows of a Hugging Face dataset, fetched page by page from the
 * datasets-server rows API and cached as JSON Lines at
 * `<dataDir>/hf/<owner>__<dataset>/<config>-<split>.jsonl`. Offline, only the cache is used; online,
 * a cached split serves when the datasets server cannot be reached.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DataError, UsageError } from '../core/errors.js';
import { writeFileAtomic } from '../core/results/fs.js';
import { cachedPath, DownloadError, fetchBytes, isOffline, OFFLINE_ENV, type DataFile, type DataOptions } from './download.js';

export const HF_DATASETS_SERVER = 'https://datasets-server.huggingface.co';

/** Rows per request: the datasets-server maximum. */
const PAGE = 100;

export interface HuggingFaceOptions extends DataOptions {
  /** Dataset config (subset); default: the one holding the chosen split. */
  config?: string;
  /** Split; default `test` if the dataset has one, else its first split. */
  split?: string;
  /** The datasets-server address (tests point it at a local server). */
  baseUrl?: string;
  /** Sent as a bearer token for gated datasets; default HF_TOKEN. */
  token?: string;
}

const DATASET_NAME = /^[\w.-]+\/[\w.-]+$/;

async function getJson(url: string, options: HuggingFaceOptions): Promise<Record<string, unknown>> {
  const token = options.token ?? process.env.HF_TOKEN;
  const baseFetch = options.fetch ?? fetch;
  const authorised: typeof fetch = token ? (input, init) => baseFetch(input, { ...init, headers: { Authorization: `Bearer ${token}` } }) : baseFetch;
  const bytes = await fetchBytes(url, { ...options, fetch: authorised });
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new DataError(url, undefined, `the datasets server did not answer with JSON (${(error as Error).message})`);
  }
}

/** The config and split to read: the ones given, else `test` (or the first split) from the splits API. */
async function chooseSplit(dataset: string, options: HuggingFaceOptions, base: string): Promise<{ config: string; split: string }> {
  if (options.config && options.split) return { config: options.config, split: options.split };
  const url = `${base}/splits?dataset=${encodeURIComponent(dataset)}`;
  const answer = await getJson(url, options);
  const splits = (Array.isArray(answer.splits) ? answer.splits : []) as { config?: unknown; split?: unknown }[];
  const usable = splits.filter((s) => typeof s.config === 'string' && typeof s.split === 'string')
    .filter((s) => !options.config || s.config === options.config)
    .filter((s) => !options.split || s.split === options.split);
  const chosen = usable.find((s) => s.split === 'test') ?? usable[0];
  if (!chosen) throw new UsageError(`hf:${dataset}: no split${options.split ? ` "${options.split}"` : ''}${options.config ? ` in config "${options.config}"` : ''} (from ${url})`);
  return { config: chosen.config as string, split: chosen.split as string };
}

function cacheFile(dataset: string, config: string, split: string, base: string): DataFile {
  return {
    suite: `hf/${dataset.replace('/', '__')}`,
    fileName: `${config}-${split}.jsonl`,
    url: `${base}/rows?dataset=${encodeURIComponent(dataset)}&config=${encodeURIComponent(config)}&split=${encodeURIComponent(split)}`,
  };
}

/** A cached split matching the options (config and split when given, else `test`, else the only one). */
function findCached(dataset: string, options: HuggingFaceOptions, base: string): string | undefined {
  const folder = path.dirname(cachedPath(cacheFile(dataset, 'c', 's', base), options.dataDir));
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return undefined;
  }
  const matching = names.filter((n) => (!options.config || n.startsWith(`${options.config}-`)) && (!options.split || n.endsWith(`-${options.split}.jsonl`)));
  const chosen = options.split ? matching[0] : matching.find((n) => n.endsWith('-test.jsonl')) ?? (matching.length === 1 ? matching[0] : undefined);
  return chosen ? path.join(folder, chosen) : undefined;
}

/** The local JSON Lines copy of a Hugging Face dataset split, downloading it when not cached. */
export async function ensureHuggingFaceRows(dataset: string, options: HuggingFaceOptions = {}): Promise<string> {
  if (!DATASET_NAME.test(dataset)) throw new UsageError(`hf:${dataset}: expected hf:owner/dataset`);
  const base = (options.baseUrl ?? HF_DATASETS_SERVER).replace(/\/+$/, '');
  if (isOffline(options.offline)) {
    const cached = findCached(dataset, options, base);
    if (cached) return cached;
    const wanted = cacheFile(dataset, options.config ?? '<config>', options.split ?? 'test', base);
    throw new UsageError(
      `offline mode (${OFFLINE_ENV}=1 or offline: true): hf:${dataset} is not cached as ${cachedPath(wanted, options.dataDir)}. ` +
        `Run once online to download it from ${wanted.url}, or name the cached config and split.`,
    );
  }
  let choice: { config: string; split: string };
  try {
    choice = await chooseSplit(dataset, options, base);
  } catch (error) {
    if (!(error instanceof DownloadError)) throw error;
    // The server cannot be asked which split to read: a cached one serves, as in offline mode.
    const cached = findCached(dataset, options, base);
    if (cached) return cached;
    throw new UsageError(`hf:${dataset}: ${error.message}. Without the network, point --data-dir at a folder that has hf/${dataset.replace('/', '__')}/CONFIG-SPLIT.jsonl (the copy a run with the network caches).`);
  }
  const { config, split } = choice;
  const file = cacheFile(dataset, config, split, base);
  const local = cachedPath(file, options.dataDir);
  if (existsSync(local)) return local;

  const lines: string[] = [];
  let total = Infinity;
  for (let offset = 0; offset < total; offset += PAGE) {
    const url = `${file.url}&offset=${offset}&length=${PAGE}`;
    const page = await getJson(url, options);
    const rows = page.rows;
    if (!Array.isArray(rows)) throw new DataError(url, undefined, 'the answer has no "rows" list');
    total = typeof page.num_rows_total === 'number' ? page.num_rows_total : offset + rows.length;
    for (const item of rows as { row?: unknown }[]) lines.push(JSON.stringify(item.row ?? null));
    if (rows.length === 0) break;
  }
  try {
    writeFileAtomic(local, lines.join('\n') + '\n');
  } catch (error) {
    throw new UsageError(`cannot write hf:${dataset} to ${local}: ${(error as Error).message} (choose a writable --data-dir)`);
  }
  return local;
}
