/**
 * The pyodide sandbox: interpreter start (cold: a new jailed child process, Pyodide start-up
 * and the first load), loading a program into a running interpreter (warm), a warm step
 * (target <= 1 ms) and a warm reset+step pair. A warm call crosses two hops each way (host ->
 * child process over a pipe, child -> interpreter thread by postMessage).
 * Run: node --no-node-snapshot --import tsx perf/pyodide.bench.ts
 */
import { readFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import { createPyodideSandbox } from '../plugins/sandboxes/pyodide/sandbox.js';
import type { EnvironmentProgram } from '../core/types.js';

const source = readFileSync(new URL('../tests/fixtures/python/guess_number.py', import.meta.url), 'utf8');
const program: EnvironmentProgram = { id: 'bench/guess-number', language: 'python', source };
const limits = { maxCalls: Number.POSITIVE_INFINITY };

const cold = new Bench({ name: 'pyodide sandbox, cold', iterations: 3, time: 0, warmup: false });
cold.add('interpreter start: child process + Pyodide + first load', async () => {
  const sandbox = createPyodideSandbox({ limits });
  const env = await sandbox.load(program);
  await env.dispose();
  await sandbox.close();
});
await cold.run();
console.log(cold.name);
console.table(cold.table());

const sandbox = createPyodideSandbox({ limits });
const environment = await sandbox.load(program);
await environment.reset(1);
let seed = 0;

const warm = new Bench({ name: 'pyodide sandbox, warm', time: 2000, warmupTime: 300 });
warm
  .add('load (fresh namespace in a running interpreter) + dispose', async () => {
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
await warm.run();
console.log(warm.name);
console.table(warm.table());

const mean = (name: string): number => {
  const result = warm.getTask(name)?.result;
  return result && 'latency' in result ? result.latency.mean : NaN;
};
console.log(`warm step: ${mean('step').toFixed(3)} ms (target <= 1 ms)`);

await environment.dispose();
await sandbox.close();
