/**
 * Reading a pool in SPADE's layout (core/results/pool-layout.ts): `DIR/games` read recursively (`.py`,
 * and the `.js` spade-bench writes beside them), `DIR/manifest.jsonl` where present (a game's
 * skill and id), `DIR/checksums.sha256` where present (every file it lists must be there with
 * that digest, as `sha256sum -c` checks it). The paper's GPT-5.5 pool loads as it is published.
 * A game's hint, when a `<game>_hint.txt` lies beside it (SPADE's hint cache names them so, and
 * `export --format pool` writes them), is kept in its `meta.params.hint`.
 *
 * SPADE's tool-use environment release has another layout: `manifest.json`, the authoritative
 * list (a JSON array, or an object holding it under `environments`, `games` or `entries`), one
 * entry per environment with its `source_run`, `model_scale`, `recipe`, `skill` and training
 * `step`, and the programs in `environments/<source_run>/<file>.py`. An entry names its file in
 * `path`, `path_in_dataset`, `file`, `file_name` or `filename` (from the folder, or from its
 * run's folder); a `sha256` in it must match. Files the manifest does not list are not read.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CHECKSUMS_FILE, GAMES_FOLDER, HINT_SUFFIX, MANIFEST_FILE, insidePool, parseChecksums, parseGameFileName, sha256Hex } from '../core/results/pool-layout.js';
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

/** A released skill label as SPADE's skill name (`state_modification` → State Modification); none for `general` or `unlabelled`. */
export function releasedSkill(written: unknown): string | undefined {
  if (typeof written !== 'string' || written === '' || written === 'general' || written === 'unlabelled') return undefined;
  return skillName(written) ?? written;
}

/** The skill of a game: the manifest's, else the one its file name carries (SPADE's naming). */
function skillOf(record: Record<string, unknown> | undefined, file: string): string | undefined {
  const given = record?.skill;
  return releasedSkill(typeof given === 'string' && given !== '' ? given : parseGameFileName(path.basename(file))?.slug);
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
    // The game's hint, when one lies beside it (checked like the games when listed).
    const hintRelative = `${relative.replace(/\.(py|js)$/, '')}${HINT_SUFFIX}`;
    let hint: string | undefined;
    if (existsSync(path.join(root, hintRelative))) {
      const hintBytes = await readFile(path.join(root, hintRelative));
      const hintExpected = checksums?.get(hintRelative);
      if (hintExpected !== undefined && sha256Hex(hintBytes) !== hintExpected) {
        skip(path.join(root, hintRelative), `checksum mismatch: ${CHECKSUMS_FILE} says ${hintExpected}, the file is ${sha256Hex(hintBytes)}`);
        continue;
      }
      hint = hintBytes.toString('utf8');
    }
    const named = typeof record?.game_id === 'string' && record.game_id !== '' ? record.game_id : stem;
    const id = seen.has(named) ? stem : named;
    seen.add(id);
    const skill = skillOf(record, relative);
    loaded.tasks.push({
      program: {
        id: `${prefix}/${id}`, language: LANGUAGE_OF[path.extname(relative)]!, source,
        meta: { family: 'spade-pool', origin: file, ...(skill ? { skill } : {}), ...(hint !== undefined ? { params: { hint } } : {}) },
      },
      seed: loaded.tasks.length,
    } satisfies SuiteTask);
  }
  return loaded;
}

/** The release's manifest and programs folder. */
export const RELEASE_MANIFEST = 'manifest.json';
export const RELEASE_FOLDER = 'environments';

/** True when `dir` holds SPADE's tool-use environment release (`manifest.json` and `environments/`). */
export const hasReleaseLayout = (dir: string): boolean => existsSync(path.join(dir, RELEASE_MANIFEST)) && existsSync(path.join(dir, RELEASE_FOLDER));

const RELEASE_FILE_FIELDS = ['path', 'path_in_dataset', 'file', 'file_name', 'filename'] as const;
const RELEASE_LIST_FIELDS = ['environments', 'games', 'entries'] as const;
/** What an entry says of its run, kept in the program's meta.params. */
const RELEASE_PARAMS = ['source_run', 'model_scale', 'recipe', 'step', 'generation', 'difficulty'] as const;

/** The list of environments in a parsed release manifest: the array itself, or the one an object holds. */
export function releaseListing(parsed: unknown): unknown[] | undefined {
  return Array.isArray(parsed)
    ? parsed
    : RELEASE_LIST_FIELDS.map((f) => (parsed as Record<string, unknown> | null)?.[f]).find((v): v is unknown[] => Array.isArray(v));
}

/** Where a release entry's file may be, in the order looked at (undefined when it names none inside the release). */
export function releaseCandidates(record: Record<string, unknown>): { named?: string; candidates?: string[] } {
  const named = RELEASE_FILE_FIELDS.map((f) => record[f]).find((v): v is string => typeof v === 'string' && v !== '');
  if (!named || !insidePool(named)) return { named };
  const run = typeof record.source_run === 'string' && insidePool(record.source_run) ? record.source_run : undefined;
  return { named, candidates: [named, `${RELEASE_FOLDER}/${named}`, ...(run ? [`${RELEASE_FOLDER}/${run}/${named}`] : [])] };
}

/** The tasks of SPADE's tool-use environment release at `root`, in the manifest's order. */
export async function loadReleaseLayout(root: string, prefix: string, options: LayoutOptions): Promise<LoadedTasks> {
  const manifestFile = path.join(root, RELEASE_MANIFEST);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(manifestFile, 'utf8'));
  } catch (error) {
    throw new DataError(manifestFile, undefined, `not valid JSON (${(error as Error).message})`);
  }
  const listed = releaseListing(parsed);
  if (!listed) throw new DataError(manifestFile, undefined, `expected a JSON array of environments, or an object holding one under ${RELEASE_LIST_FIELDS.join(', ')}`);
  const loaded: LoadedTasks = { tasks: [], skipped: 0 };
  const skip = (where: string, problem: string): void => {
    if (!options.skipBad) throw new DataError(where, undefined, `${problem} (use --skip-bad to skip unusable environments)`);
    loaded.skipped++;
    loaded.firstProblem ??= `${where}: ${problem}`;
  };
  const seen = new Set<string>();
  for (const [i, entry] of listed.entries()) {
    const where = `${manifestFile} entry ${i}`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      skip(where, 'expected an object');
      continue;
    }
    const record = entry as Record<string, unknown>;
    const { named, candidates } = releaseCandidates(record);
    if (!named || !candidates) {
      skip(where, named ? `the path ${JSON.stringify(named)} leaves the release's folder` : `no file (expected one of ${RELEASE_FILE_FIELDS.join(', ')})`);
      continue;
    }
    const relative = candidates.find((c) => existsSync(path.join(root, c)) && LANGUAGE_OF[path.extname(c)]);
    if (!relative) {
      skip(where, `its file ${JSON.stringify(named)} is missing`);
      continue;
    }
    const file = path.join(root, relative);
    const bytes = await readFile(file);
    if (typeof record.sha256 === 'string' && record.sha256.toLowerCase() !== sha256Hex(bytes)) {
      skip(file, `checksum mismatch: ${RELEASE_MANIFEST} says ${record.sha256}, the file is ${sha256Hex(bytes)}`);
      continue;
    }
    const source = bytes.toString('utf8');
    const problem = source.trim() === '' ? 'the file is empty' : bytes.length > MAX_PROGRAM_BYTES ? 'the file is larger than 1 MiB' : undefined;
    if (problem) {
      skip(file, problem);
      continue;
    }
    const stem = relative.replace(/^environments\//, '').replace(/\.(py|js)$/, '');
    const id = seen.has(stem) ? `${stem}-${i}` : stem;
    seen.add(id);
    const skill = releasedSkill(record.skill);
    const params = Object.fromEntries(RELEASE_PARAMS.filter((f) => record[f] !== undefined && record[f] !== null).map((f) => [f, record[f]]));
    loaded.tasks.push({
      program: {
        id: `${prefix}/${id}`, language: LANGUAGE_OF[path.extname(relative)]!, source,
        meta: { family: 'spade-pool', origin: file, ...(skill ? { skill } : {}), ...(Object.keys(params).length ? { params } : {}) },
      },
      seed: loaded.tasks.length,
    } satisfies SuiteTask);
  }
  return loaded;
}
