import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bootstrapMean, equalSizeDiversity } from '../../../core/metrics/index.js';
import { bootstrapModuleBytes, replicateMeans } from '../../../core/metrics/bootstrap.js';
import { mulberry32 } from '../../../core/run/random.js';

test('bootstrap mean: exact mean, interval around it, seeded', () => {
  const values = [0, 1, 0, 1, 1, 0, 1, 1, 0, 1];
  const a = bootstrapMean(values, { seed: 3 });
  assert.is(a.mean, 0.6);
  assert.ok(a.interval[0] < 0.6 && 0.6 < a.interval[1]);
  assert.equal(bootstrapMean(values, { seed: 3 }), a);
  // constant data has a zero-width interval
  assert.equal(bootstrapMean([2, 2, 2]).interval, [2, 2]);
});

test('the replicates\' means are the same to the bit from WebAssembly and from JavaScript', () => {
  assert.ok((globalThis as unknown as { WebAssembly: { validate(bytes: Uint8Array): boolean } }).WebAssembly.validate(bootstrapModuleBytes()), 'the module is valid');
  const next = mulberry32(11);
  const samples: number[][] = [
    [1],
    [0, 1, 1, 0, 1],
    // GSM8K's shape: one attempt per task, won or lost
    Array.from({ length: 1319 }, () => (next() < 0.3 ? 1 : 0)),
    // fractions (pass@k of several attempts), negative zero, and magnitudes far apart
    Array.from({ length: 257 }, (_, i) => (i % 17 === 0 ? -0 : (next() - 0.5) * 10 ** ((i % 7) - 3))),
  ];
  for (const values of samples) {
    for (const seed of [1, 2, 0x9e3779b9, 4294967295]) {
      const fast = replicateMeans(values, { seed, replicates: 200 });
      const slow = replicateMeans(values, { seed, replicates: 200, wasm: false });
      assert.is(fast.length, 200);
      const differ = fast.findIndex((mean, i) => !Object.is(mean, slow[i]));
      assert.is(differ, -1, `${values.length} values, seed ${seed}: replicate ${differ} is ${fast[differ]}, not ${slow[differ]}`);
    }
  }
  assert.equal(bootstrapMean(samples[2]!, { seed: 5 }), bootstrapMean(samples[2]!, { seed: 5, wasm: false }));
});

test('equal-size diversity: a larger pool of the same few tasks is not more diverse', () => {
  const small = Array.from({ length: 20 }, (_, i) => `alpha${i} beta${i}`); // 20 distinct tasks
  const large = Array.from({ length: 200 }, (_, i) => `gamma${i % 5} delta${i % 5}`); // 5 distinct tasks
  const result = equalSizeDiversity([{ id: 'small', tasks: small }, { id: 'large', tasks: large }], { replicates: 20 });
  assert.is(result.get('small')!.size, 20);
  assert.ok(result.get('small')!.vendi.mean > result.get('large')!.vendi.mean);
  assert.ok(result.get('large')!.vendi.mean <= 5 + 1e-9);
});

test.run();
