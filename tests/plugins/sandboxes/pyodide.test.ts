import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SandboxError } from '../../../core/types.js';
import type { LoadedEnvironment, Sandbox } from '../../../core/types.js';
import { createPyodideSandbox } from '../../../plugins/sandboxes/pyodide/sandbox.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/python');
const ESCAPE_PROOF = '/tmp/spade-bench-escape-proof';
const SECRET = 'sk-fake-secret-5b1c0d7e';

process.env.SPADE_BENCH_FAKE_SECRET = SECRET;
rmSync(ESCAPE_PROOF, { force: true });
const sandbox: Sandbox = createPyodideSandbox({ limits: { callTimeoutMs: 600, memoryMb: 48, maxOutputBytes: 32 * 1024 } });

function source(name: string): string {
  return readFileSync(path.join(fixtures, name), 'utf8');
}

function load(name: string, text = source(name)): Promise<LoadedEnvironment> {
  return sandbox.load({ id: name, language: 'python', source: text });
}

async function failureOf(promise: Promise<unknown>): Promise<SandboxError | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    return error;
  }
}

/** A well-behaved environment still loads and wins after whatever ran before it. */
async function assertNextEnvironmentWorks(after: string): Promise<void> {
  const env = await load('word_sort.py');
  await env.reset(11);
  const answer = await env.solution();
  const result = await env.step(answer);
  assert.is(result.reward, 1, `a good environment failed after ${after}`);
  await env.dispose();
}

test.after(() => sandbox.close());

test('states its protections, starting with a child process', () => {
  assert.ok(sandbox.protections.some((p) => p.startsWith('child process')));
  assert.ok(sandbox.protections.some((p) => p.includes('empty environment')));
  assert.not.ok(sandbox.insecure);
});

test('a multi-turn environment that forgets to import random loads, and its reference policy wins', async () => {
  const env = await load('guess_number.py');
  assert.equal(env.capabilities, { solution: false, hint: true, referenceAction: true });
  let { observation } = await env.reset(42);
  assert.match(observation, /between 1 and 100/);
  let won = false;
  for (let turn = 0; turn < 10 && !won; turn++) {
    const result = await env.step(await env.referenceAction(observation));
    observation = result.observation;
    won = result.terminated && result.reward === 1;
  }
  assert.ok(won, 'binary search should find the number within 10 turns');
  assert.match(await env.hint(), /The number is (even|odd)/);
  await env.dispose();
});

test('the same seed gives the same episode; another seed another one', async () => {
  const first = await load('guess_number.py');
  const second = await load('guess_number.py');
  await first.reset(7);
  await second.reset(7);
  const a = await first.step('\\boxed{50}');
  const b = await second.step('\\boxed{50}');
  assert.equal(a, b);
  const texts = new Set<string>();
  for (const seed of [1, 2, 3, 4, 5]) {
    await first.reset(seed);
    texts.add((await first.step('\\boxed{50}')).observation);
  }
  assert.ok(texts.size > 1, 'different seeds should give different secrets');
});

test('an environment importing math_verify checks equivalent answers', async () => {
  const env = await load('fraction_sum.py');
  const { observation } = await env.reset(3);
  assert.match(observation, /^Compute \d+\/\d+ \+ \d+\/\d+ \+ \d+\/\d+/);
  const solution = await env.solution();
  assert.match(solution, /\\boxed\{/);
  assert.is((await env.step(solution)).reward, 1);
  await env.reset(3);
  assert.is((await env.step('I think it is \\boxed{0}')).reward, 0);
  // The same value written as a decimal is accepted (math_verify's numeric equivalence).
  const fraction = /\\frac\{(\d+)\}\{(\d+)\}/.exec(solution);
  if (fraction) {
    await env.reset(3);
    const decimal = (Number(fraction[1]) / Number(fraction[2])).toPrecision(12);
    assert.is((await env.step(`\\boxed{${decimal}}`)).reward, 1);
  }
});

test('typing names and collections are injected; hint() is privileged text', async () => {
  const env = await load('word_sort.py');
  const { observation, info } = await env.reset(5);
  assert.match(observation, /Sort these words/);
  assert.type(info.letters, 'number');
  assert.match(await env.hint(), /^The first word is [a-z]+$/);
  assert.is((await env.step('\\boxed{zebra}')).reward, 0);
  const missing = await failureOf((await load('fraction_sum.py')).hint());
  assert.is(missing?.kind, 'missing-method');
});

test('time is fixed and calls past maxCalls fail with call-limit', async () => {
  const text = 'import time\nclass E:\n  def reset(self, seed=None): return str(time.time()), {}\n  def step(self, a): return "o", 0.0, False, False, {}\n';
  const env = await sandbox.load({ id: 'clock', language: 'python', source: text }, { maxCalls: 2 });
  const first = await env.reset(1);
  const second = await env.reset(1);
  assert.is(first.observation, second.observation);
  assert.is((await failureOf(env.step('x')))?.kind, 'call-limit');
});

test('datetime reads the same fixed moment as time, and a program cannot change it for the next one', async () => {
  const clock = [
    'import datetime',
    'from datetime import date, timezone',
    'class E:',
    '  def reset(self, seed=None):',
    '    now = datetime.datetime.now()',
    '    text = "|".join([str(now), str(date.today()), datetime.datetime.now(timezone.utc).isoformat(), str(datetime.datetime.utcnow()), str(now - datetime.timedelta(days=1))])',
    '    datetime.datetime = None',
    '    return text, {}',
    '  def step(self, a): return "o", 0.0, True, False, {}',
  ].join('\n');
  for (const id of ['clock-1', 'clock-2']) {
    const env = await sandbox.load({ id, language: 'python', source: clock });
    assert.is((await env.reset(1)).observation, '2023-11-14 22:13:20|2023-11-14|2023-11-14T22:13:20+00:00|2023-11-14 22:13:20|2023-11-13 22:13:20', id);
    await env.dispose();
  }
});

interface Expectation {
  file: string;
  kind: string;
  at: string;
}

const hostile: Expectation[] = readdirSync(path.join(fixtures, 'hostile'))
  .filter((file) => file.endsWith('.py'))
  .sort()
  .map((file) => {
    const header = /^# expect: (\S+) at (\S+)/.exec(source(`hostile/${file}`));
    if (!header) throw new Error(`${file} has no "# expect: KIND at METHOD" header`);
    return { file, kind: header[1]!, at: header[2]! };
  });

async function provoke(expectation: Expectation): Promise<{ error: SandboxError | undefined; observation?: string }> {
  const text = source(`hostile/${expectation.file}`);
  let env: LoadedEnvironment;
  try {
    env = await load(expectation.file, text);
  } catch (error) {
    if (error instanceof SandboxError) return { error };
    throw error;
  }
  if (expectation.at === 'load') return { error: undefined };
  let observation: string;
  try {
    observation = (await env.reset(1)).observation;
    if (expectation.at === 'step') await env.step('\\boxed{1}');
    if (expectation.at === 'step:test') {
      await env.step('1');
      await env.step('2');
      await env.step('test');
    }
  } catch (error) {
    if (error instanceof SandboxError) return { error };
    throw error;
  } finally {
    await env.dispose();
  }
  return { error: undefined, observation };
}

test('the hostile corpus has at least 15 programs', () => {
  assert.ok(hostile.length >= 15, `only ${hostile.length} hostile programs`);
});

for (const expectation of hostile) {
  test(`hostile ${expectation.file}: ${expectation.kind} at ${expectation.at}, and the next environment works`, async () => {
    const { error, observation } = await provoke(expectation);
    if (expectation.kind === 'ok') assert.is(error, undefined, `unexpected ${error?.kind}: ${error?.message}`);
    else if (expectation.kind !== 'any') assert.is(error?.kind, expectation.kind, error ? `${error.kind}: ${error.message}` : 'no failure');
    if (observation !== undefined) {
      assert.not.ok(observation.includes(SECRET), 'the host secret is visible inside');
      assert.not.ok(observation.includes('root:'), 'a host file was read');
    }
    await assertNextEnvironmentWorks(expectation.file);
  });
}

test('polluted builtins and shared modules are not seen by the next environment', async () => {
  await (await load('hostile/pollute_builtins.py')).reset(1);
  const probe = 'import math, json\nclass E:\n  def reset(self, seed=None): return f"{len(\'abc\')} {math.pi:.5f} {json.dumps([1])} {sorted([2, 1])}", {}\n  def step(self, a): return "o", 0.0, False, False, {}\n';
  const env = await sandbox.load({ id: 'probe', language: 'python', source: probe });
  assert.is((await env.reset(1)).observation, '3 3.14159 [1] [1, 2]');
});

test('no escape wrote a host file', async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.not.ok(existsSync(ESCAPE_PROOF), `${ESCAPE_PROOF} was written from inside the sandbox`);
});

test.run();
