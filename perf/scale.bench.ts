/**
 * Scale: episodes/s of whole runs, from the run's own throughput (episodes over the suites'
 * wall time, as results.json reports it; the report rendering and setup are not counted).
 *   threads       the offline default (self-play 3 rounds x 16, attempts 4, all 321 procedural
 *                 tasks) in 1 vs 2 worker threads, started before the run
 *                                                                target: 2 threads >= 1.7 x 1
 *   distributed   the same run through BullMQ on a local redis-server, 1 vs 2 worker processes
 *                 (warmed by a few jobs first)
 *                                                                target: 2 workers >= 1.5 x 1
 *   single-turn   a static suite of 10,000 single-answer tasks (the reference families at
 *                 horizon 1, difficulties 1-10), reference agent, 2 worker threads
 *                                                                target: >= 2,000 episodes/s
 * Pick sections with arguments: node --no-node-snapshot --import tsx perf/scale.bench.ts [threads] [distributed] [single-turn[=N]]
 * By default: threads, distributed, and single-turn with 1,000 tasks (`single-turn=10000` for the
 * full figure: about 30 s per setup, three setups). Per single-answer task the cost is a fresh
 * V8 context (~0.5 ms) and the gate's ~40 sandbox calls, all in code that is cold in that context.
 * Figures depend on free cores: run it on an otherwise idle machine (the load average is printed).
 *
 * "cores busy" is the CPU time of the whole run (every thread of this process, V8's compiler and
 * garbage-collector threads included, plus worker processes and redis-server) over the suites'
 * wall time. One evaluation thread keeps about 1.5 cores busy: V8 optimises hot functions (the
 * harness's, and the environments' again in every fresh context) and collects garbage on its
 * own threads, beside the thread that runs them. On n cores, at the same CPU per episode, no
 * setup can beat n / (the first setup's cores busy) times the first setup's rate; the bench
 * prints that ceiling under the table. Measured runs stay below it: two threads spent 8-14%
 * more CPU per episode than one (each thread or process warms up its own optimised code, and
 * the rest of the difference is not broken down).
 */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { Bench } from 'tinybench';
import { resolveConfig, type SpadeConfig } from '../core/config/config.js';
import type { RunResults } from '../core/results/results.js';
import { evaluateEnvironment, type Evaluator } from '../core/run/evaluate.js';
import type { Suite, SuiteTask } from '../core/types.js';
import { createThreadPool } from '../core/scale/thread-pool.js';
import { createDistributedEvaluator } from '../core/scale/distributed-evaluator.js';
import { FAMILIES } from '../plugins/reference/families/index.js';
import { runLocally } from '../tests/core/scale/local-run.js';
import { redisMissing, startRedis, startWorkerProcess, stopProcesses } from '../tests/helpers/redis.js';
import { tempDir } from '../tests/helpers/cli.js';
import { publish } from './publish.js';

const sections = process.argv.slice(2);
const wanted = (name: string): boolean => sections.length === 0 || sections.some((s) => s.split('=')[0] === name);
const singleTurnTasks = Number(sections.find((s) => s.startsWith('single-turn='))?.split('=')[1] ?? 1000);
const rows: Record<string, string | number>[] = [];
const notes: string[] = [];
const CORES = availableParallelism();

/** Episodes and suite wall time of a finished run. */
function throughput(dir: string): { episodes: number; wallSec: number; bySuite: string } {
  const results = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunResults;
  const bySuite = results.suites.map((s) => `${s.id} ${Math.round(s.metrics.throughput.episodes / s.metrics.throughput.wallSec)}/s`).join(', ');
  return { ...results.suites.reduce((t, s) => ({ episodes: t.episodes + s.metrics.throughput.episodes, wallSec: t.wallSec + s.metrics.throughput.wallSec }), { episodes: 0, wallSec: 0 }), bySuite };
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * CPU seconds used so far by this process (every thread, V8's compiler and GC threads included)
 * and by the other processes given (worker processes, redis-server), from /proc on Linux.
 */
function cpuSeconds(pids: number[]): number {
  const own = process.cpuUsage();
  let seconds = (own.user + own.system) / 1e6;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      seconds += (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      // not Linux, or the process is gone: its time is not counted
    }
  }
  return seconds;
}

/**
 * Measures CPU over the suites' evaluations only (not setup, the suites' metrics or the report),
 * as results.json's wall time does: from each suite's start to its last evaluation.
 */
function suiteCpu(pids: number[]): { onProgress: (event: { type: string }) => void; coresBusy: () => number } {
  let cpu = 0;
  let wall = 0;
  let start: { cpu: number; wall: number } | undefined;
  let last: { cpu: number; wall: number } | undefined;
  const now = () => ({ cpu: cpuSeconds(pids), wall: performance.now() / 1000 });
  return {
    onProgress(event) {
      if (event.type === 'suite-start') start = last = now();
      if (event.type === 'environment') last = now();
      if (event.type === 'suite-end' && start && last) {
        cpu += last.cpu - start.cpu;
        wall += last.wall - start.wall;
        start = last = undefined;
      }
    },
    coresBusy: () => cpu / wall,
  };
}

type Setup = () => Promise<{ evaluator: Evaluator; close(): Promise<void>; outDir?: string; pids?: number[] }>;

/** One run per setup (whole runs are long), through tinybench; rows of episodes/s, speed-up and cores kept busy. */
async function compare(title: string, config: SpadeConfig, setups: [string, Setup][], extraSuites: Suite[] = []): Promise<void> {
  const bench = new Bench({ name: title, iterations: 1, time: 0, warmup: false });
  const measured: { name: string; episodes: number; wallSec: number; bySuite: string; cores: number }[] = [];
  for (const [name, make] of setups) {
    bench.add(name, async () => {
      const { evaluator, close, outDir, pids = [] } = await make();
      try {
        const cpu = suiteCpu(pids);
        const dir = await runLocally(config, { evaluator, extraSuites, outDir, onProgress: cpu.onProgress });
        measured.push({ name, ...throughput(dir), cores: cpu.coresBusy() });
      } finally {
        await close();
      }
    });
  }
  await bench.run();
  const base = measured[0]!.episodes / measured[0]!.wallSec;
  for (const m of measured) {
    const rate = m.episodes / m.wallSec;
    rows.push({ section: title, setup: m.name, episodes: m.episodes, 'suite wall s': Number(m.wallSec.toFixed(2)), 'episodes/s': Math.round(rate), 'x first': Number((rate / base).toFixed(2)), 'cores busy': Number(m.cores.toFixed(2)), 'by suite': m.bySuite });
  }
  // A setup that keeps c cores busy can go at most cores/c times faster on this machine's cores.
  const first = measured[0]!;
  notes.push(`${title}: ${first.name} keeps ${first.cores.toFixed(2)} cores busy, at the same CPU per episode, ${CORES} cores allow at most ${(CORES / first.cores).toFixed(2)} x its rate`);
}

/** A pool whose threads have started and built their sandboxes: the figure is steady-state throughput. */
const threadPool = (config: SpadeConfig, workers: number) => async () => {
  const pool = createThreadPool({ config, workers });
  await pool.ready();
  return { evaluator: pool.evaluate, close: () => pool.close() };
};

const offlineDefault = resolveConfig({});

if (wanted('threads')) {
  await compare('threads: offline default', offlineDefault, [
    ['1 worker thread', threadPool(offlineDefault, 1)],
    ['2 worker threads', threadPool(offlineDefault, 2)],
  ]);
}

if (wanted('distributed')) {
  const missing = redisMissing();
  if (missing) console.log(`distributed: skipped: ${missing}`);
  else {
    const redis = await startRedis();
    const distributed = (count: number) => async () => {
      const workers = await Promise.all(Array.from({ length: count }, (_, i) => startWorkerProcess(redis.url, `bench-${count}-${i}`)));
      // A few jobs first, so that each worker has loaded its modules and built its sandbox and
      // agent (as for the threads): the figure is steady-state throughput.
      const warmConfig = resolveConfig({ suites: ['procedural'], limit: 6 * count, selfplay: { rounds: 1, envsPerRound: 2 * count } });
      const warmDir = path.join(tempDir('spade-bench-dist-'), 'warm');
      const warm = await createDistributedEvaluator({ redis: redis.url, config: warmConfig, outDir: warmDir });
      await runLocally(warmConfig, { evaluator: warm.evaluate, outDir: warmDir }).finally(() => warm.close());
      const outDir = path.join(tempDir('spade-bench-dist-'), 'run');
      const evaluator = await createDistributedEvaluator({ redis: redis.url, config: offlineDefault, outDir });
      const pids = [redis.pid, ...workers.map((w) => w.pid!)];
      return { evaluator: evaluator.evaluate, outDir, pids, close: async () => (await evaluator.close(), await stopProcesses(workers)) };
    };
    try {
      await compare('distributed: offline default', offlineDefault, [
        ['1 worker process', distributed(1)],
        ['2 worker processes', distributed(2)],
      ]);
    } finally {
      await redis.stop();
    }
  }
}

/** `size` single-answer tasks: every single-answer family at difficulties 1-10, distinct seeds. */
function singleTurnSuite(size: number): Suite {
  const families = FAMILIES.filter((f) => !f.multiTurn);
  const sources = new Map<string, string>();
  const tasks: SuiteTask[] = Array.from({ length: size }, (_, i) => {
    const family = families[i % families.length]!;
    const difficulty = 1 + (Math.floor(i / families.length) % 10);
    const key = `${family.name}-d${difficulty}`;
    if (!sources.has(key)) sources.set(key, family.program(difficulty));
    return { program: { id: `single/${key}-${i}`, language: 'javascript', source: sources.get(key)!, meta: { family: family.name, difficulty, horizon: 1 } }, seed: 1000 + i };
  });
  return { id: 'single-turn', description: `${size} single-answer tasks`, language: 'javascript', tasks: async () => tasks };
}

if (wanted('single-turn')) {
  const config = resolveConfig({ suites: ['procedural'], limit: 1, environmentsInFlight: Number(process.env.CONC ?? 8) });
  // Only the 10,000-task suite counts: the one procedural task is there because a run needs a configured suite.
  const inThisThread = async () => ({ evaluator: evaluateEnvironment, close: async () => {} });
  await compare(`single-turn: ${singleTurnTasks} tasks`, config, (process.env.ONLY_POOL ? [['2 worker threads', threadPool(config, 2)]] : [['in the main thread', inThisThread], ['1 worker thread', threadPool(config, 1)], ['2 worker threads', threadPool(config, 2)]]) as never, [singleTurnSuite(singleTurnTasks)]);
}

notes.unshift(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end (${CORES} cores: other work slows the threads)`);
publish(import.meta.url, {
  about: 'Episodes/s of whole runs, from their own throughput: the offline default in 1 and 2 worker threads (target: 2 threads >= 1.7 x 1), through BullMQ on a local Redis with 1 and 2 worker processes (>= 1.5 x 1), and a static suite of single-answer tasks (>= 2,000 episodes/s).',
  tables: [{ rows }],
  notes,
});
