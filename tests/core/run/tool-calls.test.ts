/** SPADE's text protocol of tool-use games, read the way ToolUseBaseEnv's step() reads it. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { answerText, countToolCalls, readToolAction, readToolCallsInText, toolCallText, toolDefinitionsOf } from '../../../core/run/tool-calls.js';

test('an <answer> wins over a <tool_call>; only the first of each is read', () => {
  assert.equal(readToolAction('<tool_call>{"name": "a", "arguments": {}}</tool_call> <answer> 42 </answer><answer>7</answer>'), { kind: 'answer', answer: '42' });
  assert.equal(readToolAction('x <tool_call>{"name": "a", "arguments": {"k": 1}}</tool_call><tool_call>{"name": "b"}</tool_call>'), { kind: 'tool-call', name: 'a', arguments: { k: 1 } });
  assert.equal(readToolAction('<answer>multi\nline</answer>'), { kind: 'answer', answer: 'multi\nline' });
});

test('a call that is not a JSON object is malformed; arguments that are not an object become {}', () => {
  assert.equal(readToolAction('<tool_call>{"name": </tool_call>'), { kind: 'malformed', content: '{"name": ' });
  assert.equal(readToolAction('<tool_call>null</tool_call>').kind, 'malformed');
  assert.equal(readToolAction('<tool_call>["a"]</tool_call>').kind, 'malformed');
  assert.equal(readToolAction('<tool_call>{"name": "a", "arguments": [1]}</tool_call>'), { kind: 'tool-call', name: 'a', arguments: {} });
  assert.equal(readToolAction('<tool_call>{"arguments": {}}</tool_call>'), { kind: 'tool-call', name: '', arguments: {} });
  assert.equal(readToolAction('\\boxed{3}'), { kind: 'none' });
  assert.equal(readToolAction('<tool_call>{"name": "a"}'), { kind: 'none' }, 'an unclosed tag is no call');
});

test('written actions read back; tool calls are counted per turn', () => {
  const text = toolCallText({ name: 'get_stock', arguments: { item: 'bolts', n: 2 } });
  assert.is(text, '<tool_call>{"name":"get_stock","arguments":{"item":"bolts","n":2}}</tool_call>');
  assert.equal(readToolAction(text), { kind: 'tool-call', name: 'get_stock', arguments: { item: 'bolts', n: 2 } });
  assert.equal(readToolAction(answerText('done')), { kind: 'answer', answer: 'done' });
  assert.is(countToolCalls([text, 'nothing', '<tool_call>bad</tool_call>', `${text} ${answerText('1')}`, text]), 2);
});

test('function schemas become the tools a provider takes', () => {
  const parameters = { type: 'object', properties: { q: { type: 'string' } } };
  assert.equal(toolDefinitionsOf([{ type: 'function', function: { name: 'search', description: 'Search.', parameters } }]), [{ name: 'search', description: 'Search.', parameters }]);
});

test("a reply's written calls are read as SPADE's orchestrator reads them: the XML form first, then JSON, every block in order", () => {
  const xml = '<tool_call>\n<function=book_flight>\n<parameter=flight_id>\nFL204\n</parameter>\n<parameter=seats>\n2\n</parameter>\n<parameter=window>\ntrue\n</parameter>\n<parameter=note>\n&lt;aisle&gt; &amp; &#39;quiet&#39;\n</parameter>\n</function>\n</tool_call>';
  assert.equal(readToolCallsInText(`I will book. ${xml}`), {
    calls: [{ name: 'book_flight', arguments: { flight_id: 'FL204', seats: 2, window: true, note: "<aisle> & 'quiet'" } }],
    unreadable: 0,
  });
  const text = [
    '<tool_call>{"name": "search", "arguments": {"filters": {"city": "Oslo", "max": 3}}}</tool_call>',
    '<tool_call>{"name": "open", "parameters": {"id": 7}}</tool_call>',
    '<tool_call>{"name": "close", "arguments": "{\\"id\\": 7}"}</tool_call>',
    '<tool_call>```json\n{"name": "list", "arguments": {}}\n```</tool_call>',
    '<tool_call>{"name": "x", "arguments": </tool_call>',
    '<tool_call>{"arguments": {}}</tool_call>',
  ].join(' ');
  assert.equal(readToolCallsInText(text), {
    calls: [
      { name: 'search', arguments: { filters: { city: 'Oslo', max: 3 } } },
      { name: 'open', arguments: { id: 7 } },
      { name: 'close', arguments: { id: 7 } },
      { name: 'list', arguments: {} },
    ],
    unreadable: 2,
  });
  assert.equal(readToolCallsInText('no calls, \\boxed{3}'), { calls: [], unreadable: 0 });
});

test.run();
