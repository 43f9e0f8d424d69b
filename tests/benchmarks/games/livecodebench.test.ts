// LiveCodeBench graded as its official runner grades, in the cpython sandbox's jail: SPADE's
// fixture lcb_3.jsonl (in LiveCodeBench's release format, its private tests pickled) and one
// standard-input problem, each with solutions that are right, wrong, too slow, crashing, printing
// without end or hostile; every verdict and result list equals what the official runner
// (lcb_runner testing_util.run_test at 28fef95, run once with Debian's python3) gave on them
// (tests/fixtures/games/lcb-official.json), except where the jail refuses what the unjailed runner
// allowed (the sample then errors as an escape attempt: a failure either way).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { createCpythonSandbox } from '../../../plugins/sandboxes/cpython/sandbox.js';
import { SandboxError } from '../../../core/errors.js';
import { createLiveCodeBenchSuite, LCB_LIMITS } from '../../../benchmarks/games/livecodebench.js';
import type { RunResults } from '../../../core/results/results.js';
import { runCli, tempDir } from '../../helpers/cli.js';
import { FIXTURES, gamesDataDir, samplingServer } from './games-data.js';

const RELEASE = path.join(FIXTURES, 'lcb-release.jsonl');
const official = JSON.parse(readFileSync(path.join(FIXTURES, 'lcb-official.json'), 'utf8')) as Record<string, { reply: string; results: (boolean | number)[]; passed: boolean; error_code?: number }>;
const jail = checkJail();

test('every solution gets the official runner\'s verdict; the hostile ones are stopped by the jail', async () => {
  if (jail.problem) {
    console.log(`  skipped: ${jail.problem}`);
    return;
  }
  const suite = createLiveCodeBenchSuite(RELEASE, { dataDir: gamesDataDir() });
  const tasks = await suite.tasks({});
  assert.equal(tasks.map((t) => t.program.id), ['livecodebench/p1', 'livecodebench/p2', 'livecodebench/p3', 'livecodebench/p4']);
  // A host file a hostile solution could try to write: it must not appear.
  const marker = path.join(tempDir(), 'escaped');
  const sandbox = createCpythonSandbox({ workers: 2 });
  try {
    const grade = async (id: string, reply: string) => {
      const task = tasks.find((t) => t.program.id === `livecodebench/${id}`)!;
      const env = await sandbox.load(task.program, LCB_LIMITS);
      try {
        await env.reset(task.seed);
        return await env.step(reply);
      } finally {
        await env.dispose();
      }
    };
    const checks = Object.entries(official).map(async ([key, expected]) => {
      const [id] = key.split('/');
      try {
        const step = await grade(id!, expected.reply);
        assert.equal(step.info.results, expected.results, `${key}: results`);
        assert.is(step.reward, expected.passed ? 1 : 0, key);
        if (!expected.passed) assert.is(step.info.error_code, expected.error_code, `${key}: error code`);
      } catch (error) {
        // What the jail refuses (a subprocess, a socket, os.system) fails the call as an escape
        // attempt; the official runner, unjailed, failed these too (runtime error or wrong answer).
        assert.ok(error instanceof SandboxError && error.kind === 'escape-attempt', `${key}: ${(error as Error).message}`);
        assert.ok(key.endsWith('/hostile'), `${key} was refused: ${(error as Error).message}`);
        assert.is(expected.passed, false);
      }
    });
    await Promise.all(checks);
    const writer = await grade('p4', `\`\`\`python\nopen(${JSON.stringify(marker)}, 'w').write('x')\nprint(3)\n\`\`\``).catch((e: SandboxError) => e);
    assert.ok(writer instanceof SandboxError || writer.reward === 0);
    assert.not.ok(existsSync(marker), 'a solution wrote a host file');
  } finally {
    await sandbox.close();
  }
});

test('livecodebench:FILE in a run: SPADE\'s prompt and sampling, pass@1 over the problems', async () => {
  if (jail.problem) return;
  const right: Record<string, string> = { p1: official['p1/right']!.reply, p2: official['p2/tuple']!.reply, p3: official['p3/wrong']!.reply, p4: official['p4/main']!.reply };
  const server = await samplingServer((prompt) => {
    const id = prompt.includes('add(a, b)') ? 'p1' : prompt.includes('square(x)') ? 'p2' : prompt.includes('is_even') ? 'p3' : prompt.startsWith('Read two integers') ? 'p4' : undefined;
    return id ? [[right[id]!, 'stop']] : undefined;
  });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ providers: { vllm: { baseURL: server.baseURL } } }));
  try {
    const r = await runCli(['run', '--out', 'out', '--agent', 'vllm:test-model', '--suites', `livecodebench:${RELEASE}`, '--data-dir', gamesDataDir(), '--python-sandbox', 'cpython'], { cwd });
    assert.is(r.code, 0, r.stderr);
    assert.is(server.requests.length, 4);
    const body = server.requests.find((q) => (q.body.messages as { content: string }[])[0]!.content.includes('add(a, b)'))!.body;
    assert.is(body.temperature, 0.2);
    assert.is(body.top_p, 0.95);
    assert.is(body.max_tokens, 16384);
    assert.ok(!('n' in body), 'one sample: no n');
    const prompt = (body.messages as { content: string }[])[0]!.content;
    assert.match(prompt, /\nStarter code:\n```python\nclass Solution:\n    def add\(self, x0, x1\):/);
    assert.match(prompt, /\nWrite the complete solution in a single ```python ... ``` block\.$/);
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    const scores = results.suites[0]!.scores!;
    assert.is(scores.livecodebench_pass_at_1!.value, 3 / 4);
    assert.is(scores.livecodebench_easy_pass_at_1!.value, 2 / 3);
    assert.is(scores.livecodebench_medium_pass_at_1!.value, 1);
  } finally {
    await server.close();
  }
});

test.run();
