// A job run in a worker thread streams its fresh work as it is done and keeps none of it: the
// conversations reach the run's journal once, and the thread does not hold them until the
// environment's last play ends.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Agent, Sandbox } from '../../../core/types.js';
import { createGsm8kSuite } from '../../../benchmarks/gsm8k.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { runEvaluationJob, toEvaluationJob, type FreshWork } from '../../../core/scale/evaluation-job.js';

const dataDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/datasets');

/** An agent that answers 42 and keeps its conversation, as a model-driven agent does. */
const talker: Agent = {
  id: 'talker',
  label: 'talker',
  kind: 'llm',
  start: () => {
    const messages: { role: 'user' | 'assistant'; content: string }[] = [];
    return {
      act: async (observation) => {
        messages.push({ role: 'user', content: observation }, { role: 'assistant', content: '\\boxed{42}' });
        return { reply: '\\boxed{42}' };
      },
      transcript: () => messages,
    };
  },
};

let sandbox: Sandbox;
test.before(() => {
  sandbox = createIsolatedVmSandbox();
});
test.after(() => sandbox.close());

test('with a listener, fresh episodes are handed on with their conversation and not kept', async () => {
  const [task] = await createGsm8kSuite({ dataDir, offline: true }).tasks({ limit: 1 });
  const sandboxes = { get: async () => sandbox, close: async () => {} };
  const job = toEvaluationJob(task!.program, task!.seed, { suite: 'gsm8k', sandboxes, agent: talker, limits: {}, attempts: 4, withHint: false, runSeed: 1 });
  const handed: FreshWork[] = [];
  const outcome = await runEvaluationJob(job, { sandboxes, agent: talker } as never, { onFresh: (work) => handed.push(work) });
  const episodes = handed.filter((w) => w.type === 'episode');
  assert.is(episodes.length, 4, 'every play was handed on');
  assert.ok(episodes.every((w) => w.type === 'episode' && w.episode.messages?.length === 2), 'each with its conversation');
  assert.equal(outcome.fresh, [], 'nothing kept for the outcome');
  assert.ok(outcome.evaluation.episodes.every((e) => e.messages === undefined), 'the evaluation carries no conversation');
});

test('without a listener (a queue worker), the outcome returns the fresh work in order', async () => {
  const [task] = await createGsm8kSuite({ dataDir, offline: true }).tasks({ limit: 1 });
  const sandboxes = { get: async () => sandbox, close: async () => {} };
  const job = toEvaluationJob(task!.program, task!.seed, { suite: 'gsm8k', sandboxes, agent: talker, limits: {}, attempts: 3, withHint: false, runSeed: 1 });
  const outcome = await runEvaluationJob(job, { sandboxes, agent: talker } as never);
  assert.equal(outcome.fresh.map((w) => w.type), ['verdict', 'episode', 'episode', 'episode']);
  assert.ok(outcome.fresh.every((w) => w.type !== 'episode' || w.episode.messages?.length === 2));
});

test.run();
