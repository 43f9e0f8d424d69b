import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SandboxError } from '../../../core/types.js';
import type { LoadedEnvironment } from '../../../core/types.js';
import { createVm2Sandbox } from '../../../plugins/sandboxes/vm2.js';

const sandbox = createVm2Sandbox({ limits: { callTimeoutMs: 2000, maxOutputBytes: 16 * 1024 } });

const GUESS = `
export default class GuessEnv {
  reset(seed) {
    this.secret = 1 + Math.floor(Math.random() * 100);
    this.lo = 1; this.hi = 100;
    return ['Guess a number from 1 to 100 in \\\\boxed{}. Today is ' + new Date().toISOString(), { seed }];
  }
  step(action) {
    const m = /\\\\boxed\\{(\\d+)\\}/.exec(action);
    const guess = m ? Number(m[1]) : NaN;
    if (guess === this.secret) return ['Correct', 1, true, false, {}];
    return [guess < this.secret ? 'higher' : 'lower', 0, false, false, { guess }];
  }
  solution() {
    return '\\\\boxed{' + this.secret + '}';
  }
  referenceAction(observation) {
    const m = /^(higher|lower)$/.exec(observation);
    if (m && this.last !== undefined) { if (m[1] === 'higher') this.lo = this.last + 1; else this.hi = this.last - 1; }
    this.last = Math.floor((this.lo + this.hi) / 2);
    return '\\\\boxed{' + this.last + '}';
  }
}`;

function program(body: string): string {
  return `class Env {\n  reset(seed) { ${body.includes('RESET:') ? body.split('RESET:')[1] : "return ['ok', {}];"} }\n  step(action) { ${body.includes('RESET:') ? "return ['ok', 0, false, false, {}];" : body} }\n}`;
}

async function failure(source: string, run: (env: LoadedEnvironment) => Promise<unknown>): Promise<SandboxError> {
  try {
    const env = await sandbox.load({ id: 'x', language: 'javascript', source });
    await run(env);
  } catch (error) {
    if (error instanceof SandboxError) return error;
    throw error;
  }
  throw new Error('expected a SandboxError');
}

const step = (env: LoadedEnvironment) => env.reset(1).then(() => env.step('\\boxed{1}'));

test('says plainly that it is not a security boundary', () => {
  assert.is(sandbox.insecure, true);
  assert.match(sandbox.protections[0]!, /^NOT a security boundary/);
  assert.ok(sandbox.protections.some((p) => /NO memory limit/.test(p)));
});

test('a JavaScript environment loads and its reference policy wins', async () => {
  const env = await sandbox.load({ id: 'guess', language: 'javascript', source: GUESS });
  assert.equal(env.capabilities, { solution: true, hint: false, referenceAction: true, tools: false });
  let { observation } = await env.reset(3);
  let won = false;
  for (let turn = 0; turn < 8 && !won; turn++) {
    const result = await env.step(await env.referenceAction(observation));
    observation = result.observation;
    won = result.reward === 1 && result.terminated;
  }
  assert.ok(won);
});

test('Math.random is seeded from reset(seed) and Date is fixed', async () => {
  const a = await sandbox.load({ id: 'a', language: 'javascript', source: GUESS });
  const b = await sandbox.load({ id: 'b', language: 'javascript', source: GUESS });
  const first = await a.reset(9);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const second = await b.reset(9);
  assert.is(first.observation, second.observation);
  assert.equal(await a.step('\\boxed{50}'), await b.step('\\boxed{50}'));
  const secrets = new Set<string>();
  for (const seed of [1, 2, 3, 4]) {
    await a.reset(seed);
    secrets.add(await a.solution());
  }
  assert.ok(secrets.size > 1, 'different seeds should give different secrets');
});

test('an endless loop ends as timeout, and the next environment works', async () => {
  assert.is((await failure(program('while (true) {}'), step)).kind, 'timeout');
  const env = await sandbox.load({ id: 'after', language: 'javascript', source: GUESS });
  assert.match((await env.reset(1)).observation, /Guess a number/);
});

test('reaching for the host is refused and classified', async () => {
  assert.is((await failure(program("return [require('fs').readFileSync('/etc/passwd', 'utf8'), 0, true, false, {}];"), step)).kind, 'escape-attempt');
  assert.is((await failure(program("return [String(process.env), 0, true, false, {}];"), step)).kind, 'escape-attempt');
  const viaConstructor = await failure(program("const p = this.constructor.constructor('return process')(); return [String(p.pid), 0, true, false, {}];"), step);
  assert.is(viaConstructor.kind, 'crash');
  assert.match(viaConstructor.message, /EvalError|not allowed|Code generation/i);
  assert.is((await failure("import fs from 'node:fs';\nexport default class E { reset() { return ['', {}]; } step() { return ['', 0, true, false, {}]; } }", step)).kind, 'escape-attempt');
});

test('contract breaks, oversized output and syntax errors are classified', async () => {
  assert.is((await failure(program("return ['ok', NaN, true, false, {}];"), step)).kind, 'contract');
  assert.is((await failure(program("return ['x'.repeat(100000), 0, true, false, {}];"), step)).kind, 'output-limit');
  assert.is((await failure(program('RESET: return { observation: 1 };'), (env) => env.reset(1))).kind, 'contract');
  assert.is((await failure('class Env { reset( { }', step)).kind, 'syntax');
  assert.is((await failure('class Nothing {}', step)).kind, 'load');
  assert.is((await failure(program("return ['ok', 0, true, false, {}];"), (env) => env.solution())).kind, 'missing-method');
});

test('polluting built-ins in one environment is not seen by the next', async () => {
  const polluter = await sandbox.load({
    id: 'polluter',
    language: 'javascript',
    source: program("RESET: Array.prototype.join = () => 'polluted'; Math.max = () => -1; JSON.stringify = () => 'x'; return ['done', {}];"),
  });
  await polluter.reset(1);
  const probe = await sandbox.load({ id: 'probe', language: 'javascript', source: program("RESET: return [[1, 2].join('-') + ' ' + Math.max(3, 4), {}];") });
  assert.is((await probe.reset(1)).observation, '1-2 4');
});

test('calls past maxCalls fail with call-limit', async () => {
  const env = await sandbox.load({ id: 'calls', language: 'javascript', source: GUESS }, { maxCalls: 2 });
  await env.reset(1);
  await env.step('\\boxed{1}');
  const error = await env.step('\\boxed{2}').then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof SandboxError);
  assert.is(error.kind, 'call-limit');
});

test.run();
