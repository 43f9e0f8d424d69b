/**
 * JSON Lines reading for the static suites: one JSON value per line, blank lines ignored,
 * gzip (`.gz`) read transparently. A malformed line stops with the file and line number
 * (DataError); with `skipBad` it is skipped and counted instead, never dropped in silence.
 */
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { DataError, UsageError } from '../core/errors.js';

export interface JsonLinesOptions {
  /** Skip malformed lines and count them, instead of stopping at the first one. */
  skipBad?: boolean;
}

export interface JsonLine<T> {
  /** 1-based line number in the file. */
  line: number;
  value: T;
}

export interface JsonLines<T> {
  records: JsonLine<T>[];
  /** Lines skipped as malformed (only with `skipBad`). */
  skipped: number;
  /** The first skipped line's problem, as `file:line: message`. */
  firstProblem?: string;
}

/** Thrown by a record converter for a line that parses but cannot be used. */
export class RecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordError';
  }
}

/** Turns one parsed line into a record, or throws RecordError. */
export type RecordConverter<T> = (value: unknown, line: number) => T;

const identity: RecordConverter<unknown> = (value) => value;

/** Parse JSON Lines text; `file` names the source in errors. */
export function parseJsonLines<T = unknown>(
  text: string,
  file: string,
  options: JsonLinesOptions = {},
  convert: RecordConverter<T> = identity as RecordConverter<T>,
): JsonLines<T> {
  const result: JsonLines<T> = { records: [], skipped: 0 };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let raw = lines[i]!;
    if (i === 0 && raw.charCodeAt(0) === 0xfeff) raw = raw.slice(1);
    if (raw.trim() === '') continue;
    const line = i + 1;
    let problem: string;
    try {
      result.records.push({ line, value: convert(JSON.parse(raw), line) });
      continue;
    } catch (error) {
      if (error instanceof SyntaxError) problem = `not valid JSON (${error.message})`;
      else if (error instanceof RecordError) problem = error.message;
      else throw error;
    }
    if (!options.skipBad) throw new DataError(file, line, `${problem} (use --skip-bad to skip malformed lines)`);
    result.skipped++;
    result.firstProblem ??= `${file}:${line}: ${problem}`;
  }
  return result;
}

/** Read a file's text, gunzipping it when it is gzip-compressed (by content, not by name). */
export async function readDataText(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      throw new DataError(file, undefined, `not a readable gzip file (${(error as Error).message})`);
    }
  }
  return bytes.toString('utf8');
}

/** Read a JSON Lines file (plain or gzip). */
export async function readJsonLines<T = unknown>(
  file: string,
  options: JsonLinesOptions = {},
  convert?: RecordConverter<T>,
): Promise<JsonLines<T>> {
  return parseJsonLines(await readDataText(file), file, options, convert);
}

/** The record as an object, or RecordError. */
export function objectRecord(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RecordError('expected a JSON object');
  return value as Record<string, unknown>;
}

/** A required non-empty string field of a record, or RecordError. */
export function stringField(value: unknown, field: string): string {
  const got = objectRecord(value)[field];
  if (typeof got !== 'string' || got.trim() === '') {
    throw new RecordError(got === undefined ? `missing field "${field}"` : `field "${field}" must be a non-empty string`);
  }
  return got;
}
