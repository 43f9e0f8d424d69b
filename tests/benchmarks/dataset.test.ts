import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Sandbox, SuiteTask } from '../../core/types.js';
import { DataError, UsageError } from '../../core/errors.js';
import { validateEnvironment } from '../../core/gate/gate.js';
import { createDatasetSuite, parseFieldMapping } from '../../benchmarks/dataset.js';
import { createIsolatedVmSandbox } from '../../plugins/sandboxes/isolated-vm.js';
import { startFileServer } from './file-server.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'spade-dataset-'));
let sandbox: Sandbox;
test.before(() => {
  sandbox = createIsolatedVmSandbox();
});
test.after(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeLines(name: string, records: unknown[], extra = ''): string {
  const file = path.join(dir, name);
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n' + extra);
  return file;
}

async function rewards(task: SuiteTask, ...replies: string[]): Promise<number[]> {
  const env = await sandbox.load(task.program);
  const out: number[] = [];
  for (const reply of replies) {
    await env.reset(task.seed);
    out.push((await env.step(reply)).reward);
  }
  await env.dispose();
  return out;
}

test('jsonl:PATH with a field mapping (dotted paths, ids, hints) and the exact checker', async () => {
  const file = writeLines('pace.jsonl', [
    { uid: 'p1', task: { text: 'Name the capital of France.' }, gold: 'Paris', why: 'It is on the Seine.' },
    { uid: 'p2', task: { text: 'Name the largest planet.' }, gold: 'Jupiter' },
  ]);
  const suite = createDatasetSuite('jsonl', file, { question: 'task.text', answer: 'gold', hint: 'why', id: 'uid', checker: 'exact' });
  const tasks = await suite.tasks({});
  assert.equal(tasks.map((t) => t.program.id), [`jsonl:${file}/p1`, `jsonl:${file}/p2`]);
  assert.equal(await rewards(tasks[0]!, '\\boxed{paris}', '\\boxed{Paris, France}', 'Paris'), [1, 0, 1]);
  const env = await sandbox.load(tasks[0]!.program);
  const { observation } = await env.reset(0);
  assert.ok(observation.startsWith('Name the capital of France.'));
  assert.is(await env.hint(), 'It is on the Seine.');
  await env.dispose();
  const plain = await sandbox.load(tasks[1]!.program);
  assert.not.ok(plain.capabilities.hint, 'no hint field, no hint()');
  await plain.dispose();
});

test('the numeric and contains checkers', async () => {
  const file = writeLines('mixed.jsonl', [{ question: 'How many legs has a spider?', answer: 8 }]);
  const [numeric] = await createDatasetSuite('jsonl', file, { checker: 'numeric' }).tasks({});
  assert.equal(await rewards(numeric!, 'It has \\boxed{8.0} legs', 'eight, so 8', '\\boxed{80}'), [1, 1, 0]);
  const [contains] = await createDatasetSuite('jsonl', file, { checker: 'contains' }).tasks({});
  assert.equal(await rewards(contains!, '\\boxed{8 legs}', '\\boxed{18 legs}'), [1, 0]);
});

test('dataset tasks pass the real validation gate', async () => {
  const file = writeLines('gate.jsonl', [{ question: 'What is 6 times 7?', answer: '42' }, { question: 'Spell cat backwards.', answer: 'tac' }]);
  for (const [checker, task] of [['numeric', 0], ['exact', 1]] as const) {
    const tasks = await createDatasetSuite('jsonl', file, { checker }).tasks({});
    const verdict = await validateEnvironment(sandbox, tasks[task]!.program, { seed: 0 });
    assert.is(verdict.verdict, 'valid', JSON.stringify(verdict.checks.at(-1)));
  }
});

test('a bad record stops with file and line; skipBad counts it on the suite', async () => {
  const file = writeLines('bad.jsonl', [{ question: 'q1', answer: 'a1' }, { question: 'q2' }], '{"question": "q3", "answer": "a3"}\n{oops\n');
  try {
    await createDatasetSuite('jsonl', file).tasks({});
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, DataError);
    assert.ok((error as Error).message.startsWith(`${file}:2: missing field "answer"`), (error as Error).message);
  }
  const suite = createDatasetSuite('jsonl', file, {}, { skipBad: true });
  assert.is((await suite.tasks({})).length, 2);
  assert.is(suite.skipped, 2);
  assert.ok(suite.firstProblem?.startsWith(`${file}:2:`));
});

test('field mappings from config are checked, naming the key', () => {
  assert.equal(parseFieldMapping({ question: 'q', checker: 'numeric' }, 'datasets.x'), { question: 'q', checker: 'numeric' });
  assert.throws(() => parseFieldMapping({ checker: 'fuzzy' }, 'datasets.x'), (e: Error) => e instanceof UsageError && /datasets\.x\.checker: expected one of exact, numeric, contains/.test(e.message));
  assert.throws(() => parseFieldMapping({ questoin: 'q' }, 'datasets.x'), (e: Error) => /datasets\.x\.questoin: unknown key .*\. Did you mean question\?$/.test(e.message));
  assert.throws(() => parseFieldMapping({ answer: 3 }, 'datasets.x'), (e: Error) => /datasets\.x\.answer: expected a non-empty string/.test(e.message));
});

test('parquet:PATH: rows become tasks through the same mapping; a missing field names the row; a broken file names the file', async () => {
  const { parquetWriteBuffer } = await import('hyparquet-writer');
  const file = path.join(dir, 'pace.parquet');
  const write = (columns: { name: string; data: unknown[] }[]) => writeFileSync(file, Buffer.from(parquetWriteBuffer({ columnData: columns as never })));
  write([
    { name: 'prompt', data: ['What is 6 times 7?', 'What is 10 minus 4?', 'Half of 18?'] },
    { name: 'target', data: ['42', '6', '9'] },
  ]);
  const suite = createDatasetSuite('parquet', file, { question: 'prompt', answer: 'target', checker: 'numeric' });
  const tasks = await suite.tasks({});
  assert.is(tasks.length, 3);
  assert.equal(await rewards(tasks[0]!, 'It is \\boxed{42}', '\\boxed{41}'), [1, 0]);
  for (const task of tasks) assert.is((await validateEnvironment(sandbox, task.program, { seed: task.seed })).verdict, 'valid');
  write([{ name: 'prompt', data: ['What is 1 plus 1?', 'What is 2 plus 2?'] }, { name: 'target', data: ['2', null] }]);
  await createDatasetSuite('parquet', file, { question: 'prompt', answer: 'target' }).tasks({}).then(
    () => assert.unreachable('a row without its answer must stop the suite'),
    (e: Error) => {
      assert.instance(e, DataError);
      assert.match(e.message, `${file}:2`);
    },
  );
  writeFileSync(file, 'not parquet at all');
  await createDatasetSuite('parquet', file).tasks({}).then(
    () => assert.unreachable('should fail'),
    (e: Error) => assert.match(e.message, 'not a readable Parquet file'),
  );
});

test('hf:owner/dataset pages through the datasets-server rows API, caches, and then works offline or with the server gone', async () => {
  const rows = Array.from({ length: 150 }, (_, i) => ({ row_idx: i, row: { problem: `What is ${i} plus 1?`, solution: String(i + 1) } }));
  const page = (offset: number) => JSON.stringify({ rows: rows.slice(offset, offset + 100), num_rows_total: rows.length });
  const rowsPath = '/rows?dataset=acme%2Fpace-bench&config=default&split=test';
  const server = await startFileServer({
    '/splits?dataset=acme%2Fpace-bench': JSON.stringify({ splits: [{ dataset: 'acme/pace-bench', config: 'default', split: 'train' }, { dataset: 'acme/pace-bench', config: 'default', split: 'test' }] }),
    [`${rowsPath}&offset=0&length=100`]: page(0),
    [`${rowsPath}&offset=100&length=100`]: page(100),
  });
  const cache = path.join(dir, 'hf-cache');
  try {
    const mapping = { question: 'problem', answer: 'solution', checker: 'numeric' } as const;
    const online = createDatasetSuite('hf', 'acme/pace-bench', mapping, { baseUrl: server.url, dataDir: cache, offline: false });
    const tasks = await online.tasks({});
    assert.is(tasks.length, 150);
    assert.is(server.requests.length, 3);
    const cached = path.join(cache, 'hf', 'acme__pace-bench', 'default-test.jsonl');
    assert.ok(existsSync(cached));
    assert.is(readFileSync(cached, 'utf8').trim().split('\n').length, 150);
    assert.equal(await rewards(tasks[149]!, '\\boxed{150}', '\\boxed{149}'), [1, 0]);

    const offline = createDatasetSuite('hf', 'acme/pace-bench', mapping, { baseUrl: server.url, dataDir: cache, offline: true });
    assert.is((await offline.tasks({})).length, 150);
    assert.is(server.requests.length, 3, 'offline reads only the cache');
    const elsewhere = createDatasetSuite('hf', 'acme/other', mapping, { baseUrl: server.url, dataDir: cache, offline: true });
    await elsewhere.tasks({}).then(
      () => assert.unreachable('should have thrown'),
      (error: Error) => assert.match(error.message, /offline mode.*hf:acme\/other is not cached/),
    );
  } finally {
    await server.close();
  }
  // Online, with the server gone (closed above): the cached split serves; a dataset never cached says where its copy goes.
  const gone = { baseUrl: server.url, dataDir: cache, offline: false };
  assert.is((await createDatasetSuite('hf', 'acme/pace-bench', { question: 'problem', answer: 'solution', checker: 'numeric' }, gone).tasks({})).length, 150);
  await createDatasetSuite('hf', 'acme/other', { question: 'problem', answer: 'solution' }, gone).tasks({}).then(
    () => assert.unreachable('should have thrown'),
    (error: Error) => {
      assert.instance(error, UsageError);
      assert.match(error.message, /^hf:acme\/other: cannot download .*Without the network, point --data-dir at a folder that has hf\/acme__other\/CONFIG-SPLIT\.jsonl/);
    },
  );
});

test.run();
