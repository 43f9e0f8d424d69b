/**
 * The isolated-vm sandbox: loading a program (cold: new source each time; warm: a program
 * already compiled), a warm reset+step pair, the validation gate on a valid environment, and
 * the same reset+step pair in node's `vm` module in-process (no isolate, no limits) for scale.
 * Run: node --no-node-snapshot --import tsx perf/sandbox.bench.ts
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { Bench } from 'tinybench';
import { createIsolatedVmSandbox } from '../plugins/sandboxes/isolated-vm.js';
import { prepareScript } from '../plugins/sandboxes/program.js';
import { validateEnvironment } from '../core/gate/gate.js';
import type { EnvironmentProgram, LoadedEnvironment } from '../core/types.js';
import { benchRows, publish } from './publish.js';

const source = readFileSync(new URL('../tests/fixtures/programs/valid/sum-single-answer.js', import.meta.url), 'utf8');
const program: EnvironmentProgram = { id: 'bench/sum', language: 'javascript', source };

const sandbox = createIsolatedVmSandbox({ limits: { maxCalls: Number.POSITIVE_INFINITY } });
const environment: LoadedEnvironment = await sandbox.load(program);

// The same program, in a node:vm context of this process.
const context = vm.createContext({});
const factory = vm.runInContext(prepareScript(source).script, context) as () => new () => {
  reset(seed: number): unknown;
  step(action: string): unknown;
};
const inProcess = new (factory())();

let coldCounter = 0;
let seed = 0;
const bench = new Bench({ name: 'isolated-vm sandbox', time: 1500, warmupTime: 200 });
bench
  .add('load, cold (new source: parse + compile + context)', async () => {
    const env = await sandbox.load({ ...program, source: `${source}\n// ${coldCounter++}` });
    await env.dispose();
  })
  .add('load, warm (compiled program: new context)', async () => {
    const env = await sandbox.load(program);
    await env.dispose();
  })
  .add('reset + step, warm (isolated-vm)', async () => {
    await environment.reset(seed++);
    await environment.step('\\boxed{42}');
  })
  .add('reset + step, warm (node:vm in-process)', () => {
    inProcess.reset(seed++);
    inProcess.step('\\boxed{42}');
  })
  .add('validation gate, valid single-answer environment', async () => {
    await validateEnvironment(sandbox, program, { seed: seed++ });
  });

await bench.run();

const mean = (name: string): number => {
  const result = bench.getTask(name)?.result;
  return result && 'latency' in result ? result.latency.mean : NaN;
};
const ivmPair = mean('reset + step, warm (isolated-vm)');
const vmPair = mean('reset + step, warm (node:vm in-process)');
publish(import.meta.url, {
  about: "The isolated-vm sandbox: loading a program (cold: new source; warm: already compiled), a warm reset + step, the validation gate on a valid environment, and the same reset + step in node's vm module in-process (no isolate, no limits) for scale.",
  tables: [{ caption: bench.name, rows: benchRows(bench) }],
  notes: [`warm reset+step: isolated-vm ${(ivmPair * 1000).toFixed(1)} µs, node:vm ${(vmPair * 1000).toFixed(2)} µs, ratio ${(ivmPair / vmPair).toFixed(1)}x (means)`],
});

await environment.dispose();
await sandbox.close();
