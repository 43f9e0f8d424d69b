// CI output: --reporter junit|json-summary and --fail-under, on a real offline run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, tempDir } from '../../helpers/cli.js';
import type { RunResults } from '../../../core/results/results.js';
import { junitReport, parseThresholds, checkThresholds } from '../../../core/cli/ci-output.js';

const small = ['--suites', 'spade,procedural', '--rounds', '1', '--envs-per-round', '3', '--limit', '6', '--attempts', '1', '--workers', '1'];

const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

test('--reporter junit=FILE: a testsuite per pool, a testcase per environment, outcomes as results.json has them', async () => {
  const cwd = tempDir();
  const r = await runCli(['run', '--out', 'a', ...small, '--reporter', 'junit=ci.xml', '--fail-under', 'validity=0'], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'done in', 'a reporter into a file leaves the summary on stdout');
  const xml = readFileSync(path.join(cwd, 'ci.xml'), 'utf8');
  const results = JSON.parse(readFileSync(path.join(cwd, 'a', 'results.json'), 'utf8')) as RunResults;
  assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
  for (const suite of results.suites) {
    const block = xml.slice(xml.indexOf(`<testsuite name="${suite.id}"`), xml.indexOf('</testsuite>', xml.indexOf(`<testsuite name="${suite.id}"`)));
    assert.ok(block.length > 0, suite.id);
    assert.is(count(block, /<testcase /g), suite.environments.length, `${suite.id}: a testcase per environment`);
    const invalid = suite.environments.filter((e) => e.verdict === 'invalid').length;
    const lost = suite.environments.filter((e) => e.verdict !== 'invalid' && e.solveRate === 0).length;
    assert.is(count(block, /<skipped /g), invalid, `${suite.id}: invalid environments are skipped`);
    assert.is(count(block, /<failure /g), lost, `${suite.id}: environments lost every time fail`);
    assert.match(block, `tests="${suite.environments.length}" failures="${lost}"`);
  }
  assert.match(xml, '<testsuite name="fail-under" tests="2" failures="0"');
});

test('--reporter json-summary on stdout and --fail-under above every value: exit 5 naming metric, value and threshold', async () => {
  const cwd = tempDir();
  const r = await runCli(['run', '--out', 'a', ...small, '--reporter', 'json-summary', '--fail-under', 'validity@procedural=101%'], { cwd });
  assert.is(r.code, 5, r.stderr);
  const summary = JSON.parse(r.stdout) as { pools: { id: string; metrics: Record<string, { value: number | null }> }[]; failUnder: { metric: string; pool: string; value: number; threshold: number; passed: boolean }[]; passed: boolean };
  assert.equal(summary.pools.map((p) => p.id), ['spade', 'procedural']);
  assert.equal(summary.failUnder.map((c) => [c.metric, c.pool, c.threshold, c.passed]), [['validity', 'procedural', 1.01, false]]);
  assert.is(summary.passed, false);
  const value = summary.pools[1]!.metrics.validity!.value!;
  assert.match(r.stderr, `below threshold: validity of procedural is ${(value * 100).toFixed(1)}%, under 101.0% (--fail-under validity@procedural=101%)`);
  assert.match(r.stderr, 'done in', 'the summary moves to stderr');
});

test('a wrong --reporter or --fail-under is a usage error before anything is written', async () => {
  const cwd = tempDir();
  for (const [args, message] of [
    [['--reporter', 'junt'], 'Did you mean junit?'],
    [['--fail-under', 'sucess=0.5'], 'unknown metric "sucess" (one of validity, diversity, throughput, success, turnsToWin). Did you mean success?'],
    [['--fail-under', 'success=half'], '--fail-under success=half: expected a number (0.6 or 60%)'],
    [['--fail-under', 'throughput=5%'], 'throughput is not a share'],
    [['--fail-under', 'success@gsm8k=0.5'], 'the run has no pool "gsm8k" (its pools: spade, procedural)'],
  ] as const) {
    const r = await runCli(['run', '--out', 'a', ...small, ...args], { cwd });
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(readdirSync(cwd), []);
  }
});

test('n/a misses any threshold; an errored environment is a JUnit error', () => {
  const results = {
    run: { id: 'r', complete: true, errors: { total: 1, failures: 1, classes: [{ errorClass: 'ECONNREFUSED', failure: true, count: 1, byStage: { episode: 1 }, bySuite: { s: 1 }, messages: ['connect ECONNREFUSED 127.0.0.1:9'] }] } },
    suites: [{
      id: 's', kind: 'static', rounds: [],
      metrics: { success: { won: 0, lost: 0, errored: 1, successRate: null }, throughput: { wallSec: 1 } },
      environments: [{ id: 'e1', verdict: 'valid' }, { id: 'e2', verdict: 'invalid', reason: 'reset threw' }],
    }],
  } as unknown as RunResults;
  const checks = checkThresholds(results, parseThresholds({ success: '0' }));
  assert.equal(checks.map((c) => [c.value, c.passed]), [[null, false]]);
  const xml = junitReport(results, checks);
  assert.match(xml, '<error message="no play decided (errored or not played)"/>');
  assert.match(xml, '<skipped message="invalid: reset threw"/>');
  assert.match(xml, '<error message="1 errored (s: 1)">connect ECONNREFUSED 127.0.0.1:9</error>');
  assert.match(xml, '<testsuites name="spade-bench r" tests="4" failures="1" errors="2">');
});

test.run();
