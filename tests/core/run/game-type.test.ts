/** Game types: tool-use from the sandbox's word or a ToolUseBaseEnv subclass in the source, else by horizon. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { extendsToolUseBase, gameTypeOf } from '../../../core/run/game-type.js';

const js = (source: string) => ({ language: 'javascript' as const, source });
const py = (source: string) => ({ language: 'python' as const, source });

test('a ToolUseBaseEnv subclass is tool-use, in either language, whatever its horizon', () => {
  assert.ok(extendsToolUseBase(js('export default class InventoryEnv extends ToolUseBaseEnv {\n reset() {} }')));
  assert.ok(extendsToolUseBase(js('const E = class extends ToolUseBaseEnv {}')));
  assert.ok(extendsToolUseBase(py(readFileSync('tests/fixtures/spade-format/tool_use_inventory.py', 'utf8'))));
  assert.ok(extendsToolUseBase(py('class A(Mixin, ToolUseBaseEnv):\n    pass')));
  assert.not.ok(extendsToolUseBase(py('class PlainEnv:\n    pass')));
  assert.is(gameTypeOf(py('class X(ToolUseBaseEnv):\n    pass'), { horizon: 1 }), 'tool-use');
});

test("the sandbox's word comes first; otherwise horizon 1 is single-turn, anything else multi-turn", () => {
  assert.is(gameTypeOf(js('class A {}'), { tools: true, horizon: 1 }), 'tool-use');
  assert.is(gameTypeOf(js('class A extends ToolUseBaseEnv {}'), { tools: false, horizon: 8 }), 'multi-turn');
  assert.is(gameTypeOf(js('class A {}'), { horizon: 1 }), 'single-turn');
  assert.is(gameTypeOf(js('class A {}'), { horizon: 12 }), 'multi-turn');
  assert.is(gameTypeOf(js('syntax error ('), {}), 'multi-turn');
});

test.run();
