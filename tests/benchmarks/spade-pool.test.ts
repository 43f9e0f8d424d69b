import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataError, UsageError } from '../../core/errors.js';
import { validateEnvironment } from '../../core/gate/gate.js';
import { createSpadePoolSuite } from '../../benchmarks/spade-pool.js';
import { createPyodideSandbox } from '../../plugins/sandboxes/pyodide/sandbox.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Three SPADE-format environments (and a `hostile/` subfolder, which a pool ignores). */
const fixtures = path.join(repoRoot, 'tests/fixtures/python');
const NAMES = ['fraction_sum', 'guess_number', 'word_sort'];
const dir = mkdtempSync(path.join(os.tmpdir(), 'spade-pool-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('a folder of .py files is a pool, one environment per file, in name order, loaded unchanged', async () => {
  const suite = createSpadePoolSuite('tests/fixtures/python', { cwd: repoRoot });
  assert.is(suite.id, 'spade-pool:tests/fixtures/python');
  assert.is(suite.language, 'python');
  const tasks = await suite.tasks({});
  assert.equal(tasks.map((t) => t.program.id), NAMES.map((n) => `spade-pool/${n}`));
  assert.is(tasks[1]!.program.source, readFileSync(path.join(fixtures, 'guess_number.py'), 'utf8'));
  assert.equal((await suite.tasks({ limit: 1 })).map((t) => t.program.id), ['spade-pool/fraction_sum']);
});

test('game files sort by number, as in SPADE\'s released pool', async () => {
  const games = path.join(dir, 'games');
  mkdirSync(games);
  for (const n of [10, 2, 1]) writeFileSync(path.join(games, `game_${n}.py`), readFileSync(path.join(fixtures, 'word_sort.py')));
  const tasks = await createSpadePoolSuite(games).tasks({});
  assert.equal(tasks.map((t) => t.program.id), ['spade-pool/game_1', 'spade-pool/game_2', 'spade-pool/game_10']);
});

test('a JSON Lines pool reads the code and id fields', async () => {
  const file = path.join(dir, 'pool.jsonl');
  const lines = NAMES.map((n, i) => JSON.stringify(i === 0 ? { env_id: n, env_code: readFileSync(path.join(fixtures, `${n}.py`), 'utf8') } : { code: readFileSync(path.join(fixtures, `${n}.py`), 'utf8') }));
  writeFileSync(file, lines.join('\n') + '\n');
  const tasks = await createSpadePoolSuite(file).tasks({});
  assert.equal(tasks.map((t) => t.program.id), ['spade-pool/fraction_sum', 'spade-pool/1', 'spade-pool/2']);
  assert.is(tasks[0]!.program.source, readFileSync(path.join(fixtures, 'fraction_sum.py'), 'utf8'));
});

test('an unusable environment stops with its file (and line); skipBad counts it', async () => {
  const folder = path.join(dir, 'with-empty');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'a.py'), readFileSync(path.join(fixtures, 'word_sort.py')));
  writeFileSync(path.join(folder, 'b.py'), '   \n');
  await createSpadePoolSuite(folder).tasks({}).then(
    () => assert.unreachable('should have thrown'),
    (error: Error) => assert.ok(error instanceof DataError && error.message.startsWith(`${path.join(folder, 'b.py')}: the file is empty`), error.message),
  );
  const skipping = createSpadePoolSuite(folder, { skipBad: true });
  assert.is((await skipping.tasks({})).length, 1);
  assert.is(skipping.skipped, 1);

  const file = path.join(dir, 'bad.jsonl');
  writeFileSync(file, '{"code": "class E: pass"}\n{"id": "x"}\n');
  await createSpadePoolSuite(file).tasks({}).then(
    () => assert.unreachable('should have thrown'),
    (error: Error) => assert.match(error.message, /bad\.jsonl:2: no code field \(expected one of code, env_code/),
  );
  await createSpadePoolSuite(path.join(dir, 'nowhere')).tasks({}).then(
    () => assert.unreachable('should have thrown'),
    (error: Error) => assert.ok(error instanceof UsageError && /does not exist/.test(error.message)),
  );
});

test('pool environments go through the real gate in the pyodide sandbox', async () => {
  // Generous limits: Pyodide's are wall time, and an honest call can wait long for a CPU on a busy machine.
  const sandbox = createPyodideSandbox({ limits: { callTimeoutMs: 10_000 } });
  try {
    const tasks = await createSpadePoolSuite(fixtures).tasks({});
    for (const task of tasks) {
      const verdict = await validateEnvironment(sandbox, task.program, { seed: task.seed });
      const load = verdict.checks.find((c) => c.name === 'load');
      assert.ok(load?.ok, `${task.program.id} loads: ${JSON.stringify(verdict.checks)}`);
      // guess_number is multi-turn with a reference policy; the others' verdicts depend on how
      // the gate reads an already-boxed solution(), which is the gate's concern, not the pool's.
      if (task.program.id === 'spade-pool/guess_number') assert.is(verdict.verdict, 'valid', JSON.stringify(verdict.checks.at(-1)));
    }
  } finally {
    await sandbox.close();
  }
});

test.run();
