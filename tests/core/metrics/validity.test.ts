import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validityMetrics, wilsonInterval } from '../../../core/metrics/index.js';
import type { GateVerdict } from '../../../core/results.js';

const verdict = (v: GateVerdict['verdict'], reason?: GateVerdict['reason']): GateVerdict => ({ verdict: v, reason, checks: [], wallMs: 1 });

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

test('nothing proposed: rate 0 with the uninformative interval', () => {
  const metrics = validityMetrics([]);
  assert.is(metrics.rate, 0);
  assert.equal(metrics.interval, [0, 1]);
});

test.run();
