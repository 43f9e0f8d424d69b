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
 * so far, read from the server's count of requests); whether memory is flat from 20,000
 * episodes to the last: the peak of each window of 20,000 episodes, and the spread of those
 * window peaks, (highest - lowest) / lowest (flat means at most 10%; a window's peak leaves out
 * the GC's sawtooth within it), beside the spread of single samples; the journal on disk against
 * its JSON text and against the replies' raw text; results.json's size.
 *                     targets: peak <= 300 MiB; window-peak spread from 20,000 episodes on <= 10%
 * Then the kill test, on the row of KILL_ROW episodes (default 20,000): the same run killed
 * with SIGKILL at JOURNAL_KILLS (default 5) moments drawn from JOURNAL_KILL_SEED (default 1)
 * and resumed each time with `--resume`; its results.json against the uninterrupted run's,
 * every figure that differs named, except those of the clock (CLOCK_FIGURES). Model-call usage
 * figures are named apart.
 *                     target: no figure differs
 * JOURNAL_EPISODES=20000,200000 (default) picks the rows; JOURNAL_TASKS (default 100) the tasks,
 * each played episodes / tasks times; JOURNAL_KILLS=0 skips the kill test. JOURNAL_KEEP=DIR keeps
 * each row's results.json there (results-EPISODES.json), to compare two checkouts' results.
 * Run: npm run bench -- journal
 */
import { spawn, type ChildProcess } from 'node:child_process';
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
import { mulberry32 } from '../core/run/random.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const checkout = path.resolve(process.env.SPADE_BENCH_CHECKOUT ?? root);
const datasets = path.resolve(process.env.SPADE_BENCH_DATASETS ?? path.join(root, '../shared/datasets'));
const REPLY_BYTES = 20 * 1024;
const TASKS = Number(process.env.JOURNAL_TASKS ?? 100);
const ROWS = (process.env.JOURNAL_EPISODES ?? '20000,200000').split(',').map(Number);
const FLAT_FROM = 20_000;
/** Episodes of a window whose peak is taken, from FLAT_FROM on. */
const WINDOW = 20_000;
const SAMPLE_MS = 250;
const KILL_ROW = Number(process.env.KILL_ROW ?? 20_000);
const KILLS = Number(process.env.JOURNAL_KILLS ?? 5);
const KILL_SEED = Number(process.env.JOURNAL_KILL_SEED ?? 1);
/**
 * Figures of results.json that the clock decides, left out of the kill test's comparison: when
 * the run began and ended, rates per second, wall times, latency percentiles; and the run's id
 * and output folder, which name the run rather than measure it.
 */
const CLOCK_FIGURES = /^run\.(id|startedAt|finishedAt|config\.out)$|PerSec$|\.wallSec$|\.latency\./;

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

/** A run of the built bin in `cwd` (its spade.config.json), as npx starts it: one process (its first line gives Node --no-node-snapshot). */
function startRun(cwd: string, args: string[]): { child: ChildProcess; stderr: () => string; closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const child = spawn(path.join(checkout, 'dist', 'core', 'cli', 'bin.js'), ['run', '--suites', 'gsm8k', ...args, '--out', 'out'], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, stderr: () => stderr, closed };
}

/** A provider config of the local server in a fresh folder. */
function runFolder(cwd: string): string {
  mkdirSync(cwd);
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({
    dataDir: datasets,
    cache: false,
    providers: { openai: { baseURL, apiKey: 'sk-bench-local-0123456789', requestsInFlight: 32, maxRetries: 0 } },
  }));
  return cwd;
}

/** results.json as figure paths (`suites.0.metrics.success.won`) and their values, without the clock's. */
function figures(file: string): Map<string, unknown> {
  const flat = new Map<string, unknown>();
  const walk = (value: unknown, at: string): void => {
    if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) walk(inner, at ? `${at}.${key}` : key);
    } else if (!CLOCK_FIGURES.test(at)) {
      flat.set(at, value);
    }
  };
  walk(JSON.parse(readFileSync(file, 'utf8')), '');
  return flat;
}

/** The figures that differ between two results.json, as `path: a vs b`. */
function differences(a: string, b: string): string[] {
  const [x, y] = [figures(a), figures(b)];
  return [...new Set([...x.keys(), ...y.keys()])].filter((k) => JSON.stringify(x.get(k)) !== JSON.stringify(y.get(k))).map((k) => `${k}: ${JSON.stringify(x.get(k))} vs ${JSON.stringify(y.get(k))}`);
}

/** Model-call usage figures (calls, tokens, cost) of a suite or run. */
const USAGE = /(^|\.)usage\.|\.tokens$/;

interface KillOutcome {
  at: number;
  killed: boolean;
  resumedSec: number;
  differ: string[];
}

/**
 * The run of `episodes` episodes again, killed with SIGKILL once the server has answered `at`
 * requests (one per episode) for each of KILLS seeded moments, then resumed with --resume; each
 * results.json against the uninterrupted run's (`reference`).
 */
async function killAndResume(episodes: number, args: string[], reference: string): Promise<KillOutcome[]> {
  const random = mulberry32(KILL_SEED);
  const moments = Array.from({ length: KILLS }, () => 1 + Math.floor(random() * (episodes - 2)));
  const outcomes: KillOutcome[] = [];
  for (const [i, at] of moments.entries()) {
    const cwd = runFolder(path.join(scratch, `kill-${i}`));
    requests = 0;
    const { child, closed, stderr } = startRun(cwd, args);
    const watch = setInterval(() => {
      if (requests >= at) child.kill('SIGKILL');
    }, 10);
    const first = await closed;
    clearInterval(watch);
    const killed = first.signal === 'SIGKILL';
    if (!killed && first.code !== 0) throw new Error(`the run to kill at ${at} exited with ${first.code}: ${stderr()}`);
    const resumedAt = performance.now();
    const resumed = startRun(cwd, ['--resume']);
    const { code } = await resumed.closed;
    if (code !== 0) throw new Error(`the run killed at ${at} episodes did not resume: exit ${code}: ${resumed.stderr()}`);
    outcomes.push({ at, killed, resumedSec: (performance.now() - resumedAt) / 1000, differ: differences(path.join(reference, 'results.json'), path.join(cwd, 'out', 'results.json')) });
    console.log(`  killed at ${at} episodes${killed ? '' : ' (ended before the kill)'}: ${outcomes.at(-1)!.differ.length} figures differ after --resume`);
    rmSync(cwd, { recursive: true, force: true });
  }
  return outcomes;
}

const kills: Record<string, string | number>[] = [];

/** The kill test's rows and notes. */
function killTest(outcomes: KillOutcome[]): void {
  for (const o of outcomes) {
    const usage = o.differ.filter((d) => USAGE.test(d.slice(0, d.indexOf(':'))));
    const other = o.differ.filter((d) => !usage.includes(d));
    kills.push({
      'killed at episode': o.at,
      'killed mid-run': o.killed ? 'yes' : 'no',
      'resume s': figure(o.resumedSec),
      'figures that differ': other.length ? other.join('; ') : 'none',
      'usage figures that differ': usage.length ? usage.join('; ') : 'none',
    });
  }
  const other = outcomes.filter((o) => o.differ.some((d) => !USAGE.test(d.slice(0, d.indexOf(':')))));
  const usage = outcomes.filter((o) => o.differ.some((d) => USAGE.test(d.slice(0, d.indexOf(':')))));
  notes.push(`kill test: ${outcomes.filter((o) => o.killed).length} of ${outcomes.length} runs killed with SIGKILL mid-run and resumed; results equal to the uninterrupted run's but for the clock's figures: ${other.length ? `NOT met (${other.length} runs differ)` : 'met'}${usage.length ? `; model-call usage figures differ after ${usage.length} resumes` : '; model-call usage figures equal too'}`);
}

ensureBuilt(checkout);
const scratch = mkdtempSync(path.join(tmpdir(), 'spade-bench-journal-'));
const rows: Record<string, string | number>[] = [];
const notes: string[] = [];
const curves: Record<string, string | number>[] = [];
try {
  for (const episodes of ROWS) {
    const attempts = Math.round(episodes / TASKS);
    const cwd = runFolder(path.join(scratch, `run-${episodes}`));
    requests = 0;
    const started = performance.now();
    const { child, stderr, closed } = startRun(cwd, ['--limit', String(TASKS), '--attempts', String(attempts), '--agent', 'openai:bench-model']);
    const samples: { sec: number; episodes: number; rssMb: number }[] = [];
    const timer = setInterval(() => samples.push({ sec: (performance.now() - started) / 1000, episodes: requests, rssMb: treeRssMb(child.pid!) }), SAMPLE_MS);
    // A line every 30 s while it plays: a long row shows its course before its table.
    const progress = setInterval(() => {
      const last = samples.at(-1);
      if (last) console.log(`  ${episodes} row: ${last.episodes} episodes at ${Math.round(last.sec)} s, ${Math.round(last.rssMb)} MiB (peak so far ${Math.round(Math.max(...samples.map((s) => s.rssMb)))} MiB)`);
    }, 30_000);
    const { code } = await closed;
    clearInterval(timer);
    clearInterval(progress);
    const wallSec = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`spade-bench exited with ${code}: ${stderr()}`);
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
    const peak = Math.max(...samples.map((s) => s.rssMb));
    // The peak of each window of WINDOW episodes from FLAT_FROM on (the GC's sawtooth stays inside a window).
    const windowPeaks = new Map<number, number>();
    for (const s of flat) {
      const w = Math.floor((s.episodes - FLAT_FROM) / WINDOW);
      windowPeaks.set(w, Math.max(windowPeaks.get(w) ?? 0, s.rssMb));
    }
    const peaks = [...windowPeaks.entries()].sort((a, b) => a[0] - b[0]).map(([, mb]) => mb);
    const spreadOf = (values: number[]): number | undefined => (values.length > 1 ? (Math.max(...values) - Math.min(...values)) / Math.min(...values) : undefined);
    const windowSpread = spreadOf(peaks);
    const sampleSpread = spreadOf(flat.map((s) => s.rssMb));
    const percent = (x: number | undefined): string => (x === undefined ? 'n/a' : `${(x * 100).toFixed(1)}%`);
    rows.push({
      episodes: played,
      tasks: TASKS,
      'wall s': figure(wallSec),
      'peak MiB': Math.round(peak),
      'peak MiB while playing': Math.round(Math.max(...playing.map((s) => s.rssMb))),
      [`peak MiB of each ${WINDOW.toLocaleString('en-US')} episodes from ${FLAT_FROM.toLocaleString('en-US')}`]: peaks.length ? peaks.map((mb) => Math.round(mb)).join(' ') : 'n/a',
      'window-peak spread': percent(windowSpread),
      [`single samples from ${FLAT_FROM.toLocaleString('en-US')} (low-high)`]: flat.length ? `${Math.round(Math.min(...flat.map((s) => s.rssMb)))}-${Math.round(Math.max(...flat.map((s) => s.rssMb)))}` : 'n/a',
      'single-sample spread': percent(sampleSpread),
      'journal MiB': mib(journal.disk),
      'journal text MiB': mib(journal.text),
      'replies raw MiB': mib(played * REPLY_BYTES),
      'results.json MiB': mib(statSync(path.join(out, 'results.json')).size),
      'success': results.suites[0]!.metrics.success.successRate.toFixed(4),
    });
    notes.push(`${played.toLocaleString('en-US')} episodes: peak ${Math.round(peak)} MiB (target <= 300: ${peak <= 300 ? 'met' : 'NOT met'})${windowSpread !== undefined ? `, spread of the window peaks from ${FLAT_FROM.toLocaleString('en-US')} episodes ${percent(windowSpread)} (target <= 10%: ${windowSpread <= 0.1 ? 'met' : 'NOT met'}; single samples ${percent(sampleSpread)}, GC sawtooth included)` : ''}; journal ${mib(journal.disk)} MiB on disk for ${mib(journal.text)} MiB of JSON text (${(journal.text / Math.max(1, journal.disk)).toFixed(1)} x)`);
    const step = Math.max(1, Math.floor(playing.length / 10));
    for (const [i, s] of playing.entries()) if (i % step === 0 || i === playing.length - 1) curves.push({ row: played, episodes: s.episodes, second: Math.round(s.sec), 'RSS MiB': Math.round(s.rssMb) });
    if (played === KILL_ROW && KILLS > 0) killTest(await killAndResume(played, ['--limit', String(TASKS), '--attempts', String(attempts), '--agent', 'openai:bench-model'], out));
    rmSync(cwd, { recursive: true, force: true });
  }
} finally {
  server.close();
  rmSync(scratch, { recursive: true, force: true });
}

publish(import.meta.url, {
  about: `A long run's memory and journal: \`spade-bench run --suites gsm8k --limit ${TASKS} --attempts N\` (the built bin) through the real openai SDK against a local server (this bench's process) answering at once with ${REPLY_BYTES / 1024} KB replies (seeded words ending in a \\boxed{} answer). Peak resident memory of the run's process tree, sampled every ${SAMPLE_MS} ms beside the episodes played; from ${FLAT_FROM.toLocaleString('en-US')} episodes to the last, the peak of each window of ${WINDOW.toLocaleString('en-US')} episodes and the spread of those peaks ((highest - lowest) / lowest), beside the spread of single samples (the GC's sawtooth included); the journal on disk against its JSON text and the replies' raw text.${kills.length ? ` Then the ${KILL_ROW.toLocaleString('en-US')}-episode run killed with SIGKILL at ${KILLS} seeded random moments (seed ${KILL_SEED}), each resumed with \`--resume\`, its results.json against the uninterrupted run's, every figure compared but the clock's (start and end, wall times, rates per second, latency percentiles; the run's id and folder).` : ''} Targets: peak <= 300 MiB, window-peak spread <= 10%${kills.length ? ', no figure differs after a kill' : ''}.`,
  tables: [
    { caption: 'one run per row', rows },
    { caption: 'resident memory as each run plays', rows: curves },
    ...(kills.length ? [{ caption: `the ${KILL_ROW.toLocaleString('en-US')}-episode run killed with SIGKILL and resumed with --resume, against the uninterrupted run (model-call usage figures apart)`, rows: kills }] : []),
  ],
  notes,
});
