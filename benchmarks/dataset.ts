/**
 * Any question–answer dataset as a static suite, by configuration alone: `jsonl:PATH`,
 * `parquet:PATH` or `hf:owner/dataset`, with a field mapping (which field is the question,
 * which the answer, optional hint and id, and the checker: `exact`, `numeric` or `contains`).
 * Each record becomes a single-answer JavaScript environment (see answer-program.ts).
 */
import path from 'node:path';
import { DataError, UsageError } from '../core/errors.js';
import { didYouMean } from '../core/config/suggest.js';
import { ANSWER_CHECKERS, answerProgram, type AnswerChecker } from './answer-program.js';
import type { DataOptions } from './download.js';
import { ensureHuggingFaceRows, type HuggingFaceOptions } from './huggingface.js';
import { objectRecord, parseJsonLines, readJsonLines, RecordError } from './jsonl.js';
import { parquetAsJsonLines } from './parquet.js';
import { defineStaticSuite, uniqueIds, type StaticSuite } from './static-suite.js';

export type DatasetKind = 'jsonl' | 'parquet' | 'hf';

export const DATASET_KINDS: readonly DatasetKind[] = ['jsonl', 'parquet', 'hf'];

/** Which record fields hold what. Field names may be dotted paths (`meta.answer`). */
export interface FieldMapping {
  /** Default `question`. */
  question?: string;
  /** Default `answer`. Numbers are used as their decimal text. */
  answer?: string;
  /** Default `exact`. */
  checker?: AnswerChecker;
  /** A field with SPADE's privileged hint (e.g. a worked first step). */
  hint?: string;
  /** A field with each record's id; default: the record's position. */
  id?: string;
  /** hf: the dataset config (subset) and split. */
  config?: string;
  split?: string;
}

export interface DatasetOptions extends DataOptions {
  /** Skip malformed records and count them (`suite.skipped`) instead of stopping. */
  skipBad?: boolean;
  /** hf: the datasets-server address (tests point it at a local server). */
  baseUrl?: string;
  /** Resolve a relative jsonl/parquet PATH against this folder (default: the working directory). */
  cwd?: string;
}

const MAPPING_KEYS = ['question', 'answer', 'checker', 'hint', 'id', 'config', 'split'] as const;

/** Check a field mapping from config; `where` names it in errors (e.g. `datasets["jsonl:x.jsonl"]`). */
export function parseFieldMapping(value: unknown, where: string): FieldMapping {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${where}: expected an object`);
  const mapping = value as Record<string, unknown>;
  for (const [key, field] of Object.entries(mapping)) {
    if (!(MAPPING_KEYS as readonly string[]).includes(key)) throw new UsageError(`${where}.${key}: unknown key (expected one of ${MAPPING_KEYS.join(', ')}).${didYouMean(key, MAPPING_KEYS)}`);
    if (typeof field !== 'string' || !field) throw new UsageError(`${where}.${key}: expected a non-empty string`);
  }
  if (mapping.checker !== undefined && !(ANSWER_CHECKERS as readonly unknown[]).includes(mapping.checker)) {
    throw new UsageError(`${where}.checker: expected one of ${ANSWER_CHECKERS.join(', ')}, got "${String(mapping.checker)}"`);
  }
  return mapping as FieldMapping;
}

function fieldOf(record: unknown, field: string): unknown {
  let value: unknown = record;
  for (const part of field.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function textField(record: unknown, field: string, required: boolean): string | undefined {
  const value = fieldOf(record, field);
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (!required && (value === undefined || value === null || value === '')) return undefined;
  if (value !== undefined) throw new RecordError(`field "${field}" must be a non-empty string or a number`);
  // The fields the record has, and how to map one of them.
  const has = record !== null && typeof record === 'object' ? Object.keys(record).slice(0, 8).join(', ') : '';
  const role = field === 'question' || field === 'answer' ? field : 'KEY';
  throw new RecordError(`missing field "${field}"${has ? ` (its fields: ${has}; map one with --field ${role}=FIELD)` : ''}`);
}

interface DatasetRecord {
  question: string;
  answer: string;
  hint?: string;
  id?: string;
}

function recordConverter(mapping: FieldMapping) {
  return (raw: unknown): DatasetRecord => {
    const value = objectRecord(raw);
    const record: DatasetRecord = {
      question: textField(value, mapping.question ?? 'question', true)!,
      answer: textField(value, mapping.answer ?? 'answer', true)!,
    };
    const hint = mapping.hint ? textField(value, mapping.hint, false) : undefined;
    if (hint !== undefined) record.hint = hint;
    const id = mapping.id ? textField(value, mapping.id, false) : undefined;
    if (id !== undefined) record.id = id;
    return record;
  };
}

/**
 * A dataset suite. `source` is the PATH of `jsonl:PATH` / `parquet:PATH`, or `owner/dataset`
 * for `hf:`. The suite id is `<kind>:<source>`.
 */
export function createDatasetSuite(kind: DatasetKind, source: string, mapping: FieldMapping = {}, options: DatasetOptions = {}): StaticSuite {
  if (!DATASET_KINDS.includes(kind)) throw new UsageError(`unknown dataset kind "${kind}" (expected ${DATASET_KINDS.join(', ')})`);
  if (!source) throw new UsageError(`${kind}: expected ${kind === 'hf' ? 'hf:owner/dataset' : `${kind}:PATH`}`);
  const id = `${kind}:${source}`;
  const checker = mapping.checker ?? 'exact';
  return defineStaticSuite(
    {
      id,
      description: `${kind === 'hf' ? 'Hugging Face dataset' : kind === 'parquet' ? 'Parquet dataset' : 'JSON Lines dataset'} ${source}: question "${mapping.question ?? 'question'}", answer "${mapping.answer ?? 'answer'}", ${checker} match.`,
      language: 'javascript',
      async load(dataDir) {
        const file = kind === 'hf'
          ? await ensureHuggingFaceRows(source, { ...options, dataDir, config: mapping.config, split: mapping.split } satisfies HuggingFaceOptions)
          : path.resolve(options.cwd ?? process.cwd(), source);
        const read = kind === 'parquet'
          ? parseJsonLines(await parquetAsJsonLines(file), file, options, recordConverter(mapping))
          : await readJsonLines(file, options, recordConverter(mapping));
        // Every record skipped is no dataset: most likely the fields are mapped wrong.
        if (read.records.length === 0 && read.skipped > 0) {
          throw new DataError(file, undefined, `every record (${read.skipped}) was malformed; the first: ${read.firstProblem}`);
        }
        const taskId = uniqueIds(id);
        const tasks = read.records.map(({ line, value }, index) => ({
          program: answerProgram({
            id: taskId(value.id, index),
            question: value.question,
            answer: value.answer,
            checker,
            ...(value.hint !== undefined ? { hint: value.hint } : {}),
            family: id,
            origin: `${file}:${line}`,
          }),
          seed: index,
        }));
        return { tasks, skipped: read.skipped, firstProblem: read.firstProblem };
      },
    },
    options.dataDir,
  );
}
