/**
 * A static suite against the yardstick, whole processes, side by side in one run: GSM8K's 1,319
 * test problems with an instant model,
 *   promptfoo 0.120.27   `promptfoo eval -j 16`, its `echo` provider (the reply is the prompt),
 *                        a javascript assertion that reads the last \boxed{} or number;
 *   spade-bench          `spade-bench run --suites gsm8k --attempts 1 --environments-in-flight 16` (the bin
 *                        called directly, as npx does), its agent perf/instant-provider.mjs: a
 *                        provider plugin that answers at once with its prompt, like promptfoo's
 *                        echo; every task gated in the sandbox and played, results.json, journal
 *                        and report.html written;
 *   spade-bench warm     the same with the verdict cache of an earlier run (no gate).
 * Both get the same prompt (the question, then "Solve the problem. Give your final answer as a
 * number in \boxed{}.") and no network. "First run" means fresh caches for both (a new
 * promptfoo config folder, new spade-bench response and verdict caches).
 *
 * Measured: wall time from spawn to exit, and the peak resident memory of the whole process
 * tree (perf/process-tree.ts: sampled every 20 ms, summed over the tree); medians of 3 runs
 * each, the runs of the three setups alternating, their order reversed every round.
 *                                   targets: wall <= 0.3 x promptfoo's, peak memory <= 0.5 x
 *
 * promptfoo is installed by this bench into perf/.cache/promptfoo-0.120.27 (ignored by git),
 * never as a dependency of the project; without the npm registry the comparison is skipped,
 * saying so. SPADE_BENCH_BASELINE=DIR adds an older spade-bench checkout (built, with its
 * node_modules) as a fourth setup, for before/after figures.
 * Run: npm run bench -- promptfoo
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { canMeasureProcessTrees, measureProcess, median, type ProcessFigures } from './process-tree.js';
import { ensureBuilt } from './built.js';
import { figure, publish } from './publish.js';

const PROMPTFOO_VERSION = '0.120.27';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataset = path.resolve(root, '../shared/datasets/gsm8k/test.jsonl');
const ROUNDS = Number(process.env.ROUNDS ?? 3);

if (!canMeasureProcessTrees()) {
  console.log('promptfoo-gsm8k: skipped: needs Linux /proc/PID/task/TID/children to measure process trees');
  process.exit(0);
}
if (!existsSync(dataset)) {
  console.log(`promptfoo-gsm8k: skipped: ${dataset} not found (the GSM8K test split, as the tests use it)`);
  process.exit(0);
}

/** promptfoo's entry point, installed into perf/.cache on first use; undefined (and why) without the registry. */
function installPromptfoo(): { entry?: string; why?: string } {
  const dir = path.join(root, 'perf', '.cache', `promptfoo-${PROMPTFOO_VERSION}`);
  const entry = path.join(dir, 'node_modules', 'promptfoo', 'dist', 'src', 'entrypoint.js');
  if (existsSync(entry)) return { entry };
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{ "name": "promptfoo-yardstick", "private": true }\n');
  console.log(`installing promptfoo ${PROMPTFOO_VERSION} into ${path.relative(root, dir)} (once; a few minutes)...`);
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `promptfoo@${PROMPTFOO_VERSION}`], { cwd: dir, encoding: 'utf8', timeout: 1_200_000 });
  if (npm.status !== 0 || !existsSync(entry)) {
    const reason = `${npm.stderr ?? ''}${npm.error?.message ?? ''}`.trim().split('\n').slice(-3).join(' ');
    return { why: `could not install promptfoo ${PROMPTFOO_VERSION} from the npm registry (${reason || `npm exited with ${npm.status}`})` };
  }
  return { entry };
}

const scratch = mkdtempSync(path.join(tmpdir(), 'spade-bench-vs-promptfoo-'));
const INSTRUCTION = 'Solve the problem. Give your final answer as a number in \\boxed{}.';

/** promptfoo's test cases (question, numeric answer) and config, written once. */
function promptfooSetup(): string {
  const dir = path.join(scratch, 'promptfoo');
  mkdirSync(dir, { recursive: true });
  const tests = readFileSync(dataset, 'utf8').split('\n').filter(Boolean).map((line) => {
    const record = JSON.parse(line) as { question: string; answer: string };
    const answer = record.answer.slice(record.answer.lastIndexOf('####') + 4).trim().replace(/,/g, '');
    return JSON.stringify({ vars: { question: record.question, answer } });
  });
  writeFileSync(path.join(dir, 'tests.jsonl'), `${tests.join('\n')}\n`);
  // The same reading of the reply as spade-bench's numeric checker: the last \boxed{} (else the whole reply), its last number.
  const check = "const text = String(output); const at = text.lastIndexOf('\\\\boxed{'); const source = at < 0 ? text : text.slice(at + 7); const m = source.match(/-?\\d[\\d,]*(\\.\\d+)?/g); return !!m && Number(m[m.length - 1].replace(/,/g, '')) === Number(context.vars.answer);";
  writeFileSync(path.join(dir, 'promptfooconfig.yaml'), [
    'description: GSM8K test split with an instant model',
    'prompts:',
    `  - ${JSON.stringify(`{{question}}\n\n${INSTRUCTION}`)}`,
    'providers:',
    '  - echo',
    'defaultTest:',
    '  assert:',
    '    - type: javascript',
    `      value: ${JSON.stringify(check)}`,
    'tests: file://tests.jsonl',
    '',
  ].join('\n'));
  return dir;
}

interface Setup {
  name: string;
  run(round: number): Promise<ProcessFigures>;
}

/**
 * The instant provider as a plugin of `checkout`: a copy beside a node_modules that holds only
 * that checkout as `spade-bench`, so a baseline's run uses its own provider layer (and cache).
 */
function agentFor(checkout: string): string {
  const dir = mkdtempSync(path.join(scratch, 'agent-'));
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(checkout, path.join(dir, 'node_modules', 'spade-bench'), 'dir');
  // The checkout's own copy: it imports the package as that checkout exports it.
  copyFileSync(path.join(checkout, 'perf', 'instant-provider.mjs'), path.join(dir, 'instant-provider.mjs'));
  return path.join(dir, 'instant-provider.mjs');
}

let counter = 0;
/** A spade-bench run from `checkout` (its bin called directly) in a fresh folder; `verdicts` shared when given. */
function spadeRun(checkout: string, verdicts?: string): (round: number) => Promise<ProcessFigures> {
  const agent = agentFor(checkout);
  return async () => {
    const cwd = path.join(scratch, `spade-${++counter}`);
    mkdirSync(cwd);
    writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({
      dataDir: path.dirname(path.dirname(dataset)),
      cacheDir: path.join(cwd, 'responses'),
      // Its own verdict cache: a first run starts with none.
      verdictCacheDir: verdicts ?? path.join(cwd, 'verdicts'),
    }));
    const bin = path.join(checkout, 'dist', 'core', 'cli', 'bin.js');
    const figures = await measureProcess(bin, ['run', '--suites', 'gsm8k', '--attempts', '1', '--environments-in-flight', '16', '--agent', agent, '--out', 'out'], { cwd });
    if (figures.code !== 0) throw new Error(`spade-bench exited with ${figures.code}: ${figures.stderr.slice(-2000)}`);
    const results = JSON.parse(readFileSync(path.join(cwd, 'out', 'results.json'), 'utf8')) as { suites: { metrics: { success: { episodes: number } } }[] };
    if (results.suites[0]!.metrics.success.episodes !== 1319) throw new Error('spade-bench did not play the 1,319 tasks');
    rmSync(path.join(cwd, 'out'), { recursive: true, force: true });
    return figures;
  };
}

const setups: Setup[] = [];
const notes: string[] = [];
const promptfoo = installPromptfoo();
if (promptfoo.entry) {
  const dir = promptfooSetup();
  setups.push({
    name: `promptfoo ${PROMPTFOO_VERSION}`,
    async run() {
      // A fresh config folder (its database and caches): a first run; telemetry and update checks off (no network here).
      const home = mkdtempSync(path.join(scratch, 'promptfoo-home-'));
      const figures = await measureProcess(process.execPath, [promptfoo.entry!, 'eval', '-c', 'promptfooconfig.yaml', '-j', '16'], {
        cwd: dir,
        env: { ...process.env, PROMPTFOO_CONFIG_DIR: home, PROMPTFOO_DISABLE_TELEMETRY: '1', PROMPTFOO_DISABLE_UPDATE: '1', PROMPTFOO_DISABLE_SHARING: '1', NO_COLOR: '1' },
      });
      // promptfoo exits 100 when assertions fail (every echo answer does).
      if (figures.code !== 0 && figures.code !== 100) throw new Error(`promptfoo exited with ${figures.code}: ${figures.stderr.slice(-2000)}`);
      if (!/1,?319 failed|0 passed/.test(figures.stdout + figures.stderr)) throw new Error(`promptfoo did not run the 1,319 tests: ${(figures.stdout + figures.stderr).slice(-800)}`);
      return figures;
    },
  });
} else {
  notes.push(`promptfoo comparison skipped: ${promptfoo.why}`);
}

ensureBuilt(root);
setups.push({ name: 'spade-bench (first run)', run: spadeRun(root) });
const warmVerdicts = path.join(scratch, 'warm-verdicts');
await spadeRun(root, warmVerdicts)(0); // fills the verdict cache of the warm setup
setups.push({ name: 'spade-bench (verdict cache warm)', run: spadeRun(root, warmVerdicts) });
const baseline = process.env.SPADE_BENCH_BASELINE;
if (baseline) {
  if (existsSync(path.join(baseline, 'dist', 'core', 'cli', 'bin.js'))) setups.push({ name: `baseline ${path.basename(baseline)} (first run)`, run: spadeRun(path.resolve(baseline)) });
  else notes.push(`SPADE_BENCH_BASELINE=${baseline}: no dist/core/cli/bin.js there (build it first)`);
}

const measured = new Map<string, ProcessFigures[]>(setups.map((s) => [s.name, []]));
const failures = new Map<string, string>();
const bench = new Bench({ name: 'GSM8K, 1,319 tasks, instant model, whole process', iterations: 1, warmupIterations: 0, time: 0, warmup: false });
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? setups : [...setups].reverse();
  for (const setup of order) {
    bench.add(`${setup.name} #${round + 1}`, async () => {
      try {
        measured.get(setup.name)!.push(await setup.run(round));
      } catch (error) {
        failures.set(setup.name, (error as Error).message);
      }
    });
  }
}
await bench.run();

for (const [name, message] of failures) notes.push(`${name} failed: ${message.slice(0, 500)}`);
const rows = setups.filter((setup) => measured.get(setup.name)!.length > 0).map((setup) => {
  const figures = measured.get(setup.name)!;
  return {
    setup: setup.name,
    'wall s': figure(median(figures.map((f) => f.wallSec))),
    'peak MiB': Math.round(median(figures.map((f) => f.peakMb))),
    'sum of process peaks MiB': Math.round(median(figures.map((f) => f.hwmSumMb))),
    processes: Math.max(...figures.map((f) => f.processes)),
    'wall s (runs)': figures.map((f) => f.wallSec.toFixed(2)).join(' '),
    'peak MiB (runs)': figures.map((f) => f.peakMb.toFixed(0)).join(' '),
  };
});
const yardstick = rows.find((r) => r.setup.startsWith('promptfoo'));
if (yardstick) {
  for (const row of rows.filter((r) => r !== yardstick)) {
    const wall = row['wall s'] / yardstick['wall s'];
    const memory = row['peak MiB'] / yardstick['peak MiB'];
    const first = row.setup.includes('first');
    notes.push(`${row.setup}: wall ${wall.toFixed(2)} x promptfoo's${first ? ` (target <= 0.3: ${wall <= 0.3 ? 'met' : 'NOT met'})` : ''}, peak memory ${memory.toFixed(2)} x${first ? ` (target <= 0.5: ${memory <= 0.5 ? 'met' : 'NOT met'})` : ''}`);
  }
}
publish(import.meta.url, {
  about: `GSM8K's 1,319 test problems with an instant model, whole processes from spawn to exit: promptfoo ${PROMPTFOO_VERSION} (\`eval -j 16\`, its echo provider) against \`spade-bench run --suites gsm8k --attempts 1 --environments-in-flight 16\` (perf/instant-provider.mjs, every task gated and played, results, journal and report written), first run and with the verdict cache warm; medians of ${ROUNDS} alternating runs. Targets for the first run: wall <= 0.3 x promptfoo's, peak memory <= 0.5 x.`,
  tables: [{ caption: bench.name, rows }],
  notes,
});
rmSync(scratch, { recursive: true, force: true });
