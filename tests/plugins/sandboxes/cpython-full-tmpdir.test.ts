/**
 * A full temporary folder: the cpython sandbox writes its own files there as it is set up
 * (server.py, the loader, its compiled seccomp filter, the pipes' names). The command says so
 * and exits 2, rather than dying of an uncaught ENOSPC. The folder is a tiny tmpfs, filled
 * before the command starts, made by bubblewrap around the command (skipped where that needs
 * privileges this machine does not give).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot, tempDir } from '../../helpers/cli.js';
import { checkJail, findExecutable } from '../../../plugins/sandboxes/cpython/jail.js';

const bwrap = findExecutable('bwrap');
const full = path.join(tempDir('spade-full-tmpdir-'), 'tmp');
mkdirSync(full);
/** Run `script` with `full` a 128 KiB tmpfs; null when bubblewrap cannot make one here. */
const inFullTmp = (script: string): ReturnType<typeof spawnSync> | null => {
  const probe = spawnSync(bwrap ?? 'bwrap', ['--dev-bind', '/', '/', '--size', '131072', '--tmpfs', full, '--', 'true']);
  if (probe.status !== 0) return null;
  return spawnSync(bwrap!, ['--dev-bind', '/', '/', '--size', '131072', '--tmpfs', full, '--', 'sh', '-c', `head -c 200000 /dev/zero > ${full}/fill 2>/dev/null; ${script}`], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, TMPDIR: full, FORCE_COLOR: '0' },
    timeout: 120_000,
  });
};

(checkJail().problem || !bwrap ? test.skip : test)('validate --python-sandbox cpython with a full TMPDIR: exit 2 and what to do', () => {
  const node = `exec ${JSON.stringify(process.execPath)} --no-node-snapshot --import tsx core/cli/bin.ts validate --python-sandbox cpython tests/fixtures/python/guess_number.py`;
  const result = inFullTmp(node);
  if (result === null) {
    console.log('skipped: bubblewrap cannot mount a tmpfs around the command here');
    return;
  }
  assert.is(result.status, 2, String(result.stderr));
  assert.match(String(result.stderr), new RegExp(`the temporary folder ${full} is full.*set TMPDIR to another folder`));
  assert.not.match(String(result.stderr), /ENOSPC|at .*\.ts:\d+/, 'no stack trace');
});

test.run();
