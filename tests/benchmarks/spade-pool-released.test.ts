// SPADE's released data through spade-pool:, on fixtures of our own in the released shapes
// (tests/fixtures/released): the tool-use environment release (manifest.json, the authoritative
// list, and environments/<source_run>/<file>.py) and the GPT-5.5 tool-use pool (rows with a
// `code` column, as JSON and as Parquet). Each loads with its ids, skills and run details, and
// the gate gives its programs the verdicts it gives the same files read directly. Then a run's
// pool exported with hints and memory loads back with the same verdicts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DataError } from '../../core/errors.js';
import { createSpadePoolSuite } from '../../benchmarks/spade-pool.js';
import { readResults } from '../../core/results/results-file.js';
import { MEMORY_SNIPPET_CHARS, parseChecksums, sha256Hex, type MemoryRecord } from '../../core/results/pool-layout.js';
import { checkJail } from '../../plugins/sandboxes/cpython/jail.js';
import { repoRoot, runCli, tempDir } from '../helpers/cli.js';
import { hubPoolFolder } from '../../benchmarks/spade-pool-hub.js';
import { startFileServer } from './file-server.js';

const released = path.join(repoRoot, 'tests/fixtures/released');
const spadeFormat = path.join(repoRoot, 'tests/fixtures/spade-format');
const release = path.join(released, 'tool-use-release');
const rows = JSON.parse(readFileSync(path.join(released, 'gpt55-tool-use/pool.json'), 'utf8')) as Record<string, string | number>[];

test("the tool-use release: the manifest's entries in order, each with its run, scale, recipe, step and skill; unlisted files not read", async () => {
  const tasks = await createSpadePoolSuite(release).tasks({});
  assert.equal(tasks.map((t) => t.program.id), [
    'spade-pool/qwen3-4b-run-a/game_00000_000_api_orchestration',
    'spade-pool/qwen3-30b-run-b/game_00008_001_state_modification',
    'spade-pool/qwen3-30b-run-b/game_00016_002_data_retrieval',
  ]);
  assert.equal(tasks.map((t) => t.program.meta?.skill), ['API Orchestration', 'State Modification', undefined], 'an unlabelled entry has no skill');
  assert.equal(tasks[1]!.program.meta?.params, { source_run: 'qwen3-30b-run-b', model_scale: '30B-A3B', recipe: 'tooluse-glory-kl005', step: 64 });
  assert.is(tasks[0]!.program.source, readFileSync(path.join(spadeFormat, 'tool_use_inventory.py'), 'utf8'));
  assert.ok(tasks.every((t) => !t.program.id.includes('not_listed')));
});

test('the tool-use release: a file the manifest lists but lacks, or whose sha256 differs, is a data error (or skipped and counted)', async () => {
  const dir = tempDir('spade-release-');
  try {
    cpSync(release, dir, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    manifest.environments[1].sha256 = '0'.repeat(64);
    manifest.environments.push({ source_run: 'qwen3-4b-run-a', file: 'gone.py', skill: 'Tool Selection' });
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    try {
      await createSpadePoolSuite(dir).tasks({});
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.instance(error, DataError);
      assert.match((error as Error).message, /checksum mismatch: manifest.json says 0{64}/);
    }
    const lenient = createSpadePoolSuite(dir, { skipBad: true });
    assert.is((await lenient.tasks({})).length, 2);
    assert.is(lenient.skipped, 2);
    // A manifest that is no list of environments says what it expected.
    writeFileSync(path.join(dir, 'manifest.json'), '{"count": 3}');
    try {
      await createSpadePoolSuite(dir).tasks({});
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.match((error as Error).message, /expected a JSON array of environments, or an object holding one under environments, games, entries/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the GPT-5.5 tool-use pool: the same rows as JSON and as Parquet, by game_id, with their skills; a wrong sha256 is refused', async () => {
  const dir = tempDir('spade-gpt55-');
  try {
    const { parquetWriteBuffer } = await import('hyparquet-writer');
    const columns = Object.keys(rows[0]!).map((name) => ({ name, data: rows.map((r) => r[name]) }));
    const parquet = path.join(dir, 'train.parquet');
    writeFileSync(parquet, Buffer.from(parquetWriteBuffer({ columnData: columns as never })));
    for (const file of [path.join(released, 'gpt55-tool-use/pool.json'), parquet]) {
      const tasks = await createSpadePoolSuite(file).tasks({});
      assert.equal(tasks.map((t) => t.program.id), ['spade-pool/game_000000', 'spade-pool/game_000001', 'spade-pool/game_000002'], file);
      assert.equal(tasks.map((t) => t.program.meta?.skill), ['Data Retrieval', 'State Modification', 'API Orchestration'], file);
      assert.is(tasks[2]!.program.source, readFileSync(path.join(spadeFormat, 'tool_use_wrong_expected.py'), 'utf8'));
    }
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ ...rows[0], sha256: 'f'.repeat(64) }]));
    try {
      await createSpadePoolSuite(bad).tasks({});
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.instance(error, DataError);
      assert.match((error as Error).message, /checksum mismatch: "sha256" says f{64}/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Verdicts { [source: string]: { spade: string; strict: string } }
const verdictsBySource = (out: string): Verdicts =>
  Object.fromEntries(readResults(out).suites[0]!.environments.map((e) => [e.source.replace(/^"""SPADE self-play generated game"""\n\n/, ''), { spade: e.readings!.spade.verdict, strict: e.readings!.strict.verdict }]));

const jailProblem = checkJail().problem;
if (jailProblem) {
  console.log(`skipped: the cpython sandbox cannot start here: ${jailProblem}`);
  test.skip('released layouts and an exported pool through the gate', () => {});
} else {
  test('both released layouts: the gate gives their programs the verdicts of the same files read directly', async () => {
    const dir = tempDir('spade-released-run-');
    try {
      const direct = await runCli(['validate', ...['tool_use_inventory.py', 'tool_use_multi_turn.py', 'tool_use_wrong_expected.py'].map((f) => path.join(spadeFormat, f)), '--python-sandbox', 'cpython', '--json']);
      const expected = Object.fromEntries((JSON.parse(direct.stdout) as { file: string; readings: { spade: { verdict: string }; strict: { verdict: string } } }[])
        .map((v) => [readFileSync(v.file, 'utf8'), { spade: v.readings.spade.verdict, strict: v.readings.strict.verdict }]));
      assert.equal(Object.values(expected).map((v) => v.strict), ['valid', 'valid', 'invalid'], 'the three differ');
      for (const [name, pool] of [['release', release], ['table', path.join(released, 'gpt55-tool-use/pool.json')]] as const) {
        const out = path.join(dir, name);
        const run = await runCli(['run', '--suites', `spade-pool:${pool}`, '--validate-only', '--python-sandbox', 'cpython', '--no-cache', '--out', out]);
        assert.is(run.code, 0, run.stderr);
        assert.equal(verdictsBySource(out), expected, name);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('export --format pool writes hints and SPADE\'s memory, and the pool loads back with the same verdicts', async () => {
    const dir = tempDir('spade-export-back-');
    try {
      const programs = path.join(dir, 'programs');
      mkdirSync(programs);
      for (const f of ['valid_single_answer.py', 'wrong_solution.py', 'multi_turn_no_solution.py', 'coincidental_number.py']) cpSync(path.join(spadeFormat, f), path.join(programs, f));
      const first = path.join(dir, 'first');
      const played = await runCli(['run', '--suites', `spade-pool:${programs}`, '--attempts', '2', '--python-sandbox', 'cpython', '--no-cache', '--out', first]);
      assert.is(played.code, 0, played.stderr);
      const suite = `spade-pool:${programs}`;
      // The hint writer's hints, as a run journals them.
      const ids = readResults(first).suites[0]!.environments.map((e) => e.id);
      for (const id of ids) appendFileSync(path.join(first, 'journal.jsonl'), `${JSON.stringify({ type: 'hint', suite, id, hint: { hint: `Think about ${id} step by step.`, by: 'openai:m' } })}\n`);
      const pool = path.join(dir, 'pool');
      const exported = await runCli(['export', first, '--format', 'pool', '--suites', suite, '-o', pool]);
      assert.is(exported.code, 0, exported.stderr);
      const manifest = readFileSync(path.join(pool, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      // wrong_solution is rejected by strict, so not played and not exported.
      assert.is(manifest.length, 3);
      for (const line of manifest) {
        assert.is(line.hint_file, line.file_name.replace(/\.py$/, '_hint.txt'));
        assert.is(readFileSync(path.join(pool, line.hint_file), 'utf8'), `Think about ${line.id} step by step.`);
      }
      // SPADE's memory: its record fields, a 2,000-character snippet, the win rate and round.
      const memory = JSON.parse(readFileSync(path.join(pool, 'env_memory.json'), 'utf8')) as MemoryRecord[];
      const results = readResults(first).suites[0]!;
      assert.equal(memory.map((m) => Object.keys(m).sort()), memory.map(() => ['actor_win_rate', 'code_snippet', 'game_file', 'metadata', 'regret', 'rollout_id', 'skill']));
      assert.equal(memory.map((m) => m.game_file), manifest.map((l) => l.file_name));
      for (const m of memory) {
        const env = results.environments.find((e) => e.id === (m.metadata as { id: string }).id)!;
        assert.is(m.actor_win_rate, env.solveRate);
        assert.is(m.code_snippet, readFileSync(path.join(pool, m.game_file), 'utf8').slice(0, MEMORY_SNIPPET_CHARS));
      }
      // Every file written is in checksums.sha256, with its digest.
      const sums = parseChecksums(readFileSync(path.join(pool, 'checksums.sha256'), 'utf8'));
      assert.is(sums.length, 3 * 2 + 1);
      for (const { file, sha256 } of sums) assert.is(sha256Hex(readFileSync(path.join(pool, file))), sha256, file);
      // Loaded back: each game with its hint, and the gate's verdicts unchanged.
      const tasks = await createSpadePoolSuite(pool).tasks({});
      assert.equal(tasks.map((t) => (t.program.meta?.params as { hint?: string } | undefined)?.hint), manifest.map((l) => `Think about ${l.id} step by step.`));
      const again = path.join(dir, 'again');
      const reread = await runCli(['run', '--suites', `spade-pool:${pool}`, '--validate-only', '--python-sandbox', 'cpython', '--no-cache', '--out', again]);
      assert.is(reread.code, 0, reread.stderr);
      const before = verdictsBySource(first);
      const after = verdictsBySource(again);
      assert.is(Object.keys(after).length, 3);
      for (const [source, verdict] of Object.entries(after)) assert.equal(verdict, before[source], source.slice(0, 60));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('spade-pool:hf: downloads the tool-use release as its manifest.json lists it, checked, then works offline', async () => {
  // The release's files, served as the Hub serves a dataset revision; a second revision with one file changed.
  const files = (dir: string, at = ''): string[] => readdirSync(path.join(dir, at), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(dir, path.join(at, e.name)) : [path.join(at, e.name).split(path.sep).join('/')]));
  const routes: Record<string, Uint8Array> = {};
  for (const file of files(release)) {
    const bytes = readFileSync(path.join(release, file));
    routes[`/datasets/spade-rl/tool-use/resolve/r1/${file}`] = bytes;
    routes[`/datasets/spade-rl/tool-use/resolve/changed/${file}`] = file.endsWith('game_00008_001_state_modification.py') ? Buffer.concat([bytes, Buffer.from('# changed\n')]) : bytes;
  }
  const server = await startFileServer(routes);
  try {
    const cache = tempDir();
    const local = await createSpadePoolSuite(release).tasks({});
    const hub = await createSpadePoolSuite('hf:spade-rl/tool-use@r1', { dataDir: cache, hubUrl: server.url, offline: false }).tasks({});
    assert.equal(hub.map((t) => [t.program.id, t.program.source, t.program.meta?.skill, t.program.meta?.params]), local.map((t) => [t.program.id, t.program.source, t.program.meta?.skill, t.program.meta?.params]));
    assert.ok(hub.length > 0);
    // The pool's list first (absent: a release), then the release's manifest, then only the files it lists.
    const asked = server.requests.map((r) => r.replace('/datasets/spade-rl/tool-use/resolve/r1/', ''));
    assert.equal(asked.slice(0, 2), ['checksums.sha256', 'manifest.json']);
    assert.not.ok(asked.some((r) => r.includes('not_listed')), 'a file the manifest does not list is not fetched');
    // Offline, the cached copy loads and the server is asked nothing.
    const before = server.requests.length;
    assert.is((await createSpadePoolSuite('hf:spade-rl/tool-use@r1', { dataDir: cache, offline: true }).tasks({})).length, hub.length);
    assert.is(server.requests.length, before);
    // A file that does not match the manifest's sha256 is refused, and the copy is not marked complete.
    const changed = await createSpadePoolSuite('hf:spade-rl/tool-use@changed', { dataDir: cache, hubUrl: server.url, offline: false }).tasks({}).then(() => undefined, (e: Error) => e);
    assert.ok(changed instanceof DataError && /game_00008_001_state_modification\.py/.test(changed.message) && /sha256|checksum|digest/i.test(changed.message), String(changed));
    assert.not.ok(existsSync(path.join(hubPoolFolder('spade-rl/tool-use', 'changed', cache), 'manifest.json')));
  } finally {
    await server.close();
  }
});

test('spade-pool:hf:OWNER/NAME@REV:FILE downloads one table of the dataset (the GPT-5.5 tool-use pool), its rows checked', async () => {
  const table = path.join(released, 'gpt55-tool-use/pool.json');
  const server = await startFileServer({ '/datasets/spade-rl/gpt55-tool-use/resolve/r1/data/pool.json': readFileSync(table) });
  try {
    const cache = tempDir();
    const local = await createSpadePoolSuite(table).tasks({});
    const hub = await createSpadePoolSuite('hf:spade-rl/gpt55-tool-use@r1:data/pool.json', { dataDir: cache, hubUrl: server.url, offline: false }).tasks({});
    assert.ok(hub.length > 0);
    assert.equal(hub.map((t) => [t.program.id, t.program.source, t.program.meta?.skill]), local.map((t) => [t.program.id, t.program.source, t.program.meta?.skill]));
    const before = server.requests.length;
    assert.is((await createSpadePoolSuite('hf:spade-rl/gpt55-tool-use@r1:data/pool.json', { dataDir: cache, offline: true }).tasks({})).length, hub.length);
    assert.is(server.requests.length, before, 'offline: the cached table');
    // A file the dataset does not have: a clear error naming it; a path leaving the dataset: refused.
    const missing = await createSpadePoolSuite('hf:spade-rl/gpt55-tool-use@r1:data/other.json', { dataDir: cache, hubUrl: server.url, offline: false }).tasks({}).then(() => undefined, (e: Error) => e);
    assert.match(String(missing), /spade-pool:hf:spade-rl\/gpt55-tool-use@r1:data\/other\.json: cannot download .*HTTP 404/);
    assert.throws(() => createSpadePoolSuite('hf:spade-rl/gpt55-tool-use@r1:../x.json'), /expected spade-pool:hf:OWNER\/NAME@REVISION/);
  } finally {
    await server.close();
  }
});

test.run();
