/**
 * `spade-pool:PATH`: a pool of SPADE-format Python environments as a static suite, loaded
 * unchanged:
 *   - a folder in SPADE's pool layout (it has `games/`): the games read recursively, with
 *     `manifest.jsonl` and `checksums.sha256` where present (spade-pool-layout.ts), as SPADE's
 *     GPT-5.5 pool is published and as `spade-bench export --format pool` writes;
 *   - `hf:OWNER/NAME@REVISION`: such a pool downloaded from the Hugging Face Hub into the
 *     dataset cache (spade-pool-hub.ts);
 *   - a folder in the layout of SPADE's tool-use environment release (`manifest.json`, the
 *     authoritative list, and `environments/<source_run>/<file>.py`: spade-pool-layout.ts);
 *   - a folder of `.py` files (one environment each);
 *   - a table of environments, one a row: JSON Lines, a JSON array, or Parquet (as SPADE's GPT-5.5
 *     tool-use pool is published: `game_id`, `file_name`, `skill`, `sha256`, `code`), its code in
 *     `code`, `env_code`, `environment_code` or `source` (or the field named by `codeField`), an
 *     optional id in `id`, `game_id`, `env_id` or `name`, an optional `skill`, and an optional
 *     `sha256` of the code, which must match.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { DataError, UsageError } from '../core/errors.js';
import type { SuiteTask } from '../core/concepts/suite.js';
import { objectRecord, parseJsonLines, readDataText, RecordError, type JsonLines, type RecordConverter } from './jsonl.js';
import { parquetAsJsonLines } from './parquet.js';
import { sha256Hex } from '../core/results/pool-layout.js';
import { defineStaticSuite, uniqueIds, type LoadedTasks, type StaticSuite } from './static-suite.js';
import { hasPoolLayout, hasReleaseLayout, loadPoolLayout, loadReleaseLayout, MAX_PROGRAM_BYTES, releasedSkill } from './spade-pool-layout.js';
import { ensureHubPool, parseHubPool, type HubPoolOptions } from './spade-pool-hub.js';

export interface SpadePoolOptions {
  /** Skip unusable environments (empty files, malformed lines) and count them instead of stopping. */
  skipBad?: boolean;
  /** JSON Lines: the field holding the code (default: the first of CODE_FIELDS present). */
  codeField?: string;
  /** Resolve a relative PATH against this folder (default: the working directory). */
  cwd?: string;
  /** `hf:` pools: the data cache, offline mode, the Hub's address and token. */
  dataDir?: string;
  offline?: boolean;
  hubUrl?: HubPoolOptions['hubUrl'];
  fetch?: HubPoolOptions['fetch'];
}

export const CODE_FIELDS = ['code', 'env_code', 'environment_code', 'source'] as const;
const ID_FIELDS = ['id', 'game_id', 'env_id', 'name'] as const;

const byName = new Intl.Collator('en', { numeric: true });

function programTask(id: string, source: string, origin: string, index: number, skill?: string): SuiteTask {
  return { program: { id, language: 'python', source, meta: { family: 'spade-pool', origin, ...(skill ? { skill } : {}) } }, seed: index };
}

/**
 * The rows of a table file: Parquet (by its name), a JSON array (a `.json` file, or text that
 * starts with `[`), else JSON Lines (plain or gzip). A row's number stands for its line in errors.
 */
async function readRows<T>(file: string, options: SpadePoolOptions, convert: RecordConverter<T>): Promise<JsonLines<T>> {
  if (file.endsWith('.parquet')) return parseJsonLines(await parquetAsJsonLines(file), file, options, convert);
  const text = await readDataText(file);
  if (!file.endsWith('.json') && !text.trimStart().startsWith('[')) return parseJsonLines(text, file, options, convert);
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (error) {
    throw new DataError(file, undefined, `not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(rows)) throw new DataError(file, undefined, 'expected a JSON array of environments, one object each');
  return parseJsonLines(rows.map((row) => JSON.stringify(row)).join('\n'), file, options, convert);
}

async function loadFolder(folder: string, options: SpadePoolOptions): Promise<LoadedTasks> {
  const names = (await readdir(folder)).filter((n) => n.endsWith('.py')).sort(byName.compare);
  if (names.length === 0) throw new UsageError(`spade-pool:${folder}: the folder has no .py files`);
  const loaded: LoadedTasks = { tasks: [], skipped: 0 };
  for (const name of names) {
    const file = path.join(folder, name);
    const source = await readFile(file, 'utf8');
    const problem = source.trim() === '' ? 'the file is empty' : Buffer.byteLength(source) > MAX_PROGRAM_BYTES ? 'the file is larger than 1 MiB' : undefined;
    if (problem) {
      if (!options.skipBad) throw new DataError(file, undefined, `${problem} (use --skip-bad to skip unusable environments)`);
      loaded.skipped++;
      loaded.firstProblem ??= `${file}: ${problem}`;
      continue;
    }
    loaded.tasks.push(programTask(`spade-pool/${name.slice(0, -3)}`, source, file, loaded.tasks.length));
  }
  return loaded;
}

async function loadRows(file: string, options: SpadePoolOptions): Promise<LoadedTasks> {
  const read = await readRows(file, options, (value) => {
    const record = objectRecord(value);
    const fields = options.codeField ? [options.codeField] : CODE_FIELDS;
    const field = fields.find((f) => record[f] !== undefined);
    const code = field !== undefined ? record[field] : undefined;
    if (typeof code !== 'string' || code.trim() === '') {
      throw new RecordError(field === undefined ? `no code field (expected one of ${fields.join(', ')})` : `field "${field}" must be non-empty Python code`);
    }
    if (Buffer.byteLength(code) > MAX_PROGRAM_BYTES) throw new RecordError(`field "${field}" is larger than 1 MiB`);
    if (typeof record.sha256 === 'string' && record.sha256.toLowerCase() !== sha256Hex(code)) {
      throw new RecordError(`checksum mismatch: "sha256" says ${record.sha256}, the code is ${sha256Hex(code)}`);
    }
    const id = ID_FIELDS.map((f) => record[f]).find((v) => typeof v === 'string' || typeof v === 'number');
    return { code, id: id === undefined ? undefined : String(id), skill: releasedSkill(record.skill) };
  });
  const taskId = uniqueIds('spade-pool');
  const tasks = read.records.map(({ line, value }, index) => programTask(taskId(value.id, index), value.code, `${file}:${line}`, index, value.skill));
  return { tasks, skipped: read.skipped, firstProblem: read.firstProblem };
}

export function createSpadePoolSuite(poolPath: string, options: SpadePoolOptions = {}): StaticSuite {
  if (!poolPath) throw new UsageError('spade-pool: expected spade-pool:PATH (a pool folder, a released folder with manifest.json, a folder of .py files, or a JSON Lines, JSON or Parquet table) or spade-pool:hf:OWNER/NAME@REVISION');
  const hub = poolPath.startsWith('hf:') ? poolPath.slice(3) : undefined;
  const hubFile = hub !== undefined ? parseHubPool(hub).file : undefined; // a malformed name stops the run before anything starts
  const resolved = path.resolve(options.cwd ?? process.cwd(), poolPath);
  return defineStaticSuite({
    id: `spade-pool:${poolPath}`,
    description: `SPADE-format Python environments from ${poolPath}, loaded unchanged.`,
    language: 'python',
    async load(dataDir) {
      if (hub !== undefined) {
        const folder = await ensureHubPool(hub, { dataDir: options.dataDir ?? dataDir, offline: options.offline, hubUrl: options.hubUrl, fetch: options.fetch });
        if (hubFile !== undefined) return loadRows(folder, options);
        return hasPoolLayout(folder) ? loadPoolLayout(folder, 'spade-pool', options) : loadReleaseLayout(folder, 'spade-pool', options);
      }
      const info = await stat(resolved).catch(() => {
        throw new UsageError(`spade-pool:${poolPath}: ${resolved} does not exist`);
      });
      if (!info.isDirectory()) return loadRows(resolved, options);
      if (hasPoolLayout(resolved)) return loadPoolLayout(resolved, 'spade-pool', options);
      return hasReleaseLayout(resolved) ? loadReleaseLayout(resolved, 'spade-pool', options) : loadFolder(resolved, options);
    },
  });
}
