// Where a plugin's answers enter the harness: replies checked and completed, throws named.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkedProvider, fromPlugin } from '../../../core/setup/plugin-contract.js';
import { PluginContractError, UsageError } from '../../../core/errors.js';

const request = { messages: [{ role: 'user' as const, content: 'hi' }] };

test('a reply without usage counts no tokens; a malformed usage is a contract error', async () => {
  const bare = checkedProvider('bare', { id: 'bare:m', model: 'm', chat: async () => ({ text: 'hello' }) });
  const reply = await bare.chat(request);
  assert.equal(reply.usage, { inputTokens: 0, outputTokens: 0 });
  assert.is(reply.text, 'hello');
  const wrong = checkedProvider('wrong', { id: 'wrong:m', model: 'm', chat: async () => ({ text: 'x', usage: { inputTokens: -1, outputTokens: 0 } }) });
  try {
    await wrong.chat(request);
    assert.unreachable('no contract error');
  } catch (error) {
    assert.instance(error, PluginContractError);
    assert.match((error as Error).message, 'plugin "wrong": chat() returned usage.inputTokens must be a number of tokens, got number');
  }
});

test("a plugin's method that throws is a usage error naming it; a usage error of its own passes as it is", async () => {
  try {
    await fromPlugin('p', 'create()', () => {
      throw new RangeError('no such region');
    });
    assert.unreachable('no error');
  } catch (error) {
    assert.instance(error, UsageError);
    assert.match((error as Error).message, /^plugin "p": create\(\) threw RangeError: no such region \(at .*plugin-contract\.test\.ts:\d+:\d+\)$/);
  }
  const own = new UsageError('data.jsonl:3: missing field "answer"');
  try {
    await fromPlugin('p', 'tasks()', async () => {
      throw own;
    });
    assert.unreachable('no error');
  } catch (error) {
    assert.is(error, own);
  }
  assert.is(await fromPlugin('p', 'create()', () => 42), 42);
});

test.run();
