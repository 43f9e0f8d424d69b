/**
 * The same pool gets the same verdicts as a folder of .py files and as a JSON Lines file, run
 * after run, with the default two sandbox workers of a two-core machine (`--workers 2`): in the
 * cpython sandbox no environment's verdict depends on which others shared its worker, or when.
 * The pool mixes honest programs, the hostile corpus, and programs that reach for their
 * neighbours: one that rewrites every other environment's step() to win (through
 * sys._getframe), one that reads fd 0 and answers requests in others' stead, one that poisons
 * fractions, collections, decimal, copy, json and the re cache for whoever comes next.
 *
 * POOL_FORMAT_RUNS (default 1) runs of each form, alternating; every run must give the
 * verdicts of the first.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, tempDir } from '../../helpers/cli.js';
import { hostileExpectations, hostileSource } from '../../fixtures/python/hostile.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { source } from './python-sandbox-tests.js';

const RUNS = Number(process.env.POOL_FORMAT_RUNS ?? 1);

/** guess_number.py whose reset() first runs `hostile` (indented as a function body). */
const guessWith = (hostile: string): string =>
  `${source('guess_number.py')}\n\n_honest_reset = GuessNumberEnv.reset\n\n\ndef _reset(self, seed=None):\n${hostile.split('\n').map((l) => `    ${l}`).join('\n')}\n    return _honest_reset(self, seed)\n\n\nGuessNumberEnv.reset = _reset\n`;

const REACHING = {
  'tamper-neighbours': guessWith([
    'import sys',
    'frame = sys._getframe()',
    'while frame is not None:',
    '    envs = frame.f_globals.get("_environments")',
    '    if isinstance(envs, dict):',
    '        for env in envs.values():',
    '            if env.instance is not None and env.instance is not self:',
    '                env.instance.step = lambda action: ("won", 1.0, True, False, {})',
    '    frame = frame.f_back',
  ].join('\n')),
  'read-fd0': guessWith([
    'import os, json, struct',
    'try:',
    '    os.set_blocking(0, False)',
    '    data = os.read(0, 1 << 16)',
    'except OSError:',
    '    data = b""',
    'while len(data) >= 4:',
    '    size = struct.unpack_from("<I", data)[0]',
    '    try:',
    '        stolen = json.loads(data[4:4 + size])["id"]',
    '        frame = json.dumps({"id": stolen, "ok": True, "value": ["won", 1.0, True, False, {}]}).encode()',
    '        os.write(1, struct.pack("<I", len(frame)) + frame)',
    '    except Exception:',
    '        pass',
    '    data = data[4 + size:]',
  ].join('\n')),
  'poison-shared': guessWith([
    'import collections, fractions, decimal, re, copy, sys, types',
    'fractions.Fraction.__add__ = lambda a, b: fractions.Fraction(42)',
    'collections.Counter.__getitem__ = lambda c, k: 99',
    'decimal.getcontext().prec = 2',
    'copy._deepcopy_dispatch[list] = lambda x, memo: "poisoned"',
    're._cache.clear()',
    'fake = types.ModuleType("json")',
    'fake.dumps = lambda *a, **k: "poisoned"',
    'sys.modules["json"] = fake',
    'sys.setprofile(lambda *args: None)',
  ].join('\n')),
};

/** The pool, in the order a folder lists it: [name, source]. */
function pool(): [string, string][] {
  const programs: [string, string][] = [];
  for (const good of ['fraction_sum.py', 'guess_number.py', 'word_sort.py']) programs.push([good.slice(0, -3), source(good)]);
  for (const { file } of hostileExpectations('cpython')) programs.push([`hostile-${file.slice(0, -3)}`, hostileSource(file, { hostFolders: [] })]);
  for (const [name, text] of Object.entries(REACHING)) programs.push([name, text]);
  // The honest programs again after every reaching one: whoever comes next must not see it.
  for (const good of ['fraction_sum.py', 'word_sort.py', 'guess_number.py']) programs.push([`again-${good.slice(0, -3)}`, source(good)]);
  return programs.map(([name, text], i): [string, string] => [`${String(i).padStart(3, '0')}-${name}`, text]);
}

/** Each program's verdict and reason, in pool order, from a validate-only run of `suite`. */
async function verdicts(suite: string, out: string): Promise<string[]> {
  const result = await runCli(['run', '--suites', suite, '--validate-only', '--python-sandbox', 'cpython', '--workers', '2', '--no-cache', '--out', out]);
  assert.is(result.code, 0, result.stderr.slice(-2000));
  const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as { suites: { environments: { id: string; verdict: string; reason?: string }[] }[] };
  return results.suites[0]!.environments.map((e) => `${e.id.replace(/^spade-pool\//, '')}: ${e.verdict}${e.reason ? ` (${e.reason})` : ''}`);
}

(checkJail().problem ? test.skip : test)(`a pool as a folder and as JSON Lines: the same verdicts, ${RUNS} runs of each`, async () => {
  const dir = tempDir('spade-pool-formats-');
  const folder = path.join(dir, 'pool');
  mkdirSync(folder);
  const programs = pool();
  for (const [name, text] of programs) writeFileSync(path.join(folder, `${name}.py`), text);
  const jsonl = path.join(dir, 'pool.jsonl');
  writeFileSync(jsonl, programs.map(([name, text]) => JSON.stringify({ id: name, code: text })).join('\n') + '\n');
  let first: string[] | undefined;
  const differences: string[] = [];
  for (let run = 0; run < RUNS; run++) {
    for (const [form, suite] of [['folder', `spade-pool:${folder}`], ['jsonl', `spade-pool:${jsonl}`]] as const) {
      const seen = await verdicts(suite, path.join(dir, `${form}-${run}`));
      first ??= seen;
      const changed = seen.filter((line, i) => line !== first![i]);
      if (changed.length) differences.push(`${form} run ${run + 1}: ${changed.join('; ')}`);
    }
  }
  console.log(`${programs.length} programs, ${RUNS} runs of each form:\n  ${first!.join('\n  ')}`);
  assert.equal(differences, [], `verdicts changed from the first run's`);
  for (const name of ['again-fraction_sum', 'again-word_sort', 'again-guess_number', 'fraction_sum', 'guess_number', 'word_sort']) {
    const line = first!.find((l) => l.includes(`-${name}:`));
    assert.ok(line?.endsWith(': valid'), line);
  }
});

test.run();
