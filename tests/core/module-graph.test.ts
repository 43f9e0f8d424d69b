// core/ is a core: only its composition root (the command line in core/cli/, and core/setup/:
// the registry of built-ins and what turns a config into a run's parts) names plugins, suites
// and reports, and the run loop, self-play, gate, metrics and scale code reach them only through
// interfaces. Built-in plugins import core's own modules, never the package entry, so no file of
// the tree imports one that imports it back. The contract is split by concept into type-only files.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findCycle, importCircles, importsOf, reachable, sourceFiles } from '../module-graph.js';
import { repoRoot } from '../helpers/cli.js';

const COMPOSITION_ROOT = (file: string): boolean => file.startsWith('core/cli/') || file.startsWith('core/setup/');
const OUTSIDE_CORE = /^(plugins|benchmarks|reports)\//;

test('no file under core/ but its composition root (core/cli/, core/setup/) imports plugins/, benchmarks/ or reports/', () => {
  const offending = sourceFiles('core')
    .filter((file) => !COMPOSITION_ROOT(file))
    .flatMap((file) => importsOf(file).filter((e) => OUTSIDE_CORE.test(e.to)).map((e) => `${file} -> ${e.to}`));
  assert.equal(offending, []);
  // The check sees what it should: the registry of built-ins does name them.
  assert.ok(importsOf('core/setup/builtins.ts').some((e) => e.to.startsWith('plugins/')));
});

test('the run loop, self-play, gate, metrics and scale code do not reach the registry of built-ins', () => {
  const loops = ['core/run/run.ts', 'core/run/run-suite.ts', 'core/selfplay/selfplay.ts', 'core/gate/gate.ts', 'core/run/evaluate.ts', 'core/run/episode.ts', 'core/selfplay/design-slot.ts', 'core/metrics/index.ts',
    'core/scale/thread-pool.ts', 'core/scale/merge.ts', 'core/scale/shard.ts', 'core/scale/evaluation-job.ts', 'core/scale/distributed-evaluator.ts'];
  for (const file of loops) {
    const loaded = [...reachable(file, { dynamic: true })];
    assert.equal(loaded.filter((f) => f === 'core/setup/builtins.ts' || OUTSIDE_CORE.test(f)), [], file);
  }
});

test('built-in plugins, suites and reports import the modules of core, never the package entry, its subpath exports or the composition root', () => {
  const files = sourceFiles('core', 'plugins', 'benchmarks', 'reports');
  const wrong = files.flatMap((file) =>
    importsOf(file)
      .filter((e) => e.to === 'index.ts' || e.to.startsWith('api/') || (!file.startsWith('core/') && COMPOSITION_ROOT(e.to)))
      .map((e) => `${file} -> ${e.to}`),
  );
  assert.equal(wrong, []);
  assert.ok(files.some((file) => importsOf(file).some((e) => e.to.startsWith('core/'))), 'they do import core');
});

test('the contract: one type-only file per concept, importing only its neighbours, without cycles', () => {
  const concepts = sourceFiles('core/concepts');
  assert.ok(concepts.length >= 6, concepts.join());
  for (const file of concepts) {
    for (const edge of importsOf(file)) {
      assert.ok(edge.typeOnly, `${file} imports ${edge.to} for its values`);
      assert.ok(edge.to.startsWith('core/concepts/'), `${file} imports ${edge.to}`);
    }
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    assert.not.match(text, /^export (const|let|function|class|enum)\b/m, `${file} holds runtime code`);
  }
  const contract = [...concepts, 'core/types.ts', 'core/results/results.ts', 'core/errors.ts', 'core/config/options.ts', 'core/config/schema.ts', 'core/selfplay/rewards.ts'];
  const cycle = findCycle(contract, { types: true });
  assert.is(cycle, undefined, cycle?.join(' -> '));
});

test('core/types.ts stays the entry of the contract: it re-exports every concept', () => {
  const exported = importsOf('core/types.ts').map((e) => e.to);
  for (const file of sourceFiles('core/concepts').filter((f) => f !== 'core/concepts/verdict.ts')) assert.ok(exported.includes(file), `core/types.ts re-exports ${file}`);
});

test('no file imports one that imports it back, inside core/ or anywhere in the tree (type-only and dynamic imports included)', () => {
  assert.equal(importCircles(sourceFiles('core')), []);
  assert.equal(importCircles(sourceFiles('index.ts', 'api', 'core', 'plugins', 'benchmarks', 'reports')), []);
  // The check sees a circle where there is one.
  const probe = importCircles(['tests/fixtures/module-graph/a.ts', 'tests/fixtures/module-graph/b.ts']);
  assert.equal(probe, [['tests/fixtures/module-graph/a.ts', 'tests/fixtures/module-graph/b.ts']]);
});

/** The packages `file` loads when it starts, through static imports (a dynamic import() waits until a run uses it). */
const packagesLoadedBy = (file: string): string[] => [
  ...new Set([file, ...reachable(file)].flatMap((f) => importsOf(f).filter((e) => !e.typeOnly && !e.dynamic && !e.to.endsWith('.ts') && !e.to.startsWith('node:')).map((e) => e.to))),
].sort();

test('the command line loads a package that only some runs use (a sandbox, an SDK, parquet, tar, a queue) only when a run uses it', () => {
  const onDemand = ['@anthropic-ai/sdk', 'openai', 'isolated-vm', 'vm2', 'pyodide', 'playwright', 'hyparquet', 'tar', 'bullmq', 'ioredis'];
  assert.equal(packagesLoadedBy('core/cli/main.ts').filter((name) => onDemand.includes(name)), []);
  // The check sees a package where one is loaded up front: RLVE's gym writes its archives with tar.
  assert.ok(packagesLoadedBy('benchmarks/rlve/gym.ts').includes('tar'));
});

test.run();
