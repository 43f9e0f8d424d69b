// The gate's two readings on programs in SPADE's format, against SPADE's own verdicts recorded
// from SPADE's loader (tests/fixtures/spade-format/spade-verdicts.json): `validate --gate spade`
// agrees with every one of them, and `strict` rejects every program SPADE rejects and accepts
// every one SPADE accepts unless one of its own checks names a real defect, stated here per program.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, tempDir } from '../../helpers/cli.js';
import type { RunResults } from '../../../core/results/results.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';

const folder = path.join(repoRoot, 'tests/fixtures/spade-format');
const record = JSON.parse(readFileSync(path.join(folder, 'spade-verdicts.json'), 'utf8')) as {
  recordedWith: Record<string, string>;
  verdicts: Record<string, { accepted: boolean; reason: string | null }>;
};
const files = readdirSync(folder).filter((f) => f.endsWith('.py')).sort();

interface Reading {
  verdict: 'valid' | 'unproven' | 'invalid';
  reason?: string;
  detail?: string;
}
interface FileVerdict {
  file: string;
  verdict: Reading['verdict'];
  reason: string | null;
  gate: string;
  readings: { spade: Reading; strict: Reading };
}

/**
 * The strict reading of each program SPADE accepts: valid or unproven, or invalid with the real
 * defect its own check finds (at the seed `validate` uses, 1). Every program SPADE rejects is
 * invalid under strict too, for SPADE's reason (checked below, not listed).
 */
const STRICT: Record<string, { verdict: Reading['verdict']; reason?: string; why: string }> = {
  'action_sequence_list.py': { verdict: 'valid', why: 'its solution() (a list of boxed moves) is replayed and opens the lock' },
  'action_sequence_text.py': {
    verdict: 'invalid', reason: 'random-wins',
    why: 'its text solution is replayed and wins; but at seed 1 there are 4 stones, and repeating \\boxed{jump}, a move of the solution, always crosses: random play wins every episode',
  },
  'bare_string_reset.py': { verdict: 'valid', why: 'a bare-string reset() is read as (observation, {})' },
  'coincidental_number.py': { verdict: 'valid', why: '"10 attempts" equals the answer at one seed only: no leak' },
  'crash_on_unboxed.py': { verdict: 'invalid', reason: 'smoke-test', why: 'step("1") raises: an agent reply without \\boxed{} would crash it' },
  'max_turns_required.py': { verdict: 'valid', why: 'it is built with max_turns= the turn budget' },
  'multi_turn_no_solution.py': { verdict: 'unproven', why: 'it passes every check, but nothing proves it winnable' },
  'nan_reward.py': { verdict: 'invalid', reason: 'contract', why: 'a wrong answer earns a NaN reward, which SPADE\'s range check lets through' },
  'np_without_import.py': { verdict: 'valid', why: 'numpy is injected as np, as SPADE does' },
  'reset_none_seed_crash.py': { verdict: 'valid', why: 'every reset the gate makes has a seed' },
  'tool_use_inventory.py': { verdict: 'valid', why: 'ToolUseBaseEnv is injected, and its tool calls then <answer> are replayed and win' },
  'tool_use_multi_turn.py': { verdict: 'valid', why: "SPADE's multi-turn variant: its tool calls complete the three instructions one by one, then <answer>done</answer> wins" },
  'tool_use_multi_turn_unreachable.py': {
    verdict: 'invalid', reason: 'reference-loses',
    why: 'its second criterion looks for a tuple in a list of dicts: the step never completes, and its own solution() ends on the pending-step feedback',
  },
  'tool_use_wrong_expected.py': { verdict: 'invalid', reason: 'reference-loses', why: 'replaying its own solution() does not win: the expected answer is off by one' },
  'valid_single_answer.py': { verdict: 'valid', why: 'a well-formed game' },
  'wrong_solution.py': { verdict: 'invalid', reason: 'reference-loses', why: 'its solution() is off by one from what step() accepts' },
};

const jail = checkJail();

test('the corpus: at least 20 programs, each with SPADE\'s recorded verdict, and a strict expectation for each one SPADE accepts', () => {
  assert.ok(files.length >= 20, `${files.length} programs`);
  assert.equal(Object.keys(record.verdicts).sort(), files);
  assert.is(record.recordedWith.spade, 'spade-rl/spade@9b2b813');
  const accepted = files.filter((f) => record.verdicts[f]!.accepted);
  assert.equal(Object.keys(STRICT).sort(), accepted);
  // Both kinds are there: programs SPADE accepts and programs it rejects.
  assert.ok(accepted.length >= 5 && files.length - accepted.length >= 5);
});

const validate = async (gate: string): Promise<{ code: number | null; verdicts: FileVerdict[] }> => {
  const r = await runCli(['validate', '--json', '--gate', gate, '--python-sandbox', 'cpython', ...files.map((f) => path.join(folder, f))]);
  assert.is(r.stderr.trim(), '', r.stderr);
  return { code: r.code, verdicts: JSON.parse(r.stdout) as FileVerdict[] };
};

// SPADE runs these programs with numpy: they are judged in the cpython sandbox.
const inCpython = jail.problem ? test.skip : test;
if (jail.problem) console.log(`skipped: the cpython sandbox cannot start here: ${jail.problem}`);

inCpython('validate --gate spade gives SPADE\'s own verdict on every program, with SPADE\'s message', async () => {
  const { code, verdicts } = await validate('spade');
  assert.is(code, 1, 'some programs are invalid');
  let agree = 0;
  for (const v of verdicts) {
    const name = path.basename(v.file);
    const spade = record.verdicts[name]!;
    assert.is(v.gate, 'spade');
    assert.is(v.verdict, v.readings.spade.verdict, name);
    assert.is(v.verdict === 'valid', spade.accepted, `${name}: ${JSON.stringify(v.readings.spade)}`);
    if (spade.reason) assert.is(`Game validation failed: ${v.readings.spade.detail}`, spade.reason, name);
    agree++;
  }
  assert.is(agree, files.length);
});

inCpython('strict rejects every program SPADE rejects, and accepts every one it accepts unless a check names a real defect', async () => {
  const { code, verdicts } = await validate('strict');
  assert.is(code, 1);
  for (const v of verdicts) {
    const name = path.basename(v.file);
    const strict = v.readings.strict;
    assert.is(v.verdict, strict.verdict, `${name}: the verdict follows --gate strict`);
    if (!record.verdicts[name]!.accepted) {
      assert.is(strict.verdict, 'invalid', name);
      assert.is(strict.reason, v.readings.spade.reason, `${name}: SPADE's reason`);
      continue;
    }
    const expected = STRICT[name]!;
    assert.is(strict.verdict, expected.verdict, `${name} (${expected.why}): ${JSON.stringify(strict)}`);
    if (expected.reason) assert.is(strict.reason, expected.reason, `${name}: ${expected.why}`);
  }
});

inCpython('run --gate spade plays what SPADE accepts, strict\'s rejections included, and the results show both readings', async () => {
  const out = path.join(tempDir(), 'run');
  const r = await runCli(['run', '--out', out, '--suites', 'spade-pool:tests/fixtures/spade-format', '--gate', 'spade', '--attempts', '1', '--python-sandbox', 'cpython']);
  assert.is(r.code, 0, r.stderr);
  const suite = (JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults).suites[0]!;
  const accepted = files.filter((f) => record.verdicts[f]!.accepted);
  const strictRejects = accepted.filter((f) => STRICT[f]!.verdict === 'invalid');
  const { validity } = suite.metrics;
  assert.is(validity.gate, 'spade');
  assert.equal([validity.valid, validity.proposed], [accepted.length, files.length]);
  assert.is(validity.readings!.spade.valid, accepted.length);
  assert.is(validity.readings!.strict.valid + validity.readings!.strict.unproven, accepted.length - strictRejects.length);
  assert.is(validity.readings!.spadeOnly.count, strictRejects.length);
  for (const env of suite.environments) {
    const name = `${env.id.replace('spade-pool/', '')}.py`;
    assert.is(env.verdict === 'valid', record.verdicts[name]!.accepted, name);
  }
  // Every program SPADE accepts was played once (attempts 1), those strict rejects too.
  assert.is(suite.metrics.success.episodes, accepted.length);
  assert.ok(strictRejects.every((f) => suite.environments.find((e) => e.id === `spade-pool/${f.slice(0, -3)}`)!.sample !== undefined), 'strict\'s rejections were played');
});

test.run();
