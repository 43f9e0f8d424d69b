/**
 * HumanEval's full validation: the 164 problems (canonical solutions) through the validation
 * gate, as `spade-bench run --suites humaneval --validate-only` does, in each Python sandbox side
 * by side: pyodide (target <= 15 s on a 2-core machine, interpreter start included) and cpython
 * (target: at least 3x faster than pyodide, sandbox start included).
 *
 * Where the time goes is printed too: interpreter start-up, then sandbox time per method
 * (spadeValidate: SPADE's own checks, then load, reset, step, solution, hint, dispose), with the steps that run the canonical
 * solution (`step: reference`) apart from the cheap ones (smoke test, wrong answers, random play).
 * Sandbox times are wall times of overlapping calls when workers > 1. And the CPU time each took,
 * start and gate: this (the host's) process's, and its sandbox's processes' (from /proc).
 * Each sandbox runs ROUNDS times (3 by default), the two taking turns (so a slower spell of the
 * machine falls on both): the figures are the medians, each run's total beside them, and the time
 * per method is the median run's. One run of each is at the mercy of a busy moment.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import type { EnvironmentProgram, LoadedEnvironment, Sandbox, SandboxLimits } from '../core/types.js';
import { validateEnvironment } from '../core/gate/gate.js';
import { mapLimit } from '../core/run/concurrency.js';
import { createHumanEvalSuite } from '../benchmarks/humaneval.js';
import { createPyodideSandbox } from '../plugins/sandboxes/pyodide/sandbox.js';
import { createCpythonSandbox } from '../plugins/sandboxes/cpython/sandbox.js';
import { figure, publish } from './publish.js';
import { descendantsCpuMs } from './process-tree.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dataDir = path.resolve(root, '../shared/datasets');
const workers = Number(process.env.HUMANEVAL_WORKERS ?? Math.min(2, os.availableParallelism()));
const ROUNDS = Number(process.env.ROUNDS ?? 3);

const suite = createHumanEvalSuite({ dataDir, offline: true });
const tasks = await suite.tasks({});

/** Wall time and calls per sandbox method. */
const spent = new Map<string, { ms: number; calls: number }>();
async function timed<T>(name: string, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await call();
  } finally {
    const entry = spent.get(name) ?? { ms: 0, calls: 0 };
    entry.ms += performance.now() - started;
    entry.calls++;
    spent.set(name, entry);
  }
}

function timing(sandbox: Sandbox): Sandbox {
  return {
    ...sandbox,
    // SPADE's own validation (the gate's spade reading): one request replaying validate_game.
    ...(sandbox.spadeValidate ? { spadeValidate: (program: EnvironmentProgram, limits?: Partial<SandboxLimits>) => timed('spadeValidate', () => sandbox.spadeValidate!(program, limits)) } : {}),
    async load(program: EnvironmentProgram, limits?: Partial<SandboxLimits>): Promise<LoadedEnvironment> {
      const env = await timed('load', () => sandbox.load(program, limits));
      let solution: string | undefined;
      return {
        capabilities: env.capabilities,
        reset: (seed) => timed('reset', () => env.reset(seed)),
        step: (action) => timed(solution !== undefined && action.includes(solution) && action.length <= solution.length + 8 ? 'step: reference' : 'step: other', () => env.step(action)),
        solution: async () => (solution = await timed('solution', () => env.solution())),
        hint: () => timed('hint', () => env.hint()),
        referenceAction: (observation) => timed('referenceAction', () => env.referenceAction(observation)),
        dispose: () => timed('dispose', () => env.dispose()),
      };
    },
  };
}

const SANDBOXES: Record<string, (options: { workers: number }) => Sandbox> = { pyodide: createPyodideSandbox, cpython: createCpythonSandbox };
interface Run { valid: number; startupMs: number; totalMs: number; hostCpuMs: number; sandboxCpuMs: number; spent: Map<string, { ms: number; calls: number }> }
/** Every run of each sandbox, in order. */
const outcome = new Map<string, Run[]>();
const bench = new Bench({ name: 'humaneval validation', iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0, warmup: false });
const label = (id: string): string => `164 canonical solutions through the gate (${id}, ${workers} worker${workers === 1 ? '' : 's'})`;
for (let round = 1; round <= ROUNDS; round++) for (const [id, create] of Object.entries(SANDBOXES)) {
  bench.add(`${label(id)}, run ${round}`, async () => {
    spent.clear();
    const started = performance.now();
    const hostCpu = process.cpuUsage();
    const sandboxCpu = descendantsCpuMs();
    const sandbox = create({ workers });
    let run: Run | undefined;
    try {
      // Start every interpreter before the clock for the gate starts (they start in parallel).
      const probe: EnvironmentProgram = { id: 'probe', language: 'python', source: 'class ProbeEnv:\n  def reset(self, seed=0):\n    return "", {}\n  def step(self, a):\n    return "", 0, True, False, {}\n' };
      await Promise.all(Array.from({ length: workers }, async () => (await sandbox.load(probe)).dispose()));
      const startupMs = performance.now() - started;
      const measured = timing(sandbox);
      const verdicts = await mapLimit(tasks, workers * 2, (task) => validateEnvironment(measured, task.program, { seed: task.seed, limits: suite.limits }));
      const host = process.cpuUsage(hostCpu);
      run = {
        valid: verdicts.filter((v) => v?.verdict === 'valid').length, startupMs, spent: new Map(spent), totalMs: 0,
        hostCpuMs: (host.user + host.system) / 1000, sandboxCpuMs: descendantsCpuMs() - sandboxCpu,
      };
    } finally {
      await sandbox.close();
      if (run) {
        run.totalMs = performance.now() - started;
        outcome.set(id, [...(outcome.get(id) ?? []), run]);
      }
      // Killed interpreters finish exiting (Pyodide's frees a large WebAssembly heap) before the next sandbox's clock starts.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  });
}

await bench.run();
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2 : NaN;
};
/** A sandbox's run whose total is the median (the lower middle one of an even count). */
const medianRun = (runs: readonly Run[]): Run | undefined => [...runs].sort((a, b) => a.totalMs - b.totalMs)[(runs.length - 1) >> 1];
const totals: Record<string, number> = {};
const rows = Object.keys(SANDBOXES).map((id) => {
  const runs = outcome.get(id) ?? [];
  const total = median(runs.map((r) => r.totalMs)); // start, gate and close; not the pause after
  totals[id] = total;
  return {
    task: label(id), 'total s': figure(total / 1000), 'total s (runs)': runs.map((r) => figure(r.totalMs / 1000)).join(' '),
    'sandbox start s': figure(median(runs.map((r) => r.startupMs)) / 1000),
    'CPU s: host': figure(median(runs.map((r) => r.hostCpuMs)) / 1000), 'CPU s: sandbox processes': figure(median(runs.map((r) => r.sandboxCpuMs)) / 1000),
    valid: runs.map((r) => `${r.valid}/${tasks.length}`).join(' '),
  };
});
const perMethod = [...outcome].flatMap(([id, runs]) => { const run = medianRun(runs); return run ? [[id, run] as const] : []; }).map(([id, run]) => ({
  caption: `${id}: sandbox time per method`,
  rows: [...run.spent.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([method, { ms, calls }]) => ({ method, calls, 'total s': figure(ms / 1000), 'mean ms': figure(ms / calls) })),
}));
const speedup = totals.pyodide! / totals.cpython!;
publish(import.meta.url, {
  about: `HumanEval's 164 problems (canonical solutions) through the validation gate, as \`run --suites humaneval --validate-only\` does, in each Python sandbox: pyodide (target <= 15 s, interpreter start included) and cpython (target: at least 3x faster than pyodide), where the time goes (in the median run), and the CPU time each used from its start to the gate's end (the host's process, and the sandbox's processes). Medians of ${ROUNDS} runs of each.`,
  tables: [{ caption: 'HumanEval validation', rows }, ...perMethod],
  notes: [`HumanEval validation, medians of ${ROUNDS} runs: pyodide ${(totals.pyodide! / 1000).toFixed(2)} s (target <= 15 s), cpython ${(totals.cpython! / 1000).toFixed(2)} s: ${speedup.toFixed(2)}x faster (target >= 3x: ${speedup >= 3 ? 'met' : 'not met'})`],
});
if ([...outcome.values()].some((runs) => runs.length !== ROUNDS || runs.some((run) => run.valid !== tasks.length)) || outcome.size !== 2) process.exitCode = 1;
