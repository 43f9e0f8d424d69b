// The pyodide sandbox: the tests every Python sandbox passes (python-sandbox-tests.ts), and what
// is its own: its protections, and refusing programs that need a package it does not have.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPyodideSandbox } from '../../../plugins/sandboxes/pyodide/sandbox.js';
import { definePythonSandboxTests, failureOf, source } from './python-sandbox-tests.js';

// Pyodide's call limit is on wall time, which an honest call can exceed on a busy machine waiting
// for a CPU: its limit here is ten times the shared one (no shared test waits for a timeout).
const suite = definePythonSandboxTests(test, 'pyodide', (limits) => createPyodideSandbox({ limits: { ...limits, callTimeoutMs: 10 * (limits.callTimeoutMs ?? 600) } }));

test('states its protections, starting with a child process', () => {
  const { protections, insecure } = suite.sandbox();
  assert.ok(protections.some((p) => p.startsWith('child process')));
  assert.ok(protections.some((p) => p.includes('empty environment')));
  assert.not.ok(insecure);
});

test('a SPADE program that uses np without importing it is refused, naming numpy and --python-sandbox cpython', async () => {
  const failure = await failureOf(suite.sandbox().load({ id: 'np', language: 'python', source: source('packages/numpy_matrix.py') }));
  assert.is(failure?.kind, 'load');
  assert.match(failure!.message, /numpy/);
  assert.match(failure!.message, /--python-sandbox cpython/);
  const networkx = 'import networkx as nx\nclass GraphEnv:\n  def reset(self, seed=None): return "", {}\n  def step(self, a): return "", 0.0, True, False, {}\n';
  const refused = await failureOf(suite.sandbox().load({ id: 'nx', language: 'python', source: networkx }));
  assert.match(refused?.message ?? '', /networkx.*--python-sandbox cpython/);
});

suite.finish();
test.run();
