/**
 * Grounding documents for the designer, as SPADE grounds each generation on a document sampled
 * from a corpus (spade/core/corpus.py): a JSON Lines or Parquet file, one document per line or
 * row, its text the `orig_doc` field (SPICE's layout) or else `text`. A line whose document has
 * no text is an error naming the line (SPADE skips it silently). Each design call samples one
 * document with a PRNG seeded from the call's own seed, so the same run seed grounds the same
 * environments on the same documents (SPADE draws from one generator seeded 42 across its
 * asynchronous calls, an order no run can repeat).
 *
 * The cut: under SPADE's designer protocol SPADE's own loader reads the document's line and cuts
 * it at its word budget (spade-code.ts); spade-bench's own prompts cut it at MAX_DOCUMENT_CHARS.
 */
import { readFile } from 'node:fs/promises';
import { DataError, UsageError } from '../errors.js';
import { mulberry32 } from '../run/random.js';

/** Longest excerpt of a document put in spade-bench's own prompts, in characters. */
export const MAX_DOCUMENT_CHARS = 4000;

export interface CorpusDocument {
  /** 1-based line (or row) of the document in its file. */
  line: number;
  text: string;
  /** The document's record as one JSON line (what SPADE's loader reads). */
  json?: string;
}

/** The document text of a record as SPADE reads it: `orig_doc`, else `text`, as text, trimmed. */
export function documentText(record: unknown): string {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return '';
  const { orig_doc: orig, text } = record as { orig_doc?: unknown; text?: unknown };
  const value = orig || text || '';
  return (typeof value === 'string' ? value : JSON.stringify(value)).trim();
}

async function corpusLines(file: string): Promise<string[]> {
  if (/\.parquet$/i.test(file)) {
    const { asyncBufferFromFile, parquetReadObjects } = await import('hyparquet');
    let rows: Record<string, unknown>[];
    try {
      rows = await parquetReadObjects({ file: await asyncBufferFromFile(file) });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new UsageError(`corpus ${file}: no such file`);
      throw new DataError(file, undefined, `not a readable Parquet file: ${(error as Error).message}`);
    }
    const plain = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? Number(value) : value);
    return rows.map((row) => JSON.stringify(row, plain));
  }
  const content = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`corpus ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  });
  return content.split('\n');
}

/** Read a corpus file (JSON Lines, or Parquet by its `.parquet` name). Blank lines are skipped. */
export async function loadCorpus(file: string): Promise<CorpusDocument[]> {
  const documents: CorpusDocument[] = [];
  (await corpusLines(file)).forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new DataError(file, i + 1, `not JSON: ${(error as Error).message}`);
    }
    const text = documentText(value);
    if (text === '') throw new DataError(file, i + 1, 'expected an object with a non-empty "orig_doc" or "text" field');
    documents.push({ line: i + 1, text, json: raw.trim() });
  });
  if (documents.length === 0) throw new DataError(file, undefined, 'the corpus holds no documents');
  return documents;
}

/** One document, chosen by `seed` (uniformly). */
export function pickDocument(documents: readonly CorpusDocument[], seed: number): CorpusDocument {
  return documents[Math.floor(mulberry32(seed)() * documents.length)]!;
}

/** One document, chosen by `seed`, cut to MAX_DOCUMENT_CHARS (spade-bench's own prompts). */
export function sampleDocument(documents: readonly CorpusDocument[], seed: number): CorpusDocument {
  const chosen = pickDocument(documents, seed);
  return chosen.text.length <= MAX_DOCUMENT_CHARS ? chosen : { line: chosen.line, text: `${chosen.text.slice(0, MAX_DOCUMENT_CHARS)} [...]` };
}
