import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validityMetrics, wilsonInterval } from '../../../core/metrics/index.js';
import type { GateVerdict } from '../../../core/results/results.js';

const verdict = (v: GateVerdict['verdict'], reason?: GateVerdict['reason']): GateVerdict => ({ verdict: v, reason, checks: [], gameType: 'single-turn', wallMs: 1 });

test('counts valid, unproven and every rejection reason', () => {
  const metrics = validityMetrics([
    verdict('valid'),
    verdict('valid'),
    verdict('valid'),
    verdict('unproven', 'unproven'),
    verdict('invalid', 'timeout'),
    verdict('invalid', 'timeout'),
    verdict('invalid', 'answer-leak'),
    verdict('invalid', 'syntax'),
  ]);
  assert.is(metrics.proposed, 8);
  assert.is(metrics.valid, 3);
  assert.is(metrics.unproven, 1);
  // proven rate: 3 of 8
  assert.is(metrics.rate, 3 / 8);
  assert.equal(metrics.interval, wilsonInterval(3, 8));
  assert.equal(metrics.reasons, { unproven: 1, timeout: 2, 'answer-leak': 1, syntax: 1 });
});

test('both readings side by side: SPADE\'s and strict\'s counts, and what SPADE accepts that strict rejects', () => {
  const read = (spade: GateVerdict['verdict'], strict: GateVerdict['verdict'], strictReason?: GateVerdict['reason'], spadeReason?: GateVerdict['reason']): GateVerdict => ({
    verdict: strict,
    ...(strictReason ? { reason: strictReason } : {}),
    checks: [],
    gameType: 'single-turn',
    wallMs: 1,
    gate: 'strict',
    readings: { spade: { verdict: spade, ...(spadeReason ? { reason: spadeReason } : {}) }, strict: { verdict: strict, ...(strictReason ? { reason: strictReason } : {}) } },
  });
  const metrics = validityMetrics([
    read('valid', 'valid'),
    read('valid', 'unproven', 'unproven'),
    read('valid', 'invalid', 'reference-loses'),
    read('valid', 'invalid', 'smoke-test'),
    read('invalid', 'invalid', 'contract', 'contract'),
  ]);
  assert.is(metrics.gate, 'strict');
  const { spade, strict, spadeOnly } = metrics.readings!;
  // SPADE accepts 4 of 5; strict proves 1, leaves 1 unproven, rejects 3.
  assert.equal([spade.valid, spade.unproven, spade.rate, spade.playedRate], [4, 0, 4 / 5, 4 / 5]);
  assert.equal(spade.reasons, { contract: 1 });
  assert.equal([strict.valid, strict.unproven, strict.rate, strict.playedRate], [1, 1, 1 / 5, 2 / 5]);
  assert.equal(strict.reasons, { 'reference-loses': 1, 'smoke-test': 1, contract: 1 });
  assert.equal(spadeOnly, { count: 2, reasons: { 'reference-loses': 1, 'smoke-test': 1 } });
  assert.equal(spade.interval, wilsonInterval(4, 5));
  // Verdicts journaled before there were two readings give none.
  assert.is(validityMetrics([verdict('valid')]).readings, undefined);
});

test('nothing proposed: rate 0 with the uninformative interval', () => {
  const metrics = validityMetrics([]);
  assert.is(metrics.rate, 0);
  assert.equal(metrics.interval, [0, 1]);
});

test.run();
