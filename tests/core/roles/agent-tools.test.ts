/**
 * How an LLM agent turns a model's reply in a tool-use game into the environment's action, and
 * how the observation goes back: native calls answered by tool results (every call of a reply
 * gets one), the text protocol read as SPADE's orchestrator reads it, an <answer> read first,
 * SPADE's [FORMAT] feedback after a call that cannot be read; and memory windows that cut a
 * tool-use conversation into turns the vendors' APIs still accept.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FORMAT_FEEDBACK, NOT_RUN_ANSWERED, NOT_RUN_EXTRA_CALL, ONE_CALL_NOTE, readToolTurn, toolUseSystemPrompt } from '../../../core/roles/agent-tools.js';
import { OMITTED_TURNS, rememberedHistory } from '../../../core/roles/agent-memory.js';
import { readToolAction } from '../../../core/run/tool-calls.js';
import { chatCompletionBody } from '../../../plugins/providers/openai.js';
import { messagesBody } from '../../../plugins/providers/anthropic.js';
import { wireRequestProblem } from '../../helpers/wire-servers.js';
import type { ChatMessage, ToolCall, ToolDefinition } from '../../../core/types.js';

const call = (id: string, name: string, args: Record<string, unknown> = {}): ToolCall => ({ id, name, arguments: args });

test('a native call is the action; its result carries the observation, and every other call of the reply is answered "not run"', () => {
  const turn = readToolTurn('Let me look.', [call('c1', 'get_stock', { item: 'bolts' }), call('c2', 'list_warehouses')]);
  assert.is(turn.action, '<tool_call>{"name":"get_stock","arguments":{"item":"bolts"}}</tool_call>');
  assert.equal(turn.observe('Tool result:\n7'), [
    { role: 'tool', toolCallId: 'c1', name: 'get_stock', content: 'Tool result:\n7' },
    { role: 'tool', toolCallId: 'c2', name: 'list_warehouses', content: NOT_RUN_EXTRA_CALL },
  ]);
});

test('an <answer> in the text is read first: the reply goes as it is, its calls are answered "not run", the observation follows as text', () => {
  const turn = readToolTurn('Done: <answer>42</answer>', [call('c1', 'get_stock')]);
  assert.is(turn.action, 'Done: <answer>42</answer>');
  assert.equal(readToolAction(turn.action), { kind: 'answer', answer: '42' });
  assert.equal(turn.observe('Incorrect. Keep using tools.'), [
    { role: 'tool', toolCallId: 'c1', name: 'get_stock', content: NOT_RUN_ANSWERED },
    { role: 'user', content: 'Incorrect. Keep using tools.' },
  ]);
});

test('native arguments that are not a JSON object reach the environment as a malformed call, and the result adds the [FORMAT] feedback', () => {
  const turn = readToolTurn('', [{ ...call('c1', 'get_stock'), invalidArguments: '{"item": "bolts",' }]);
  assert.equal(readToolAction(turn.action).kind, 'malformed');
  assert.equal(turn.observe('Format error.'), [{ role: 'tool', toolCallId: 'c1', name: 'get_stock', content: `Format error.\n\n${FORMAT_FEEDBACK}` }]);
  assert.match(FORMAT_FEEDBACK, /^\[FORMAT\] /);
});

test('the text protocol: JSON and XML calls become the JSON call the environment reads; only the first runs, and the next observation says so', () => {
  const json = readToolTurn('<tool_call>{"name": "get_stock", "parameters": {"item": "bolts"}}</tool_call>');
  assert.is(json.action, '<tool_call>{"name":"get_stock","arguments":{"item":"bolts"}}</tool_call>');
  assert.equal(json.observe('Tool result:\n7'), [{ role: 'user', content: 'Tool result:\n7' }]);
  const xml = readToolTurn('<tool_call>\n<function=transfer>\n<parameter=amount>\n12.5\n</parameter>\n<parameter=note>\nrent &amp; fees\n</parameter>\n</function>\n</tool_call>\n<tool_call>{"name": "balance", "arguments": {}}</tool_call>');
  assert.is(xml.action, '<tool_call>{"name":"transfer","arguments":{"amount":12.5,"note":"rent & fees"}}</tool_call>');
  assert.equal(xml.observe('Tool result:\nok'), [{ role: 'user', content: `Tool result:\nok\n\n${ONE_CALL_NOTE}` }]);
});

test('a reply with neither tag goes as it is; one whose <tool_call> cannot be read gets the [FORMAT] feedback', () => {
  const none = readToolTurn('I think so.');
  assert.is(none.action, 'I think so.');
  assert.equal(none.observe('Format error: ...'), [{ role: 'user', content: 'Format error: ...' }]);
  const bad = readToolTurn('<tool_call>get_stock(item="bolts")</tool_call>');
  assert.is(bad.action, '<tool_call>get_stock(item="bolts")</tool_call>');
  assert.equal(bad.observe('Format error: ...'), [{ role: 'user', content: `Format error: ...\n\n${FORMAT_FEEDBACK}` }]);
});

test('the system prompt of a tool-use game: one call per turn, the <answer>, the horizon; the text protocol lists the tools', () => {
  const tools: ToolDefinition[] = [{ name: 'get_stock', description: 'Units held.', parameters: { type: 'object', properties: { item: { type: 'string' } } } }];
  const native = toolUseSystemPrompt({ horizon: 10, tools }, true);
  assert.match(native, 'one tool per turn');
  assert.match(native, '<answer>done</answer>');
  assert.match(native, 'at most 10 turns');
  assert.not.match(native, 'get_stock');
  const text = toolUseSystemPrompt({ horizon: 10, tools }, false);
  assert.match(text, '{"type":"function","function":{"name":"get_stock","description":"Units held."');
  assert.match(text, '<tool_call>{"name": "<tool_name>"');
});

/** A tool-use conversation of `turns` turns: each reply calls two tools natively; results answer both. */
function conversation(turns: number): ChatMessage[] {
  const history: ChatMessage[] = [{ role: 'user', content: 'Task.' }];
  for (let t = 1; t <= turns; t++) {
    const calls = [call(`a${t}`, 'get_stock', { n: t }), call(`b${t}`, 'list_warehouses')];
    history.push({ role: 'assistant', content: '', toolCalls: calls });
    history.push(...readToolTurn('', calls).observe(`Tool result:\n${t}`));
  }
  return history;
}

test('memory windows cut a tool-use conversation between turns, into requests both APIs accept', () => {
  const history = conversation(6);
  for (const memory of [{ kind: 'window', turns: 2 }, { kind: 'summary', turns: 1 }, { kind: 'window', turns: 0 }] as const) {
    const sent = rememberedHistory(history, memory);
    assert.ok(sent.length < history.length, `${memory.kind}:${memory.turns} leaves turns out`);
    assert.equal(sent[0], { role: 'user', content: 'Task.' });
    // The latest results stay tool results while their reply is kept; with no exchange kept, they go as text.
    assert.is(sent.at(-2)!.role, memory.turns > 0 ? 'tool' : 'user');
    const request = { messages: sent, tools: [{ name: 'get_stock', description: '', parameters: { type: 'object' } }, { name: 'list_warehouses', description: '', parameters: { type: 'object' } }] };
    assert.is(wireRequestProblem('openai', chatCompletionBody('m', request, {}, 'max_tokens')), undefined, `${memory.kind}: ${JSON.stringify(sent)}`);
    assert.is(wireRequestProblem('anthropic', messagesBody('m', request, {})), undefined, `${memory.kind}: ${JSON.stringify(sent)}`);
  }
  // The window keeps 2 whole exchanges; the results of the first kept reply's predecessor went as text.
  const windowed = rememberedHistory(history, { kind: 'window', turns: 2 });
  assert.is(windowed[1]!.content, OMITTED_TURNS);
  assert.equal(windowed.slice(2, 4).map((m) => m.role), ['user', 'user']);
  const summary = rememberedHistory(history, { kind: 'summary', turns: 1 })[1]!.content;
  assert.match(summary, 'Turn 1: called get_stock({"n":1}) -> Tool result: 1');
});

test.run();
