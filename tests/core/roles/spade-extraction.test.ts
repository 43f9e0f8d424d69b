// SPADE's reading of a designer's reply: the first ```python block (else the whole reply), then
// its f-string brace repair, which a Python sandbox applies with Python's own parser. The answers
// are SPADE's own extract_game_code (spade/core/utils/parsing.py at 9b2b813), run once with
// Debian's python3 on the fixture replies (tests/fixtures/spade-extraction/README.md).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { extractProgram, extractProgramAs, spadeExtractProgram } from '../../../core/roles/code-extraction.js';
import { createRegistry, createSandboxSet } from '../../../core/setup/setup.js';
import { DEFAULT_CONFIG } from '../../../core/config/config.js';

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/spade-extraction/${name}`, import.meta.url), 'utf8'));
const replies = read('replies.json') as { name: string; reply: string }[];
const spade = (read('spade-answers.json') as { answers: { name: string; extracted: string; repaired: string }[] }).answers;
// Both Python sandboxes: the default one (cpython where its jail works) and pyodide.
const sandboxes = createSandboxSet(createRegistry(), DEFAULT_CONFIG);
const pyodide = createSandboxSet(createRegistry(), { ...DEFAULT_CONFIG, pythonSandbox: 'pyodide' });
test.after(async () => {
  await Promise.all([sandboxes.close(), pyodide.close()]);
});

test('the fixture holds SPADE\'s answer for every reply, and its repair changed some of them', () => {
  assert.equal(spade.map((a) => a.name), replies.map((r) => r.name));
  assert.ok(spade.filter((a) => a.repaired !== a.extracted).length >= 2);
});

for (const [i, { name, reply }] of replies.entries()) {
  test(`SPADE's extraction, as SPADE's code gives it: ${name}`, () => {
    assert.is(spadeExtractProgram(reply), spade[i]!.extracted);
    assert.is(extractProgramAs('spade', reply, 'python'), spade[i]!.extracted);
  });
}

test('spade-bench\'s own reading differs where SPADE\'s takes the first block or the whole reply', () => {
  const [twoBlocks, shortTag] = replies;
  assert.match(extractProgram(twoBlocks!.reply, 'python'), 'class RevisedEnv');
  assert.match(spadeExtractProgram(twoBlocks!.reply), 'class DraftEnv');
  assert.not.match(spadeExtractProgram(twoBlocks!.reply), 'RevisedEnv');
  assert.ok(spadeExtractProgram(shortTag!.reply).startsWith('```py\n'), 'a ```py block is not SPADE\'s: the whole reply is taken');
  assert.is(extractProgramAs('spade', twoBlocks!.reply, 'javascript'), extractProgram(twoBlocks!.reply, 'javascript'), 'JavaScript is read spade-bench\'s way');
});

test('the Python sandboxes\' brace repair gives SPADE\'s code for every reply', async () => {
  for (const set of [sandboxes, pyodide]) {
    const sandbox = await set.get('python');
    assert.ok(sandbox.spadeRepairBraces, `${sandbox.id} repairs braces`);
    for (const [i, answer] of spade.entries()) {
      assert.is(await sandbox.spadeRepairBraces!(answer.extracted), answer.repaired, `${replies[i]!.name} (${sandbox.id})`);
    }
  }
  assert.is((await pyodide.get('python')).id, 'pyodide');
});

test.run();
