// The package entry: `import { run } from 'spade-bench'` runs the offline default from a
// script, as the README shows; the entry exports what a user needs and the subpath exports the
// rest, each documented; bad config is a UsageError.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { repoRoot, tempDir } from './helpers/cli.js';
import * as entry from '../index.js';
import { run, UsageError, RunStoppedError, type RunResults } from '../index.js';
import { readResults } from '../api/results.js';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

let packageDir: string | undefined;

/** The package as npm installs it (package.json, README.md, dist/), built from these sources into a folder of its own (once). */
function buildPackage(): string {
  if (packageDir) return packageDir;
  const pkg = tempDir('spade-package-');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', path.join(repoRoot, 'tsconfig.build.json'), '--outDir', path.join(pkg, 'dist')], { encoding: 'utf8' });
  assert.is(built.status, 0, built.stdout + built.stderr);
  // The sandboxes' own files, as the build script copies them: every .py and .c under plugins/.
  cpSync(path.join(repoRoot, 'plugins'), path.join(pkg, 'dist/plugins'), { recursive: true, filter: (f) => statSync(f).isDirectory() || /\.(py|c)$/.test(f) });
  for (const file of ['package.json', 'README.md']) copyFileSync(path.join(repoRoot, file), path.join(pkg, file));
  // Its dependencies, as installed beside it.
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
  return (packageDir = pkg);
}

/** A folder of a user who installed the package. */
function userWithPackage(): string {
  const user = tempDir('spade-user-');
  mkdirSync(path.join(user, 'node_modules'));
  symlinkSync(buildPackage(), path.join(user, 'node_modules', 'spade-bench'), 'dir');
  return user;
}

test("the README's script: import { run } from 'spade-bench' runs the offline default", async () => {
  const script = /```js\n(\/\/ run\.mjs[\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(script?.includes("import { run } from 'spade-bench'"), 'the README shows a script that imports run');
  const user = userWithPackage();
  writeFileSync(path.join(user, 'run.mjs'), script!);
  const child = spawn(process.execPath, ['--no-node-snapshot', 'run.mjs'], { cwd: user, env: { ...process.env, FORCE_COLOR: '0' } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(code, 0, out);
  const dir = path.join(user, 'runs/from-script');
  for (const file of ['results.json', 'report.html', 'journal.jsonl']) assert.ok(existsSync(path.join(dir, file)), `${file} written`);
  const results = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunResults;
  assert.is(results.run.complete, true);
  assert.equal(results.suites.map((s) => s.id), ['spade', 'procedural']);
  assert.equal(results.run.config.selfplay, { rounds: 3, envsPerRound: 16, reward: 'spade' }, 'the offline default');
  assert.is(results.run.config.attempts, 4);
  for (const s of results.suites) assert.match(out, `${s.id}: ${s.metrics.validity.valid}/${s.metrics.validity.proposed} valid, success ${s.metrics.success.successRate!.toFixed(2)}`);
});

test('run() from code: a small run resolves with its results; its files are those of the command line', async () => {
  const out = path.join(tempDir(), 'small');
  const events: string[] = [];
  const results = await run(
    { out, seed: 4, suites: ['spade', 'procedural'], limit: 5, attempts: 1, selfplay: { rounds: 1, envsPerRound: 3 } },
    { workers: 1, onProgress: (e) => events.push(e.type), onStart: (s) => events.push(`start:${s.evaluatedBy}`) },
  );
  assert.equal(results.suites.map((s) => [s.id, s.metrics.validity.proposed]), [['spade', 3], ['procedural', 5]]);
  assert.equal(readResults(out), JSON.parse(JSON.stringify(results)));
  assert.ok(existsSync(path.join(out, 'report.html')));
  assert.is(events[0], 'start:1 worker thread');
  assert.ok(events.includes('suite-end'));
});

test('run() refuses a wrong config before writing anything, naming the key path', async () => {
  const cwd = tempDir();
  const error = await run({ out: 'x', selfplay: { rounds: 'many' as never } }, { cwd }).then(() => undefined, (e: Error) => e);
  assert.instance(error, UsageError);
  assert.is(error!.message, 'run(): selfplay.rounds: expected a positive integer, got "many"');
  const unknown = await run({ out: 'x', agent: 'nosuchvendor:model' }, { cwd }).then(() => undefined, (e: Error) => e);
  assert.instance(unknown, UsageError);
  assert.not.ok(existsSync(path.join(cwd, 'x')), 'nothing written');
  assert.ok(RunStoppedError.prototype instanceof Error);
});

test('the entry exports what a user needs: running, config, plugins, the errors (and types)', () => {
  assert.equal(Object.keys(entry).sort(), [
    'DataError', 'EXIT', 'PluginContractError', 'RunFailedError', 'RunStoppedError', 'SandboxError', 'UsageError',
    'answerProgram', 'defineConfig', 'definePlugin', 'defineStaticSuite', 'loadConfig', 'run',
  ]);
});

/** The subpath exports package.json declares, by name (`providers` for `spade-bench/providers`). */
const subpaths = (): string[] => {
  const { exports } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  return Object.keys(exports).filter((key) => key !== '.' && key !== './package.json').map((key) => key.slice(2));
};

test('each subpath export is a file of api/, and each file of api/ is a subpath export', () => {
  assert.equal(subpaths().sort(), readdirSync(path.join(repoRoot, 'api')).map((f) => f.replace(/\.ts$/, '')).sort());
});

test('the installed package resolves every subpath export, with its types', () => {
  const user = userWithPackage();
  const script = `const out = {}; for (const name of ${JSON.stringify(subpaths())}) out[name] = Object.keys(await import('spade-bench/' + name)); console.log(JSON.stringify(out));`;
  const child = spawnSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], { cwd: user, encoding: 'utf8' });
  assert.is(child.status, 0, child.stderr);
  const exported = JSON.parse(child.stdout) as Record<string, string[]>;
  const samples: Record<string, string> = { providers: 'withProviderLayer', environments: 'toStepResult', selfplay: 'spadeDesignerReward', metrics: 'vendiScore', results: 'readResults', config: 'resolveConfig' };
  assert.equal(Object.keys(exported).sort(), Object.keys(samples).sort());
  for (const [name, sample] of Object.entries(samples)) {
    assert.ok(exported[name]!.includes(sample), `spade-bench/${name} exports ${sample}`);
    assert.ok(existsSync(path.join(buildPackage(), 'dist', 'api', `${name}.d.ts`)), `spade-bench/${name} has its types`);
  }
});

test('every export of the package entry and of its subpath exports is documented', () => {
  for (const file of ['index.ts', ...readdirSync(path.join(repoRoot, 'api')).map((f) => `api/${f}`)]) {
    const lines = readFileSync(path.join(repoRoot, file), 'utf8').split('\n');
    const undocumented = lines.filter((line, i) => line.startsWith('export') && !/^\s*(\*\/|\/\/)/.test(lines[i - 1] ?? '') && !lines[i - 1]?.trim().endsWith('*/'));
    assert.equal(undocumented, [], file);
  }
});

test.run();
