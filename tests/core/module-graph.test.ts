// core/ is a core: only its composition root (the command line in core/cli/ and the registry
// of built-ins) names plugins, suites and reports, and the run loop, self-play, gate, metrics
// and scale code reach them only through interfaces. The contract is split by concept into
// type-only files without cycles.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findCycle, importsOf, reachable, sourceFiles } from '../module-graph.js';
import { repoRoot } from '../helpers/cli.js';

const COMPOSITION_ROOT = (file: string): boolean => file.startsWith('core/cli/') || file === 'core/builtins.ts';
const OUTSIDE_CORE = /^(plugins|benchmarks|reports)\//;

test('no file under core/ but the command line and the registry of built-ins imports plugins/, benchmarks/ or reports/', () => {
  const offending = sourceFiles('core')
    .filter((file) => !COMPOSITION_ROOT(file))
    .flatMap((file) => importsOf(file).filter((e) => OUTSIDE_CORE.test(e.to)).map((e) => `${file} -> ${e.to}`));
  assert.equal(offending, []);
  // The check sees what it should: the registry of built-ins does name them.
  assert.ok(importsOf('core/builtins.ts').some((e) => e.to.startsWith('plugins/')));
});

test('the run loop, self-play, gate, metrics and scale code do not reach the registry of built-ins', () => {
  const loops = ['core/run.ts', 'core/run-suite.ts', 'core/selfplay.ts', 'core/gate.ts', 'core/evaluate.ts', 'core/episode.ts', 'core/design-slot.ts', 'core/metrics/index.ts',
    'core/scale/thread-pool.ts', 'core/scale/merge.ts', 'core/scale/shard.ts', 'core/scale/evaluation-job.ts', 'core/scale/distributed-evaluator.ts'];
  for (const file of loops) {
    const loaded = [...reachable(file, { dynamic: true })];
    assert.equal(loaded.filter((f) => f === 'core/builtins.ts' || OUTSIDE_CORE.test(f)), [], file);
  }
});

test('built-in plugins and suites import from core only what the package entry exports, as a third-party plugin does', () => {
  const files = sourceFiles('plugins', 'benchmarks');
  const deep = files.flatMap((file) => importsOf(file).filter((e) => e.to.startsWith('core/')).map((e) => `${file} -> ${e.to}`));
  assert.equal(deep, []);
  assert.ok(files.some((file) => importsOf(file).some((e) => e.to === 'index.ts')), 'they do import the entry');
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
  const contract = [...concepts, 'core/types.ts', 'core/results.ts', 'core/errors.ts', 'core/options.ts', 'core/schema.ts', 'core/rewards.ts'];
  const cycle = findCycle(contract, { types: true });
  assert.is(cycle, undefined, cycle?.join(' -> '));
});

test('core/types.ts stays the entry of the contract: it re-exports every concept', () => {
  const exported = importsOf('core/types.ts').map((e) => e.to);
  for (const file of sourceFiles('core/concepts').filter((f) => f !== 'core/concepts/verdict.ts')) assert.ok(exported.includes(file), `core/types.ts re-exports ${file}`);
});

test('no module of core imports one that imports it back (type-only imports aside)', () => {
  const cycle = findCycle(sourceFiles('core'));
  assert.is(cycle, undefined, cycle?.join(' -> '));
});

test.run();
