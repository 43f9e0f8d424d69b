// Curated datasets' gate verdicts are cached by content: a second evaluation of the same task
// skips the gate (and journals the cached verdict as its own); anything that could change the
// verdict (the program, its seed, the limits, the sandbox, the gate) misses.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { evaluateEnvironment, type EvaluationContext } from '../../../core/run/evaluate.js';
import { gateCodeFingerprint, verdictKey, withVerdictCache } from '../../../core/gate/verdict-cache.js';
import type { GateVerdict } from '../../../core/results/results.js';
import type { EnvironmentProgram, Sandbox } from '../../../core/types.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { createReferenceAgent } from '../../../plugins/reference/agent.js';
import { answerProgram } from '../../../benchmarks/answer-program.js';
import { runCli, tempDir } from '../../helpers/cli.js';

const sandbox = createIsolatedVmSandbox();
let loads = 0;
const counting: Sandbox = { ...sandbox, load: (program, limits) => (loads++, sandbox.load(program, limits)) };

const task = (i: number): EnvironmentProgram => answerProgram({ id: `q/${i}`, question: `What is ${i} + ${i}?`, answer: String(2 * i), checker: 'numeric', family: 'q', origin: `q.jsonl:${i + 1}` });

function context(verdicts: GateVerdict[]): EvaluationContext {
  return {
    suite: 'q',
    sandboxes: { get: async () => counting, close: async () => {} },
    agent: createReferenceAgent(),
    limits: {},
    attempts: 2,
    withHint: false,
    runSeed: 1,
    onVerdict: (_, verdict) => verdicts.push(verdict),
  };
}

test('a cached verdict skips the gate, is journaled as this run\'s, and the evaluation is the same', async () => {
  const dir = tempDir();
  let fingerprint = 'sandbox code v1';
  const evaluate = () => withVerdictCache(evaluateEnvironment, { dir, sandboxOf: async () => ({ id: 'isolated-vm', fingerprint }) });
  const first: GateVerdict[] = [];
  const fresh = await evaluate()(task(3), 3, context(first));
  assert.is(first.length, 1);
  assert.is(fresh.verdict.verdict, 'valid');
  // Another run (a new evaluator reads the file): the same verdict journaled, the same episodes.
  const second: GateVerdict[] = [];
  const cached = await evaluate()(task(3), 3, context(second));
  assert.equal(second, first);
  assert.equal(cached.summary, fresh.summary);
  assert.equal(cached.episodes.map((e) => ({ ...e, wallMs: 0 })), fresh.episodes.map((e) => ({ ...e, wallMs: 0 })));
  // What the gate loads to judge the program (each reading loads it), uncached.
  loads = 0;
  await evaluateEnvironment(task(3), 3, { ...context([]), validateOnly: true });
  const gateLoads = loads;
  assert.ok(gateLoads > 0);
  // The gate does not run: validating loads nothing.
  loads = 0;
  await evaluate()(task(3), 3, { ...context([]), validateOnly: true });
  assert.is(loads, 0);
  // Another sandbox fingerprint: judged again, in a file of its own.
  fingerprint = 'sandbox code v2';
  loads = 0;
  await evaluate()(task(3), 3, { ...context([]), validateOnly: true });
  assert.is(loads, gateLoads);
  // Written as this turn of the event loop ends.
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(readdirSync(dir).length, 2);
});

test('the key: the program (not where it was read), its seed and the limits', () => {
  const key = verdictKey(task(3), 3, {});
  assert.is(verdictKey({ ...task(3), meta: { ...task(3).meta, origin: 'elsewhere.jsonl:9' } }, 3, {}), key, 'where the task came from does not matter');
  assert.is.not(verdictKey(task(4), 3, {}), key);
  assert.is.not(verdictKey(task(3), 4, {}), key);
  assert.is.not(verdictKey(task(3), 3, { callTimeoutMs: 5 }), key);
  // A templated program is keyed by its code and its values: the code after the values counts too.
  const source = task(3).source;
  assert.is.not(verdictKey({ ...task(3), source: source.replace('Correct.', 'Right.') }, 3, {}), key);
  assert.is.not(verdictKey(answerProgram({ id: 'q/3', question: 'What is 3 + 3?', answer: '6', checker: 'numeric', family: 'q', origin: 'q.jsonl:4', hint: 'add' }), 3, {}), key);
  // A program that does not open with data lines is keyed by its whole source.
  const plain = { ...task(3), source: `'use strict';\n${source}` };
  assert.is(verdictKey({ ...plain }, 3, {}), verdictKey(plain, 3, {}));
  assert.is.not(verdictKey({ ...plain, source: `${plain.source}\n` }, 3, {}), verdictKey(plain, 3, {}));
  assert.match(gateCodeFingerprint(), /^[0-9a-f]{64}$/);
});

test('only curated tasks, and never a verdict of the moment (a timeout)', async () => {
  const dir = tempDir();
  const cache = withVerdictCache(evaluateEnvironment, { dir, sandboxOf: async () => ({ id: 'isolated-vm', fingerprint: 'x' }) });
  const designed: EnvironmentProgram = { ...task(5), meta: { family: 'q' } };
  await cache(designed, 5, context([]));
  assert.equal(readdirSync(dir), [], 'a designed program is never cached');
  const slow: EnvironmentProgram = { id: 'slow', language: 'javascript', meta: { curated: true }, source: 'export default class S { reset() { for (;;) {} } step() { return ["", 0, true, false, {}]; } }' };
  const verdicts: GateVerdict[] = [];
  await cache(slow, 1, { ...context(verdicts), limits: { callTimeoutMs: 50 } });
  assert.is(verdicts[0]!.reason, 'timeout');
  assert.equal(readdirSync(dir), []);
});

test('spade-bench run: a second run of a dataset takes its verdicts from the cache; --no-cache judges them again', async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'q.jsonl'), Array.from({ length: 5 }, (_, i) => JSON.stringify({ question: `What is ${i} + ${i}?`, answer: 2 * i })).join('\n'));
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ verdictCacheDir: 'verdicts', suiteOptions: { 'jsonl:q.jsonl': { mapping: { checker: 'numeric' } } } }));
  const runs = ['a', 'b'];
  for (const out of runs) {
    const r = await runCli(['run', '--suites', 'jsonl:q.jsonl', '--out', out, '--attempts', '1'], { cwd });
    assert.is(r.code, 0, r.stderr);
  }
  const cacheFiles = readdirSync(path.join(cwd, 'verdicts'));
  assert.is(cacheFiles.length, 1);
  assert.is(readFileSync(path.join(cwd, 'verdicts', cacheFiles[0]!), 'utf8').trim().split('\n').length, 5);
  const verdicts = (out: string) => readFileSync(path.join(cwd, out, 'journal.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"type":"verdict"')).map((l) => JSON.parse(l) as { id: string; verdict: GateVerdict }).sort((a, b) => a.id.localeCompare(b.id));
  assert.equal(verdicts('b'), verdicts('a'), 'the second run journals the same verdicts (wall times included: they are the first run\'s)');
  const r = await runCli(['run', '--suites', 'jsonl:q.jsonl', '--out', 'c', '--attempts', '1', '--no-cache'], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.not.equal(verdicts('c').map((v) => v.verdict.wallMs), verdicts('a').map((v) => v.verdict.wallMs), '--no-cache: judged again');
  assert.equal(verdicts('c').map((v) => ({ ...v.verdict, wallMs: 0 })), verdicts('a').map((v) => ({ ...v.verdict, wallMs: 0 })));
});

test.after(() => sandbox.close());

test.run();
