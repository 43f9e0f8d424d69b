// Evaluating an environment gives the same result whatever shares its sandbox: a neighbour
// that exceeds the isolate's memory limit breaks this one's calls, and the gate or the episode
// it broke is started again on a new load instead of being recorded as this program's failure.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluateEnvironment, type Evaluation, type EvaluationContext } from '../../../core/run/evaluate.js';
import type { EnvironmentProgram, Sandbox } from '../../../core/types.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { createReferenceAgent } from '../../../plugins/reference/agent.js';
import { gridKeysDoors } from '../../../plugins/reference/families/grid-keys-doors.js';
import { fixture } from '../../fixtures/programs/load.js';

const sandbox = createIsolatedVmSandbox({ limits: { callTimeoutMs: 3000, memoryMb: 16 } });
const loads = new Map<string, number>();
const counting: Sandbox = {
  ...sandbox,
  load(program, limits) {
    loads.set(program.id, (loads.get(program.id) ?? 0) + 1);
    return sandbox.load(program, limits);
  },
};
const context = (onEpisode?: () => void): EvaluationContext => ({
  suite: 's',
  sandboxes: { get: async () => counting, close: async () => {} },
  agent: createReferenceAgent(),
  limits: {},
  attempts: 3,
  withHint: true,
  runSeed: 5,
  onEpisode,
});
const grid: EnvironmentProgram = { id: 'grid', language: 'javascript', source: gridKeysDoors.program(6), meta: { family: 'grid-keys-doors', difficulty: 6 } };
const bomb = (id: string): EnvironmentProgram => ({ ...fixture('invalid/memory-bomb'), id });

/** An evaluation without its timings. */
function comparable(e: Evaluation): unknown {
  return {
    verdict: { ...e.verdict, wallMs: 0 },
    episodes: e.episodes.map((episode) => ({ ...episode, wallMs: 0 })),
    summary: e.summary,
  };
}

test('a memory bomb in the same isolate, during the gate and during the episodes, changes nothing', async () => {
  const alone = await evaluateEnvironment(grid, 11, context());
  assert.is(alone.verdict.verdict, 'valid');
  assert.is(loads.get('grid'), 3, 'the spade reading\'s load, the strict reading\'s, and a fresh one for play');
  loads.clear();

  let second: Promise<Evaluation> | undefined;
  const shared = evaluateEnvironment(grid, 11, context(() => {
    // After the first episode, another neighbour goes off.
    second ??= evaluateEnvironment(bomb('bomb-2'), 1, context());
  }));
  const first = await evaluateEnvironment(bomb('bomb-1'), 1, context());
  const result = await shared;
  assert.is(first.verdict.reason, 'memory', 'the bomb itself is rejected for memory');
  assert.is((await second!).verdict.reason, 'memory');
  assert.is(loads.get('grid'), 5, 'loads: the spade reading the first bomb broke, both readings again, the play\'s own, and the restart of the episode the second bomb broke');
  assert.ok(result.episodes.every((e) => e.outcome !== 'errored'), 'no episode is errored');
  assert.equal(comparable(result), comparable(alone));
});

test.after(async () => {
  await sandbox.close();
});

test.run();
