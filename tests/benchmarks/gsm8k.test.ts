import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadedEnvironment, Sandbox, SuiteTask } from '../../core/types.js';
import { validateEnvironment } from '../../core/gate/gate.js';
import { RecordError } from '../../benchmarks/jsonl.js';
import { createGsm8kSuite, gsm8kProblem } from '../../benchmarks/gsm8k.js';
import { createIsolatedVmSandbox } from '../../plugins/sandboxes/isolated-vm.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = path.resolve(repoRoot, '../shared/datasets');

let sandbox: Sandbox;
let tasks: SuiteTask[];
const byId = (id: string): SuiteTask => tasks.find((t) => t.program.id === id)!;

test.before(async () => {
  sandbox = createIsolatedVmSandbox();
  tasks = await createGsm8kSuite({ dataDir, offline: true }).tasks({});
});
test.after(() => sandbox.close());

async function reward(task: SuiteTask, reply: string): Promise<number> {
  const env: LoadedEnvironment = await sandbox.load(task.program);
  try {
    await env.reset(task.seed);
    const step = await env.step(reply);
    assert.ok(step.terminated, 'a single-answer episode ends after one reply');
    return step.reward;
  } finally {
    await env.dispose();
  }
}

test('the test split has 1,319 problems, offline from the data folder, with unique ids', () => {
  assert.is(tasks.length, 1319);
  assert.is(new Set(tasks.map((t) => t.program.id)).size, 1319);
  assert.ok(tasks.every((t) => t.program.language === 'javascript' && t.program.meta?.horizon === 1));
});

test('limit keeps the first problems in the frozen order', async () => {
  const first = await createGsm8kSuite({ dataDir, offline: true }).tasks({ limit: 3 });
  assert.equal(first.map((t) => t.program.id), tasks.slice(0, 3).map((t) => t.program.id));
});

test('the observation is the question and asks for the answer in \\boxed{}; the hint is the first worked step', async () => {
  const env = await sandbox.load(tasks[0]!.program);
  const { observation } = await env.reset(0);
  assert.ok(observation.startsWith('Janet\u2019s ducks lay 16 eggs per day.'));
  assert.match(observation, /\\boxed\{\}/);
  assert.is(await env.solution(), '18');
  assert.is(await env.hint(), 'Janet sells 16 - 3 - 4 = 9 duck eggs a day.');
  await env.dispose();
});

test('the answer is read from the last \\boxed{}, else the last number, and must match exactly', async () => {
  const janet = tasks[0]!; // 18
  assert.is(await reward(janet, 'She makes 9 * 2 = \\boxed{18} dollars.'), 1);
  assert.is(await reward(janet, 'She makes 9 * 2 = 18 dollars a day.'), 1);
  assert.is(await reward(janet, 'So $18.00'), 1);
  assert.is(await reward(janet, '\\boxed{$18.0}'), 1);
  assert.is(await reward(janet, '\\boxed{18} after checking 3 times'), 1);
  assert.is(await reward(janet, '\\boxed{17}'), 0);
  assert.is(await reward(janet, 'First 18, then 20.'), 0);
  assert.is(await reward(janet, '\\boxed{180}'), 0);
  assert.is(await reward(janet, 'I do not know.'), 0);
  assert.is(await reward(janet, 'It is 20-2 = 18'), 1, 'a minus inside an expression is not a negative answer');
  assert.is(await reward(janet, '\\boxed{-18}'), 0);
  assert.is(await reward(janet, '\\boxed{18x}'), 0, 'a number glued to a word is not the number');
});

test('thousands separators are tolerated', async () => {
  const house = byId('gsm8k/test/2'); // 70000
  assert.is(await reward(house, '\\boxed{70,000}'), 1);
  assert.is(await reward(house, 'a profit of $70,000.'), 1);
  assert.is(await reward(house, '\\boxed{70}'), 0);
});

test('records without a "#### <number>" answer are bad data', () => {
  assert.equal(gsm8kProblem({ question: 'q?', answer: 'Because 2+2=<<2+2=4>>4\n#### 1,234' }), { question: 'q?', answer: '1234', hint: 'Because 2+2=4' });
  assert.throws(() => gsm8kProblem({ question: 'q?', answer: 'no final answer' }), (e: Error) => e instanceof RecordError && /####/.test(e.message));
  assert.throws(() => gsm8kProblem({ question: 'q?', answer: '#### seven' }), (e: Error) => e instanceof RecordError && /not a number/.test(e.message));
  assert.throws(() => gsm8kProblem({ answer: '#### 7' }), (e: Error) => /missing field "question"/.test(e.message));
});

async function assertValid(task: SuiteTask): Promise<void> {
  const verdict = await validateEnvironment(sandbox, task.program, { seed: task.seed });
  assert.is(verdict.verdict, 'valid', `${task.program.id}: ${JSON.stringify(verdict.checks.at(-1))}`);
}

/** Questions that mention their own answer, or whose answer (1 or 2) random play may guess. */
const CURATED_ONLY = ['gsm8k/test/1025', 'gsm8k/test/183'];

test('problems pass the real validation gate: the reference wins, perturbed numbers lose', async () => {
  for (const task of tasks.filter((t, i) => i % 25 === 0 && !CURATED_ONLY.includes(t.program.id))) await assertValid(task);
});

test('a question that mentions its answer, or has a guessable one, is still valid (meta.curated)', async () => {
  for (const id of CURATED_ONLY) {
    assert.ok(byId(id).program.meta?.curated);
    await assertValid(byId(id));
  }
});

test.run();
