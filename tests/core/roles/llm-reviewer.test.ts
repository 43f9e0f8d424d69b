import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWireServer } from '../../helpers/wire-servers.js';
import openai from '../../../plugins/providers/openai.js';
import { createLLMReviewer, reviewDecision } from '../../../core/roles/llm-reviewer.js';
import type { GateVerdict } from '../../../core/results.js';

const program = { id: 'r0-e1', language: 'python' as const, source: 'class ProductEnv: ...' };
const verdict: GateVerdict = { verdict: 'valid', checks: [], firstObservation: 'Compute 12 times 34.', wallMs: 1 };

test('the decision is the last \\boxed{ACCEPT|REJECT}, else the last ACCEPT/REJECT word', () => {
  assert.is(reviewDecision('Looks fine. \\boxed{ACCEPT}'), 'accept');
  assert.is(reviewDecision('I would accept, but the checker is wrong. \\boxed{reject}'), 'reject');
  assert.is(reviewDecision('Verdict: REJECTED'), 'reject');
  assert.is(reviewDecision('No opinion.'), undefined);
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
    const silent = await reviewer.review(program, verdict);
    assert.is(silent.accepted, true);
    assert.match(silent.reason, 'no verdict');
    const failed = await reviewer.review(program, verdict);
    assert.is(failed.accepted, true);
    assert.match(failed.reason, 'review unavailable');
  } finally {
    await server.close();
  }
});

test.run();
