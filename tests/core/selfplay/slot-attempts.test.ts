// SPADE's resampling of a design slot: a slot whose program the gate or the LLM reviewer rejects
// is designed afresh (a new sample of the same request), up to `slotAttempts` designs, each with
// its repairs; the slot's rejected programs are on record, and validity is given per slot, at
// the first try and per program. An LLM designer behind a local OpenAI-protocol server, Python
// environments gated in the pyodide sandbox.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import { llmFixture, oneSlotOptions } from '../../helpers/llm-selfplay.js';
import openai from '../../../plugins/providers/openai.js';
import { createLLMDesigner } from '../../../core/roles/llm-designer.js';
import { createLLMReviewer } from '../../../core/roles/llm-reviewer.js';
import { runSelfPlay, type SelfPlayOptions } from '../../../core/selfplay/selfplay.js';
import { createRegistry, createSandboxSet } from '../../../core/setup/setup.js';
import { DEFAULT_CONFIG } from '../../../core/config/config.js';
import { slotAttempts, slotRepairs, SPADE_SLOT_ATTEMPTS } from '../../../core/config/options.js';
import { computeMetrics, headlineOf, METRICS } from '../../../core/metrics/table.js';
import type { EnvironmentProgram, Provider } from '../../../core/types.js';
import type { JournalRecord } from '../../../core/results/journal.js';
import { PriorWork } from '../../../core/results/resume.js';

const sandboxes = createSandboxSet(createRegistry(), DEFAULT_CONFIG);

let server: WireServer;
let provider: Provider;
test.before.each(async () => {
  server = await startWireServer('openai');
  provider = await openai.create({ model: 'designer-m', apiKey: 'sk-slots-test-0123456789', baseURL: server.baseURL });
});
test.after.each(() => server.close());
test.after(() => sandboxes.close());

const options = (extra: Partial<SelfPlayOptions>): SelfPlayOptions => oneSlotOptions(provider, sandboxes, { repairs: 0, ...extra });

const validityOf = (result: Awaited<ReturnType<typeof runSelfPlay>>) =>
  computeMetrics({
    kind: 'selfplay',
    environments: result.evaluations.map((e) => ({ program: e.program, verdict: e.verdict, episodes: e.episodes, summary: e.summary })),
    wallSec: 1,
    usage: { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, cachedCalls: 0 },
    providerCallMs: [],
  }).validity;

test('the number of designs a slot may take: 1 by default, 5 under SPADE\'s designer protocol, the option when set', () => {
  assert.is(slotAttempts({ selfplay: {} }), 1);
  assert.is(slotAttempts({ designerProtocol: 'spade', selfplay: {} }), SPADE_SLOT_ATTEMPTS);
  assert.is(SPADE_SLOT_ATTEMPTS, 5);
  assert.is(slotAttempts({ designerProtocol: 'spade', selfplay: { slotAttempts: 2 } }), 2);
  assert.is(DEFAULT_CONFIG.selfplay.slotAttempts, undefined, 'unset unless given: the protocol decides');
});

test('repairs: 1 by default, none under SPADE\'s designer protocol (it designs the slot again), the option when set', () => {
  assert.is(slotRepairs({ selfplay: {} }), 1);
  assert.is(slotRepairs({ designerProtocol: 'spade', selfplay: {} }), 0);
  assert.is(slotRepairs({ designerProtocol: 'spade', selfplay: { repairs: 2 } }), 2);
  assert.is(DEFAULT_CONFIG.selfplay.repairs, undefined, 'unset unless given');
});

test('a rejected slot is designed afresh until a design passes: each a new sample, all on record, validity per slot, first try and per program', async () => {
  server.script({ kind: 'reply', text: llmFixture('answer-leak') }, { kind: 'reply', text: llmFixture('syntax-error') }, { kind: 'reply', text: llmFixture('single-answer') });
  const designed: EnvironmentProgram[][] = [];
  const result = await runSelfPlay(options({ slotAttempts: 5, onDesigned: (_, programs) => designed.push(programs) }));
  assert.is(server.requests.length, 3, 'three designs, no more once one passed');
  const seeds = server.requests.map((r) => r.body.seed);
  assert.is(new Set(seeds).size, 3, 'each design is a sample of its own (its own seed, its own cache entry)');
  // The same request each time: the same prompt for the slot.
  assert.equal(server.requests[1]!.body.messages, server.requests[0]!.body.messages);
  const [evaluation] = result.evaluations;
  assert.is(result.evaluations.length, 1, 'one slot, one environment');
  assert.is(evaluation!.summary.id, 'r0-e0-s3');
  assert.is(evaluation!.summary.verdict, 'valid');
  assert.equal(evaluation!.summary.repairs!.map((r) => [r.id, r.reason, r.resampled]), [['r0-e0', 'answer-leak', true], ['r0-e0-s2', 'syntax', true]]);
  assert.is(evaluation!.episodes.length, 2, 'the passing design is played, with and without the hint');
  assert.equal(designed.at(-1)!.map((p) => p.id), ['r0-e0', 'r0-e0-s2', 'r0-e0-s3'], 'fresh designs are journaled with the round');
  const validity = validityOf(result);
  assert.equal(validity.perSlot, { slots: 1, valid: 1, rate: 1, interval: validity.perSlot!.interval });
  assert.equal(validity.firstTry, { proposed: 1, valid: 0, rate: 0 });
  assert.equal([validity.perProgram!.valid, validity.perProgram!.programs], [1, 3]);
  const beside = headlineOf(METRICS.find((m) => m.key === 'validity')!, { validity } as never)!.beside!;
  assert.equal(beside.map((b) => [b.label, b.figure.counts]), [['first try', [0, 1]], ['per slot', [1, 1]], ['per program', [1, 3]]]);
});

test('a slot that never passes stops at its last design, with every earlier one on record; each design gets its repairs first', async () => {
  server.setDefault({ kind: 'reply', text: llmFixture('syntax-error') });
  const result = await runSelfPlay(options({ slotAttempts: 2, repairs: 1 }));
  assert.is(server.requests.length, 4, 'two designs, one repair each');
  const [evaluation] = result.evaluations;
  assert.is(evaluation!.summary.verdict, 'invalid');
  assert.equal(evaluation!.summary.repairs!.map((r) => [r.id, r.resampled === true]), [['r0-e0', false], ['r0-e0-fix1', true], ['r0-e0-s2', false]]);
  assert.is(evaluation!.summary.id, 'r0-e0-fix3', 'the last repair is the slot\'s final program');
  const validity = validityOf(result);
  assert.equal([validity.perSlot!.valid, validity.perSlot!.slots, validity.perProgram!.programs], [0, 1, 4]);
});

test('the LLM reviewer\'s rejection samples the slot again, as SPADE\'s validator does, and counts in its rejection rate', async () => {
  server.script(
    { kind: 'reply', text: llmFixture('single-answer') },
    { kind: 'reply', text: 'The task cannot be won. \\boxed{REJECT}' },
    { kind: 'reply', text: llmFixture('single-answer') },
    { kind: 'reply', text: 'Fine. \\boxed{ACCEPT}' },
    // Round 1: accepted at the first design.
    { kind: 'reply', text: llmFixture('single-answer') },
    { kind: 'reply', text: 'Fine. \\boxed{ACCEPT}' },
  );
  const result = await runSelfPlay(options({ rounds: 2, slotAttempts: 3, reviewer: createLLMReviewer(provider) }));
  const [evaluation] = result.evaluations;
  assert.is(evaluation!.summary.id, 'r0-e0-s2');
  assert.equal(evaluation!.summary.repairs, [{ id: 'r0-e0', reason: 'review', detail: 'The task cannot be won.', resampled: true }]);
  assert.is(evaluation!.summary.review!.accepted, true);
  assert.is(evaluation!.episodes.length, 2, 'played');
  const validity = validityOf(result);
  assert.equal([validity.firstTry!.valid, validity.perSlot!.valid, validity.perProgram!.valid, validity.perProgram!.programs], [1, 2, 2, 3]);
  // The validator's rejection rate: each round's final reviews (none rejected), and SPADE's count
  // from the run's start (round 0: 1 rejection of 2 checks; after round 1: 1 of 3).
  assert.equal(result.rounds.map((r) => r.log!.figures.validatorRejectionRate), [0, 0]);
  assert.equal(result.rounds.map((r) => r.log!.figures.validatorRejectionRateRun), [1 / 2, 1 / 3]);
});

test('a resumed run takes the slot\'s fresh designs from the journal instead of asking again', async () => {
  server.script({ kind: 'reply', text: llmFixture('answer-leak') }, { kind: 'reply', text: llmFixture('single-answer') });
  const records: JournalRecord[] = [];
  const first = await runSelfPlay(options({ slotAttempts: 3, onDesigned: (round, programs) => records.push({ type: 'designed', suite: 'spade', round, programs }) }));
  const asked = server.requests.length;
  server.setDefault({ kind: 'reply', text: llmFixture('prose-only') });
  const resumed = await runSelfPlay(options({ slotAttempts: 3, context: { ...options({}).context, prior: new PriorWork(records) } }));
  assert.is(server.requests.length, asked, 'no design request on resume');
  assert.is(resumed.evaluations[0]!.summary.id, first.evaluations[0]!.summary.id);
  assert.equal(resumed.evaluations[0]!.summary.repairs, first.evaluations[0]!.summary.repairs);
});

test('a fresh design whose call fails makes the slot errored, not invalid', async () => {
  server.script({ kind: 'reply', text: llmFixture('answer-leak') }, { kind: 'error', status: 400, message: 'bad request' });
  const errored: string[] = [];
  const result = await runSelfPlay(options({ slotAttempts: 3, onErrored: (e) => errored.push(`${e.id} ${e.stage}`) }));
  assert.is(result.evaluations.length, 0);
  assert.equal(errored, ['r0-e0 design']);
  assert.is(result.rounds[0]!.errored, 1);
});

/** The single-answer fixture with an f-string field that is not an expression (a syntax error SPADE's brace repair fixes), then a second block. */
const bracesReply = (): string => {
  const broken = llmFixture('single-answer').replace('return f"Split it: ', 'return f"{first step} Split it: ');
  return `${broken}\n\nA helper, for completeness:\n\n\`\`\`python\ndef helper():\n    return 1\n\`\`\`\n`;
};

test('under SPADE\'s gate: the first python block, repaired by the Python sandbox, is the program gated and played', async () => {
  assert.match(bracesReply(), 'return f"{first step} Split it: ');
  server.setDefault({ kind: 'reply', text: bracesReply() });
  const designer = createLLMDesigner(provider, { requestsInFlight: 1, extraction: 'spade' });
  const repaired = await runSelfPlay(options({ designer, repairBraces: true, context: { ...options({}).context, gate: 'spade' } }));
  const [evaluation] = repaired.evaluations;
  assert.is(evaluation!.summary.verdict, 'valid');
  assert.match(evaluation!.program.source, 'return f"{{first step}} Split it: {self.a} x');
  assert.not.match(evaluation!.program.source, 'def helper', 'the first block, not the last');
  assert.is(evaluation!.program.meta?.params?.bracesRepaired, true);
  assert.is(evaluation!.episodes.length, 2);
  // Without the repair the same code is a syntax error.
  const unrepaired = await runSelfPlay(options({ designer, context: { ...options({}).context, gate: 'spade' } }));
  assert.is(unrepaired.evaluations[0]!.summary.verdict, 'invalid');
  assert.is(unrepaired.evaluations[0]!.summary.reason, 'syntax');
});

test.run();
