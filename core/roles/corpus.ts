/**
 * Grounding documents for the designer, as SPADE grounds each generation on a document
 * sampled from a corpus: a JSON Lines file, one document per line with a `text` field.
 * Each design call samples one document with a PRNG seeded from the call's own seed, so the
 * same run seed grounds the same environments on the same documents.
 */
import { readFile } from 'node:fs/promises';
import { DataError, UsageError } from '../errors.js';
import { mulberry32 } from '../run/random.js';

/** Longest excerpt of a document put in a prompt, in characters. */
export const MAX_DOCUMENT_CHARS = 4000;

export interface CorpusDocument {
  /** 1-based line of the document in its file. */
  line: number;
  text: string;
}

/** Read a corpus file. Blank lines are skipped; a line that is not an object with a non-empty `text` is a DataError. */
export async function loadCorpus(file: string): Promise<CorpusDocument[]> {
  const content = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`corpus ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  });
  const documents: CorpusDocument[] = [];
  content.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new DataError(file, i + 1, `not JSON: ${(error as Error).message}`);
    }
    const text = (value as { text?: unknown } | null)?.text;
    if (typeof text !== 'string' || text.trim() === '') throw new DataError(file, i + 1, 'expected an object with a non-empty "text" field');
    documents.push({ line: i + 1, text });
  });
  if (documents.length === 0) throw new DataError(file, undefined, 'the corpus holds no documents');
  return documents;
}

/** One document, chosen by `seed`, cut to MAX_DOCUMENT_CHARS. */
export function sampleDocument(documents: readonly CorpusDocument[], seed: number): CorpusDocument {
  const chosen = documents[Math.floor(mulberry32(seed)() * documents.length)]!;
  return chosen.text.length <= MAX_DOCUMENT_CHARS ? chosen : { line: chosen.line, text: `${chosen.text.slice(0, MAX_DOCUMENT_CHARS)} [...]` };
}
