import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EnvironmentSummary, RunResults } from '../../../core/results/results.js';
import { journalEnvironment, journaledEnvironments, programParts, readResults, sourceFromParts, writeResults, type EnvironmentLine, type StoredResults } from '../../../core/results/results-file.js';
import { answerProgram } from '../../../benchmarks/answer-program.js';
import { syntheticRun } from '../../reports/fixtures.js';
import { tempDir } from '../../helpers/cli.js';
import { DataError } from '../../../core/errors.js';

/** A run whose first suite holds `n` GSM8K-like tasks: one template, their own data. */
function datasetRun(n: number): RunResults {
  const run = syntheticRun({ runId: 'dataset', environmentsPerRound: 4, rounds: 2 });
  const suite = run.suites[1]!;
  suite.environments = Array.from({ length: n }, (_, i): EnvironmentSummary => {
    const program = answerProgram({ id: `d/${i}`, question: `What is ${i} + "${i}"?\u00e9`, answer: String(2 * i), checker: 'numeric', hint: `add ${i}`, family: 'd', origin: 'd.jsonl' });
    return {
      id: program.id,
      language: 'javascript',
      gameType: 'single-turn',
      verdict: 'valid',
      checks: [{ name: 'load', ok: true, detail: 'has solution, hint' }, { name: 'smoke-test', ok: true }, { name: 'hint', ok: true, detail: `${String(i).length + 4} characters` }],
      source: program.source,
      family: 'd',
      horizon: 1,
      task: `What is ${i}?`,
      solveRate: i % 2,
    };
  });
  return run;
}

test('results.json round trip: what readResults gives back is what was written', () => {
  const dir = tempDir();
  for (const results of [syntheticRun({ runId: 'a' }), datasetRun(50)]) {
    writeResults(dir, results);
    assert.equal(readResults(dir), JSON.parse(JSON.stringify(results)));
  }
});

test("a dataset's programs are stored as one code and each task's data; its checks once", () => {
  const dir = tempDir();
  const results = datasetRun(400);
  writeResults(dir, results);
  const text = readFileSync(path.join(dir, 'results.json'), 'utf8');
  const stored = JSON.parse(text) as StoredResults;
  const suite = stored.suites[1]!;
  assert.is(Object.keys(suite.codes ?? {}).length, 1, 'one code for the dataset');
  assert.equal(stored.suites[0]!.codes, {}, 'programs without a data header keep their sources');
  assert.type(stored.suites[0]!.environments[0]!.source, 'string');
  assert.is(suite.environments[7]!.source, undefined);
  assert.equal(suite.environments[7]!.data, ['What is 7 + "7"?\u00e9', '14', 'numeric', 'Solve the problem. Give your final answer as a number in \\boxed{}.', 'add 7']);
  assert.ok(suite.checks!.length < 10, `distinct checks only: ${suite.checks!.length}`);
  assert.equal(suite.environments[7]!.checks, [0, 1, 2]);
  // Each environment is one line.
  assert.ok(text.split('\n').some((line) => line.trim().startsWith('{"id":"d/7"')));
  const full = JSON.stringify(results, null, 2).length;
  assert.ok(statSync(path.join(dir, 'results.json')).size < full / 4, `${statSync(path.join(dir, 'results.json')).size} bytes against ${full}`);
});

test('a program is split only when its source comes back character for character', () => {
  const exact = 'const A = "x";\nconst B = {"n":[1,2]};\nclass Q {}\n';
  const parts = programParts({ source: exact })!;
  assert.is(sourceFromParts(parts.code, parts.data), exact);
  for (const inexact of ['const A = 1.0;\nclass Q {}\n', 'const A = "\\u00e9";\nclass Q {}\n', 'const A = { "a": 1 };\nclass Q {}\n']) assert.is(programParts({ source: inexact }), undefined, inexact);
});

test('results of another schema version are refused, naming the file and the version', () => {
  const results = datasetRun(3);
  const file = path.join(tempDir(), 'results.json');
  writeFileSync(file, JSON.stringify({ ...results, schemaVersion: 1 }, null, 2));
  assert.throws(() => readResults(file), (error: Error) => error instanceof DataError && error.message.includes(file) && error.message.includes('schemaVersion 1 is not the one this spade-bench reads (2)'));
});

test("the journal's environment lines: their checks, task and sample come back from the verdict and episode lines", () => {
  const results = datasetRun(2);
  const summary: EnvironmentSummary = { ...results.suites[1]!.environments[1]!, sample: { outcome: 'won', steps: [{ action: '\\boxed{2}', observation: 'Correct.', reward: 1, terminated: true, truncated: false }] } };
  const { environment, code } = journalEnvironment(summary);
  assert.is(environment.source, undefined);
  assert.is((environment as { checks?: unknown }).checks, undefined);
  const records: EnvironmentLine[] = [
    { type: 'code', suite: 's', key: code!.key, code: code!.code },
    { type: 'verdict', suite: 's', id: summary.id, verdict: { verdict: 'valid', checks: summary.checks, firstObservation: summary.task, gameType: 'single-turn', wallMs: 1 } },
    { type: 'episode', episode: { suite: 's', environmentId: summary.id, attempt: 0, withHint: false, seed: 1, horizon: 1, outcome: 'won', turns: 1, totalReward: 1, wallMs: 1, steps: summary.sample!.steps } },
    { type: 'environment', suite: 's', environment },
  ];
  const { summary: back } = journaledEnvironments(records).get(`s\u0000${summary.id}`)!;
  const sorted = (o: object): unknown => Object.fromEntries(Object.entries(JSON.parse(JSON.stringify(o)) as object).sort());
  assert.equal(sorted(back), sorted(summary));
});

test.run();
