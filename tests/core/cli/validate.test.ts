// `spade-bench validate`: the gate from the command line, and the hostile corpus across both
// languages, all in one process: every hostile program ends classified, no secret or host file
// is reached, and a good program validated right after each one is still valid.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, startCli, tempDir } from '../../helpers/cli.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { HOSTILE_DIR, hostileExpectations } from '../../fixtures/python/hostile.js';

const fixtures = path.join(repoRoot, 'tests/fixtures');
const good = path.join(fixtures, 'programs/valid/sum-single-answer.js');
const goodPython = path.join(fixtures, 'python/guess_number.py');
const SECRET = 'hostile-corpus-secret-7f3e9a';
const MARKER = '/tmp/spade-hostile-marker';

interface Verdict {
  file: string;
  language: string;
  verdict: 'valid' | 'unproven' | 'invalid';
  reason: string | null;
  gate: string;
  checks: { name: string; ok: boolean; detail?: string }[];
}

const expectation = (file: string): string[] => readFileSync(file, 'utf8').match(/expect: ([\w|-]+)/)![1]!.split('|');

test('validate: verdict per check, exit 0 when nothing is invalid', async () => {
  const r = await runCli(['validate', good, path.join(fixtures, 'programs/valid/grid-walk-multi-turn.js')]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'sum-single-answer.js: VALID');
  for (const check of ['load', 'reset', 'smoke-test', 'deterministic', 'reference-wins', 'wrong-answer-loses', 'random-loses', 'no-answer-leak']) {
    assert.match(r.stdout, new RegExp(`ok\\s+${check}`));
  }
});

test('validate: a program\'s message cannot move the cursor or forge a line of the verdict', async () => {
  const cwd = tempDir();
  // reset() throws a message that would, printed as it is, erase the INVALID line and write a VALID one.
  const spoof = '\\r\\x1b[2K\\x1b[1Aspoof.js: VALID\\n  strict: valid\\x1b[8m\\u202e';
  writeFileSync(path.join(cwd, 'spoof.js'), `export default class Spoof {\n  reset(seed) { throw new Error('${spoof}'); }\n  step(action) { return ['', 0, true, false, {}]; }\n}\n`);
  const r = await runCli(['validate', 'spoof.js'], { cwd });
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stdout, 'spoof.js: INVALID');
  assert.not.match(r.stdout, /[\x00-\x08\x0b-\x1f\x7f\u202e]/, 'a control character reached the terminal');
  assert.not.match(r.stdout, /^\s*strict: valid/m, 'a forged line');
  assert.match(r.stdout, '\\x1b[2K');
});

test('validate stopped by Ctrl-C or SIGTERM leaves no channel folder of the cpython sandbox behind', async () => {
  const jail = checkJail();
  if (jail.problem) {
    console.log(`  skipped: ${jail.problem}`);
    return;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const { child, done } = startCli(['validate', '--python-sandbox', 'cpython', path.join(HOSTILE_DIR, 'loop_in_reset.py')]);
    // The folder of this process's channels, seen through the FIFOs it holds open.
    let folder: string | undefined;
    for (let waited = 0; !folder && waited < 60_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const fd of existsSync(`/proc/${child.pid}/fd`) ? readdirSync(`/proc/${child.pid}/fd`) : []) {
        const target = (() => {
          try {
            return readlinkSync(`/proc/${child.pid}/fd/${fd}`);
          } catch {
            return '';
          }
        })();
        const m = /^(.*\/spade-bench-channels-[^/]+)/.exec(target);
        if (m) folder = m[1];
      }
    }
    assert.ok(folder, 'the sandbox opened no channel');
    child.kill(signal);
    const r = await done;
    assert.is(r.code, signal === 'SIGINT' ? 130 : 143, r.stderr);
    assert.not.ok(existsSync(folder!), `${folder} was left behind after ${signal}`);
  }
});

test('validate --json: one object per file; unproven is not invalid; exit 1 when one is invalid', async () => {
  const unproven = path.join(fixtures, 'programs/unproven/nim.js');
  let r = await runCli(['validate', '--json', unproven]);
  assert.is(r.code, 0, r.stderr);
  const [v] = JSON.parse(r.stdout) as Verdict[];
  assert.equal(Object.keys(v!).sort(), ['checks', 'file', 'gameType', 'gate', 'language', 'readings', 'reason', 'verdict']);
  assert.is(v!.gate, 'strict');
  assert.is(v!.verdict, 'unproven');
  assert.is(v!.language, 'javascript');
  r = await runCli(['validate', '--json', good, path.join(fixtures, 'programs/invalid/wrong-answer-wins.js')]);
  assert.is(r.code, 1);
  const both = JSON.parse(r.stdout) as Verdict[];
  assert.equal(both.map((x) => [x.verdict, x.reason]), [['valid', null], ['invalid', 'wrong-answer-wins']]);
});

test('validate: a tool-use program proven by its reference is valid; one whose expected answer its tools contradict is invalid', async () => {
  const tools = path.join(fixtures, 'programs/tool-use');
  const r = await runCli(['validate', '--json', path.join(tools, 'inventory-reference.js'), path.join(tools, 'inventory-wrong-expected.js')]);
  assert.is(r.code, 1, r.stderr);
  const verdicts = JSON.parse(r.stdout) as (Verdict & { gameType: string })[];
  assert.equal(verdicts.map((v) => [v.verdict, v.reason, v.gameType]), [['valid', null, 'tool-use'], ['invalid', 'reference-loses', 'tool-use']]);
  const text = await runCli(['validate', path.join(tools, 'inventory-reference.js')]);
  assert.match(text.stdout, 'inventory-reference.js: VALID [javascript, tool-use, isolated-vm]');
  assert.match(text.stdout, /ok\s+tools: 2 tools: list_warehouses, get_stock/);
});

test('validate: a missing file, a folder, an unknown type or text that is not UTF-8 is a usage error (exit 2)', async () => {
  const cases: [string, string][] = [
    ['/nonexistent/env.js', '/nonexistent/env.js: no such file'],
    ['/nonexistent/*.py', '/nonexistent/*.py: no such file (a pattern your shell did not expand: no file matches it)'],
    [path.join(fixtures, 'programs'), `${path.join(fixtures, 'programs')}: is a folder: name the programs in it`],
    [path.join(fixtures, 'programs/load.ts'), 'unknown file type'],
  ];
  const latin1 = path.join(tempDir(), 'latin1.py');
  writeFileSync(latin1, Buffer.from('# caf\xe9\nclass Env: pass\n', 'latin1'));
  cases.push([latin1, `${latin1}: not UTF-8 text: save it as UTF-8`]);
  for (const [file, message] of cases) {
    const r = await runCli(['validate', file]);
    assert.is(r.code, 2, file);
    assert.match(r.stderr, message);
  }
});

test('validate: a byte order mark before the program is no part of it, in either language', async () => {
  const dir = tempDir();
  const files = [good, goodPython].map((file) => {
    const copy = path.join(dir, `bom-${path.basename(file)}`);
    writeFileSync(copy, `\uFEFF${readFileSync(file, 'utf8')}`);
    return copy;
  });
  const r = await runCli(['validate', ...files, '--json']);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.equal((JSON.parse(r.stdout) as Verdict[]).map((v) => v.verdict), ['valid', 'valid']);
});

test('the hostile corpus, JavaScript and Python (pyodide), in one process: all classified, the next program unaffected', async () => {
  rmSync(MARKER, { force: true });
  const js = readdirSync(path.join(fixtures, 'programs/hostile')).map((f) => path.join(fixtures, 'programs/hostile', f));
  // Python programs that exercise each escape and limit other than time (those are in the
  // Pyodide sandbox's own tests: each costs an interpreter restart). The cpython sandbox runs the
  // whole Python corpus from the command line in validate-python-sandbox.test.ts.
  const pythonKinds = new Map(hostileExpectations('pyodide').map((e) => [e.file, e.kind]));
  const py = [...pythonKinds].filter(([, kind]) => !['timeout', 'any', 'ok'].includes(kind)).map(([file]) => path.join(HOSTILE_DIR, file));
  assert.ok(js.length + py.length >= 30, `a corpus of at least 30 (${js.length} + ${py.length})`);
  const files = [...js, ...py].flatMap((f) => [f, f.endsWith('.py') ? goodPython : good]);
  const r = await runCli(['validate', '--json', '--python-sandbox', 'pyodide', ...files], { env: { SPADE_HOSTILE_SECRET: SECRET } });
  assert.is(r.code, 1, r.stderr);
  const verdicts = JSON.parse(r.stdout) as Verdict[];
  assert.is(verdicts.length, files.length);
  for (let i = 0; i < verdicts.length; i += 2) {
    const hostile = verdicts[i]!;
    const expected = hostile.file.endsWith('.py') ? [pythonKinds.get(path.basename(hostile.file))!] : expectation(hostile.file);
    // A crash during SPADE's smoke test is reported as the gate's `smoke-test` reason.
    const got = hostile.verdict === 'valid' ? 'valid' : hostile.reason === 'smoke-test' ? 'crash' : hostile.reason!;
    assert.ok(expected.includes(got), `${path.basename(hostile.file)}: expected ${expected.join('|')}, got ${got} (${JSON.stringify(hostile.checks.filter((c) => !c.ok))})`);
    const next = verdicts[i + 1]!;
    assert.is(next.verdict, 'valid', `the good program after ${path.basename(hostile.file)} is still valid: ${JSON.stringify(next.checks.filter((c) => !c.ok))}`);
  }
  assert.not.ok(r.stdout.includes(SECRET), 'no environment variable reached any program');
  assert.not.ok(existsSync(MARKER), 'no host file written');
});

test.run();
