// rlve:FILE and rlve-heldout: RLVE's evaluation files, each prompt as given, each answer scored
// by its environment restored from the metadata; `run --suites rlve:FILE` validates and plays
// every task of the file; the held-out set is downloaded from a local server, checked, cached.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunResults } from '../../../core/results/results.js';
import { DataError } from '../../../core/errors.js';
import { createRlveFileSuite, createRlveHeldoutSuite } from '../../../benchmarks/rlve/file-suite.js';
import { GYM_ARCHIVE, HELDOUT_FILE } from '../../../benchmarks/rlve/gym.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { repoRoot, runCli, tempDir } from '../../helpers/cli.js';
import { startFileServer } from '../file-server.js';
import { readResults } from '../../../core/results/results-file.js';

const dataDir = path.resolve(repoRoot, '../shared/datasets');
const heldout = JSON.parse(readFileSync(path.join(dataDir, 'rlve', 'test.json'), 'utf8')) as { user_prompt: string; metadata: string }[];
const ALL = ['numpy', 'networkx', 'sympy'];

/** Three held-out records (one without a reference answer), and a Multiplication task the reference agent can work out. */
function records(): unknown[] {
  const noReference = heldout.find((r) => !('reference_answer' in JSON.parse(r.metadata).config.parameter))!;
  return [
    heldout[0],
    heldout[1],
    noReference,
    {
      user_prompt: 'What is the result of 17 times 72?',
      metadata: JSON.stringify({ environment: 'Multiplication', config: { seed: 0, parameter: { digit_num: 2, a: 17, b: 72, reference_answer: 1224, prompt_template: 1 }, passing_reward_threshold: 1.0 } }),
    },
  ];
}

test('a file\'s tasks: the prompt as given, the seed and threshold recorded, a solution only where RLVE recorded one', async () => {
  const dir = tempDir('spade-rlve-file-');
  try {
    const file = path.join(dir, 'tasks.json');
    writeFileSync(file, JSON.stringify(records()));
    const suite = createRlveFileSuite(file, { offline: true });
    const tasks = await suite.tasks({ dataDir, pythonPackages: ALL });
    assert.is(tasks.length, 4);
    assert.is(suite.id, `rlve:${file}`);
    const first = tasks[0]!;
    assert.is(first.seed, JSON.parse(heldout[0]!.metadata).config.seed);
    assert.ok(first.program.source.includes(JSON.stringify(heldout[0]!.user_prompt)), 'the prompt is the file\'s');
    assert.match(first.program.source, /def solution\(self\)/);
    assert.not.match(tasks[2]!.program.source, /def solution\(self\)/);
    assert.is(tasks[3]!.program.meta!.family, 'Multiplication');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a malformed record stops with its index, or is skipped and counted with skipBad; an unknown environment is named', async () => {
  const dir = tempDir('spade-rlve-file-');
  try {
    const file = path.join(dir, 'tasks.json');
    writeFileSync(file, JSON.stringify([...records(), { user_prompt: 'x', metadata: '{"environment": "NoSuchThing", "config": {"seed": 1, "parameter": {}}}' }, { metadata: '{}' }]));
    try {
      await createRlveFileSuite(file, { offline: true }).tasks({ dataDir });
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.instance(error, DataError);
      assert.match((error as Error).message, /record 4: RLVE has no environment "NoSuchThing" \(use --skip-bad/);
    }
    const lenient = createRlveFileSuite(file, { offline: true, skipBad: true });
    assert.is((await lenient.tasks({ dataDir })).length, 4);
    assert.is(lenient.skipped, 2);
    assert.match(lenient.firstProblem!, /record 4/);
    writeFileSync(file, '{"not": "an array"}');
    try {
      await createRlveFileSuite(file, { offline: true }).tasks({ dataDir });
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.match((error as Error).message, /expected a JSON array of \{user_prompt, metadata\}/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rlve-heldout: 2,500 tasks of 50 environments, downloaded once, checked against the pinned SHA-256', async () => {
  const cache = tempDir('spade-rlve-cache-');
  const bytes = readFileSync(path.join(dataDir, 'rlve', 'test.json'));
  const server = await startFileServer({ '/test.json': bytes, '/corrupt.json': Buffer.concat([bytes, Buffer.from(' ')]) });
  try {
    mkdirSync(path.join(cache, 'rlve'));
    copyFileSync(path.join(dataDir, 'rlve', GYM_ARCHIVE.fileName), path.join(cache, 'rlve', GYM_ARCHIVE.fileName));
    try {
      await createRlveHeldoutSuite({ url: `${server.url}/corrupt.json`, offline: false }).tasks({ dataDir: cache });
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.match((error as Error).message, new RegExp(`checksum mismatch: expected SHA-256 ${HELDOUT_FILE.sha256}`));
    }
    const suite = createRlveHeldoutSuite({ url: `${server.url}/test.json`, offline: false });
    const tasks = await suite.tasks({ dataDir: cache, pythonPackages: ALL });
    assert.is(tasks.length, 2500);
    assert.is(new Set(tasks.map((t) => t.program.meta!.family)).size, 50);
    assert.equal(server.requests.filter((r) => r === '/test.json'), ['/test.json']);
    assert.is((await createRlveHeldoutSuite({ offline: true }).tasks({ dataDir: cache, limit: 3 })).length, 3);
  } finally {
    await server.close();
    rmSync(cache, { recursive: true, force: true });
  }
});

const jailProblem = checkJail().problem;
if (jailProblem) {
  console.log(`skipped: the cpython sandbox cannot start here: ${jailProblem}`);
  test.skip('run --suites rlve:FILE', () => {});
} else {
  test('run --suites rlve:FILE validates and plays every task of the file', async () => {
    const dir = tempDir('spade-rlve-run-');
    try {
      const file = path.join(dir, 'tasks.json');
      writeFileSync(file, JSON.stringify(records()));
      const out = path.join(dir, 'out');
      const result = await runCli(['run', '--suites', `rlve:${file}`, '--python-sandbox', 'cpython', '--data-dir', dataDir, '--attempts', '2', '--workers', '1', '--out', out]);
      assert.is(result.code, 0, result.stderr);
      const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults;
      const suite = results.suites[0]!;
      assert.is(suite.id, `rlve:${file}`);
      assert.equal(suite.metrics.validity.proposed, 4);
      assert.equal(suite.environments.map((e) => e.verdict), ['valid', 'valid', 'unproven', 'valid']);
      // Every task is played (attempts 2 each), unproven ones too.
      assert.ok(suite.environments.every((e) => e.solveRate !== undefined), JSON.stringify(suite.environments.map((e) => e.solveRate)));
      assert.is(suite.metrics.success.episodes, 8);
      const multiplication = suite.environments.find((e) => e.family === 'Multiplication')!;
      assert.is(multiplication.solveRate, 1);
      assert.match(multiplication.sample!.steps[0]!.action, /\\boxed\{1224\}/);
      // The reference agent cannot play the held-out environments: it says so, and loses.
      assert.is(suite.environments[0]!.solveRate, 0);
      assert.match(suite.environments[0]!.sample!.steps[0]!.action, /cannot read this task/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a task whose scorer accepts more than one answer is played and scored; strict\'s doubt is shown beside it', async () => {
    const dir = tempDir('spade-rlve-doubt-');
    try {
      // Held-out CRT tasks whose scorer accepts 0 beside the recorded answer (every x that meets
      // the congruences), and a task strict has no doubt about.
      const picked = [0, 102, 106, 109, 123];
      assert.ok(picked.slice(1).every((i) => JSON.parse(heldout[i]!.metadata).environment === 'CRT'));
      const file = path.join(dir, 'tasks.json');
      writeFileSync(file, JSON.stringify(picked.map((i) => heldout[i])));
      const out = path.join(dir, 'out');
      const result = await runCli(['run', '--suites', `rlve:${file}`, '--python-sandbox', 'cpython', '--data-dir', dataDir, '--attempts', '1', '--workers', '1', '--no-cache', '--out', out]);
      assert.is(result.code, 0, result.stderr);
      const suite = readResults(out).suites[0]!;
      // Every task is played and in the figure.
      assert.is(suite.environments.length, 5);
      assert.ok(suite.environments.every((e) => e.verdict !== 'invalid' && e.solveRate !== undefined), JSON.stringify(suite.environments.map((e) => [e.verdict, e.reason])));
      assert.is(suite.metrics.success.episodes, 5);
      const doubted = suite.environments.filter((e) => e.checks.some((c) => !c.ok));
      assert.is(doubted.length, 4, 'the four CRT tasks are doubted');
      for (const e of doubted) {
        assert.is(e.family, 'CRT');
        assert.is(e.verdict, 'valid', 'its reference won: the doubt leaves it valid');
        const check = e.checks.find((c) => !c.ok)!;
        assert.is(check.name, 'wrong-answer-loses');
        assert.match(check.detail!, /^doubt \(wrong-answer-wins\): the wrong answer \\boxed\{0\} won/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test.run();
