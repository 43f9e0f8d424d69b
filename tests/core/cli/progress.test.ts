import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createProgress } from '../../../core/cli/progress.js';

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
  inFlight = 0;
  progress.onEvent({ type: 'episode', suite: 'gsm8k' });
  progress.done();
  // Without providers (offline roles) the line says nothing of calls.
  const plain = terminal();
  createProgress(plain, true).onEvent({ type: 'suite-start', suite: 'procedural', kind: 'static', environments: 4, episodes: 16 });
  assert.not.match(plain.text, 'calls');
});

test.run();
