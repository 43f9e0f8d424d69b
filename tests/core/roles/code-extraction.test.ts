import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { extractProgram, fencedBlocks } from '../../../core/roles/code-extraction.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/llm/${name}.md`, import.meta.url), 'utf8');

test('a fenced program with prose around it: just the code', () => {
  const code = extractProgram(fixture('single-answer'), 'python');
  assert.ok(code.startsWith('import random'), code.slice(0, 40));
  assert.ok(code.trimEnd().endsWith('{self.a} x {self.b % 10}."'));
  assert.not.match(code, 'The hint splits');
});

test('several code blocks and a reasoning section: the block that defines the environment class', () => {
  const code = extractProgram(fixture('multi-turn-two-blocks'), 'python');
  assert.match(code, 'class ThermometerEnv');
  assert.not.match(code, 'def feedback');
  assert.not.match(code, '<think>');
});

test('no fence: from the first line of code to the last, prose before and after dropped', () => {
  const code = extractProgram(fixture('no-fence'), 'python');
  assert.ok(code.startsWith('import random'));
  assert.ok(code.endsWith('return "Add the hundreds first."'), code.slice(-60));
});

test('a reply cut off before its closing fence still yields the program', () => {
  const reply = 'Here:\n```python\nclass E:\n    def reset(self, seed=None):\n        return "x", {}\n    def step(self, a):\n        return "y", 0.0, True, False, {}\n';
  assert.match(extractProgram(reply, 'python'), 'class E:');
  assert.is(fencedBlocks(reply).length, 1);
});

test('the last of several environment blocks wins (models revise), and the tagged language is preferred', () => {
  const env = (name: string) => `class ${name} {\n  reset(seed) { return ['', {}]; }\n  step(a) { return ['', 0, true, false, {}]; }\n}`;
  const reply = `First try:\n\`\`\`js\n${env('First')}\n\`\`\`\nBetter:\n\`\`\`javascript\n${env('Second')}\n\`\`\`\nIn Python terms:\n\`\`\`\n${env('Untagged')}\n\`\`\``;
  assert.match(extractProgram(reply, 'javascript'), 'class Second');
});

test('a tool-use game inherits step() from ToolUseBaseEnv: its block is the program, in either language', () => {
  const python = 'class DeskEnv(ToolUseBaseEnv):\n    def reset(self, seed=None):\n        return "task", {}\n\n    def tool_lookup(self, key):\n        return key\n';
  assert.match(extractProgram(`Here it is:\n\`\`\`python\n${python}\`\`\`\nUsage:\n\`\`\`python\nenv = DeskEnv()\n\`\`\``, 'python'), 'class DeskEnv(ToolUseBaseEnv)');
  const javascript = 'export default class DeskEnv extends ToolUseBaseEnv {\n  reset(seed) { return ["task", {}]; }\n  tool_lookup({ key }) { return key; }\n}\n';
  assert.match(extractProgram(`\`\`\`javascript\n${javascript}\`\`\``, 'javascript'), 'extends ToolUseBaseEnv');
});

test('a reply with no program gives an empty string', () => {
  assert.is(extractProgram(fixture('prose-only'), 'python'), '');
  assert.is(extractProgram('```python\nprint("hello")\n```', 'python'), '');
});

test.run();
