/**
 * The offline default as a user starts it: `spade-bench run --out DIR` (the built bin called
 * directly, as npx does) in a folder without a config file, so every option is its default
 * (self-play 3 rounds x 16 environments, 4 attempts, the procedural suite; the reference
 * policy, no network). Measured: wall time from spawn to exit and the peak memory of the
 * process tree (perf/process-tree.ts), medians of ROUNDS runs (default 5).
 * SPADE_BENCH_BASELINE=DIR adds an older checkout (built, with its node_modules), its runs
 * alternating with these, for before/after figures.
 * Run: npm run bench -- offline-default
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './built.js';
import { canMeasureProcessTrees, measureProcess, median, type ProcessFigures } from './process-tree.js';
import { figure, publish } from './publish.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.ROUNDS ?? 5);
if (!canMeasureProcessTrees()) {
  console.log('offline-default: skipped: needs Linux /proc/PID/task/TID/children to measure process trees');
  process.exit(0);
}
ensureBuilt(root);
const checkouts = [{ name: 'this checkout', dir: root }];
const notes: string[] = [];
const baseline = process.env.SPADE_BENCH_BASELINE;
if (baseline && existsSync(path.join(baseline, 'dist', 'core', 'cli', 'bin.js'))) checkouts.push({ name: `baseline ${path.basename(baseline)}`, dir: path.resolve(baseline) });
else if (baseline) notes.push(`SPADE_BENCH_BASELINE=${baseline}: no dist/core/cli/bin.js there (build it first)`);

const scratch = mkdtempSync(path.join(tmpdir(), 'spade-bench-offline-default-'));
const measured = new Map<string, { figures: ProcessFigures; episodes: number }[]>(checkouts.map((c) => [c.name, []]));
let counter = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (const checkout of round % 2 === 0 ? checkouts : [...checkouts].reverse()) {
    const cwd = path.join(scratch, `run-${++counter}`);
    mkdirSync(cwd);
    // Caches of its own (the offline default keeps none it reads again, but nothing is shared with other runs).
    const env = { ...process.env, XDG_CACHE_HOME: path.join(cwd, 'cache') };
    const figures = await measureProcess(path.join(checkout.dir, 'dist', 'core', 'cli', 'bin.js'), ['run', '--out', 'out'], { cwd, env });
    if (figures.code !== 0) throw new Error(`${checkout.name} exited with ${figures.code}: ${figures.stderr.slice(-2000)}`);
    // Every play, hinted ones too, as the run's closing line counts them (success counts the plays without the hint).
    const results = JSON.parse(readFileSync(path.join(cwd, 'out', 'results.json'), 'utf8')) as { suites: { metrics: { throughput: { episodes: number } } }[] };
    measured.get(checkout.name)!.push({ figures, episodes: results.suites.reduce((sum, s) => sum + s.metrics.throughput.episodes, 0) });
    rmSync(cwd, { recursive: true, force: true });
  }
}
rmSync(scratch, { recursive: true, force: true });

const rows = checkouts.map(({ name }) => {
  const runs = measured.get(name)!;
  return {
    setup: name,
    episodes: runs[0]!.episodes,
    'wall s': figure(median(runs.map((r) => r.figures.wallSec))),
    'peak MiB': Math.round(median(runs.map((r) => r.figures.peakMb))),
    processes: Math.max(...runs.map((r) => r.figures.processes)),
    'wall s (runs)': runs.map((r) => r.figures.wallSec.toFixed(2)).join(' '),
    'peak MiB (runs)': runs.map((r) => r.figures.peakMb.toFixed(0)).join(' '),
  };
});
publish(import.meta.url, {
  about: `\`spade-bench run\` with every option at its default (the built bin, no config file): wall time from spawn to exit and peak memory of the process tree, medians of ${ROUNDS} runs${checkouts.length > 1 ? ', alternating with the baseline' : ''}.`,
  tables: [{ caption: 'the offline default, whole process', rows }],
  notes,
});
