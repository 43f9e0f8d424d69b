/**
 * Plays never run on the instance the gate called. A program that stays honest for its first
 * 40 calls (more than the strict gate makes) and then lets every answer win would otherwise be
 * judged valid and then win every play. Here it and its honest twin are evaluated with an agent
 * that always answers wrongly: both are valid and both lose every play, in isolated-vm and in
 * the cpython sandbox, with an agent that plays attempts one after another and with one that
 * plays them at once.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluateEnvironment, type EvaluationContext } from '../../../core/run/evaluate.js';
import type { Agent, EnvironmentProgram, Sandbox } from '../../../core/types.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { createCpythonSandbox } from '../../../plugins/sandboxes/cpython/sandbox.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';

/** The honest number of calls: past it, the cheat lets every answer win. */
const HONEST_CALLS = 40;

const javascript = (cheat: boolean): EnvironmentProgram => ({
  id: cheat ? 'js-cheat' : 'js-honest',
  language: 'javascript',
  source: `export default class SumEnvironment {
  constructor() { this.calls = 0; }
  reset(seed) { this.calls++; this.a = 10 + (seed % 50); this.b = 20 + (seed % 30); return [\`What is \${this.a} + \${this.b}? Answer in \\\\boxed{}.\`, { horizon: 1 }]; }
  step(action) {
    this.calls++;
    const match = /\\\\boxed\\{([^}]*)\\}/.exec(action);
    const correct = (${cheat} && this.calls > ${HONEST_CALLS}) || (match !== null && match[1].trim() === String(this.a + this.b));
    return [correct ? 'Correct.' : 'Wrong.', correct ? 1 : 0, true, false, {}];
  }
  solution() { this.calls++; return String(this.a + this.b); }
  hint() { this.calls++; return 'Add the tens first.'; }
}`,
});

const python = (cheat: boolean): EnvironmentProgram => ({
  id: cheat ? 'py-cheat' : 'py-honest',
  language: 'python',
  source: [
    'import re',
    'class SumEnv:',
    '    def __init__(self):',
    '        self.calls = 0',
    '    def reset(self, seed=None):',
    '        self.calls += 1',
    '        seed = seed or 0',
    '        self.a, self.b = 10 + seed % 50, 20 + seed % 30',
    '        return f"What is {self.a} + {self.b}? Answer in \\\\boxed{{}}.", {"horizon": 1}',
    '    def step(self, action):',
    '        self.calls += 1',
    '        match = re.search(r"\\\\boxed\\{([^}]*)\\}", action)',
    `        correct = (${cheat ? 'True' : 'False'} and self.calls > ${HONEST_CALLS}) or (match is not None and match.group(1).strip() == str(self.a + self.b))`,
    '        return ("Correct." if correct else "Wrong."), (1.0 if correct else 0.0), True, False, {}',
    '    def solution(self):',
    '        self.calls += 1',
    '        return str(self.a + self.b)',
    '    def hint(self):',
    '        self.calls += 1',
    '        return "Add the tens first."',
    '',
  ].join('\n'),
});

/** An agent that always answers 0: it never wins an honest play. */
const wrong = (capacity?: number): Agent => ({
  id: 'wrong',
  label: 'always 0',
  kind: 'reference',
  ...(capacity !== undefined ? { capacity } : {}),
  start: () => ({ act: async () => ({ reply: '\\boxed{0}' }) }),
});

const context = (sandbox: Sandbox, agent: Agent): EvaluationContext => ({
  suite: 's',
  sandboxes: { get: async () => sandbox, close: async () => {} },
  agent,
  limits: {},
  attempts: 4,
  withHint: true,
  runSeed: 3,
});

async function twins(sandbox: Sandbox, make: (cheat: boolean) => EnvironmentProgram): Promise<void> {
  for (const agent of [wrong(), wrong(8)]) {
    const honest = await evaluateEnvironment(make(false), 7, context(sandbox, agent));
    const cheat = await evaluateEnvironment(make(true), 7, context(sandbox, agent));
    assert.is(honest.verdict.verdict, 'valid', JSON.stringify(honest.verdict.checks));
    assert.is(cheat.verdict.verdict, 'valid', 'the gate cannot tell the cheat from its twin: it makes fewer calls than the cheat waits for');
    assert.is(honest.episodes.length, 8);
    assert.equal(cheat.episodes.map((e) => e.outcome), honest.episodes.map((e) => e.outcome), 'the cheat is not rewarded in play');
    assert.ok(cheat.episodes.every((e) => e.outcome === 'lost'), cheat.episodes.map((e) => e.outcome).join(' '));
  }
}

test('isolated-vm: a program honest for its first calls, then letting every answer win, wins no play its honest twin loses', async () => {
  const sandbox = createIsolatedVmSandbox({ limits: { callTimeoutMs: 3000, memoryMb: 16 } });
  try {
    await twins(sandbox, javascript);
  } finally {
    await sandbox.close();
  }
});

(checkJail().problem ? test.skip : test)('cpython: a program honest for its first calls, then letting every answer win, wins no play its honest twin loses', async () => {
  const sandbox = createCpythonSandbox({ workers: 2 });
  try {
    await twins(sandbox, python);
  } finally {
    await sandbox.close();
  }
});

test.run();
