import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GATE_REASONS, leaksAnswer, validateEnvironment, wrongAnswers } from '../../../core/gate/gate.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { fixture, fixtureNames, program } from '../../fixtures/programs/load.js';

const sandbox = createIsolatedVmSandbox({ limits: { callTimeoutMs: 2000, memoryMb: 16 } });

/** Each invalid fixture and the reason the gate must give it. */
const EXPECTED: Record<string, string> = {
  'invalid/syntax-error': 'syntax',
  'invalid/no-class': 'load',
  'invalid/reset-throws': 'crash',
  'invalid/smoke-crash': 'smoke-test',
  'invalid/nondeterministic': 'nondeterministic',
  'invalid/reference-loses': 'reference-loses',
  'invalid/wrong-answer-wins': 'wrong-answer-wins',
  'invalid/answer-leak': 'answer-leak',
  'invalid/nan-reward': 'contract',
  'invalid/wrong-return-type': 'contract',
  'invalid/infinite-loop': 'timeout',
  'invalid/memory-bomb': 'memory',
  'invalid/huge-observation': 'output-limit',
};

test('every valid fixture is valid, with every check passed', async () => {
  for (const name of fixtureNames('valid')) {
    const verdict = await validateEnvironment(sandbox, fixture(name), { seed: 7 });
    assert.is(verdict.verdict, 'valid', `${name}: ${JSON.stringify(verdict.checks.at(-1))}`);
    assert.is(verdict.reason, undefined);
    assert.ok(verdict.checks.every((c) => c.ok), name);
    assert.type(verdict.firstObservation, 'string');
    for (const check of ['load', 'reset', 'smoke-test', 'deterministic', 'reference-wins', 'random-loses']) {
      assert.ok(verdict.checks.some((c) => c.name === check), `${name} ran ${check}`);
    }
  }
});

test('the horizon comes from meta, else from reset() info, else maxTurns', async () => {
  assert.is((await validateEnvironment(sandbox, fixture('valid/grid-walk-multi-turn'))).horizon, 16);
  assert.is((await validateEnvironment(sandbox, fixture('valid/code-lock-multi-turn'))).horizon, 10);
  const withMeta = { ...fixture('valid/code-lock-multi-turn'), meta: { horizon: 12 } };
  assert.is((await validateEnvironment(sandbox, withMeta)).horizon, 12);
  assert.is((await validateEnvironment(sandbox, fixture('valid/word-single-answer'), { maxTurns: 5 })).horizon, 5);
});

test('a multi-turn reference policy that wins too slowly fails: the horizon binds', async () => {
  const slow = { ...fixture('valid/grid-walk-multi-turn'), meta: { horizon: 3 } };
  const verdict = await validateEnvironment(sandbox, slow);
  assert.is(verdict.verdict, 'invalid');
  assert.is(verdict.reason, 'no-episode-end');
});

test('a tool-use program: its tools are checked, its reference policy proves it, and its game type is recorded', async () => {
  const verdict = await validateEnvironment(sandbox, fixture('tool-use/inventory-reference'), { seed: 3 });
  assert.is(verdict.verdict, 'valid', JSON.stringify(verdict.checks.at(-1)));
  assert.is(verdict.gameType, 'tool-use');
  assert.is(verdict.horizon, 10, "the environment's own max_turns");
  assert.equal(verdict.checks.find((c) => c.name === 'tools'), { name: 'tools', ok: true, detail: '2 tools: list_warehouses, get_stock' });
  assert.match(verdict.checks.find((c) => c.name === 'reference-wins')!.detail!, /^4 turns$/);
  assert.ok(verdict.checks.some((c) => c.name === 'random-loses' && c.ok));
});

test('a tool-use program whose expected answer disagrees with its own tools loses with its reference', async () => {
  const verdict = await validateEnvironment(sandbox, fixture('tool-use/inventory-wrong-expected'), { seed: 3 });
  assert.is(verdict.verdict, 'invalid');
  // A wrong answer does not end a tool-use episode: the reference answers again until max_turns truncates it.
  assert.is(verdict.reason, 'reference-loses');
  assert.match(verdict.checks.at(-1)!.detail!, /did not win/);
  assert.is(verdict.gameType, 'tool-use');
});

test("a tool-use program that takes any answer, or names its answer in the task, is rejected", async () => {
  const any = await validateEnvironment(sandbox, fixture('tool-use/accepts-any-answer'), { seed: 3 });
  assert.equal([any.verdict, any.reason], ['invalid', 'wrong-answer-wins']);
  assert.match(any.checks.at(-1)!.detail!, /after the reference's tool calls, the wrong answer <answer>\d+x<\/answer> won/);
  const leak = await validateEnvironment(sandbox, fixture('tool-use/answer-leak'), { seed: 3 });
  assert.equal([leak.verdict, leak.reason], ['invalid', 'answer-leak']);
  const fair = await validateEnvironment(sandbox, fixture('tool-use/inventory-reference'), { seed: 3 });
  assert.ok(fair.checks.some((c) => c.name === 'wrong-answer-loses' && c.ok && c.detail === "after the reference's 3 tool turns"));
  assert.ok(fair.checks.some((c) => c.name === 'no-answer-leak' && c.ok));
});

test("a tool-use program without a reference policy: its solution()'s tool calls and <answer> are replayed, then the same checks apply", async () => {
  const verdict = await validateEnvironment(sandbox, fixture('tool-use/inventory'), { seed: 3 });
  assert.is(verdict.verdict, 'valid', JSON.stringify(verdict.checks.at(-1)));
  assert.is(verdict.gameType, 'tool-use');
  assert.ok(verdict.checks.every((c) => c.ok));
  assert.is(verdict.checks.find((c) => c.name === 'reference-wins')!.detail, '3 turns (tool-use solution replayed)');
  assert.is(verdict.checks.find((c) => c.name === 'wrong-answer-loses')!.detail, "after the reference's 2 tool turns");
  // The replayed solution is the reference: answers near its <answer> must lose after its calls,
  // and the task must not reveal that answer.
  const source = fixture('tool-use/inventory').source;
  const any = await validateEnvironment(sandbox, program('inventory-any', source.replace('tool_list_warehouses()', '_check_answer() { return true; }\n  tool_list_warehouses()')), { seed: 3 });
  assert.equal([any.verdict, any.reason], ['invalid', 'wrong-answer-wins']);
  const leak = await validateEnvironment(sandbox, program('inventory-leak', source.replace("' are in stock", "' (' + this._expected_answer + ') are in stock")), { seed: 3 });
  assert.equal([leak.verdict, leak.reason], ['invalid', 'answer-leak']);
  // Shown at the gate's seed only, the number is a coincidence: the next seeds' tasks are played to tell.
  const once = await validateEnvironment(sandbox, program('inventory-once', source.replace("' are in stock", "' (order ' + (seed === 3 ? this._expected_answer : 7) + ') are in stock")), { seed: 3 });
  assert.is(once.verdict, 'valid', JSON.stringify(once.checks.at(-1)));
  assert.match(once.checks.find((c) => c.name === 'no-answer-leak')!.detail!, /by coincidence only \(1 of 4 seeds reveal it\)/);
  const broken = await validateEnvironment(sandbox, fixture('tool-use/bad-tool-name'));
  assert.equal([broken.verdict, broken.reason, broken.checks.at(-1)!.name], ['invalid', 'contract', 'tools']);
  assert.is(broken.gameType, 'tool-use');
});

test('game types: horizon 1 is single-turn, longer multi-turn, and a program that never loads still gets one', async () => {
  assert.is((await validateEnvironment(sandbox, fixture('valid/sum-single-answer'))).gameType, 'single-turn');
  assert.is((await validateEnvironment(sandbox, fixture('valid/grid-walk-multi-turn'))).gameType, 'multi-turn');
  const broken = await validateEnvironment(sandbox, program('broken-tool-use', 'class X extends ToolUseBaseEnv { reset( }'));
  assert.equal([broken.reason, broken.gameType], ['syntax', 'tool-use']);
});

test('an environment with neither solution() nor referenceAction() is unproven', async () => {
  const verdict = await validateEnvironment(sandbox, fixture('unproven/nim'));
  assert.is(verdict.verdict, 'unproven');
  assert.is(verdict.reason, 'unproven');
  assert.ok(verdict.checks.every((c) => c.ok));
  assert.not.ok(verdict.checks.some((c) => c.name === 'reference-wins'));
});

test('each invalid fixture is rejected with its reason, on the check that failed', async () => {
  assert.equal(fixtureNames('invalid'), Object.keys(EXPECTED).sort(), 'every invalid fixture has an expected reason');
  for (const [name, reason] of Object.entries(EXPECTED)) {
    const verdict = await validateEnvironment(sandbox, fixture(name));
    assert.is(verdict.verdict, 'invalid', name);
    assert.is(verdict.reason, reason, `${name}: ${JSON.stringify(verdict.checks.at(-1))}`);
    const failed = verdict.checks.filter((c) => !c.ok);
    assert.is(failed.length, 1, name);
    assert.is(failed[0], verdict.checks.at(-1));
    assert.ok(GATE_REASONS.includes(verdict.reason!), name);
  }
});

test('random play that wins too often is rejected', async () => {
  const coinFlip = program('coin', `export default class Coin {
    reset(seed) { return ['Call heads or tails: \\\\boxed{heads} or \\\\boxed{tails}.', {}]; }
    step(action) { const won = /boxed\\{(heads|tails)\\}/.test(action) || action.length < 5; return ['done', won ? 1 : 0, true, false, {}]; }
    referenceAction() { return '\\\\boxed{heads}'; }
  }`);
  const verdict = await validateEnvironment(sandbox, coinFlip);
  assert.is(verdict.reason, 'random-wins', JSON.stringify(verdict.checks.at(-1)));
});

test('a failing hint() invalidates an otherwise valid environment', async () => {
  const source = fixture('valid/sum-single-answer').source.replace(/hint\(\) \{/, 'hint() { return 5 > 2 ? {} : "";');
  const verdict = await validateEnvironment(sandbox, program('bad-hint', source));
  assert.is(verdict.reason, 'contract');
  assert.is(verdict.checks.at(-1)!.name, 'hint');
});

test('the same program and seed give the same verdict', async () => {
  const a = await validateEnvironment(sandbox, fixture('valid/code-lock-multi-turn'), { seed: 11 });
  const b = await validateEnvironment(sandbox, fixture('valid/code-lock-multi-turn'), { seed: 11 });
  assert.equal(a.checks, b.checks);
  assert.is(a.firstObservation, b.firstObservation);
});

test('wrong answers are near misses of the solution', () => {
  assert.equal(wrongAnswers('42').sort(), ['0', '', '41', '42x', '43'].sort());
  assert.equal(wrongAnswers('0').sort(), ['', '-1', '0x', '1'].sort());
  assert.not.ok(wrongAnswers('tenet').includes('tenet'));
});

test('an answer leaks as a whole token or boxed, not as part of another number', () => {
  assert.ok(leaksAnswer('The answer is 42.', '42'));
  assert.ok(leaksAnswer('Write \\boxed{7} here', '7'));
  assert.not.ok(leaksAnswer('Compute 142 + 3', '42'));
  assert.not.ok(leaksAnswer('There are 7 apples', '7'), 'one character is too short to count as a leak');
  assert.not.ok(leaksAnswer('Reverse the word planet', 'tenalp'));
});

test.after(async () => {
  await sandbox.close();
});

test.run();
