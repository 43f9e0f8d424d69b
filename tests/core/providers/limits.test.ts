import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InFlightLimit } from '../../../core/providers/in-flight-limit.js';
import { RateWindow } from '../../../core/providers/rate-window.js';
import { backoffDelay, DEFAULT_RETRY } from '../../../core/providers/backoff.js';

test('a limit of requests in flight hands slots out in arrival order and drops aborted waiters', async () => {
  const limit = new InFlightLimit(1);
  const release = await limit.acquire();
  const order: string[] = [];
  const controller = new AbortController();
  const a = limit.acquire().then((r) => (order.push('a'), r));
  const b = limit.acquire(controller.signal).then(() => order.push('b'), () => order.push('b aborted'));
  const c = limit.acquire().then((r) => (order.push('c'), r));
  controller.abort(new Error('stop'));
  await b;
  release();
  (await a)();
  (await c)();
  assert.equal(order, ['b aborted', 'a', 'c']);
  assert.is(limit.inFlight, 0);
});

test('a rate window waits until the oldest booking leaves the window', async () => {
  const window = new RateWindow(2, 150);
  await window.take(1);
  await window.take(1);
  assert.is(window.used(), 2);
  const started = Date.now();
  await window.take(1);
  assert.ok(Date.now() - started >= 140, 'the third request waited for the window');
  const booking = await new RateWindow(100, 1000).take(80);
  booking.settle(10);
});

test('a booking is corrected with the real amount', async () => {
  const window = new RateWindow(100, 60_000);
  const booking = await window.take(90);
  booking.settle(20);
  assert.is(window.used(), 20);
});

test('backoff doubles, is capped, and keeps half of it fixed', () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.is(backoffDelay(1, policy, () => 0), 50);
  assert.is(backoffDelay(1, policy, () => 1), 100);
  assert.is(backoffDelay(3, policy, () => 1), 400);
  assert.is(backoffDelay(10, policy, () => 1), 1000);
});

test.run();
