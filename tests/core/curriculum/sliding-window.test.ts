// RLVE's sliding window: outcomes count only at the window's top; after tauNum attempts there
// the window moves up when the success rate reaches tauAcc, and the counts start again either
// way; the window is at most `width` wide and stops at maxDifficulty; draws are uniform in it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SlidingWindow } from '../../../core/curriculum/sliding-window.js';
import { drawWithoutReplacement } from '../../../core/curriculum/rounds.js';
import { mulberry32 } from '../../../core/run/random.js';

const settings = { tauAcc: 0.75, tauNum: 4, width: 3, maxDifficulty: 5 };

test('moves up once tauNum attempts at the top reach tauAcc, and the counts start again', () => {
  const w = new SlidingWindow(settings);
  assert.equal(w.window('e'), { low: 0, high: 0, wins: 0, attempts: 0 });
  assert.not.ok(w.record('e', 0, true));
  assert.not.ok(w.record('e', 0, true));
  assert.not.ok(w.record('e', 0, false));
  assert.ok(w.record('e', 0, true), '3 of 4 = 0.75 >= tauAcc');
  assert.equal(w.window('e'), { low: 0, high: 1, wins: 0, attempts: 0 });
  // 2 of 4 at the top: no move, but the counts start again (as RLVE and SPADE do).
  for (const won of [true, false, true, false]) assert.not.ok(w.record('e', 1, won));
  assert.equal(w.window('e'), { low: 0, high: 1, wins: 0, attempts: 0 });
  // Attempts below the top are not counted.
  for (let i = 0; i < 10; i++) assert.not.ok(w.record('e', 0, true));
  assert.equal(w.window('e'), { low: 0, high: 1, wins: 0, attempts: 0 });
  // Other environments have windows of their own.
  assert.equal(w.window('f'), { low: 0, high: 0, wins: 0, attempts: 0 });
});

test('the window is at most `width` wide and stops at maxDifficulty', () => {
  const w = new SlidingWindow(settings);
  const lows: number[] = [];
  for (let high = 0; high < 8; high++) {
    const top = w.window('e').high;
    for (let i = 0; i < 4; i++) w.record('e', top, true);
    lows.push(w.window('e').low);
  }
  assert.equal(w.window('e').high, 5);
  assert.equal(lows, [0, 0, 1, 2, 3, 3, 3, 3]);
  assert.equal(w.summary(['e', 'f']), { meanLow: 1.5, meanHigh: 2.5, maxHigh: 5 });
});

test('difficulties are drawn uniformly from [low, high]', () => {
  const w = new SlidingWindow({ ...settings, tauNum: 1, tauAcc: 1 });
  for (let i = 0; i < 4; i++) w.record('e', w.window('e').high, true);
  assert.equal([w.window('e').low, w.window('e').high], [2, 4]);
  const random = mulberry32(7);
  const counts = [0, 0, 0, 0, 0];
  for (let i = 0; i < 3000; i++) counts[w.sample('e', random)]!++;
  assert.equal(counts.slice(0, 2), [0, 0]);
  for (const n of counts.slice(2)) assert.ok(n > 900 && n < 1100, String(counts));
});

test('settings out of range are refused; draws without replacement', () => {
  assert.throws(() => new SlidingWindow({ ...settings, tauAcc: 0 }), /tauAcc/);
  assert.throws(() => new SlidingWindow({ ...settings, tauNum: 0 }), /tauNum/);
  assert.throws(() => new SlidingWindow({ ...settings, width: 1.5 }), /width/);
  const drawn = drawWithoutReplacement(['a', 'b', 'c', 'd', 'e'], 3, mulberry32(1));
  assert.is(new Set(drawn).size, 3);
  assert.equal(drawWithoutReplacement(['a', 'b'], 3, mulberry32(1)), ['a', 'b']);
});

test.run();
