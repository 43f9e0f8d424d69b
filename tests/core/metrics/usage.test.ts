import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { usageMetrics } from '../../../core/metrics/index.js';

test('sums tokens, cost and cached calls', () => {
  const metrics = usageMetrics([
    { usage: { inputTokens: 100, outputTokens: 20 }, costUsd: 0.01 },
    { usage: { inputTokens: 50, outputTokens: 5 }, cached: true },
    { usage: { inputTokens: 10, outputTokens: 10 }, costUsd: 0.02, calls: 4 },
  ]);
  assert.is(metrics.calls, 6);
  assert.is(metrics.inputTokens, 160);
  assert.is(metrics.outputTokens, 35);
  assert.ok(Math.abs(metrics.costUsd - 0.03) < 1e-12);
  assert.is(metrics.cachedCalls, 1);
});

test('no calls: all zero', () => {
  assert.equal(usageMetrics([]), { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, cachedCalls: 0 });
});

test.run();
