/**
 * The AIME suite keeps a model's slots busy: 2 years x 30 problems x 64 samples, a local
 * OpenAI-protocol server (another process) answering every request after 250 ms, the real
 * openai SDK (the vllm: preset) behind the shared provider layer with 32 requests in flight,
 * response cache off. Two servers:
 *   - one that takes `n`, as vLLM does: 60 requests of 64 samples; the yardstick is the fewest
 *     seconds 60 requests allow through 32 slots (2 rounds of 250 ms);
 *   - one that answers one sample per request (llama.cpp, Ollama): the layer sends the 64
 *     samples as 64 requests, 3,840 in all;
 * slots busy = requests x 250 ms / (suite wall x 32)        target >= 0.9
 * Run: npm run bench -- aime
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { run } from '../core/setup/api.js';
import { publish } from './publish.js';
import type { RunResults } from '../core/results/results.js';

const DELAY_MS = 250;
const SLOTS = 32;
const YEARS = [2025, 2026];
const PROBLEMS = 30;
const SAMPLES = 64;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const spadeArchive = path.resolve(root, '../shared/datasets/spade/spade-9b2b813.tar.gz');

if (!existsSync(spadeArchive)) {
  console.log(`aime: skipped: ${spadeArchive} not found (SPADE's source, for the AIME instruction)`);
  process.exit(0);
}

// AIME in SPADE's own layout, 30 problems a year (their text does not matter to the clock).
const scratch = mkdtempSync(path.join(tmpdir(), 'spade-bench-aime-'));
const dataDir = path.join(scratch, 'data');
mkdirSync(path.join(dataDir, 'spade'), { recursive: true });
symlinkSync(spadeArchive, path.join(dataDir, 'spade/spade-9b2b813.tar.gz'));
for (const year of YEARS) {
  mkdirSync(path.join(dataDir, `aime-${year}`));
  const rows = Array.from({ length: PROBLEMS }, (_, i) => JSON.stringify({ prompt: [{ role: 'user', content: `AIME ${year} problem ${i + 1}: find the remainder.` }], label: String((i * 37) % 1000) }));
  writeFileSync(path.join(dataDir, `aime-${year}`, `aime-${year}.jsonl`), `${rows.join('\n')}\n`);
}

async function startServer(ignoresN: boolean): Promise<{ server: ChildProcess; baseURL: string }> {
  const server = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'tests/helpers/wire-servers.ts', 'openai', String(DELAY_MS), ...(ignoresN ? ['ignores-n'] : [])], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [firstChunk] = (await once(server.stdout!, 'data')) as [Buffer];
  return { server, baseURL: firstChunk.toString().trim().split('\n')[0]! };
}

interface Figures {
  requests: number;
  suiteWallSec: number;
}
const measured = new Map<string, Figures[]>();
let counter = 0;

async function play(name: string, baseURL: string): Promise<void> {
  const out = path.join(scratch, `run-${++counter}`);
  await run(
    {
      out,
      agent: 'vllm:bench-model',
      suites: ['aime'],
      dataDir,
      cache: false,
      providers: { vllm: { baseURL, requestsInFlight: SLOTS, maxRetries: 0 } },
    },
    { cwd: scratch },
  );
  const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults;
  const suite = results.suites[0]!;
  const samples = suite.scores?.aime2025_n_samples?.value ?? 0;
  if (samples !== PROBLEMS * SAMPLES) throw new Error(`${name}: ${samples} samples of 2025, expected ${PROBLEMS * SAMPLES}`);
  measured.set(name, [...(measured.get(name) ?? []), { requests: suite.metrics.usage.calls, suiteWallSec: suite.metrics.throughput.wallSec }]);
  rmSync(out, { recursive: true, force: true });
}

const setups = [
  { name: 'server takes n (vLLM)', ignoresN: false },
  { name: 'one sample a request', ignoresN: true },
];
const servers = new Map<string, { server: ChildProcess; baseURL: string }>();
const bench = new Bench({ name: `AIME: ${YEARS.length} years x ${PROBLEMS} problems x ${SAMPLES} samples, server answering after ${DELAY_MS} ms, ${SLOTS} provider slots`, iterations: 3, warmupIterations: 0, time: 0, warmup: false });
try {
  for (const setup of setups) {
    servers.set(setup.name, await startServer(setup.ignoresN));
    bench.add(setup.name, () => play(setup.name, servers.get(setup.name)!.baseURL));
  }
  await bench.run();
} finally {
  for (const { server } of servers.values()) server.kill();
  rmSync(scratch, { recursive: true, force: true });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const busyOf = (f: { requests: number; suiteWallSec: number }): number => (f.requests * DELAY_MS) / 1000 / (f.suiteWallSec * SLOTS);
const rows = setups.map(({ name }) => {
  const runs = measured.get(name)!;
  const requests = median(runs.map((f) => f.requests));
  return {
    setup: name,
    requests,
    'suite wall s (median)': Number(median(runs.map((f) => f.suiteWallSec)).toFixed(2)),
    'fewest s the model allows': Number(((Math.ceil(requests / SLOTS) * DELAY_MS) / 1000).toFixed(2)),
    'slots busy (median)': Number(median(runs.map(busyOf)).toFixed(2)),
    'slots busy (runs)': runs.map((f) => busyOf(f).toFixed(2)).join(' '),
  };
});
publish(import.meta.url, {
  about: `The AIME suite keeps a model's slots busy: ${YEARS.length} years x ${PROBLEMS} problems x ${SAMPLES} samples, the real openai SDK (the vllm: preset) against a local server (another process) answering every request after ${DELAY_MS} ms, ${SLOTS} requests in flight, response cache off; medians of 3 runs. Two servers: one that takes \`n\` as vLLM does (60 requests of 64 samples), and one that answers one sample a request (3,840 requests). Slots busy = requests x ${DELAY_MS} ms / (suite wall x ${SLOTS}); target >= 0.9.`,
  tables: [{ caption: bench.name, rows }],
  notes: setups.map(({ name }) => {
    const busy = median(measured.get(name)!.map(busyOf));
    return `${name}: ${busy.toFixed(2)} of the ${SLOTS} slots busy (target >= 0.9: ${busy >= 0.9 ? 'met' : 'NOT met'})`;
  }),
});
