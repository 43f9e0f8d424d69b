import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { distinctN, diversityMetrics } from '../../../core/metrics/index.js';

const close = (actual: number, expected: number, tolerance = 1e-9) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `expected ${expected}, got ${actual}`);

test('the same task repeated is one effective task', () => {
  const metrics = diversityMetrics(['Sort 3 1 2', 'sort 3 1 2', 'SORT 3 1 2']);
  assert.is(metrics.n, 3);
  close(metrics.vendi, 1);
  close(metrics.vendiPerN, 1 / 3);
  // 4 distinct unigrams of 12, 3 distinct bigrams of 9
  close(metrics.distinct1, 4 / 12);
  close(metrics.distinct2, 3 / 9);
});

test('tasks with no word in common are all distinct', () => {
  const metrics = diversityMetrics(['move disk', 'solve maze', 'add numbers', 'guess word']);
  close(metrics.vendi, 4);
  close(metrics.vendiPerN, 1);
  close(metrics.distinct1, 1);
});

test('partial overlap lands strictly between', () => {
  const metrics = diversityMetrics(['add 3 and 4', 'add 5 and 9', 'reverse the string abc']);
  assert.ok(metrics.vendi > 2 && metrics.vendi < 3, `vendi ${metrics.vendi}`);
});

test('distinct-n read from the text features equals distinctN over the texts (tabs, newlines, one-word tasks)', () => {
  const tasks = ['Move the\tdisk\n to peg 3', 'one', 'move  THE disk', '', 'peg 3 to peg 1 then peg 3'];
  const metrics = diversityMetrics(tasks);
  assert.is(metrics.distinct1, distinctN(tasks, 1));
  assert.is(metrics.distinct2, distinctN(tasks, 2));
});

test('empty pool', () => {
  assert.equal(diversityMetrics([]), { n: 0, vendi: 0, vendiPerN: 0, distinct1: 0, distinct2: 0 });
});

test.run();
