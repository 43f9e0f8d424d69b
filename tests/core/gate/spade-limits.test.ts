// SPADE's time limits under --gate spade: 60 s for its whole validation of a program, 30 s for
// each call of a play, unless the config sets a call limit. The tests check that those values
// reach the sandbox (a recording wrapper around the real one), and prove that a call limit stops
// a program that never returns by the sandbox's own accounting (its `timeout` verdict), with a
// short limit: nothing here measures time.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gateLimits, SPADE_STEP_TIMEOUT_MS, SPADE_VALIDATE_TIMEOUT_MS, validateEnvironment } from '../../../core/gate/gate.js';
import { evaluateEnvironment, type EvaluationContext, type SandboxSet } from '../../../core/run/evaluate.js';
import { createRegistry, createSandboxSet } from '../../../core/setup/setup.js';
import { DEFAULT_CONFIG } from '../../../core/config/config.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { fixture } from '../../fixtures/programs/load.js';
import type { Agent, EnvironmentProgram, Sandbox, SandboxLimits, SpadeValidateOptions } from '../../../core/types.js';

const python = createSandboxSet(createRegistry(), DEFAULT_CONFIG);
const javascript = createIsolatedVmSandbox();
test.after(async () => {
  await python.close();
  await javascript.close();
});

/** The sandbox, recording the limits of every load and the options of every SPADE validation. */
function recording(sandbox: Sandbox) {
  const loads: (Partial<SandboxLimits> | undefined)[] = [];
  const validations: (SpadeValidateOptions | undefined)[] = [];
  const wrapped: Sandbox = {
    ...sandbox,
    id: sandbox.id,
    languages: sandbox.languages,
    protections: sandbox.protections,
    load: (program, limits, options) => {
      loads.push(limits);
      return sandbox.load(program, limits, options);
    },
    ...(sandbox.spadeValidate && {
      spadeValidate: (program: EnvironmentProgram, limits?: Partial<SandboxLimits>, options?: SpadeValidateOptions) => {
        validations.push(options);
        return sandbox.spadeValidate!(program, limits, options);
      },
    }),
    close: () => sandbox.close(),
  };
  return { sandbox: wrapped, loads, validations };
}

const answering = (reply: string): Agent => ({ id: 'fixed', label: 'fixed', kind: 'reference', start: () => ({ act: async () => ({ reply }) }) });
const setOf = (sandbox: Sandbox): SandboxSet => ({ get: async () => sandbox, close: async () => {} });

/** A SPADE-format game that passes SPADE's checks and never returns from the step that answers 7. */
const hangsOnSeven: EnvironmentProgram = {
  id: 'hangs-on-seven',
  language: 'python',
  source: [
    'class SevenEnv:',
    '    def reset(self, seed=None):',
    '        return "Say a number in \\\\boxed{}.", {}',
    '    def step(self, action):',
    '        if "7" in action:',
    '            while True:',
    '                pass',
    '        return "No.", 0.0, True, False, {}',
  ].join('\n'),
};

function context(sandboxes: SandboxSet, limits: Partial<SandboxLimits>, agent: Agent): EvaluationContext {
  return { suite: 's', sandboxes, agent, limits, attempts: 1, withHint: false, gate: 'spade', runSeed: 1 };
}

test('under SPADE\'s gate a run\'s calls get 30 s unless the config sets a call limit; other gates keep the config\'s', () => {
  assert.is(SPADE_VALIDATE_TIMEOUT_MS, 60_000);
  assert.is(SPADE_STEP_TIMEOUT_MS, 30_000);
  assert.equal(gateLimits('spade', {}), { callTimeoutMs: 30_000 });
  assert.equal(gateLimits('spade', { memoryMb: 32 }), { memoryMb: 32, callTimeoutMs: 30_000 });
  assert.equal(gateLimits('spade', { callTimeoutMs: 500 }), { callTimeoutMs: 500 });
  assert.equal(gateLimits('strict', {}), {});
  assert.equal(gateLimits(undefined, { callTimeoutMs: 7 }), { callTimeoutMs: 7 });
});

test('a Python program under SPADE\'s gate: its validation is given 60 s, its plays 30 s a call', async () => {
  const { sandbox, loads, validations } = recording(await python.get('python'));
  const program: EnvironmentProgram = { ...hangsOnSeven, id: 'fine' };
  const evaluation = await evaluateEnvironment(program, 3, context(setOf(sandbox), gateLimits('spade', {}), answering('\\boxed{1}')));
  assert.is(evaluation.verdict.verdict, 'valid', JSON.stringify(evaluation.verdict.readings));
  assert.equal(validations, [{ timeoutMs: SPADE_VALIDATE_TIMEOUT_MS }]);
  assert.ok(loads.length >= 2, 'the strict reading and the play loaded it');
  for (const limits of loads) assert.is(limits?.callTimeoutMs, SPADE_STEP_TIMEOUT_MS);
  assert.is(evaluation.episodes.length, 1);
});

test('under the strict gate SPADE\'s validation keeps the call limit for each of its calls', async () => {
  const { sandbox, validations } = recording(await python.get('python'));
  await validateEnvironment(sandbox, { ...hangsOnSeven, id: 'fine-strict' }, { gate: 'strict', limits: { callTimeoutMs: 1000 } });
  assert.equal(validations, [{}]);
});

test('a JavaScript program (SPADE\'s checks through the contract): each of their calls is given the validation\'s 60 s', async () => {
  const { sandbox, loads } = recording(javascript);
  await validateEnvironment(sandbox, fixture('valid/sum-single-answer'), { gate: 'spade', limits: gateLimits('spade', {}) });
  assert.is(loads[0]?.callTimeoutMs, SPADE_VALIDATE_TIMEOUT_MS, 'SPADE\'s checks');
  assert.ok(loads.slice(1).every((l) => l?.callTimeoutMs === SPADE_STEP_TIMEOUT_MS), 'the strict reading\'s calls');
});

test('a step that never returns is stopped by the call limit: the play errors as a timeout (the sandbox\'s verdict)', async () => {
  const sandbox = await python.get('python');
  // A short call limit in place of SPADE's 30 s, so the test does not wait; the gate's validation gets its own.
  const evaluation = await evaluateEnvironment(hangsOnSeven, 3, context(setOf(sandbox), { callTimeoutMs: 300 }, answering('\\boxed{7}')));
  assert.is(evaluation.verdict.verdict, 'valid', 'SPADE\'s checks never answer 7');
  const [episode] = evaluation.episodes;
  assert.is(episode!.outcome, 'errored');
  assert.is(episode!.errorKind, 'timeout');
  assert.match(episode!.error!, 'step()');
});

test('a validation that never ends is stopped by its whole-validation limit: invalid, timeout', async () => {
  const sandbox = await python.get('python');
  const forever: EnvironmentProgram = { id: 'forever', language: 'python', source: 'class ForeverEnv:\n    def reset(self, seed=None):\n        while True:\n            pass\n    def step(self, action):\n        return "x", 0.0, True, False, {}\n' };
  const verdict = await validateEnvironment(sandbox, forever, { gate: 'spade', spadeValidateMs: 300, limits: { callTimeoutMs: 300 } });
  assert.is(verdict.verdict, 'invalid');
  assert.is(verdict.reason, 'timeout');
  assert.is(verdict.readings!.spade.reason, 'timeout');
});

test.run();
