// SPADE's reset gate of its tool-use runs, after its validation: a game one of whose success
// criteria raises on the initial state at every seed (0, 1, 2) is rejected. The answers are SPADE's
// own criteria_throw_at_reset, run once with Debian's python3 (tests/fixtures/spade-reset-gate/).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateEnvironment } from '../../../core/gate/gate.js';
import { evaluateEnvironment, type SandboxSet } from '../../../core/run/evaluate.js';
import { createRegistry, createSandboxSet } from '../../../core/setup/setup.js';
import { DEFAULT_CONFIG } from '../../../core/config/config.js';
import type { Agent, EnvironmentProgram } from '../../../core/types.js';

const folder = fileURLToPath(new URL('../../fixtures/spade-reset-gate/', import.meta.url));
const recorded = JSON.parse(readFileSync(path.join(folder, 'spade-answers.json'), 'utf8')) as { rejects: Record<string, boolean> };
const programOf = (file: string): EnvironmentProgram => ({ id: path.basename(file, '.py'), language: 'python', source: readFileSync(path.join(folder, file), 'utf8') });
const sandboxes = createSandboxSet(createRegistry(), DEFAULT_CONFIG);
const pyodide = createSandboxSet(createRegistry(), { ...DEFAULT_CONFIG, pythonSandbox: 'pyodide' });
test.after(async () => {
  await Promise.all([sandboxes.close(), pyodide.close()]);
});

test('the record rejects one program and keeps the others', () => {
  assert.equal(Object.entries(recorded.rejects).filter(([, rejects]) => rejects).map(([file]) => file), ['criterion_raises_every_seed.py']);
});

test('with the reset gate the spade reading gives SPADE\'s answer for every program, in both Python sandboxes', async () => {
  for (const set of [sandboxes, pyodide]) {
    const sandbox = await set.get('python');
    for (const [file, rejects] of Object.entries(recorded.rejects)) {
      const program = programOf(file);
      const without = await validateEnvironment(sandbox, program, { gate: 'spade', maxTurns: 25 });
      assert.is(without.readings!.spade.verdict, 'valid', `${file}: SPADE's validation passes it (${sandbox.id})`);
      const withGate = await validateEnvironment(sandbox, program, { gate: 'spade', maxTurns: 25, resetGate: true });
      assert.is(withGate.readings!.spade.verdict, rejects ? 'invalid' : 'valid', `${file} (${sandbox.id})`);
      if (rejects) {
        assert.is(withGate.reason, 'reset-gate');
        assert.match(withGate.readings!.spade.detail!, 'Reset-solvability gate');
        assert.is(withGate.readings!.strict.verdict, 'invalid', 'strict rejects everything SPADE rejects');
      }
    }
  }
});

test('a self-play evaluation applies it from the second round on, as SPADE skips its first', async () => {
  const program = programOf('criterion_raises_every_seed.py');
  const agent: Agent = { id: 'done', label: 'done', kind: 'reference', start: () => ({ act: async () => ({ reply: '<answer>done</answer>' }) }) };
  const set: SandboxSet = sandboxes;
  const context = { suite: 'spade', sandboxes: set, agent, limits: {}, attempts: 1, withHint: false, gate: 'spade' as const, runSeed: 1, maxTurns: 25, resetGate: true, validateOnly: true };
  assert.is((await evaluateEnvironment(program, 1, { ...context, round: 0 })).verdict.verdict, 'valid');
  const later = await evaluateEnvironment(program, 1, { ...context, round: 1 });
  assert.is(later.verdict.verdict, 'invalid');
  assert.is(later.verdict.reason, 'reset-gate');
});

test.run();
