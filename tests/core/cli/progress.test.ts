import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createProgress, duration, pct } from '../../../core/cli/progress.js';

/** A terminal that records what is written to it. */
function terminal(): NodeJS.WriteStream & { text: string } {
  const stream = { text: '', columns: 200, isTTY: true, write(chunk: string) { stream.text += chunk; return true; } };
  return stream as unknown as NodeJS.WriteStream & { text: string };
}

test('the status line shows model calls in flight, of the most allowed', () => {
  const stream = terminal();
  const progress = createProgress(stream, true);
  let inFlight = 30;
  progress.watchCalls(() => ({ inFlight, limit: 32 }));
  progress.onEvent({ type: 'suite-start', suite: 'gsm8k', kind: 'static', environments: 64, episodes: 256 });
  assert.match(stream.text, 'calls in flight 30/32');
  assert.not.match(stream.text, 'waiting to retry');
  inFlight = 0;
  // Calls waiting out a retry-after hold no request: the line says they wait.
  progress.watchCalls(() => ({ inFlight, limit: 32, retrying: 3 }));
  progress.log('a line, and the status line drawn again');
  assert.match(stream.text, 'calls in flight 0/32 · 3 waiting to retry');
  progress.onEvent({ type: 'episode', suite: 'gsm8k' });
  progress.done();
  // Without providers (offline roles) the line says nothing of calls.
  const plain = terminal();
  createProgress(plain, true).onEvent({ type: 'suite-start', suite: 'procedural', kind: 'static', environments: 4, episodes: 16 });
  assert.not.match(plain.text, 'calls');
});

test('the status line is right from its first frame: a label before any suite, an ETA with a unit', () => {
  const stream = terminal();
  const progress = createProgress(stream, true);
  progress.watchCalls(() => ({ inFlight: 1, limit: 4 }));
  progress.log('spade-bench: starting');
  const first = stream.text.split('\r\x1b[2K').filter(Boolean).find((frame) => frame.includes('environments'));
  assert.ok(first, stream.text);
  assert.ok(!first!.startsWith(' '), `no empty label: ${JSON.stringify(first)}`);
  assert.match(first!, /^starting · /);
  assert.match(first!, 'ETA estimating');
  progress.onEvent({ type: 'suite-start', suite: 'gsm8k', kind: 'static', environments: 4, episodes: 10 });
  for (let i = 0; i < 5; i++) progress.onEvent({ type: 'episode', suite: 'gsm8k' });
  progress.log('halfway');
  assert.match(stream.text, /ETA \d+ s/, 'the ETA says its unit');
  progress.done();
});

test('durations for people, and a rate with nothing decided is n/a', () => {
  assert.is(duration(42.4), '42 s');
  assert.is(duration(185), '3 min 05 s');
  assert.is(duration(7800), '2 h 10 min');
  assert.is(pct(null), 'n/a');
  assert.is(pct(0), '0.0%');
});

test.run();
