import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { loadSpadePlayerTemplate, spadeAction, spadeBoxedAnswer, spadeFirstTurn, visibleReply } from '../../../core/roles/agent-protocol.js';
import { createSpadeCode } from '../../../core/roles/spade-code.js';
import { spadeCodeFiles } from '../../../benchmarks/games/spade-source.js';
import { repoRoot } from '../../helpers/cli.js';

// SPADE's source at its pinned commit, from the offline copy.
const code = createSpadeCode(() => spadeCodeFiles({ dataDir: path.resolve(repoRoot, '../shared/datasets'), offline: true }));

test('only the text after the last </think> is read', () => {
  assert.is(visibleReply('<think>a</think>b<think>c</think> d'), ' d');
  assert.is(visibleReply('no thinking'), 'no thinking');
});

test("SPADE's boxed answer: the first plain one, then doubled braces, then the last balanced one", () => {
  assert.is(spadeBoxedAnswer('\\boxed{12} then \\boxed{13}'), '12');
  assert.is(spadeBoxedAnswer('\\boxed{{7}}'), '7');
  assert.is(spadeBoxedAnswer('\\boxed{\\frac{1}{2}} and \\boxed{x^{2}}'), 'x^{2}');
  assert.is(spadeBoxedAnswer('\\boxed{ up }'), 'up');
  assert.is(spadeBoxedAnswer('no box'), undefined);
  assert.is(spadeBoxedAnswer('\\boxed{unclosed'), undefined);
});

test('the environment gets \\boxed{answer}, or the visible reply stripped when there is none', () => {
  assert.is(spadeAction('<think>\\boxed{1}</think> I say \\boxed{2} or \\boxed{3}'), '\\boxed{2}');
  assert.is(spadeAction('<think>\\boxed{1}</think>  <tool_call>{"name": "x"}</tool_call> '), '<tool_call>{"name": "x"}</tool_call>');
  assert.is(spadeAction('\\boxed{}'), '\\boxed{}', 'an empty box has no answer: the reply goes as it is');
});

test("SPADE's first-turn template, built by SPADE's code, wraps the observation", async () => {
  assert.is(spadeFirstTurn('Find x.', await loadSpadePlayerTemplate(code)), 'You are playing a language game. Make valid actions to win.\nObservation: Find x.\nPlease reason step by step, and put your final answer within \\boxed{}.');
});

test.run();
