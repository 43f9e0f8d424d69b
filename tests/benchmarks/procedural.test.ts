/** The procedural suite: frozen, balanced over horizons 1..64, every task a winnable environment. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createProceduralSuite, PROCEDURAL_DIFFICULTIES, PROCEDURAL_HORIZONS, TOOL_USE_INSTANCES } from '../../benchmarks/procedural.js';
import { FAMILIES } from '../../plugins/reference/families/index.js';
import { loadProgram, referenceWins } from '../plugins/reference/load-program.js';

const suite = createProceduralSuite();

test('a few hundred tasks with unique ids, every horizon from 1 to 64', async () => {
  const tasks = await suite.tasks({});
  assert.ok(tasks.length >= 200 && tasks.length <= 600, String(tasks.length));
  assert.is(new Set(tasks.map((t) => t.program.id)).size, tasks.length);
  assert.equal([...new Set(tasks.map((t) => t.program.meta!.horizon))].sort((a, b) => a! - b!), [...PROCEDURAL_HORIZONS]);
  for (const task of tasks) {
    assert.match(task.program.id, /^procedural\/[a-z-]+-h\d+-d\d+-\d+$/);
    assert.is(task.program.language, 'javascript');
    assert.is(task.program.meta!.origin, 'procedural');
  }
});

test('tool-use games join at horizons 8 and 16, on top of the 45 or so tasks of every horizon', async () => {
  const tasks = await suite.tasks({});
  const toolUse = new Set(FAMILIES.filter((f) => f.toolUse).map((f) => f.name));
  const at = (horizon: number, tool: boolean) => tasks.filter((t) => t.program.meta!.horizon === horizon && toolUse.has(t.program.meta!.family!) === tool).length;
  for (const horizon of PROCEDURAL_HORIZONS) {
    assert.ok(at(horizon, false) >= 45 && at(horizon, false) < 60, `h${horizon}: ${at(horizon, false)}`);
    assert.is(at(horizon, true), horizon === 8 || horizon === 16 ? toolUse.size * PROCEDURAL_DIFFICULTIES.length * TOOL_USE_INSTANCES : 0, `h${horizon}`);
  }
});

test('frozen: two loads give the same tasks and seeds', async () => {
  const a = await createProceduralSuite().tasks({});
  const b = await createProceduralSuite().tasks({});
  assert.equal(a.map((t) => [t.program.id, t.seed, t.program.source.length]), b.map((t) => [t.program.id, t.seed, t.program.source.length]));
});

test('a limit takes a prefix balanced over horizons', async () => {
  const tasks = await suite.tasks({ limit: 21 });
  assert.is(tasks.length, 21);
  const perHorizon = new Map<number, number>();
  for (const t of tasks) perHorizon.set(t.program.meta!.horizon!, (perHorizon.get(t.program.meta!.horizon!) ?? 0) + 1);
  assert.equal([...perHorizon.values()], PROCEDURAL_HORIZONS.map(() => 3));
  assert.equal((await suite.tasks({ limit: 0 })).length, 0);
});

test('each task runs at its declared horizon and its reference wins within it', async () => {
  const tasks = await suite.tasks({ limit: 70 });
  for (const task of tasks) {
    const make = loadProgram(task.program.source);
    const [, info] = make().reset(task.seed);
    assert.is(info.horizon, task.program.meta!.horizon, task.program.id);
    const result = referenceWins(make, task.seed);
    assert.ok(result.won && result.turns <= task.program.meta!.horizon!, task.program.id);
  }
});

test.run();
