import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sandbox, SuiteTask } from '../../core/types.js';
import { validateEnvironment } from '../../core/gate/gate.js';
import { RecordError } from '../../benchmarks/jsonl.js';
import { createHumanEvalSuite, humanEvalProblem } from '../../benchmarks/humaneval.js';
import { createPyodideSandbox } from '../../plugins/sandboxes/pyodide/sandbox.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = path.resolve(repoRoot, '../shared/datasets');
const suite = createHumanEvalSuite({ dataDir, offline: true });

let sandbox: Sandbox;
let tasks: SuiteTask[];
const byId = (id: string): SuiteTask => tasks.find((t) => t.program.id === id)!;

test.before(async () => {
  sandbox = createPyodideSandbox();
  tasks = await suite.tasks({});
});
test.after(() => sandbox.close());

/** Play one reply on a fresh episode: [reward, observation]. */
async function play(task: SuiteTask, ...replies: string[]): Promise<[number, string][]> {
  const env = await sandbox.load(task.program, suite.limits);
  try {
    const out: [number, string][] = [];
    for (const reply of replies) {
      await env.reset(task.seed);
      const step = await env.step(reply);
      assert.ok(step.terminated);
      out.push([step.reward, step.observation]);
    }
    return out;
  } finally {
    await env.dispose();
  }
}

const CLOSE_ELEMENTS_BODY = [
  '    for i, a in enumerate(numbers):',
  '        for j, b in enumerate(numbers):',
  '            if i != j and abs(a - b) < threshold:',
  '                return True',
  '    return False',
].join('\n');

test('the 164 problems load offline as Python programs, with the limits they need', () => {
  assert.is(tasks.length, 164);
  assert.is(new Set(tasks.map((t) => t.program.id)).size, 164);
  assert.ok(tasks.every((t) => t.program.language === 'python'));
  assert.ok((suite.limits?.callTimeoutMs ?? 0) > 1000);
});

test('the observation shows the prompt; solution() is the prompt plus the canonical solution', async () => {
  const task = byId('HumanEval/0');
  const env = await sandbox.load(task.program);
  const { observation } = await env.reset(0);
  assert.ok(observation.includes('def has_close_elements(numbers: List[float], threshold: float) -> bool:'));
  assert.ok(observation.includes('```python'));
  assert.ok((await env.solution()).includes('distance = abs(elem - elem2)'));
  assert.match(await env.hint(), /^The reference solution starts with: for idx, elem/);
  await env.dispose();
});

test('replies are reduced to code: a fenced function, a bare body, or \\boxed{} code', async () => {
  const task = byId('HumanEval/0');
  const fenced = `Here you go:\n\`\`\`python\nfrom typing import List\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n${CLOSE_ELEMENTS_BODY}\n\`\`\`\nDone.`;
  const results = await play(task, fenced, CLOSE_ELEMENTS_BODY, CLOSE_ELEMENTS_BODY.replace(/^ {4}/gm, ''), CLOSE_ELEMENTS_BODY.trimStart(), `\\boxed{${CLOSE_ELEMENTS_BODY}}`);
  assert.equal(results.map(([reward]) => reward), [1, 1, 1, 1, 1], JSON.stringify(results));
  assert.is(results[0]![1], 'All tests passed.');
});

test('wrong code loses: an empty body, pass, a wrong function, a syntax error, prose', async () => {
  const task = byId('HumanEval/0');
  const results = await play(task, '', '```python\npass\n```', '    return True', 'def has_close_elements(numbers, threshold):\n    return (', 'I think you should compare every pair.');
  assert.equal(results.map(([reward]) => reward), [0, 0, 0, 0, 0], JSON.stringify(results));
  assert.match(results[2]![1], /failed a test/);
  assert.match(results[3]![1], /does not parse/);
});

test('an endless loop in the agent\'s code loses within the call limit instead of hanging', async () => {
  const task = byId('HumanEval/0');
  const results = await play(task, '    while True:\n        pass', '    import itertools\n    for _ in itertools.count():\n        try:\n            pass\n        except BaseException:\n            pass');
  assert.equal(results.map(([reward]) => reward), [0, 0]);
  assert.match(results[0]![1], /step budget/);
  assert.match(results[1]![1], /step budget/);
});

test('agent code cannot poison later episodes through the builtins', async () => {
  const task = byId('HumanEval/0');
  const poison = `    __builtins__['abs'] = lambda x: 0\n    __builtins__['len'] = lambda x: 0\n    return False`;
  const results = await play(task, poison, CLOSE_ELEMENTS_BODY);
  assert.equal(results.map(([reward]) => reward), [0, 1]);
});

test('canonical solutions pass the real gate (reference wins, wrong answers and random play lose)', async () => {
  for (const id of ['HumanEval/0', 'HumanEval/10', 'HumanEval/32', 'HumanEval/38', 'HumanEval/163']) {
    const verdict = await validateEnvironment(sandbox, byId(id).program, { seed: byId(id).seed, limits: suite.limits });
    assert.is(verdict.verdict, 'valid', `${id}: ${JSON.stringify(verdict.checks.at(-1))}`);
  }
});

test('records must have the HumanEval fields and a check(candidate)', () => {
  const record = { task_id: 'X/1', prompt: 'def f():\n', canonical_solution: '    return 1\n', test: 'def check(candidate):\n    assert candidate() == 1\n', entry_point: 'f' };
  assert.is(humanEvalProblem(record).entry_point, 'f');
  assert.throws(() => humanEvalProblem({ ...record, test: 'assert True' }), (e: Error) => e instanceof RecordError && /check\(candidate\)/.test(e.message));
  assert.throws(() => humanEvalProblem({ ...record, entry_point: 'f; import os' }), (e: Error) => e instanceof RecordError);
  assert.throws(() => humanEvalProblem({ ...record, prompt: undefined }), (e: Error) => /missing field "prompt"/.test(e.message));
});

test.run();
