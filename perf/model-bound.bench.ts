/**
 * A model-bound run keeps the provider's slots busy. A local OpenAI-protocol server (another
 * process) answers every request after 250 ms; `spade-bench run` (the built bin, a fresh
 * process each run, as a user starts it) plays 64 GSM8K tasks x 4 attempts at the run's default
 * flags through the real openai SDK, behind the shared provider layer with 32 requests in
 * flight, response cache off. Measured:
 *   slots busy = calls x 250 ms / (suite wall x 32)        target >= 0.8
 * beside its yardstick, the fewest seconds the model allows (calls x 250 ms / 32). (The
 * environments in flight do not bound a model-driven agent: its provider's requestsInFlight
 * does; the tests check that concurrent play gives the results of one-at-a-time play.) Each run
 * is a process of its own: runs repeated in one process get faster as it warms (JIT, heap
 * sizing), which a user's run never sees. SPADE_BENCH_BASELINE=DIR adds an older checkout
 * (built), its runs alternating with these, for before/after figures.
 * Run: npm run bench -- model-bound
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResults } from '../core/results/results.js';
import { ensureBuilt } from './built.js';
import { measureProcess } from './process-tree.js';
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
ensureBuilt(root);

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

/** One run of `checkout`'s built bin in a fresh folder and process. */
async function play(name: string, checkout: string): Promise<void> {
  const cwd = path.join(scratch, `run-${++counter}`);
  mkdirSync(cwd);
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({
    dataDir: datasets,
    cache: false,
    providers: { openai: { baseURL, apiKey: 'sk-bench-local-0123456789', requestsInFlight: SLOTS, maxRetries: 0 } },
  }));
  const args = ['run', '--out', 'out', '--agent', 'openai:bench-model', '--suites', 'gsm8k', '--limit', String(TASKS), '--attempts', String(ATTEMPTS)];
  const run = await measureProcess(path.join(checkout, 'dist', 'core', 'cli', 'bin.js'), args, { cwd });
  if (run.code !== 0) throw new Error(`${name} exited with ${run.code}: ${run.stderr.slice(-2000)}`);
  const results = JSON.parse(readFileSync(path.join(cwd, 'out', 'results.json'), 'utf8')) as RunResults;
  const suite = results.suites[0]!;
  if (suite.metrics.success.episodes !== TASKS * ATTEMPTS) throw new Error(`${name}: ${suite.metrics.success.episodes} episodes, expected ${TASKS * ATTEMPTS}`);
  measured.set(name, [...(measured.get(name) ?? []), { calls: suite.metrics.usage.calls, suiteWallSec: suite.metrics.throughput.wallSec }]);
  rmSync(cwd, { recursive: true, force: true });
}

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const setups: { name: string; dir: string }[] = [{ name: 'this checkout', dir: root }];
const notes: string[] = [];
const baseline = process.env.SPADE_BENCH_BASELINE;
if (baseline && existsSync(path.join(baseline, 'dist', 'core', 'cli', 'bin.js'))) setups.push({ name: `baseline ${path.basename(baseline)}`, dir: path.resolve(baseline) });
else if (baseline) notes.push(`SPADE_BENCH_BASELINE=${baseline}: no dist/core/cli/bin.js there (build it first)`);
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const setup of round % 2 === 0 ? setups : [...setups].reverse()) await play(setup.name, setup.dir);
  }
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
  about: `A model-bound run keeps the provider's slots busy: \`spade-bench run\` (the built bin, a fresh process each run) through the real openai SDK against a local server (another process) answering after ${DELAY_MS} ms, ${SLOTS} requests in flight, ${TASKS} GSM8K tasks x ${ATTEMPTS} attempts at the run's default flags, response cache off; medians of ${ROUNDS} runs${setups.length > 1 ? ', alternating with the baseline' : ''}. Slots busy = calls x ${DELAY_MS} ms / (suite wall x ${SLOTS}); target >= 0.8.`,
  tables: [{ caption: `${TASKS} GSM8K tasks x ${ATTEMPTS} attempts at the default flags, server answering after ${DELAY_MS} ms, ${SLOTS} provider slots`, rows }],
  notes: [`this checkout: ${busy.toFixed(2)} of the ${SLOTS} slots busy (target >= 0.8: ${busy >= 0.8 ? 'met' : 'NOT met'})`, ...notes],
});
