/**
 * SPADE's evaluation as the yardstick of the paper's suites: the prompt text of each suite is
 * read at run time from SPADE's source (spade-rl/spade at 9b2b813), each file checked by its git
 * blob id, so the model is asked word for word as SPADE asks it without spade-bench carrying
 * SPADE's text. The Python string literals are read, never run.
 */
import { DataError } from '../../core/errors.js';
import type { DataOptions } from '../download.js';
import { pinnedFiles, type PinnedArchive } from './pinned-source.js';

export const SPADE_ARCHIVE: PinnedArchive = {
  repository: 'spade-rl/spade',
  commit: '9b2b813e8e2bd35d5923c96aa7500e24704b2d8f',
  folder: 'spade',
  fileName: 'spade-9b2b813.tar.gz',
};

/** The files read, by their git blob id at that commit. */
export const SPADE_FILES = {
  aimePreparation: ['cmd/eval/prepare_aime_datasets.py', '610a77a9f4c7d58aa00126b3205e1106d243e3c1'],
  gpqa: ['eval_offline/suites/gpqa_diamond.py', '02e7006ed0139092f1d92a9f3c2119d76eae10e9'],
  livecodebench: ['eval_offline/suites/livecodebench.py', '34371865af04e5f69e85a863d3bd5c0be1e999d2'],
  gemEvaluator: ['spade/core/eval/gem_evaluator.py', '3ef70654481fe06e9306fe1082430b50e2ee918d'],
  gemTasks: ['spade/core/eval/gem_tasks.py', '502be7ef70b2a3c61057dfba28290af79fd2727e'],
  hardConfigs: ['spade/core/eval/rg_a3_hard.py', '79bf5b81864f4db62fc85a421ce49328545aac0d'],
  gemAdapter: ['spade/core/envs/gem_adapter.py', '1e2ca1eb96733ad06ecab94231d540473a73006d'],
  gamesGem: ['eval_offline/configs/_games_gem.yaml', 'a71376407756a8c49d4fb092a1fe46f2d03f5f03'],
} as const;

export type SpadeFile = keyof typeof SPADE_FILES;

/** The text of SPADE's files, checked. */
export async function spadeFiles(names: readonly SpadeFile[], options: DataOptions = {}): Promise<Record<SpadeFile, string>> {
  const wanted = Object.fromEntries(names.map((n) => SPADE_FILES[n]));
  const texts = await pinnedFiles(SPADE_ARCHIVE, wanted, options);
  return Object.fromEntries(names.map((n) => [n, texts.get(SPADE_FILES[n][0])!])) as Record<SpadeFile, string>;
}

/**
 * The files whose code `--designer-protocol spade` and `--agent-protocol spade` run to build
 * SPADE's prompts (core/roles/spade-code.ts), by their git blob id at that commit.
 */
export const SPADE_CODE_BLOBS: Readonly<Record<string, string>> = {
  'spade/core/orchestrator.py': '68f57f444a75e502e48b978e21bcf0453ef208f7',
  'spade/core/corpus_orchestrator.py': 'b595f56f64c22d40bf07aae7c6b35f29f02005ec',
  'spade/core/prompts/__init__.py': '87320b12e693bdbeb3751dcd0bd49a78c567bea4',
  'spade/core/prompts/template.py': '0e1f54d07d027fcee272ca68ff698ab1d35ca04f',
  'spade/core/prompts/tool_use_template.py': 'd97b66371960ca0b6b5198621432163072e04391',
  'spade/core/prompts/corpus_template.py': '8576fd38ebf7961f94b8e3f82b57389c824f2c8c',
  'spade/core/game_generator.py': 'e49af594282a5c9e7973c455c2520cc5aa130c92',
  'spade/core/hint_generator.py': 'd57cbb02208c0a2184592355f2345d3a9a4f5933',
  'spade/core/env_validator.py': '21ce5d038ce412aaebe6c7871f8fed48e32251c6',
  'spade/core/env_memory.py': 'e5ca0a0ff1fd7f3141404d566d066d90d5a4d151',
  'spade/core/corpus.py': '0308c730e19fac005c0d47c55535c61e5ef66ac2',
  'spade/core/utils/game_files.py': '791e5e34bb53887e3c068998d337f12508191733',
};

/** The text of those files, each checked (downloaded once, then read from the cache). */
export async function spadeCodeFiles(options: DataOptions = {}): Promise<Record<string, string>> {
  return Object.fromEntries(await pinnedFiles(SPADE_ARCHIVE, SPADE_CODE_BLOBS, options));
}

/** One Python string literal's value (the escapes SPADE's literals use; others kept as Python keeps them). */
function decode(body: string, formatted: boolean): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\' && i + 1 < body.length) {
      const next = body[++i]!;
      out += ({ n: '\n', t: '\t', '\\': '\\', '"': '"', "'": "'", '\n': '' } as Record<string, string>)[next] ?? `\\${next}`;
    } else if (formatted && (c === '{' || c === '}') && body[i + 1] === c) {
      out += c;
      i++;
    } else {
      out += c;
    }
  }
  return out;
}

export interface Literal {
  text: string;
  /** An f-string: its `{name}` fields are still in `text` (doubled braces already undone). */
  formatted: boolean;
}

/**
 * The string literals that follow one another from `at` (Python's implicit concatenation, across
 * lines and comments), until the first other token.
 */
export function literalsAt(source: string, at: number): Literal[] {
  const literals: Literal[] = [];
  const token = /\s*(?:#[^\n]*\n\s*)*(f?)(["'])((?:[^\\\n]|\\.)*?)\2/y;
  for (;;) {
    token.lastIndex = at;
    const m = token.exec(source);
    if (!m) return literals;
    literals.push({ text: decode(m[3]!, m[1] === 'f'), formatted: m[1] === 'f' });
    at = token.lastIndex;
  }
}

/** The literals after the first match of `anchor` (which must end where they start). */
export function literalsAfter(source: string, anchor: RegExp, file: string): Literal[] {
  const m = anchor.exec(source);
  const literals = m ? literalsAt(source, m.index + m[0].length) : [];
  if (!literals.length) throw new DataError(file, undefined, `cannot find SPADE's text after ${anchor} (is it SPADE's file at 9b2b813?)`);
  return literals;
}

/** Literals joined into one template whose `{field}`s (of f-strings) are filled by fill(). */
export function template(literals: readonly Literal[]): string {
  return literals.map((l) => l.text).join('');
}

/** A template with its `{name}` fields replaced by `values[name]` (only the names given; a value's own braces are left as they are). */
export function fill(text: string, values: Record<string, string>): string {
  const names = Object.keys(values).map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return text.replace(new RegExp(`\\{(${names.join('|')})\\}`, 'g'), (_, name: string) => values[name]!);
}

/** A Python literal of dicts, lists, strings, numbers and booleans (rg_a3_hard's configs), as JSON. */
export function pythonLiteralToJson(text: string): unknown {
  const json = text
    .replace(/'((?:[^'\\]|\\.)*)'/g, (_, body: string) => JSON.stringify(decode(body, false)))
    .replace(/\bTrue\b/g, 'true')
    .replace(/\bFalse\b/g, 'false')
    .replace(/\bNone\b/g, 'null')
    .replace(/,(\s*[}\]])/g, '$1');
  return JSON.parse(json);
}

/** The `{...}` that follows `NAME = ` in a Python source, as JSON. */
export function pythonDict(source: string, name: string, file: string): Record<string, unknown> {
  const start = source.search(new RegExp(`^${name}(?:\\s*:[^=]*)?\\s*=\\s*\\{`, 'm'));
  if (start < 0) throw new DataError(file, undefined, `cannot find ${name} (is it SPADE's file at 9b2b813?)`);
  const open = source.indexOf('{', start);
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    if (source[i] === '{') depth++;
    else if (source[i] === '}' && --depth === 0) {
      // The literal's text: comments removed, strings kept.
      const body = source.slice(open, i + 1).replace(/#[^\n'"]*$/gm, '');
      return pythonLiteralToJson(body) as Record<string, unknown>;
    }
  }
  throw new DataError(file, undefined, `${name} is not closed`);
}
