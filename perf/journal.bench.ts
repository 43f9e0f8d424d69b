/**
 * A long run's memory and journal. `spade-bench run --suites gsm8k` (the built bin, as npx
 * calls it) plays TASKS GSM8K tasks many times each through the real openai SDK against a local
 * OpenAI-protocol server (in this process, another process than the run) that answers at once
 * with a 20 KB reply: a seeded stream of words, like a reasoning trace, ending in a \boxed{}
 * answer (the question's last number: right now and then). The reply depends on the prompt and
 * the request's seed only, so two runs of the same config get the same replies and results.
 *
 * Measured, per row: wall time; the peak resident memory of the run's process tree
 * (perf/process-tree.ts's sampling, here every 250 ms, each sample beside the episodes played
 * so far, read from the server's count of requests); the memory from 20,000 episodes to the
 * last episode (lowest, highest, and the spread (highest - lowest) / lowest: flat means a
 * spread of at most 10%); the journal on disk against its JSON text and against the replies'
 * raw text; results.json's size.
 *                     targets: peak <= 300 MiB; spread from 20,000 episodes on <= 10%
 * JOURNAL_EPISODES=20000,200000 (default) picks the rows; JOURNAL_TASKS (default 100) the tasks,
 * each played episodes / tasks times. JOURNAL_KEEP=DIR keeps each row's results.json there
 * (results-EPISODES.json), to compare two checkouts' results.
 * Run: npm run bench -- journal
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { canMeasureProcessTrees } from './process-tree.js';
import { ensureBuilt } from './built.js';
import { figure, publish } from './publish.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const checkout = path.resolve(process.env.SPADE_BENCH_CHECKOUT ?? root);
const datasets = path.resolve(process.env.SPADE_BENCH_DATASETS ?? path.join(root, '../shared/datasets'));
const REPLY_BYTES = 20 * 1024;
const TASKS = Number(process.env.JOURNAL_TASKS ?? 100);
const ROWS = (process.env.JOURNAL_EPISODES ?? '20000,200000').split(',').map(Number);
const FLAT_FROM = 20_000;
const SAMPLE_MS = 250;

if (!canMeasureProcessTrees()) {
  console.log('journal: skipped: needs Linux /proc/PID/task/TID/children to measure process trees');
  process.exit(0);
}
if (!existsSync(path.join(datasets, 'gsm8k', 'test.jsonl'))) {
  console.log(`journal: skipped: ${path.join(datasets, 'gsm8k', 'test.jsonl')} not found (the GSM8K test split, as the tests use it)`);
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// The server: OpenAI Chat Completions, 20 KB replies, no latency
// ---------------------------------------------------------------------------------------------

const WORDS = 'so the total is then we add each of the numbers and subtract what is left over from it because every step follows from the one before which gives us a count of items per group times groups minus the remainder plus one more check that the units agree'.split(' ');

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

function reply(prompt: string, seed: number): string {
  let state = (hash(prompt) ^ Math.imul(seed, 2654435761)) >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const parts: string[] = [];
  let size = 0;
  while (size < REPLY_BYTES - 40) {
    const word = random() < 0.08 ? String(Math.floor(random() * 1000)) : WORDS[Math.floor(random() * WORDS.length)]!;
    parts.push(word);
    size += word.length + 1;
  }
  const numbers = prompt.match(/\d+(?:\.\d+)?/g) ?? ['0'];
  return `${parts.join(' ')}\nThe answer is \\boxed{${numbers[Math.floor(random() * numbers.length)]}}.`;
}

let requests = 0;
const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (c: Buffer) => chunks.push(c));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; seed?: number; messages: { role: string; content: string }[] };
    const prompt = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const text = reply(prompt, body.seed ?? 0);
    requests++;
    const tokens = Math.ceil(text.length / 4);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({
      id: `chatcmpl-${requests}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: tokens, total_tokens: tokens + Math.ceil(prompt.length / 4) },
    }));
  });
});
// Connections stay open between requests as long as the client keeps them (no race with its pool).
server.keepAliveTimeout = 600_000;
server.headersTimeout = 601_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

// ---------------------------------------------------------------------------------------------
// Memory of the run's process tree, sampled beside the episodes played
// ---------------------------------------------------------------------------------------------

function treeRssMb(pid: number): number {
  let sum = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      sum += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) / 1024;
      for (const tid of readdirSync(`/proc/${p}/task`)) {
        for (const child of readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').split(' ')) if (child.trim()) stack.push(Number(child));
      }
    } catch {
      // gone
    }
  }
  return sum;
}

/** Bytes of every file under `target` (a file or a folder), and of their text once gunzipped. */
function sizes(target: string): { disk: number; text: number } {
  if (!existsSync(target)) return { disk: 0, text: 0 };
  const stat = statSync(target);
  if (stat.isFile()) return { disk: stat.size, text: target.endsWith('.gz') ? gunzipSync(readFileSync(target)).length : stat.size };
  let disk = 0;
  let text = 0;
  for (const name of readdirSync(target)) {
    const s = sizes(path.join(target, name));
    disk += s.disk;
    text += s.text;
  }
  return { disk, text };
}

const mib = (bytes: number): number => figure(bytes / 2 ** 20);

ensureBuilt(checkout);
const scratch = mkdtempSync(path.join(tmpdir(), 'spade-bench-journal-'));
const rows: Record<string, string | number>[] = [];
const notes: string[] = [];
const curves: Record<string, string | number>[] = [];
try {
  for (const episodes of ROWS) {
    const attempts = Math.round(episodes / TASKS);
    const cwd = path.join(scratch, `run-${episodes}`);
    mkdirSync(cwd);
    writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({
      dataDir: datasets,
      cache: false,
      providers: { openai: { baseURL, apiKey: 'sk-bench-local-0123456789', requestsInFlight: 32, maxRetries: 0 } },
    }));
    requests = 0;
    const started = performance.now();
    // The bin itself, as npx starts it (its first line gives Node --no-node-snapshot: one process).
    const child = spawn(path.join(checkout, 'dist', 'core', 'cli', 'bin.js'), ['run', '--suites', 'gsm8k', '--limit', String(TASKS), '--attempts', String(attempts), '--agent', 'openai:bench-model', '--out', 'out'], {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    const samples: { sec: number; episodes: number; rssMb: number }[] = [];
    const timer = setInterval(() => samples.push({ sec: (performance.now() - started) / 1000, episodes: requests, rssMb: treeRssMb(child.pid!) }), SAMPLE_MS);
    // A line every 30 s while it plays: a long row shows its course before its table.
    const progress = setInterval(() => {
      const last = samples.at(-1);
      if (last) console.log(`  ${episodes} row: ${last.episodes} episodes at ${Math.round(last.sec)} s, ${Math.round(last.rssMb)} MiB (peak so far ${Math.round(Math.max(...samples.map((s) => s.rssMb)))} MiB)`);
    }, 30_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearInterval(timer);
    clearInterval(progress);
    const wallSec = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`spade-bench exited with ${code}: ${stderr}`);
    const out = path.join(cwd, 'out');
    const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as { suites: { metrics: { success: { episodes: number; successRate: number } } }[] };
    const played = results.suites[0]!.metrics.success.episodes;
    if (played !== TASKS * attempts) throw new Error(`played ${played} episodes, expected ${TASKS * attempts}`);
    if (process.env.JOURNAL_KEEP) {
      mkdirSync(process.env.JOURNAL_KEEP, { recursive: true });
      copyFileSync(path.join(out, 'results.json'), path.join(process.env.JOURNAL_KEEP, `results-${played}.json`));
    }
    const journal = [path.join(out, 'journal'), path.join(out, 'journal.jsonl')].map(sizes).reduce((a, b) => ({ disk: a.disk + b.disk, text: a.text + b.text }));
    const playing = samples.filter((s) => s.episodes < played);
    const flat = playing.filter((s) => s.episodes >= Math.min(FLAT_FROM, played));
    const low = Math.min(...flat.map((s) => s.rssMb));
    const high = Math.max(...flat.map((s) => s.rssMb));
    const peak = Math.max(...samples.map((s) => s.rssMb));
    rows.push({
      episodes: played,
      tasks: TASKS,
      'wall s': figure(wallSec),
      'peak MiB': Math.round(peak),
      'peak MiB while playing': Math.round(Math.max(...playing.map((s) => s.rssMb))),
      [`MiB from ${FLAT_FROM.toLocaleString('en-US')} episodes (low-high)`]: flat.length ? `${Math.round(low)}-${Math.round(high)}` : 'n/a',
      spread: flat.length ? `${(((high - low) / low) * 100).toFixed(1)}%` : 'n/a',
      'journal MiB': mib(journal.disk),
      'journal text MiB': mib(journal.text),
      'replies raw MiB': mib(played * REPLY_BYTES),
      'results.json MiB': mib(statSync(path.join(out, 'results.json')).size),
      'success': results.suites[0]!.metrics.success.successRate.toFixed(4),
    });
    notes.push(`${played.toLocaleString('en-US')} episodes: peak ${Math.round(peak)} MiB (target <= 300: ${peak <= 300 ? 'met' : 'NOT met'})${flat.length ? `, spread from ${FLAT_FROM.toLocaleString('en-US')} episodes ${(((high - low) / low) * 100).toFixed(1)}% (target <= 10%: ${(high - low) / low <= 0.1 ? 'met' : 'NOT met'})` : ''}; journal ${mib(journal.disk)} MiB on disk for ${mib(journal.text)} MiB of JSON text (${(journal.text / Math.max(1, journal.disk)).toFixed(1)} x)`);
    const step = Math.max(1, Math.floor(playing.length / 10));
    for (const [i, s] of playing.entries()) if (i % step === 0 || i === playing.length - 1) curves.push({ row: played, episodes: s.episodes, second: Math.round(s.sec), 'RSS MiB': Math.round(s.rssMb) });
    rmSync(cwd, { recursive: true, force: true });
  }
} finally {
  server.close();
  rmSync(scratch, { recursive: true, force: true });
}

publish(import.meta.url, {
  about: `A long run's memory and journal: \`spade-bench run --suites gsm8k --limit ${TASKS} --attempts N\` (the built bin) through the real openai SDK against a local server (this bench's process) answering at once with ${REPLY_BYTES / 1024} KB replies (seeded words ending in a \\boxed{} answer). Peak resident memory of the run's process tree, sampled every ${SAMPLE_MS} ms beside the episodes played; its spread from ${FLAT_FROM.toLocaleString('en-US')} episodes to the last; the journal on disk against its JSON text and the replies' raw text. Targets: peak <= 300 MiB, spread <= 10%.`,
  tables: [
    { caption: 'one run per row', rows },
    { caption: 'resident memory as each run plays', rows: curves },
  ],
  notes,
});
