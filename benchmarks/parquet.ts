/**
 * Parquet datasets (`parquet:PATH`), read with hyparquet (pure JavaScript). Each row becomes
 * one JSON line, so Parquet and JSON Lines share the record checks and the `file:row` errors.
 */
import { existsSync } from 'node:fs';
import { DataError } from '../core/errors.js';

/** The rows of a Parquet file as JSON Lines text (big integers as numbers when exact, else text). */
export async function parquetAsJsonLines(file: string): Promise<string> {
  if (!existsSync(file)) throw new DataError(file, undefined, 'file not found');
  const { asyncBufferFromFile, parquetReadObjects } = await import('hyparquet');
  let rows: Record<string, unknown>[];
  try {
    rows = await parquetReadObjects({ file: await asyncBufferFromFile(file) });
  } catch (error) {
    throw new DataError(file, undefined, `not a readable Parquet file: ${(error as Error).message}`);
  }
  const plain = (_key: string, value: unknown): unknown =>
    typeof value === 'bigint' ? (Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()) : value;
  return rows.map((row) => JSON.stringify(row, plain)).join('\n');
}
