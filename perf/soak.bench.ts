/**
 * Soak: 10,000+ episodes of the offline default through the real CLI, sampling the process's
 * resident memory as it goes. Memory should stay flat: episodes stream to the journal, and
 * what the run keeps per episode is small. Prints the RSS curve and the peak (VmHWM).
 * Run: node --no-node-snapshot --import tsx perf/soak.bench.ts [attempts]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResults } from '../core/results/results.js';
import { publish } from './publish.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const attempts = process.argv[2] ?? '32';
const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'spade-soak-')), 'run');
const started = performance.now();
const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', path.join(root, 'core/cli/bin.ts'), 'run', '--out', out, '--suites', 'procedural', '--attempts', attempts], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});

const status = (field: string): number | undefined => {
  try {
    const m = readFileSync(`/proc/${child.pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
};

const samples: { sec: number; rssMb: number; episodes: number }[] = [];
let peak = 0;
const journal = path.join(out, 'journal.jsonl');
const timer = setInterval(() => {
  const rss = status('VmRSS');
  peak = Math.max(peak, status('VmHWM') ?? 0);
  let episodes = 0;
  try {
    episodes = (readFileSync(journal, 'utf8').match(/"type":"episode"/g) ?? []).length;
  } catch {
    // not started yet
  }
  if (rss !== undefined) samples.push({ sec: (performance.now() - started) / 1000, rssMb: rss, episodes });
}, 1000);

const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
clearInterval(timer);
const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults;
const episodes = results.suites.reduce((n, s) => n + s.metrics.throughput.episodes, 0);
const notes = [`exit ${code}; ${episodes} episodes in ${((performance.now() - started) / 1000).toFixed(1)} s`];
const step = Math.max(1, Math.floor(samples.length / 15));
const curve = samples.filter((_, i) => i % step === 0 || i === samples.length - 1).map((s) => ({ 'second': Math.round(s.sec), episodes: s.episodes, 'RSS MiB': Math.round(s.rssMb) }));
// The slope while episodes are played; the end (metrics and the report) is shown apart.
const playing = samples.filter((s) => s.episodes < episodes);
const settled = playing.filter((s) => s.episodes > episodes * 0.1);
if (settled.length >= 2) {
  const first = settled[0]!;
  const last = settled.at(-1)!;
  const perThousand = ((last.rssMb - first.rssMb) / Math.max(1, last.episodes - first.episodes)) * 1000;
  notes.push(`RSS from ${first.rssMb.toFixed(0)} MiB (${first.episodes} episodes) to ${last.rssMb.toFixed(0)} MiB (${last.episodes}): ${perThousand.toFixed(2)} MiB per 1,000 episodes`);
}
notes.push(`peak RSS while playing: ${Math.max(...playing.map((s) => s.rssMb)).toFixed(0)} MiB; peak RSS of the whole run (VmHWM, with metrics and the report): ${peak.toFixed(0)} MiB`);
publish(import.meta.url, {
  about: `Soak: the offline default's self-play and procedural suite with ${attempts} attempts per environment (10,000+ episodes) through the command line, its resident memory sampled every second: memory should stay flat while episodes stream to the journal.`,
  tables: [{ caption: 'resident memory as the run goes', rows: curve }],
  notes,
});
