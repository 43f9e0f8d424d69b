// The package as a user installs it: `npm pack`, the tarball installed into an empty folder,
// then `npx spade-bench run` there, its sandboxes as this checkout's, and a plugin file of that
// folder that imports 'spade-bench'.
// Slow (a build, and an install that fetches the dependencies once into npm's cache); skipped,
// with the reason, where npm cannot install.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, tempDir } from '../../helpers/cli.js';
import type { RunResults } from '../../../core/results/results.js';

const npm = (args: string[], cwd: string, timeoutMs = 20 * 60_000) =>
  spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, npm_config_update_notifier: 'false' } });

const scratch = tempDir('spade-pack-');
const STALE = 'stale-from-an-earlier-build.js';
const project = path.join(scratch, 'project');

/** Packs the repository and installs the tarball into an empty project; the reason it could not, if so. */
function install(): string | undefined {
  // A file an earlier build left in dist/ (one the build no longer makes): packing builds afresh, without it.
  mkdirSync(path.join(repoRoot, 'dist'), { recursive: true });
  writeFileSync(path.join(repoRoot, 'dist', STALE), '// left by an earlier build\n');
  const pack = npm(['pack', '--json', '--pack-destination', scratch], repoRoot);
  if (pack.status !== 0) return `npm pack failed: ${pack.stderr.slice(-500)}`;
  const [{ filename }] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string }[];
  mkdirSync(project, { recursive: true });
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'my-project', version: '1.0.0', private: true, type: 'module' }));
  // The registry is used only for what npm's cache lacks.
  const add = npm(['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(scratch, filename)], project);
  if (add.status !== 0) return `npm could not install the tarball here (${add.error?.message ?? add.stderr.trim().split('\n').slice(-3).join(' ')})`;
  return undefined;
}

const problem = install();
if (problem) console.log(`skipped: ${problem}`);
const installed = problem ? test.skip : test;

const npx = (args: string[]) => spawnSync('npx', ['--no-install', 'spade-bench', ...args], { cwd: project, encoding: 'utf8', timeout: 10 * 60_000 });

installed('in an empty folder, the installed package runs: npx spade-bench run, the offline default', () => {
  const r = npx(['run', '--out', 'first', '--rounds', '1', '--envs-per-round', '3', '--limit', '4', '--attempts', '1']);
  assert.is(r.status, 0, r.stderr);
  const results = JSON.parse(readFileSync(path.join(project, 'first', 'results.json'), 'utf8')) as RunResults;
  assert.equal(results.suites.map((s) => s.id), ['spade', 'procedural']);
  assert.ok(results.suites.every((s) => s.metrics.validity.proposed > 0));
  assert.ok(existsSync(path.join(project, 'first', 'report.html')));
  assert.match(npx(['--version']).stdout, JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version);
});

installed('the package is built from an empty dist/: nothing an earlier build left is shipped', () => {
  assert.not.ok(existsSync(path.join(repoRoot, 'dist', STALE)), 'the build left an earlier file in dist/');
  assert.not.ok(existsSync(path.join(project, 'node_modules', 'spade-bench', 'dist', STALE)), 'the package ships a file of an earlier build');
});

installed('the installed package holds every file its sandboxes read: it runs Python where this checkout does', async () => {
  // The sandbox chosen for Python, as `list` says, from this checkout and from the installed copy:
  // a file the build leaves out (the cpython jail's confine.c, say) makes the copy fall back to pyodide.
  const chosen = (stdout: string): string | undefined => /Python programs run in: (\w+)/.exec(stdout)?.[1];
  const here = await runCli(['list']);
  assert.is(here.code, 0, here.stderr);
  const listed = npx(['list']);
  assert.is(listed.status, 0, listed.stderr);
  assert.ok(chosen(here.stdout), here.stdout);
  assert.is(chosen(listed.stdout), chosen(here.stdout), listed.stdout.split('\n').find((line) => line.includes('Python programs run in')));
});

installed("a plugin file of the project that imports 'spade-bench' loads and runs, with a TypeScript config", () => {
  writeFileSync(path.join(project, 'capitals-suite.mjs'), `
import { definePlugin, defineStaticSuite, answerProgram } from 'spade-bench';

const QUESTIONS = [{ question: 'What is the capital of Peru?', answer: 'Lima' }, { question: 'What is the capital of Chile?', answer: 'Santiago' }];

export default definePlugin({
  kind: 'suite',
  id: 'capitals',
  description: 'Capitals of countries',
  create: () => defineStaticSuite({
    id: 'capitals',
    description: 'Capitals of countries',
    language: 'javascript',
    async load() {
      const tasks = QUESTIONS.map(({ question, answer }, i) => ({
        program: answerProgram({ id: \`capitals/\${i}\`, question, answer, checker: 'exact', family: 'capitals', origin: \`capitals#\${i}\` }),
        seed: i,
      }));
      return { tasks, skipped: 0 };
    },
  }),
});
`);
  writeFileSync(path.join(project, 'spade.config.ts'), `import { defineConfig } from 'spade-bench';\nexport default defineConfig({ plugins: ['./capitals-suite.mjs'], suites: ['capitals'], attempts: 1 });\n`);
  const listed = npx(['list']);
  assert.is(listed.status, 0, listed.stderr);
  assert.match(listed.stdout, /capitals\s+Capitals of countries \(loaded plugin\)/);
  const r = npx(['run', '--out', 'capitals']);
  assert.is(r.status, 0, r.stderr);
  const results = JSON.parse(readFileSync(path.join(project, 'capitals', 'results.json'), 'utf8')) as RunResults;
  assert.equal(results.suites.map((s) => [s.id, s.metrics.validity.proposed]), [['capitals', 2]]);
});

test.run();
