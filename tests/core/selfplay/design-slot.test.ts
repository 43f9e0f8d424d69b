// Self-play rounds with an LLM designer behind a local OpenAI-protocol server, Python
// environments gated in the pyodide sandbox: repairs with the gate's reason, a designer that
// never writes a valid environment, the LLM reviewer's review, R-Zero's repetition penalty.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import { llmFixture, oneSlotOptions } from '../../helpers/llm-selfplay.js';
import openai from '../../../plugins/providers/openai.js';
import { createLLMReviewer } from '../../../core/roles/llm-reviewer.js';
import { runSelfPlay, type SelfPlayOptions } from '../../../core/selfplay/selfplay.js';
import { createRegistry, createSandboxSet } from '../../../core/setup/setup.js';
import { DEFAULT_CONFIG } from '../../../core/config/config.js';
import { uncertaintyReward } from '../../../core/selfplay/rewards.js';
import { repetitionPenalties } from '../../../core/selfplay/repetition-penalty.js';
import type { EnvironmentProgram, Provider } from '../../../core/types.js';
import type { JournalRecord } from '../../../core/results/journal.js';
import { PriorWork } from '../../../core/results/resume.js';

const sandboxes = createSandboxSet(createRegistry(), DEFAULT_CONFIG);

let server: WireServer;
let provider: Provider;
test.before.each(async () => {
  server = await startWireServer('openai');
  provider = await openai.create({ model: 'designer-m', apiKey: 'sk-selfplay-test-0123456789', baseURL: server.baseURL });
});
test.after.each(() => server.close());
test.after(() => sandboxes.close());

const options = (extra: Partial<SelfPlayOptions>): SelfPlayOptions => oneSlotOptions(provider, sandboxes, extra);

test('a rejected program is repaired with the gate\'s reason, and the repair is gated, journaled and played', async () => {
  server.script({ kind: 'reply', text: llmFixture('answer-leak') }, { kind: 'reply', text: llmFixture('single-answer') });
  const designed: EnvironmentProgram[][] = [];
  const result = await runSelfPlay(options({ onDesigned: (_, programs) => designed.push(programs) }));
  const [evaluation] = result.evaluations;
  assert.is(result.evaluations.length, 1, 'one slot, one environment');
  assert.is(evaluation!.summary.id, 'r0-e0-fix1');
  assert.is(evaluation!.summary.verdict, 'valid');
  assert.equal(evaluation!.summary.repairs!.map((r) => [r.id, r.reason]), [['r0-e0', 'answer-leak']]);
  assert.is(evaluation!.episodes.length, 2, 'played with and without the hint');
  assert.equal(result.rounds[0]!.proposed, 1);
  assert.equal(result.rounds[0]!.valid, 1);
  assert.match((server.requests[1]!.body.messages as { content: string }[])[1]!.content, 'answer-leak');
  // The repair was journaled with the round's programs, so a resumed run reuses it.
  assert.equal(designed.at(-1)!.map((p) => p.id), ['r0-e0', 'r0-e0-fix1']);
});

test('a designer that never writes a valid environment: the round ends with every slot rejected, with reasons', async () => {
  server.setDefault({ kind: 'reply', text: llmFixture('prose-only') });
  server.script({ kind: 'reply', text: llmFixture('syntax-error') });
  const result = await runSelfPlay(options({ envsPerRound: 2, repairs: 2 }));
  assert.equal(result.rounds[0]!.proposed, 2);
  assert.equal(result.rounds[0]!.valid, 0);
  assert.is(server.requests.length, 2 + 2 * 2, 'two designs, two repairs each');
  for (const e of result.evaluations) {
    assert.is(e.summary.verdict, 'invalid');
    assert.is(e.summary.reason, 'load');
    assert.is(e.summary.repairs!.length, 2);
    assert.match(e.summary.source, '# design failed: no python program');
    assert.is(e.episodes.length, 0);
  }
  assert.ok(result.evaluations.some((e) => e.summary.repairs![0]!.reason === 'syntax'), 'the syntax error is on record');
});

test('the LLM reviewer\'s rejection is recorded apart from the gate and keeps the environment out of play', async () => {
  server.script({ kind: 'reply', text: llmFixture('single-answer') }, { kind: 'reply', text: 'The hint gives it away. \\boxed{REJECT}' });
  const result = await runSelfPlay(options({ reviewer: createLLMReviewer(provider) }));
  const [evaluation] = result.evaluations;
  assert.is(evaluation!.summary.verdict, 'valid', 'the gate\'s verdict stands');
  assert.equal(evaluation!.summary.review, { accepted: false, reason: 'The hint gives it away.', by: 'openai:designer-m' });
  assert.is(evaluation!.episodes.length, 0);
  assert.is(result.rounds[0]!.valid, 0);
});

test('the reviewer\'s review is journaled, and a resumed run takes it from the journal instead of asking again', async () => {
  server.script({ kind: 'reply', text: llmFixture('single-answer') }, { kind: 'reply', text: 'The hint gives it away. \\boxed{REJECT}' });
  const records: JournalRecord[] = [];
  const first = await runSelfPlay(options({
    reviewer: createLLMReviewer(provider),
    onDesigned: (round, programs) => records.push({ type: 'designed', suite: 'spade', round, programs }),
    onReviewed: (program, review) => records.push({ type: 'review', suite: 'spade', id: program.id, review }),
  }));
  assert.equal(records.filter((r) => r.type === 'review').length, 1);
  const asked = server.requests.length;
  // Resumed with that journal: the design and the review come from it; the model would now accept.
  server.setDefault({ kind: 'reply', text: 'Fine. \\boxed{ACCEPT}' });
  const resumed = await runSelfPlay(options({ reviewer: createLLMReviewer(provider), context: { ...options({}).context, prior: new PriorWork(records) } }));
  assert.is(server.requests.length, asked, 'no request on resume');
  assert.equal(resumed.evaluations[0]!.summary.review, first.evaluations[0]!.summary.review);
  assert.is(resumed.evaluations[0]!.episodes.length, 0, 'still kept out of play');
});

test('uncertainty reward: each played environment pays R-Zero\'s repetition penalty for its round', async () => {
  server.script({ kind: 'reply', text: llmFixture('single-answer') }, { kind: 'reply', text: llmFixture('single-answer') });
  const reported: number[] = [];
  const result = await runSelfPlay(options({ envsPerRound: 2, reward: 'uncertainty', onEvaluation: (e) => reported.push(e.summary.repetitionPenalty!) }));
  const tasks = result.evaluations.map((e) => e.summary.task!);
  assert.match(tasks[0]!, /^Compute \d+ times \d+\./);
  // Two tasks 'Compute A times B. Put the result in \boxed{}.' with different numbers: BLEU distance just over 0.5, two clusters of one.
  assert.equal(repetitionPenalties(tasks), [0.5, 0.5]);
  for (const e of result.evaluations) {
    assert.is(e.summary.repetitionPenalty, 0.5);
    assert.is(e.summary.designerReward, uncertaintyReward(e.summary.solveRate!) - 0.5);
  }
  assert.equal(reported, [0.5, 0.5], 'summaries are reported with the penalty applied');
});

test.run();
