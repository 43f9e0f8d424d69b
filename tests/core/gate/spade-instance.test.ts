/**
 * The strict reading of a program of spade-bench's own code goes on with the instance SPADE's
 * checks passed on, rather than loading the program again (GateOptions.reuseSpadeInstance). The
 * verdicts must not change: every fixture (run as if it were spade-bench's code), the reference
 * designer's programs of every family, the procedural suite and a sample of GSM8K's tasks are
 * gated both ways, and the verdicts compared whole (their wall time aside). A model's program
 * is always loaded afresh, and nothing loaded is left undisposed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateEnvironment } from '../../../core/gate/gate.js';
import type { EnvironmentProgram, LoadedEnvironment, Sandbox } from '../../../core/types.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { createReferenceDesigner } from '../../../plugins/reference/designer.js';
import { FAMILIES } from '../../../plugins/reference/families/index.js';
import { createProceduralSuite } from '../../../benchmarks/procedural.js';
import { createGsm8kSuite } from '../../../benchmarks/gsm8k.js';
import { fixture, fixtureNames } from '../../fixtures/programs/load.js';
import { repoRoot } from '../../helpers/cli.js';
import { verdictWithoutTime } from '../../helpers/results.js';

const sandbox = createIsolatedVmSandbox({ limits: { callTimeoutMs: 2000, memoryMb: 16 } });

/** A sandbox that counts the environments it loads and those disposed. */
function counting(inner: Sandbox): { sandbox: Sandbox; loads: () => number; open: () => number } {
  let loads = 0;
  let disposed = 0;
  return {
    sandbox: {
      ...inner,
      async load(program, ...rest) {
        const env: LoadedEnvironment = await inner.load(program, ...rest);
        loads++;
        const dispose = env.dispose.bind(env);
        let done = false;
        env.dispose = async () => {
          if (!done) disposed++;
          done = true;
          await dispose();
        };
        return env;
      },
    },
    loads: () => loads,
    open: () => loads - disposed,
  };
}

const trusted = (program: EnvironmentProgram): EnvironmentProgram => ({ ...program, meta: { ...program.meta, trustedCode: true } });

/** Gate each program with and without reuse; the same verdicts, and how many loads reuse saved. */
async function sameVerdicts(programs: readonly EnvironmentProgram[], seedOf: (p: EnvironmentProgram) => number = () => 0): Promise<number> {
  const reusing = counting(sandbox);
  const fresh = counting(sandbox);
  for (const program of programs) {
    const seed = seedOf(program);
    const a = await validateEnvironment(reusing.sandbox, program, { seed });
    const b = await validateEnvironment(fresh.sandbox, program, { seed, reuseSpadeInstance: false });
    assert.equal(verdictWithoutTime(a), verdictWithoutTime(b), program.id);
  }
  assert.is(reusing.open(), 0, 'every environment loaded with reuse was disposed');
  assert.is(fresh.open(), 0, 'every environment loaded without reuse was disposed');
  return fresh.loads() - reusing.loads();
}

/** The fixture that keeps state across reset() (an episode counter in its observation), as no program of spade-bench's code does. */
const STATEFUL = 'invalid/nondeterministic';

test('fixtures run as spade-bench code: the same verdicts with and without reusing SPADE\'s instance', async () => {
  const names = [...fixtureNames('valid'), ...fixtureNames('unproven'), ...fixtureNames('tool-use'), ...fixtureNames('invalid')];
  assert.ok(names.includes(STATEFUL));
  const programs = names.filter((name) => name !== STATEFUL).map((name) => trusted(fixture(name)));
  const saved = await sameVerdicts(programs);
  let passedSpade = 0;
  for (const program of programs) if ((await validateEnvironment(sandbox, program, { seed: 0 })).readings?.spade.verdict === 'valid') passedSpade++;
  // One load saved for each program SPADE's checks passed, none for those they rejected.
  assert.is(saved, passedSpade);
  assert.ok(passedSpade > 0 && passedSpade < programs.length, `${passedSpade} of ${programs.length} fixtures pass SPADE's checks`);
});

test("a program that keeps state across reset() is why only spade-bench's own code reuses the instance", async () => {
  const program = trusted(fixture(STATEFUL));
  const reused = await validateEnvironment(sandbox, program, { seed: 0 });
  const fresh = await validateEnvironment(sandbox, program, { seed: 0, reuseSpadeInstance: false });
  // Rejected either way, for the same reason; but what it shows first counts SPADE's resets too.
  assert.is(reused.reason, 'nondeterministic');
  assert.is(fresh.reason, 'nondeterministic');
  assert.is.not(reused.firstObservation, fresh.firstObservation);
  // As a model's program, it is loaded afresh whatever the option says.
  const designed = fixture(STATEFUL);
  assert.equal(verdictWithoutTime(await validateEnvironment(sandbox, designed, { seed: 0 })), verdictWithoutTime(fresh));
});

test("the reference designer's programs, every family: the same verdicts with and without reuse", async () => {
  const designer = createReferenceDesigner();
  const programs: EnvironmentProgram[] = [];
  for (const [round, seed] of [[0, 11], [1, 12]] as const) {
    programs.push(...(await designer.design({ round, count: 3 * FAMILIES.length, seed, memory: [], recentSolveRates: [] })));
  }
  assert.equal(new Set(programs.map((p) => p.meta?.family)).size, FAMILIES.length);
  assert.ok(programs.every((p) => p.meta?.trustedCode === true));
  const saved = await sameVerdicts(programs);
  assert.ok(saved > 0);
});

test('the procedural suite: the same verdicts with and without reuse', async () => {
  const tasks = await createProceduralSuite().tasks({});
  const seeds = new Map(tasks.map((task) => [task.program, task.seed]));
  const saved = await sameVerdicts(tasks.map((task) => task.program), (program) => seeds.get(program)!);
  assert.is(saved, tasks.length);
});

const datasets = path.resolve(repoRoot, '../shared/datasets');
test('GSM8K tasks: the same verdicts with and without reuse', async () => {
  if (!existsSync(path.join(datasets, 'gsm8k', 'test.jsonl'))) {
    console.log('skipped: ../shared/datasets/gsm8k/test.jsonl not found');
    return;
  }
  const tasks = (await createGsm8kSuite({ dataDir: datasets }).tasks({ dataDir: datasets })).filter((_, i) => i % 20 === 0);
  const saved = await sameVerdicts(tasks.map((task) => task.program));
  assert.is(saved, tasks.length);
});

test("a model's program is loaded afresh for the strict reading", async () => {
  const counted = counting(sandbox);
  const program = fixture('valid/sum-single-answer');
  assert.not.ok(program.meta?.trustedCode);
  const verdict = await validateEnvironment(counted.sandbox, program, { seed: 0 });
  assert.is(verdict.verdict, 'valid');
  assert.is(counted.loads(), 2);
  assert.is(counted.open(), 0);
  const reused = counting(sandbox);
  assert.is((await validateEnvironment(reused.sandbox, trusted(program), { seed: 0 })).verdict, 'valid');
  assert.is(reused.loads(), 1);
  assert.is(reused.open(), 0);
});

test.after(async () => {
  await sandbox.close();
});

test.run();
