// Pools in SPADE's layout: a folder as SPADE's GPT-5.5 pool is published (games/ read
// recursively, manifest.jsonl and checksums.sha256 where present), and the same layout
// downloaded from a Hugging Face-style server (spade-pool:hf:OWNER/NAME@REVISION) through the
// dataset cache, checked file by file; offline, only the cache; a clear error when it cannot be reached.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DataError, UsageError } from '../../core/errors.js';
import { checksumLine, gameFileText, sha256Hex } from '../../core/results/pool-layout.js';
import { createSpadePoolSuite } from '../../benchmarks/spade-pool.js';
import { hubPoolFolder } from '../../benchmarks/spade-pool-hub.js';
import { repoRoot, tempDir } from '../helpers/cli.js';
import { startFileServer, type FileServer } from './file-server.js';

const spadeFormat = (name: string): string => readFileSync(path.join(repoRoot, 'tests/fixtures/spade-format', name), 'utf8');

/** A small pool in the published layout: three games (one in a subfolder), a manifest, checksums. */
function poolFiles(): Record<string, string> {
  const games: [string, string, string][] = [
    ['games/game_00000_000_mathematical_reasoning.py', 'max_turns_required.py', 'Mathematical Reasoning'],
    ['games/game_00000_001_logical_deduction.py', 'tool_use_inventory.py', 'Logical Deduction'],
    ['games/extra/game_00001_000_pattern_recognition.py', 'bare_string_reset.py', 'Pattern Recognition'],
  ];
  const files: Record<string, string> = {};
  for (const [file, fixture] of games) files[file] = gameFileText(spadeFormat(fixture), 'python');
  // The manifest names games by their path; the second one has an id of its own.
  files['manifest.jsonl'] = games.map(([file, , skill], i) => JSON.stringify({ ...(i === 1 ? { game_id: 'inventory' } : {}), file_name: file, skill: skill.toLowerCase().replace(/ /g, '_') })).join('\n') + '\n';
  files['checksums.sha256'] = games.map(([file]) => checksumLine(sha256Hex(files[file]!), file)).join('\n') + '\n';
  return files;
}

function writePool(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
}

const REVISION = 'e179a371bc7764dacf0bcee1f808100beb463137';
let server: FileServer;
test.before(async () => {
  const routes: Record<string, string> = {};
  for (const [file, text] of Object.entries(poolFiles())) routes[`/datasets/spare-rl/tiny-pool/resolve/${REVISION}/${file}`] = text;
  // A second revision whose checksums do not match one of its files.
  const broken = poolFiles();
  broken['games/game_00000_000_mathematical_reasoning.py'] += '# changed after the checksums were made\n';
  for (const [file, text] of Object.entries(broken)) routes[`/datasets/spare-rl/tiny-pool/resolve/broken/${file}`] = text;
  server = await startFileServer(routes);
});
test.after(() => server.close());

test('a folder in SPADE\'s layout: games read recursively, skills and ids from the manifest, files checked', async () => {
  const dir = tempDir();
  writePool(dir, poolFiles());
  const tasks = await createSpadePoolSuite(dir).tasks({});
  assert.equal(tasks.map((t) => t.program.id), ['spade-pool/extra/game_00001_000_pattern_recognition', 'spade-pool/game_00000_000_mathematical_reasoning', 'spade-pool/inventory']);
  assert.equal(tasks.map((t) => t.program.meta?.skill), ['Pattern Recognition', 'Mathematical Reasoning', 'Logical Deduction']);
  assert.ok(tasks.every((t) => t.program.source.startsWith('"""SPADE self-play generated game"""\n\n')), 'loaded as published');

  // Without a manifest, the skill comes from SPADE's file name.
  rmSync(path.join(dir, 'manifest.jsonl'));
  assert.equal((await createSpadePoolSuite(dir).tasks({})).map((t) => t.program.meta?.skill), ['Pattern Recognition', 'Mathematical Reasoning', 'Logical Deduction']);

  // A file that does not match checksums.sha256 stops the load, naming it; --skip-bad counts it instead.
  writeFileSync(path.join(dir, 'games/game_00000_001_logical_deduction.py'), '# tampered\n');
  const damaged = await createSpadePoolSuite(dir).tasks({}).then(() => undefined, (error: Error) => error);
  assert.ok(damaged instanceof DataError && /game_00000_001_logical_deduction\.py: checksum mismatch/.test(damaged.message), String(damaged));
  const skipping = createSpadePoolSuite(dir, { skipBad: true });
  assert.is((await skipping.tasks({})).length, 2);
  assert.is(skipping.skipped, 1);
  // A file the checksums list but the folder lacks, and a malformed checksums line.
  rmSync(path.join(dir, 'games/game_00000_001_logical_deduction.py'));
  assert.match(String(await createSpadePoolSuite(dir).tasks({}).catch((e: Error) => e.message)), /listed in checksums\.sha256 but missing/);
  writeFileSync(path.join(dir, 'checksums.sha256'), 'not a checksum line\n');
  assert.match(String(await createSpadePoolSuite(dir).tasks({}).catch((e: Error) => e.message)), /checksums\.sha256:1: expected "<sha256>  <file>"/);
});

test('spade-pool:hf:OWNER/NAME@REVISION downloads the published layout into the cache, checked, then works offline', async () => {
  const cache = tempDir();
  const suite = createSpadePoolSuite(`hf:spare-rl/tiny-pool@${REVISION}`, { dataDir: cache, hubUrl: server.url, offline: false });
  assert.is(suite.id, `spade-pool:hf:spare-rl/tiny-pool@${REVISION}`);
  const tasks = await suite.tasks({});
  assert.equal(tasks.map((t) => t.program.id), ['spade-pool/extra/game_00001_000_pattern_recognition', 'spade-pool/game_00000_000_mathematical_reasoning', 'spade-pool/inventory']);
  const folder = hubPoolFolder('spare-rl/tiny-pool', REVISION, cache);
  assert.is(folder, path.join(cache, 'spade-pool', 'hf', 'spare-rl__tiny-pool', REVISION));
  for (const file of ['checksums.sha256', 'manifest.jsonl', 'games/extra/game_00001_000_pattern_recognition.py']) assert.ok(existsSync(path.join(folder, file)), file);
  // checksums.sha256 first, then the manifest, then each game.
  const requested = server.requests.filter((r) => r.includes(REVISION));
  assert.ok(requested[0]!.endsWith('/checksums.sha256') && requested.length === 5, requested.join('\n'));

  // A second load, offline, reads the cache and asks the server nothing.
  const before = server.requests.length;
  const offline = await createSpadePoolSuite(`hf:spare-rl/tiny-pool@${REVISION}`, { dataDir: cache, offline: true }).tasks({});
  assert.is(offline.length, 3);
  assert.is(server.requests.length, before);
});

test('spade-pool:hf: a file that does not match its checksum is refused and not cached; offline or unreachable, a clear error', async () => {
  const cache = tempDir();
  const broken = await createSpadePoolSuite('hf:spare-rl/tiny-pool@broken', { dataDir: cache, hubUrl: server.url, offline: false }).tasks({}).then(() => undefined, (e: Error) => e);
  assert.ok(broken instanceof DataError, String(broken));
  assert.match(broken!.message, /game_00000_000_mathematical_reasoning\.py: checksum mismatch/);
  assert.not.ok(existsSync(path.join(hubPoolFolder('spare-rl/tiny-pool', 'broken', cache), 'games/game_00000_000_mathematical_reasoning.py')));
  assert.not.ok(existsSync(path.join(hubPoolFolder('spare-rl/tiny-pool', 'broken', cache), 'checksums.sha256')), 'an incomplete copy is not marked complete');

  const offline = await createSpadePoolSuite(`hf:spare-rl/tiny-pool@${REVISION}`, { dataDir: tempDir(), offline: true }).tasks({}).then(() => undefined, (e: Error) => e);
  assert.ok(offline instanceof UsageError);
  assert.match(offline!.message, /offline mode .* not in the cache at .*spare-rl__tiny-pool/);
  assert.match(offline!.message, /spade-pool:DIR/);

  // Nothing listens on port 9 here: the error says what failed and what to do.
  const unreachable = await createSpadePoolSuite(`hf:spare-rl/tiny-pool@${REVISION}`, { dataDir: tempDir(), hubUrl: 'http://127.0.0.1:9', offline: false }).tasks({}).then(() => undefined, (e: Error) => e);
  assert.ok(unreachable instanceof UsageError, String(unreachable));
  assert.match(unreachable!.message, /spade-pool:hf:spare-rl\/tiny-pool@e179a37\w+: cannot download http:\/\/127\.0\.0\.1:9\/datasets\/spare-rl\/tiny-pool\/resolve\/\w+\/checksums\.sha256/);
  assert.match(unreachable!.message, /HF_ENDPOINT/);
  // A malformed name.
  assert.throws(() => createSpadePoolSuite('hf:no-slash@x').tasks({}), /expected spade-pool:hf:OWNER\/NAME@REVISION/);
});

test.run();
