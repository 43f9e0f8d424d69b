/**
 * The gate tells the sandbox which calls it is about to make (LoadedEnvironment.plan), and the
 * isolated-vm sandbox runs them in one round trip. The verdicts must not change: every fixture
 * (valid, unproven, tool-use, invalid and hostile), every program of the procedural suite and a
 * sample of GSM8K's tasks are gated with plans run for every program and with no plan run at
 * all, and the verdicts compared whole (their wall time aside).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateEnvironment } from '../../../core/gate/gate.js';
import type { EnvironmentProgram, LoadedEnvironment, PlannedCall, Sandbox } from '../../../core/types.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { createProceduralSuite } from '../../../benchmarks/procedural.js';
import { createGsm8kSuite } from '../../../benchmarks/gsm8k.js';
import { fixture, fixtureNames } from '../../fixtures/programs/load.js';
import { repoRoot } from '../../helpers/cli.js';
import { verdictWithoutTime } from '../../helpers/results.js';

const limits = { callTimeoutMs: 150, memoryMb: 16 };
const planned = createIsolatedVmSandbox({ limits, plans: 'every' });
const oneByOne = createIsolatedVmSandbox({ limits, plans: 'none' });

/** A sandbox that counts the plans its environments are given. */
function counting(sandbox: Sandbox): { sandbox: Sandbox; plans: () => number } {
  let plans = 0;
  return {
    sandbox: {
      ...sandbox,
      async load(program, ...rest) {
        const env: LoadedEnvironment = await sandbox.load(program, ...rest);
        const plan = env.plan?.bind(env);
        if (plan) {
          env.plan = (calls: readonly PlannedCall[]) => {
            plans++;
            plan(calls);
          };
        }
        return env;
      },
    },
    plans: () => plans,
  };
}

async function sameVerdicts(programs: readonly EnvironmentProgram[], seedOf: (p: EnvironmentProgram) => number = () => 0): Promise<number> {
  const counted = counting(planned);
  for (const program of programs) {
    const seed = seedOf(program);
    const a = await validateEnvironment(counted.sandbox, program, { seed });
    const b = await validateEnvironment(oneByOne, program, { seed });
    assert.equal(verdictWithoutTime(a), verdictWithoutTime(b), program.id);
  }
  return counted.plans();
}

test('fixtures, hostile ones included: the same verdicts with and without plans', async () => {
  const names = [...fixtureNames('valid'), ...fixtureNames('unproven'), ...fixtureNames('tool-use'), ...fixtureNames('invalid')];
  const hostile = readdirSync(path.join(repoRoot, 'tests/fixtures/programs/hostile')).filter((f) => f.endsWith('.js')).map((f) => `hostile/${f.slice(0, -3)}`);
  assert.ok(hostile.length >= 20);
  const plans = await sameVerdicts([...names, ...hostile].map(fixture));
  assert.ok(plans > names.length, `the gate planned its calls (${plans} plans)`);
});

test('the procedural suite: the same verdicts with and without plans', async () => {
  const tasks = await createProceduralSuite().tasks({});
  const seeds = new Map(tasks.map((task) => [task.program, task.seed]));
  const plans = await sameVerdicts(tasks.map((task) => task.program), (program) => seeds.get(program)!);
  assert.ok(plans >= tasks.length);
});

const gsm8k = path.resolve(repoRoot, '../shared/datasets');
test('GSM8K tasks: the same verdicts with and without plans', async () => {
  if (!existsSync(path.join(gsm8k, 'gsm8k', 'test.jsonl'))) {
    console.log('skipped: ../shared/datasets/gsm8k/test.jsonl not found');
    return;
  }
  const tasks = (await createGsm8kSuite({ dataDir: gsm8k }).tasks({ dataDir: gsm8k })).filter((_, i) => i % 20 === 0);
  await sameVerdicts(tasks.map((task) => task.program), () => 0);
});

async function rejects(call: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await call();
  } catch (error) {
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`expected a rejection matching ${pattern}`);
}

test('a plan the caller does not follow is an error, not a silent answer', async () => {
  const env = await planned.load(fixture('valid/sum-single-answer'));
  env.plan!([{ method: 'reset', argument: 0 }, { method: 'step', argument: '\\boxed{1}' }]);
  await env.reset(0);
  await rejects(() => env.reset(1), /ran as planned, then reset\(1\) was called/);
  await env.dispose();
  const other = await planned.load(fixture('valid/sum-single-answer'));
  other.plan!([{ method: 'reset', argument: 0 }]);
  await rejects(() => other.solution(), /planned reset\(0\) first, called solution\(\)/);
  await other.dispose();
});

test("by default only programs of spade-bench's own code have their plans run; a model's program gets each call on its own", async () => {
  const sandbox = createIsolatedVmSandbox({ limits });
  const source = fixture('valid/sum-single-answer');
  const trusted = await sandbox.load({ ...source, meta: { trustedCode: true } });
  trusted.plan!([{ method: 'reset', argument: 0 }, { method: 'step', argument: '\\boxed{1}' }]);
  await trusted.reset(0);
  await rejects(() => trusted.solution(), /ran as planned/);
  const designed = await sandbox.load(source);
  designed.plan?.([{ method: 'reset', argument: 0 }, { method: 'step', argument: '\\boxed{1}' }]);
  await designed.reset(0);
  // Nothing ran ahead: the step was never made, so calling something else is simply that call.
  assert.type(await designed.solution(), 'string');
  await trusted.dispose();
  await designed.dispose();
  await sandbox.close();
});

test('a planned call that runs past its time limit answers as timed out, and the calls before it as they ran', async () => {
  const env = await planned.load(fixture('hostile/loop-on-smoke-action'));
  env.plan!([{ method: 'reset', argument: 0 }, { method: 'step', argument: '1' }, { method: 'step', argument: '2' }, { method: 'step', argument: 'test' }]);
  const first = await env.reset(0);
  assert.type(first.observation, 'string');
  let failed: unknown;
  for (const action of ['1', '2', 'test']) {
    try {
      await env.step(action);
    } catch (error) {
      failed = error;
      break;
    }
  }
  assert.instance(failed, Error);
  assert.is((failed as { kind?: string }).kind, 'timeout');
  await env.dispose();
});

test.after(async () => {
  await planned.close();
  await oneByOne.close();
});

test.run();
