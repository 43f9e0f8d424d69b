import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import { createLLMReviewer, reviewDecision } from '../../../core/roles/llm-reviewer.js';
import type { GateVerdict } from '../../../core/results/results.js';

const program = { id: 'r0-e1', language: 'python' as const, source: 'class ProductEnv: ...' };
const verdict: GateVerdict = { verdict: 'valid', checks: [], firstObservation: 'Compute 12 times 34.', gameType: 'single-turn', wallMs: 1 };

test('the decision is the last \\boxed{ACCEPT|REJECT}, else the last ACCEPT/REJECT word', () => {
  assert.is(reviewDecision('Looks fine. \\boxed{ACCEPT}'), 'accept');
  assert.is(reviewDecision('I would accept, but the checker is wrong. \\boxed{reject}'), 'reject');
  assert.is(reviewDecision('Verdict: REJECTED'), 'reject');
  assert.is(reviewDecision('No opinion.'), undefined);
  // SPADE's own verdict words, for a prompt file written like SPADE's.
  assert.is(reviewDecision('Every criterion is reachable. \\boxed{yes}'), 'accept');
  assert.is(reviewDecision('Step 2 can never complete. \\boxed{no}'), 'reject');
});

test('reviews through the provider: the program and its first observation go out, the verdict comes back', async () => {
  const server = await startWireServer('openai');
  try {
    server.script(
      { kind: 'reply', text: 'The observation gives the product away. \\boxed{REJECT}' },
      { kind: 'reply', text: 'Nothing fatal.' },
      { kind: 'error', status: 400, message: 'bad request' },
    );
    const provider = await openai.create({ model: 'judge', apiKey: 'sk-validator-test-0123456789', baseURL: server.baseURL });
    const reviewer = createLLMReviewer(provider);
    const rejected = await reviewer.review(program, verdict);
    assert.equal(rejected, { accepted: false, reason: 'The observation gives the product away.', by: 'openai:judge' });
    const messages = server.requests[0]!.body.messages as { role: string; content: string }[];
    assert.match(messages[0]!.content, 'unless it has a clear, fatal bug');
    assert.match(messages[1]!.content, 'class ProductEnv');
    assert.match(messages[1]!.content, 'Compute 12 times 34.');
    // SPADE's validator's sampling: temperature 0.3, 16,384 tokens.
    assert.is(server.requests[0]!.body.temperature, 0.3);
    assert.is(server.requests[0]!.body.max_completion_tokens, 16_384);
    const silent = await reviewer.review(program, verdict);
    assert.is(silent.accepted, true);
    assert.match(silent.reason, 'no verdict');
    // A call that fails is no review: it throws (the slot is errored), never accepted unreviewed.
    try {
      await reviewer.review(program, verdict);
      assert.unreachable('a failed review call throws');
    } catch (error) {
      assert.is((error as Error).name, 'ProviderError');
    }
  } finally {
    await server.close();
  }
});

test("a tool-use game gets SPADE's solvability audit: criteria traced to the tools that set them, impossible rejected, hard kept", async () => {
  const server = await startWireServer('openai');
  try {
    server.script(
      { kind: 'reply', text: 'Criterion 2 looks for a tuple in a list of dicts: it can never hold. \\boxed{REJECT}' },
      { kind: 'reply', text: 'Fine. \\boxed{ACCEPT}' },
    );
    const provider = await openai.create({ model: 'judge', apiKey: 'sk-validator-test-0123456789', baseURL: server.baseURL });
    const reviewer = createLLMReviewer(provider);
    const toolGame = { id: 'r0-e2', language: 'python' as const, source: 'class DeskMTEnv(ToolUseBaseEnv): ...' };
    const rejected = await reviewer.review(toolGame, { ...verdict, gameType: 'tool-use', firstObservation: 'Close the oldest ticket.' });
    assert.is(rejected.accepted, false);
    const [system, user] = server.requests[0]!.body.messages as { role: string; content: string }[];
    assert.match(system!.content, 'IMPOSSIBLE');
    assert.match(system!.content, 'merely HARD');
    for (const fact of ['find the tool that produces it', 'Randomness is the most common false rejection', 'Wrong types', 'A tool that cannot succeed', 'A value no one can learn', 'Reject only if most steps are like that', 'Never reject for difficulty']) {
      assert.match(user!.content, fact);
    }
    assert.match(user!.content, 'class DeskMTEnv(ToolUseBaseEnv)');
    assert.match(user!.content, 'Close the oldest ticket.');
    // The game type decides, as in SPADE: a game the gate did not find tool-use gets the general review.
    await reviewer.review(toolGame, { ...verdict, gameType: 'multi-turn' });
    assert.match((server.requests[1]!.body.messages as { content: string }[])[0]!.content, 'unless it has a clear, fatal bug');
  } finally {
    await server.close();
  }
});

test.run();
