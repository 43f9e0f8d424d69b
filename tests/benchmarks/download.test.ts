import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataError, UsageError } from '../../core/errors.js';
import { cachedPath, defaultDataDir, ensureDataFile, isOffline, sha256, type DataFile } from '../../benchmarks/download.js';
import { GSM8K_FILE } from '../../benchmarks/gsm8k.js';
import { HUMANEVAL_FILE } from '../../benchmarks/humaneval.js';
import { startFileServer, type FileServer } from './file-server.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shared = path.resolve(repoRoot, '../shared/datasets');
const gsm8kBytes = readFileSync(path.join(shared, 'gsm8k/test.jsonl'));

let server: FileServer;
let cache: string;
const served = (name: string): DataFile => ({ ...GSM8K_FILE, url: `${server.url}/${name}` });

test.before(async () => {
  const corrupted = Buffer.from(gsm8kBytes);
  corrupted[100] = corrupted[100]! ^ 1;
  server = await startFileServer({ '/test.jsonl': gsm8kBytes, '/corrupted/test.jsonl': corrupted });
});
test.after(() => server.close());
test.before.each(() => {
  cache = mkdtempSync(path.join(os.tmpdir(), 'spade-cache-'));
});
test.after.each(() => rmSync(cache, { recursive: true, force: true }));

test('the pinned checksums are those of the shared copies of the upstream files', () => {
  assert.is(sha256(gsm8kBytes), GSM8K_FILE.sha256);
  assert.is(sha256(readFileSync(path.join(shared, 'humaneval/HumanEval.jsonl.gz'))), HUMANEVAL_FILE.sha256);
});

test('the cache layout is <suite>/<upstream file name>, so the shared folder is a ready cache', async () => {
  assert.is(cachedPath(GSM8K_FILE, shared), path.join(shared, 'gsm8k', 'test.jsonl'));
  assert.is(cachedPath(HUMANEVAL_FILE, shared), path.join(shared, 'humaneval', 'HumanEval.jsonl.gz'));
  assert.is(await ensureDataFile(GSM8K_FILE, { dataDir: shared, offline: true }), path.join(shared, 'gsm8k', 'test.jsonl'));
});

test('downloads a missing file into the cache, checks it, then reuses the cache without the network', async () => {
  const before = server.requests.length;
  const local = await ensureDataFile(served('test.jsonl'), { dataDir: cache, offline: false });
  assert.is(local, path.join(cache, 'gsm8k', 'test.jsonl'));
  assert.ok(readFileSync(local).equals(gsm8kBytes));
  assert.is(server.requests.length, before + 1);
  assert.is(await ensureDataFile(served('test.jsonl'), { dataDir: cache, offline: true }), local);
  assert.is(await ensureDataFile(served('test.jsonl'), { dataDir: cache, offline: false }), local);
  assert.is(server.requests.length, before + 1);
});

test('a download that fails names the folder and --data-dir, as offline mode does', async () => {
  // A port that was just free, and is closed again: the connection is refused.
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const file: DataFile = { ...GSM8K_FILE, url: `http://127.0.0.1:${port}/test.jsonl` };
  try {
    await ensureDataFile(file, { dataDir: cache, offline: false });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, UsageError);
    const message = (error as Error).message;
    assert.match(message, `cannot download http://127.0.0.1:${port}/test.jsonl: fetch failed`);
    assert.match(message, `Without the network, put the file at ${path.join(cache, 'gsm8k', 'test.jsonl')}, or point --data-dir at a folder that has gsm8k/test.jsonl.`);
  }
  assert.not.ok(existsSync(path.join(cache, 'gsm8k')));
});

test('a download with the wrong checksum is refused and nothing is written', async () => {
  try {
    await ensureDataFile(served('corrupted/test.jsonl'), { dataDir: cache, offline: false });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, DataError);
    assert.match((error as Error).message, /checksum mismatch: expected SHA-256 3730d3/);
    assert.ok((error as Error).message.includes(`${server.url}/corrupted/test.jsonl`));
  }
  assert.not.ok(existsSync(path.join(cache, 'gsm8k', 'test.jsonl')));
});

test('an HTTP error names the URL', async () => {
  try {
    await ensureDataFile(served('nowhere.jsonl'), { dataDir: cache, offline: false });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, UsageError);
    assert.match((error as Error).message, /cannot download http:\/\/127\.0\.0\.1:\d+\/nowhere\.jsonl: HTTP 404/);
  }
});

test('offline, a missing file is an error naming the file and the URL, and nothing is fetched', async () => {
  const before = server.requests.length;
  try {
    await ensureDataFile(served('test.jsonl'), { dataDir: cache, offline: true });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, UsageError);
    const message = (error as Error).message;
    assert.ok(message.includes(path.join(cache, 'gsm8k', 'test.jsonl')), message);
    assert.ok(message.includes(`${server.url}/test.jsonl`), message);
  }
  assert.is(server.requests.length, before);
});

test('SPADE_BENCH_OFFLINE=1 turns offline mode on unless the option says otherwise', () => {
  assert.ok(isOffline(undefined, { SPADE_BENCH_OFFLINE: '1' }));
  assert.ok(isOffline(undefined, { SPADE_BENCH_OFFLINE: 'true' }));
  assert.not.ok(isOffline(undefined, {}));
  assert.not.ok(isOffline(false, { SPADE_BENCH_OFFLINE: '1' }));
  assert.ok(isOffline(true, {}));
});

test('a damaged cached copy is reported, not used', async () => {
  await ensureDataFile(served('test.jsonl'), { dataDir: cache, offline: false });
  const damaged: DataFile = { ...served('test.jsonl'), sha256: '0'.repeat(64) };
  try {
    await ensureDataFile(damaged, { dataDir: cache, offline: true });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, DataError);
    assert.match((error as Error).message, /test\.jsonl: checksum mismatch.*delete it/);
  }
});

test('the default cache is ~/.cache/spade-bench, or XDG_CACHE_HOME, or SPADE_BENCH_DATA_DIR', () => {
  assert.is(defaultDataDir({}), path.join(os.homedir(), '.cache', 'spade-bench'));
  assert.is(defaultDataDir({ XDG_CACHE_HOME: '/tmp/xdg' }), path.join('/tmp/xdg', 'spade-bench'));
  assert.is(defaultDataDir({ SPADE_BENCH_DATA_DIR: '/tmp/data' }), path.resolve('/tmp/data'));
});

test.run();
