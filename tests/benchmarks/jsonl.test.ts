import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DataError, UsageError } from '../../core/errors.js';
import { parseJsonLines, readJsonLines, stringField } from '../../benchmarks/jsonl.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'spade-jsonl-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const GOOD = '{"q": "one"}\n{"q": "two"}\n';

test('reads one record per line, with 1-based line numbers, ignoring blank lines', () => {
  const read = parseJsonLines('{"q": "one"}\n\n{"q": "two"}\n', 'data.jsonl');
  assert.equal(read.records, [
    { line: 1, value: { q: 'one' } },
    { line: 3, value: { q: 'two' } },
  ]);
  assert.is(read.skipped, 0);
});

test('a malformed line stops with the file and line number', () => {
  try {
    parseJsonLines('{"q": "one"}\n{"q": "tw\n{"q": "three"}\n', 'data.jsonl');
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, DataError);
    assert.is((error as DataError).file, 'data.jsonl');
    assert.is((error as DataError).line, 2);
    assert.match((error as Error).message, /^data\.jsonl:2: not valid JSON/);
    assert.match((error as Error).message, /--skip-bad/);
  }
});

test('a record the converter refuses stops the same way, naming the problem', () => {
  const convert = (value: unknown) => stringField(value, 'q');
  assert.throws(() => parseJsonLines('{"q": "one"}\n{"other": 1}\n', 'data.jsonl', {}, convert), (e: Error) => e instanceof DataError && /data\.jsonl:2: missing field "q"/.test(e.message));
  assert.throws(() => parseJsonLines('["q"]\n', 'data.jsonl', {}, convert), (e: Error) => /data\.jsonl:1: expected a JSON object/.test(e.message));
});

test('skipBad skips malformed lines and counts them instead of stopping', () => {
  const convert = (value: unknown) => stringField(value, 'q');
  const read = parseJsonLines('{"q": "one"}\nnot json\n{"q": ""}\n{"q": "four"}\n', 'data.jsonl', { skipBad: true }, convert);
  assert.equal(read.records.map((r) => r.value), ['one', 'four']);
  assert.is(read.skipped, 2);
  assert.match(read.firstProblem ?? '', /^data\.jsonl:2: not valid JSON/);
});

test('a converter bug is not mistaken for bad data', () => {
  const convert = (): never => {
    throw new TypeError('bug');
  };
  assert.throws(() => parseJsonLines(GOOD, 'data.jsonl', { skipBad: true }, convert), (e: Error) => e instanceof TypeError);
});

test('reads plain and gzip files alike (by content), and names an unreadable file', async () => {
  writeFileSync(path.join(dir, 'plain.jsonl'), GOOD);
  writeFileSync(path.join(dir, 'packed.jsonl.gz'), gzipSync(GOOD));
  const plain = await readJsonLines(path.join(dir, 'plain.jsonl'));
  const packed = await readJsonLines(path.join(dir, 'packed.jsonl.gz'));
  assert.equal(packed.records, plain.records);
  assert.is(plain.records.length, 2);
  const missing = path.join(dir, 'missing.jsonl');
  try {
    await readJsonLines(missing);
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, UsageError);
    assert.ok((error as Error).message.includes(missing));
  }
});

test.run();
