/**
 * A model-bound run keeps the provider's slots busy. A local OpenAI-protocol server (another
 * process) answers every request after 250 ms; the real openai SDK, behind the shared provider
 * layer with 32 requests in flight, plays 64 GSM8K tasks x 4 attempts at the run's default
 * flags (no --concurrency), response cache off. Measured:
 *   slots busy = calls x 250 ms / (suite wall x 32)        target >= 0.8
 * beside its yardstick, the fewest seconds the model allows (calls x 250 ms / 32). (--concurrency
 * does not bound a model-driven agent: its provider's requestsInFlight does, so no flag plays
 * these episodes one environment at a time any more; the tests check that concurrent play gives
 * the results of one-at-a-time play.) SPADE_BENCH_BASELINE=DIR adds an older checkout (built),
 * its runs alternating with these in this process, for before/after figures.
 * Run: npm run bench -- model-bound
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { run } from '../core/setup/api.js';
import type { RunResults } from '../core/results/results.js';
import { figure, publish } from './publish.js';

const DELAY_MS = 250;
const SLOTS = 32;
const TASKS = 64;
const ATTEMPTS = 4;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const datasets = path.resolve(root, '../shared/datasets');

if (!existsSync(path.join(datasets, 'gsm8k', 'test.jsonl'))) {
  console.log(`model-bound: skipped: ${path.join(datasets, 'gsm8k', 'test.jsonl')} not found (the GSM8K test split, as the tests use it)`);
  process.exit(0);
}

const server = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'tests/helpers/wire-servers.ts', 'openai', String(DELAY_MS)], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [firstChunk] = (await once(server.stdout!, 'data')) as [Buffer];
const baseURL = firstChunk.toString().trim().split('\n')[0]!;
const scratch = mkdtempSync(path.join(tmpdir(), 'spade-bench-model-bound-'));

interface Figures {
  calls: number;
  suiteWallSec: number;
}
const measured = new Map<string, Figures[]>();
let counter = 0;

type Run = typeof run;

async function play(name: string, start: Run): Promise<void> {
  const out = path.join(scratch, `run-${++counter}`);
  await start(
    {
      out,
      agent: 'openai:bench-model',
      suites: ['gsm8k'],
      limit: TASKS,
      dataDir: datasets,
      attempts: ATTEMPTS,
      cache: false,
      providers: { openai: { baseURL, apiKey: 'sk-bench-local-0123456789', requestsInFlight: SLOTS, maxRetries: 0 } },
    },
    { cwd: scratch },
  );
  const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults;
  const suite = results.suites[0]!;
  const figures = { calls: suite.metrics.usage.calls, suiteWallSec: suite.metrics.throughput.wallSec };
  if (suite.metrics.success.episodes !== TASKS * ATTEMPTS) throw new Error(`${name}: ${suite.metrics.success.episodes} episodes, expected ${TASKS * ATTEMPTS}`);
  measured.set(name, [...(measured.get(name) ?? []), figures]);
  rmSync(out, { recursive: true, force: true });
}

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const setups: { name: string; start: Run }[] = [{ name: 'this checkout', start: run }];
const notes: string[] = [];
const baseline = process.env.SPADE_BENCH_BASELINE;
if (baseline && existsSync(path.join(baseline, 'dist', 'core', 'setup', 'api.js'))) {
  const module = (await import(pathToFileURL(path.resolve(baseline, 'dist', 'core', 'setup', 'api.js')).href)) as { run: Run };
  setups.push({ name: `baseline ${path.basename(baseline)}`, start: module.run });
} else if (baseline) notes.push(`SPADE_BENCH_BASELINE=${baseline}: no dist/core/setup/api.js there (build it first)`);
const bench = new Bench({ name: `${TASKS} GSM8K tasks x ${ATTEMPTS} attempts at the default flags, server answering after ${DELAY_MS} ms, ${SLOTS} provider slots`, iterations: 1, warmupIterations: 0, time: 0, warmup: false });
for (let round = 0; round < ROUNDS; round++) {
  for (const setup of round % 2 === 0 ? setups : [...setups].reverse()) bench.add(`${setup.name} #${round + 1}`, () => play(setup.name, setup.start));
}
try {
  await bench.run();
} finally {
  server.kill();
  rmSync(scratch, { recursive: true, force: true });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const busyOf = (f: Figures): number => (f.calls * DELAY_MS) / 1000 / (f.suiteWallSec * SLOTS);
const rows = setups.filter(({ name }) => measured.has(name)).map(({ name }) => {
  const runs = measured.get(name)!;
  const calls = median(runs.map((f) => f.calls));
  return {
    setup: name,
    calls,
    'suite wall s': figure(median(runs.map((f) => f.suiteWallSec))),
    'fewest s the model allows': figure((calls * DELAY_MS) / 1000 / SLOTS),
    'slots busy': figure(median(runs.map(busyOf))),
    'slots busy (runs)': runs.map((f) => busyOf(f).toFixed(2)).join(' '),
  };
});
const busy = median(measured.get('this checkout')!.map(busyOf));
publish(import.meta.url, {
  about: `A model-bound run keeps the provider's slots busy: the real openai SDK against a local server (another process) answering after ${DELAY_MS} ms, ${SLOTS} requests in flight, ${TASKS} GSM8K tasks x ${ATTEMPTS} attempts at the run's default flags, response cache off; medians of ${ROUNDS} runs${setups.length > 1 ? ', alternating with the baseline' : ''}. Slots busy = calls x ${DELAY_MS} ms / (suite wall x ${SLOTS}); target >= 0.8.`,
  tables: [{ caption: bench.name, rows }],
  notes: [`this checkout: ${busy.toFixed(2)} of the ${SLOTS} slots busy (target >= 0.8: ${busy >= 0.8 ? 'met' : 'NOT met'})`, ...notes],
});
