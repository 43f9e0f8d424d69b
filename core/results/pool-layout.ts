/**
 * SPADE's pool layout, as its self-play writes games (spade/core/utils/game_files.py at 9b2b813)
 * and as its GPT-5.5 pool is published (cmd/games/_download_gpt55_pool.sh: `games/`,
 * `manifest.jsonl`, `checksums.sha256` checked with `sha256sum -c`):
 *   DIR/games/game_{round:05d}_{index:03d}_{skill_slug}.py   each file: the line
 *       `"""SPADE self-play generated game"""`, a blank line, then the program;
 *   DIR/manifest.jsonl      one JSON object per game (spade-bench writes the fields of PoolManifestLine);
 *   DIR/checksums.sha256    `<sha256 hex>  <path from DIR>` per file, as sha256sum writes it;
 *   DIR/games/<game>_hint.txt  a game's hint, named as SPADE's hint cache names them;
 *   DIR/env_memory.json     SPADE's environment memory over the games (spade/core/env_memory.py's
 *                           save(): a JSON array of its records).
 * spade-bench writes JavaScript programs beside them as `.js` (SPADE's loader reads only `.py`).
 */
import { createHash } from 'node:crypto';
import { skillSlug } from '../selfplay/skills.js';
import type { SpadeMemoryRecord } from '../concepts/roles.js';

export const GAMES_FOLDER = 'games';
export const MANIFEST_FILE = 'manifest.jsonl';
export const CHECKSUMS_FILE = 'checksums.sha256';
/** A game's hint file: `<game file name without extension>_hint.txt`, as SPADE's hint cache writes it. */
export const HINT_SUFFIX = '_hint.txt';
export const MEMORY_FILE = 'env_memory.json';
/** SPADE's memory keeps the first 2,000 characters of a game's code, and its last 200 records. */
export const MEMORY_SNIPPET_CHARS = 2000;
export const MEMORY_MAX_RECORDS = 200;

/** One record of SPADE's env_memory.json (spade/core/env_memory.py's EnvironmentRecord). */
export type MemoryRecord = SpadeMemoryRecord;

/** The first line SPADE writes in every game file, before a blank line and the program. */
export const GAME_HEADER = '"""SPADE self-play generated game"""';

/** The skill slug of a game that has none recorded. */
export const NO_SKILL_SLUG = 'general';

/** A game's file name: SPADE's `game_{round:05d}_{index:03d}_{skill_slug}.py` (`.js` for JavaScript). */
export function gameFileName(round: number, index: number, skill: string | undefined, language: string): string {
  const slug = skill ? skillSlug(skill).replace(/[^\w-]/g, '_') : NO_SKILL_SLUG;
  return `game_${String(round).padStart(5, '0')}_${String(index).padStart(3, '0')}_${slug}.${language === 'python' ? 'py' : 'js'}`;
}

/** The round, index and skill slug in a game file's name, when it follows SPADE's naming. */
export function parseGameFileName(name: string): { round: number; index: number; slug: string } | undefined {
  const m = /^game_(\d+)_(\d+)_(.+)\.(py|js)$/.exec(name);
  return m ? { round: Number(m[1]), index: Number(m[2]), slug: m[3]! } : undefined;
}

/** A game file's text: SPADE's header line, a blank line, the program (a `//` comment for JavaScript). */
export function gameFileText(source: string, language: string): string {
  const header = language === 'python' ? GAME_HEADER : `// ${GAME_HEADER.replace(/"""/g, '')}`;
  return `${header}\n\n${source.endsWith('\n') ? source : `${source}\n`}`;
}

export const sha256Hex = (bytes: string | Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** One line of checksums.sha256, as sha256sum writes it. */
export const checksumLine = (hex: string, file: string): string => `${hex}  ${file}`;

/**
 * The files and digests of a checksums.sha256 text (`<hex>  <path>`, or `<hex> *<path>` in
 * binary mode); throws with the line number of a line that is neither.
 */
export function parseChecksums(text: string): { file: string; sha256: string }[] {
  const out: { file: string; sha256: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    const m = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line);
    if (!m) throw new SyntaxError(`line ${i + 1}: expected "<sha256>  <file>", got ${JSON.stringify(line.slice(0, 80))}`);
    out.push({ sha256: m[1]!.toLowerCase(), file: m[2]! });
  });
  return out;
}

/** A path from a pool's folder that stays inside it (no absolute path, no `..`). */
export function insidePool(file: string): boolean {
  const parts = file.split('/');
  return !file.startsWith('/') && !/^[A-Za-z]:/.test(file) && !parts.includes('..') && !file.includes('\\');
}

/** What spade-bench writes in manifest.jsonl for each game. */
export interface PoolManifestLine {
  /** The game's file name without its extension. */
  game_id: string;
  /** Its path from the pool's folder: `games/game_...py`. */
  file_name: string;
  /** SPADE's cognitive skill (its name), when the environment has one. */
  skill: string | null;
  sha256: string;
  /** The environment's id in the run, and where it came from. */
  id: string;
  suite: string;
  round: number | null;
  index: number;
  language: string;
  /** single-turn, multi-turn or tool-use. */
  game_type: string | null;
  /** The gate's readings when the run made them (spade: SPADE's own checks). */
  spade_verdict: string | null;
  strict_verdict: string | null;
  task: string | null;
  solve_rate: number | null;
  hint_solve_rate: number | null;
  designer_reward: number | null;
  /** Its hint file (`games/<game>_hint.txt`), when the run has a hint for it. */
  hint_file: string | null;
}
