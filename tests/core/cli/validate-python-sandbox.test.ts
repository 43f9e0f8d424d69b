// Choosing the Python sandbox from the command line: `validate --python-sandbox cpython` holds
// the whole Python hostile corpus (every program classified, the next good program still valid,
// nothing reaching the host, no process left behind, the command itself unharmed); a SPADE
// program using `np` validates under cpython and is refused under pyodide with a reason that
// says what to do; where the jail cannot be set up, cpython refuses with exit 2 and the fix, and
// `list` says which Python sandbox is in force and why.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { repoRoot, runCli, startCli, tempDir } from '../../helpers/cli.js';
import { hostileExpectations, hostileSource } from '../../fixtures/python/hostile.js';
import { nestedNamespaces, processesIn } from '../../helpers/processes.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';

const fixtures = path.join(repoRoot, 'tests/fixtures/python');
const goodPython = path.join(fixtures, 'guess_number.py');
const numpyProgram = path.join(fixtures, 'packages/numpy_matrix.py');
const SECRET = 'sk-hostile-cli-secret-31d9c2';
const MARKER = 'spade-hostile-write-marker';
const ESCAPE_PROOF = '/tmp/spade-bench-escape-proof';

interface Verdict {
  file: string;
  verdict: 'valid' | 'unproven' | 'invalid';
  reason: string | null;
  checks: { name: string; ok: boolean; detail?: string }[];
}

/** A folder holding a fake `bwrap` that fails the way a machine without user namespaces does, and nothing else. */
function pathWithBrokenBwrap(): string {
  const bin = tempDir('spade-fake-bwrap-');
  chmodSync(bin, 0o755); // a root host starts bwrap as uid 65534
  writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
  chmodSync(path.join(bin, 'bwrap'), 0o755);
  return bin;
}

// Where cpython's jail cannot be set up here, the tests that run it are skipped, with the reason.
const jailProblem = checkJail().problem;
if (jailProblem) console.log(`skipped: the cpython sandbox cannot start here: ${jailProblem}`);
const withJail = jailProblem ? test.skip : test;

withJail('validate --python-sandbox cpython holds the whole Python hostile corpus, old and new', async () => {
  const home = tempDir('spade-hostile-home-');
  const cwd = tempDir('spade-hostile-cwd-');
  const dataCache = path.join(home, '.cache', 'spade-bench');
  mkdirSync(dataCache, { recursive: true });
  const hostFolders = [home, cwd, dataCache, repoRoot];
  let connections = 0;
  const listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as { port: number }).port;

  // The corpus, with this test's listener and host folders written in, each followed by a good program.
  const corpus = hostileExpectations('cpython');
  assert.ok(corpus.length >= 38, `the whole corpus (${corpus.length})`);
  const programs = tempDir('spade-hostile-programs-');
  const files = corpus.flatMap(({ file }) => {
    const copy = path.join(programs, file);
    writeFileSync(copy, hostileSource(file, { listenerPort: port, hostFolders }));
    return [copy, goodPython];
  });

  const { child, done } = startCli(['validate', '--json', '--python-sandbox', 'cpython', ...files], {
    cwd,
    env: { SPADE_BENCH_FAKE_SECRET: SECRET, HOME: home },
  });
  const namespaces = new Set<string>();
  const watch = setInterval(() => child.pid && nestedNamespaces(child.pid).forEach((ns) => namespaces.add(ns)), 50);
  const r = await done;
  clearInterval(watch);
  listener.close();

  assert.is(r.code, 1, `exit 1 (some program is invalid), not a crash: ${r.stderr.slice(-2000)}`);
  const verdicts = JSON.parse(r.stdout) as Verdict[];
  assert.is(verdicts.length, files.length, 'a verdict for every program');
  corpus.forEach((expected, i) => {
    const hostile = verdicts[2 * i]!;
    const got = hostile.verdict !== 'invalid' ? 'ok' : hostile.reason === 'smoke-test' ? 'crash' : hostile.reason!;
    if (!['ok', 'any'].includes(expected.kind)) {
      assert.is(got, expected.kind, `${expected.file}: ${JSON.stringify(hostile.checks.filter((c) => !c.ok))}`);
    }
    // A loop that SPADE's checks meet is theirs to time, as one request: the message says so.
    if (expected.file === 'loop_in_step.py') {
      assert.match(hostile.checks.find((c) => !c.ok)?.detail ?? '', /^timeout: SPADE's checks \(run as one request, given the time of 12 calls of \d+ ms, and 500 ms to load\): the call ran past its time limit of \d+ ms/, JSON.stringify(hostile.checks));
    }
    const next = verdicts[2 * i + 1]!;
    assert.is(next.verdict, 'valid', `the good program after ${expected.file} is still valid: ${JSON.stringify(next.checks.filter((c) => !c.ok))}`);
  });

  assert.not.ok(`${r.stdout}${r.stderr}`.includes(SECRET), 'the key is in no output');
  assert.not.ok(existsSync(ESCAPE_PROOF), `${ESCAPE_PROOF} was written on the host`);
  for (const folder of [...hostFolders, '/tmp', '/dev/shm']) assert.not.ok(existsSync(path.join(folder, MARKER)), `a program wrote in ${folder}`);
  assert.is(connections, 0, 'no program reached the listener on 127.0.0.1');
  assert.ok(namespaces.size > 0, 'the programs ran in PID namespaces of their own');
  for (let waited = 0; waited < 30_000 && processesIn(namespaces).length > 0; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(processesIn(namespaces), [], 'no process is left behind');
});

withJail('a SPADE program that uses np without importing it: valid under cpython, refused under pyodide with what to do', async () => {
  let r = await runCli(['validate', '--json', '--python-sandbox', 'cpython', numpyProgram]);
  assert.is(r.code, 0, r.stderr);
  assert.is((JSON.parse(r.stdout) as Verdict[])[0]!.verdict, 'valid');
  r = await runCli(['validate', '--python-sandbox', 'pyodide', numpyProgram]);
  assert.is(r.code, 1);
  assert.match(r.stdout, /numpy_matrix\.py: INVALID \(load\) \[python, [a-z-]+, pyodide\]/);
  assert.match(r.stdout, /uses numpy, which this sandbox does not have.*run it with --python-sandbox cpython/);
});

test('where the jail cannot be set up, cpython refuses with exit 2 and names the fix; list says pyodide is in force, and why', async () => {
  const noBwrap = tempDir('spade-no-bwrap-');
  let r = await runCli(['validate', '--python-sandbox', 'cpython', goodPython], { env: { PATH: noBwrap } });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /--python-sandbox cpython: bubblewrap \(bwrap\) is not installed: apt-get install bubblewrap/);
  assert.is(r.stdout, '', 'nothing ran');

  const broken = pathWithBrokenBwrap();
  r = await runCli(['run', '--python-sandbox', 'cpython', '--suites', 'procedural', '--limit', '1', '--out', path.join(tempDir(), 'run')], { env: { PATH: `${broken}:/usr/bin:/bin` } });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /cannot create its namespaces here \(bwrap: setting up uid map: Permission denied\): allow unprivileged user namespaces/);

  r = await runCli(['list'], { env: { PATH: `${broken}:/usr/bin:/bin` } });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /Python programs run in: pyodide \(the default here, because cpython cannot run: bubblewrap cannot create its namespaces/);
  r = await runCli(['list']);
  if (!jailProblem) assert.match(r.stdout, /Python programs run in: cpython \(the default: it can run on this machine\)/);
  assert.match(r.stdout, /cpython .*bubblewrap jail/);
  const config = tempDir('spade-config-');
  writeFileSync(path.join(config, 'spade.config.json'), JSON.stringify({ pythonSandbox: 'pyodide' }));
  r = await runCli(['list'], { cwd: config });
  assert.match(r.stdout, /Python programs run in: pyodide \(chosen with --python-sandbox or pythonSandbox in the config\)/);
  writeFileSync(path.join(config, 'spade.config.json'), JSON.stringify({ pythonSandbox: 'jython' }));
  r = await runCli(['list'], { cwd: config });
  assert.is(r.code, 2);
  assert.match(r.stderr, /pythonSandbox: unknown sandbox "jython"/);
  assert.ok(readFileSync(path.join(config, 'spade.config.json'), 'utf8').includes('jython'));
});

test.run();
