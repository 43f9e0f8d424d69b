import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toResetResult, toStepResult, toText } from '../../../core/gate/contract.js';
import { SandboxError } from '../../../core/types.js';
import type { SandboxFailureKind } from '../../../core/types.js';

const limits = { maxOutputBytes: 100 };

function kindOf(run: () => unknown): SandboxFailureKind {
  try {
    run();
  } catch (error) {
    assert.instance(error, SandboxError);
    return (error as SandboxError).kind;
  }
  assert.unreachable('expected a SandboxError');
  throw new Error('unreachable');
}

test('reset returns [observation, info]; null or undefined info is {}', () => {
  assert.equal(toResetResult(['task', { horizon: 3 }], limits), { observation: 'task', info: { horizon: 3 } });
  assert.equal(toResetResult(['task', null], limits), { observation: 'task', info: {} });
  assert.equal(toResetResult(['task', undefined], limits), { observation: 'task', info: {} });
});

test("reset: a bare string is the observation, with {} as info (SPADE's loader reads it so)", () => {
  assert.equal(toResetResult('task', limits), { observation: 'task', info: {} });
});

test('reset: anything else breaks the contract', () => {
  for (const raw of [['task'], ['task', {}, 1], [42, {}], [{ text: 'task' }, {}], ['task', []], ['task', 'info'], undefined]) {
    assert.is(kindOf(() => toResetResult(raw, limits)), 'contract', JSON.stringify(raw));
  }
});

test('step returns [observation, reward, terminated, truncated, info]', () => {
  assert.equal(toStepResult(['ok', 0.5, true, false, null], limits), { observation: 'ok', reward: 0.5, terminated: true, truncated: false, info: {} });
  for (const raw of [
    ['ok', Number.NaN, true, false, {}],
    ['ok', Number.POSITIVE_INFINITY, true, false, {}],
    ['ok', '1', true, false, {}],
    ['ok', 1, 1, false, {}],
    ['ok', 1, true, null, {}],
    [null, 1, true, false, {}],
    ['ok', 1, true, false],
  ]) {
    assert.is(kindOf(() => toStepResult(raw, limits)), 'contract', String(raw));
  }
  assert.match((() => { try { toStepResult(['ok', Number.NaN, true, false, {}], limits); } catch (e) { return (e as Error).message; } return ''; })(), /reward.*NaN/);
});

test('sizes are UTF-8 bytes of the observation and of the JSON of info', () => {
  assert.is(toResetResult(['x'.repeat(100), {}], limits).observation.length, 100);
  assert.is(kindOf(() => toResetResult(['x'.repeat(101), {}], limits)), 'output-limit');
  assert.is(kindOf(() => toResetResult(['é'.repeat(51), {}], limits)), 'output-limit', '102 bytes in 51 characters');
  assert.is(kindOf(() => toStepResult(['ok', 0, false, false, { log: 'y'.repeat(100) }], limits)), 'output-limit');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.is(kindOf(() => toResetResult(['ok', cyclic], limits)), 'contract');
});

test('text methods return a string; a finite number is written in decimal', () => {
  assert.is(toText('42', 'solution', limits), '42');
  assert.is(toText(42, 'solution', limits), '42');
  assert.is(kindOf(() => toText(Number.NaN, 'solution', limits)), 'contract');
  assert.is(kindOf(() => toText(undefined, 'hint', limits)), 'contract');
  assert.is(kindOf(() => toText(['up'], 'referenceAction', limits)), 'contract');
  assert.is(kindOf(() => toText('z'.repeat(101), 'hint', limits)), 'output-limit');
});

test.run();
