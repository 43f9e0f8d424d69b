// The example suite plugin, as a user loads it: listed under `plugins` in a config file, its id
// among the suites, run by the command line; every task gated and played.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, tempDir } from '../../helpers/cli.js';
import type { RunResults } from '../../../core/results/results.js';

test('the example suite plugin loads through `plugins:` in a config and runs', async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({
    plugins: [path.join(repoRoot, 'plugins/suites/examples/unit-conversions-suite.ts')],
    suites: ['unit-conversions'],
    cache: false,
  }));
  const r = await runCli(['run', '--out', 'out'], { cwd });
  assert.is(r.code, 0, r.stderr);
  const results = JSON.parse(readFileSync(path.join(cwd, 'out', 'results.json'), 'utf8')) as RunResults;
  assert.equal(results.suites.map((s) => s.id), ['unit-conversions']);
  const [suite] = results.suites;
  assert.is(suite!.kind, 'static');
  // Each task's reference answer wins in the sandbox: the gate finds all five valid.
  assert.is(suite!.metrics.validity.proposed, 5);
  assert.is(suite!.metrics.validity.valid, 5);
  assert.equal(suite!.environments.map((e) => e.task?.split('\n')[0]), [
    'How many minutes are there in 3.5 hours?',
    'A recipe needs 2.5 kilograms of flour. How many grams is that?',
    'How many centimetres are there in 4.2 metres?',
    'A film lasts 7,200 seconds. How many hours is that?',
    'How many millilitres are there in 0.75 litres?',
  ]);
  assert.ok(suite!.metrics.success.episodes >= 5, 'every task played');
  assert.ok(suite!.environments.every((e) => e.verdict === 'valid'));
});

test.run();
