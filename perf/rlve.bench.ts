/**
 * RLVE in the cpython sandbox: the 400 environments through the validation gate (difficulty 0,
 * one seed each), as `spade-bench run --suites rlve --validate-only` does in one thread, and
 * one task's reset + step (RLVE's generator, then its verifier) warm. Prints the share valid.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { validateEnvironment } from '../core/gate/gate.js';
import { mapLimit } from '../core/run/concurrency.js';
import { createRlveSuite } from '../benchmarks/rlve/suite.js';
import { createCpythonSandbox } from '../plugins/sandboxes/cpython/sandbox.js';
import { benchRows, publish } from './publish.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dataDir = path.resolve(root, '../shared/datasets');
const workers = Math.min(2, os.availableParallelism());
const suite = createRlveSuite({ offline: true });
const loadStarted = performance.now();
const tasks = await suite.tasks({ dataDir, pythonPackages: ['numpy', 'networkx', 'sympy'] });
const loadMs = performance.now() - loadStarted;

let valid = 0;
const bench = new Bench({ name: 'rlve', iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0, warmup: false });
bench.add(`${tasks.length} RLVE tasks through the gate (cpython, ${workers} interpreters, start included)`, async () => {
  const sandbox = createCpythonSandbox({ workers, pythonPath: tasks[0]!.program.pythonPath });
  try {
    const verdicts = await mapLimit(tasks, workers * 2, (task) => validateEnvironment(sandbox, task.program, { seed: task.seed, limits: suite.limits }));
    valid = verdicts.filter((v) => v?.verdict === 'valid').length;
  } finally {
    await sandbox.close();
  }
});
await bench.run();

const sorting = tasks.find((t) => t.program.meta?.family === 'Sorting')!;
const sandbox = createCpythonSandbox({ pythonPath: sorting.program.pythonPath });
// A trainer's environment lives for many episodes: no cap on its calls here (tinybench makes ~10,000 and more).
const env = await sandbox.load(sorting.program, { ...suite.limits, maxCalls: Number.MAX_SAFE_INTEGER });
const answer = await (async () => (await env.reset(sorting.seed), env.solution()))();
const warm = new Bench({ name: 'rlve task', time: 1000 });
warm.add('Sorting: reset (RLVE generator) + step (RLVE verifier)', async () => {
  await env.reset(sorting.seed);
  await env.step(`\\boxed{${answer}}`);
});
await warm.run();
await env.dispose();
await sandbox.close();

publish(import.meta.url, {
  about: "RLVE in the cpython sandbox: its 400 environments through the validation gate (difficulty 0, one seed each), as `run --suites rlve --validate-only` does in one thread, and one task's reset + step warm.",
  tables: [{ rows: benchRows(bench) }, { caption: warm.name, rows: benchRows(warm) }],
  notes: [
    `catalog and tasks: ${(loadMs / 1000).toFixed(2)} s (Gym checked by git ids and extracted)`,
    `valid: ${valid}/${tasks.length} (${((100 * valid) / tasks.length).toFixed(1)}%)`,
  ],
});
if (valid / tasks.length < 0.8) process.exitCode = 1;
