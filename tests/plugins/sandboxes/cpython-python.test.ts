// The cpython sandbox's `python` option: another interpreter (a virtual environment's), still
// run inside the jail, whose own packages programs can import; a folder the jail's user cannot
// read is refused with the reason.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { createCpythonSandbox } from '../../../plugins/sandboxes/cpython/sandbox.js';
import { tempDir } from '../../helpers/cli.js';
import type { EnvironmentProgram } from '../../../core/concepts/environment.js';

const jail = checkJail();

const PROGRAM: EnvironmentProgram = {
  id: 'venv-probe',
  language: 'python',
  source: `import venv_marker
import sys
class ProbeEnv:
    def reset(self, seed=None):
        return venv_marker.WORD + ' ' + sys.prefix, {}
    def step(self, action):
        return '', 0, True, False, {}
`,
};

/**
 * A virtual environment of Debian's python3 with Debian's packages and one of its own, readable by
 * the jail's user. Under /var/tmp, not /tmp: the jail gives each environment an empty /tmp.
 */
function makeVenv(): string {
  const root = mkdtempSync('/var/tmp/spade-venv-');
  process.on('exit', () => rmSync(root, { recursive: true, force: true }));
  chmodSync(root, 0o755);
  const venv = path.join(root, 'venv');
  const made = spawnSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', '--system-site-packages', venv], { encoding: 'utf8' });
  assert.is(made.status, 0, made.stderr);
  const lib = path.join(venv, 'lib');
  const site = path.join(lib, readdirSync(lib).find((n) => n.startsWith('python3'))!, 'site-packages');
  mkdirSync(site, { recursive: true });
  writeFileSync(path.join(site, 'venv_marker.py'), "WORD = 'from-the-venv'\n");
  spawnSync('chmod', ['-R', 'a+rX', venv]);
  return venv;
}

test('a virtual environment\'s interpreter runs in the jail, with its own packages', async () => {
  if (jail.problem) return console.log(`  skipped: ${jail.problem}`);
  const venv = makeVenv();
  const sandbox = createCpythonSandbox({ python: path.join(venv, 'bin/python3') });
  try {
    assert.ok(sandbox.protections.some((p) => p.includes(venv)), 'the interpreter is named among the protections');
    const env = await sandbox.load(PROGRAM);
    const reset = await env.reset(0);
    assert.is(reset.observation, `from-the-venv ${venv}`);
    await env.dispose();
  } finally {
    await sandbox.close();
  }
  // Debian's interpreter does not see the venv's package: the program is refused.
  const plain = createCpythonSandbox({});
  try {
    const failed = await plain.load(PROGRAM).then(() => undefined, (error: Error) => error);
    assert.ok(failed, 'the program needs the venv');
  } finally {
    await plain.close();
  }
});

test('an interpreter whose folder the jail cannot read is refused, saying why', () => {
  if (jail.problem) return;
  const hidden = tempDir('spade-hidden-');
  chmodSync(hidden, 0o700);
  mkdirSync(path.join(hidden, 'bin'));
  writeFileSync(path.join(hidden, 'bin/python3'), '');
  assert.throws(() => createCpythonSandbox({ python: path.join(hidden, 'bin/python3') }), /readable by other users/);
  assert.throws(() => createCpythonSandbox({ python: '/no/such/python3' }), /does not exist/);
  const underTmp = tempDir('spade-venv-');
  chmodSync(underTmp, 0o755);
  mkdirSync(path.join(underTmp, 'bin'));
  writeFileSync(path.join(underTmp, 'bin/python3'), '');
  assert.throws(() => createCpythonSandbox({ python: path.join(underTmp, 'bin/python3') }), /is under \/tmp.*elsewhere/);
});

test.run();
