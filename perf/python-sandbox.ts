/**
 * What the two Python sandbox benches measure alike, on the same program (a guessing game):
 * a cold start (a new sandbox and its first load), then, warm, a load into the running
 * interpreter, a step, and a reset + step pair. Each bench publishes the two benches with its
 * own targets.
 */
import { readFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import type { EnvironmentProgram, Sandbox, SandboxLimits } from '../core/types.js';

const source = readFileSync(new URL('../tests/fixtures/python/guess_number.py', import.meta.url), 'utf8');
const program: EnvironmentProgram = { id: 'bench/guess-number', language: 'python', source };
/** The environments of a bench live for many episodes: no cap on their calls. */
const limits: Partial<SandboxLimits> = { maxCalls: Number.POSITIVE_INFINITY };

/** Median, mean and p99 latency of one task of `bench`, in ms. */
export function latency(bench: Bench, name: string): { mean: number; p50: number; p99: number } {
  const result = bench.getTask(name)?.result;
  return result && 'latency' in result ? { mean: result.latency.mean, p50: result.latency.p50 ?? NaN, p99: result.latency.p99 ?? NaN } : { mean: NaN, p50: NaN, p99: NaN };
}

/** Run the cold and warm benches of the sandbox `create` makes. */
export async function coldAndWarm(name: string, create: (limits: Partial<SandboxLimits>) => Sandbox, what: { start: string; load: string }): Promise<{ cold: Bench; warm: Bench }> {
  const cold = new Bench({ name: `${name} sandbox, cold`, iterations: 3, time: 0, warmup: false });
  cold.add(what.start, async () => {
    const sandbox = create(limits);
    const env = await sandbox.load(program);
    await env.dispose();
    await sandbox.close();
  });
  await cold.run();

  const sandbox = create(limits);
  const environment = await sandbox.load(program);
  await environment.reset(1);
  let seed = 0;
  const warm = new Bench({ name: `${name} sandbox, warm`, time: 2000, warmupTime: 300 });
  warm
    .add(what.load, async () => {
      const env = await sandbox.load(program);
      await env.dispose();
    })
    .add('step', async () => {
      await environment.step('\\boxed{50}');
    })
    .add('reset + step', async () => {
      await environment.reset(seed++);
      await environment.step('\\boxed{50}');
    });
  try {
    await warm.run();
  } finally {
    await environment.dispose();
    await sandbox.close();
  }
  return { cold, warm };
}
