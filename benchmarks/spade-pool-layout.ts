/**
 * Reading a pool in SPADE's layout (core/results/pool-layout.ts): `DIR/games` read recursively (`.py`,
 * and the `.js` spade-bench writes beside them), `DIR/manifest.jsonl` where present (a game's
 * skill and id), `DIR/checksums.sha256` where present (every file it lists must be there with
 * that digest, as `sha256sum -c` checks it). The paper's GPT-5.5 pool loads as it is published.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CHECKSUMS_FILE, GAMES_FOLDER, MANIFEST_FILE, insidePool, parseChecksums, parseGameFileName, sha256Hex } from '../core/results/pool-layout.js';
import { DataError } from '../core/errors.js';
import { skillName } from '../core/selfplay/skills.js';
import type { Language } from '../core/concepts/environment.js';
import type { SuiteTask } from '../core/concepts/suite.js';
import { objectRecord, readJsonLines } from './jsonl.js';
import type { LoadedTasks } from './static-suite.js';

/** Larger programs are refused as data errors (a pool file is a few KiB; the GPT-5.5 pool's largest ~40 KiB). */
export const MAX_PROGRAM_BYTES = 1024 * 1024;

const byName = new Intl.Collator('en', { numeric: true });
const LANGUAGE_OF: Record<string, Language> = { '.py': 'python', '.js': 'javascript' };

/** Files the manifest names a game by, and where it may hold the skill and the id. */
const MANIFEST_FILE_FIELDS = ['file_name', 'file', 'path', 'filename'] as const;

export interface LayoutOptions {
  skipBad?: boolean;
}

/** True when `dir` holds a pool in SPADE's layout (a `games` folder). */
export const hasPoolLayout = (dir: string): boolean => existsSync(path.join(dir, GAMES_FOLDER));

/** Every program file under `dir`, as paths from `root` with `/`, in name order (numbers by value). */
function programFiles(root: string, dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && LANGUAGE_OF[path.extname(entry.name)]) found.push(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  walk(dir);
  return found.sort(byName.compare);
}

/** The manifest's records by the game's path from the pool's folder. */
async function readManifest(root: string, options: LayoutOptions): Promise<{ byFile: Map<string, Record<string, unknown>>; skipped: number; firstProblem?: string }> {
  const file = path.join(root, MANIFEST_FILE);
  const byFile = new Map<string, Record<string, unknown>>();
  if (!existsSync(file)) return { byFile, skipped: 0 };
  const read = await readJsonLines(file, options, (value) => objectRecord(value));
  for (const { value } of read.records) {
    const named = MANIFEST_FILE_FIELDS.map((f) => value[f]).find((v): v is string => typeof v === 'string' && v !== '');
    if (!named) continue;
    const relative = named.replace(/^\.\//, '');
    byFile.set(relative.startsWith(`${GAMES_FOLDER}/`) ? relative : `${GAMES_FOLDER}/${relative}`, value);
  }
  return { byFile, skipped: read.skipped, firstProblem: read.firstProblem };
}

/** The digests checksums.sha256 lists, by path; a malformed line is a DataError with its number. */
async function readChecksums(root: string): Promise<Map<string, string> | undefined> {
  const file = path.join(root, CHECKSUMS_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const entries = parseChecksums(await readFile(file, 'utf8'));
    for (const { file: listed } of entries) if (!insidePool(listed)) throw new SyntaxError(`the path ${JSON.stringify(listed)} leaves the pool's folder`);
    return new Map(entries.map((e) => [e.file.replace(/^\.\//, ''), e.sha256]));
  } catch (error) {
    const m = /^line (\d+): (.*)$/.exec((error as Error).message);
    throw new DataError(file, m ? Number(m[1]) : undefined, m ? m[2]! : (error as Error).message);
  }
}

/** The skill of a game: the manifest's, else the one its file name carries (SPADE's naming). */
function skillOf(record: Record<string, unknown> | undefined, file: string): string | undefined {
  const given = record?.skill;
  const written = typeof given === 'string' && given !== '' ? given : parseGameFileName(path.basename(file))?.slug;
  if (!written || written === 'general') return undefined;
  return skillName(written) ?? written;
}

/** The tasks of the pool in SPADE's layout at `root`. */
export async function loadPoolLayout(root: string, prefix: string, options: LayoutOptions): Promise<LoadedTasks> {
  const checksums = await readChecksums(root);
  const manifest = await readManifest(root, options);
  const loaded: LoadedTasks = { tasks: [], skipped: manifest.skipped, ...(manifest.firstProblem ? { firstProblem: manifest.firstProblem } : {}) };
  const skip = (file: string, problem: string): void => {
    if (!options.skipBad) throw new DataError(file, undefined, `${problem} (use --skip-bad to skip unusable environments)`);
    loaded.skipped++;
    loaded.firstProblem ??= `${file}: ${problem}`;
  };
  const files = programFiles(root, path.join(root, GAMES_FOLDER));
  for (const listed of checksums?.keys() ?? []) {
    if (!existsSync(path.join(root, listed))) skip(path.join(root, listed), `listed in ${CHECKSUMS_FILE} but missing`);
  }
  const seen = new Set<string>();
  for (const relative of files) {
    const file = path.join(root, relative);
    const bytes = await readFile(file);
    const expected = checksums?.get(relative);
    if (expected !== undefined && sha256Hex(bytes) !== expected) {
      skip(file, `checksum mismatch: ${CHECKSUMS_FILE} says ${expected}, the file is ${sha256Hex(bytes)}`);
      continue;
    }
    const source = bytes.toString('utf8');
    const problem = source.trim() === '' ? 'the file is empty' : bytes.length > MAX_PROGRAM_BYTES ? 'the file is larger than 1 MiB' : undefined;
    if (problem) {
      skip(file, problem);
      continue;
    }
    const record = manifest.byFile.get(relative);
    const stem = relative.slice(GAMES_FOLDER.length + 1).replace(/\.(py|js)$/, '');
    const named = typeof record?.game_id === 'string' && record.game_id !== '' ? record.game_id : stem;
    const id = seen.has(named) ? stem : named;
    seen.add(id);
    const skill = skillOf(record, relative);
    loaded.tasks.push({
      program: { id: `${prefix}/${id}`, language: LANGUAGE_OF[path.extname(relative)]!, source, meta: { family: 'spade-pool', origin: file, ...(skill ? { skill } : {}) } },
      seed: loaded.tasks.length,
    } satisfies SuiteTask);
  }
  return loaded;
}
