// The strict reading on winnable SPADE-format programs that SPADE accepts (tests/fixtures/strict-gate,
// SPADE's own verdicts recorded in spade-verdicts.json by record.py beside them): a solution() that
// describes its moves is replayed when it splits into winning actions, else unproven, never
// `reference-loses`; a number every seed's text shows is no answer leak (a number in the part that
// changes still is); and a curated task's doubts are shown beside it, never a rejection.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, tempDir } from '../../helpers/cli.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { answerLeaked, answerShowings, revealingSeeds } from '../../../core/gate/answer-leak.js';
import { describedToolCalls, describesActions, describesToolCalls, sequenceReadings, solutionPlan } from '../../../core/gate/solution-actions.js';

const folder = path.join(repoRoot, 'tests/fixtures/strict-gate');
const spade = JSON.parse(readFileSync(path.join(folder, 'spade-verdicts.json'), 'utf8')).verdicts as Record<string, { accepted: boolean }>;

test('a one-answer text is no description; prose and separated moves are, and split into actions', () => {
  for (const answer of ['7', '\\boxed{-3}', 'Paris']) assert.not.ok(describesActions(answer), answer);
  for (const text of ['up, up, left', 'A -> B -> C', '\\boxed{a} \\boxed{b}', 'Walk forward 4 times, then open the door.']) assert.ok(describesActions(text), text);
  assert.equal(sequenceReadings('up, up, left')[0], ['\\boxed{up}', '\\boxed{up}', '\\boxed{left}']);
  assert.equal(sequenceReadings('A -> B → C')[0], ['\\boxed{A}', '\\boxed{B}', '\\boxed{C}']);
  assert.equal(sequenceReadings('\\boxed{a} \\boxed{b}'), [['\\boxed{a}', '\\boxed{b}']]);
  assert.equal(sequenceReadings('jump jump step'), [['\\boxed{jump}', '\\boxed{jump}', '\\boxed{step}']]);
  // Prose splits at its separators only: its words are not tried as moves.
  assert.ok(sequenceReadings('Walk forward 4 times until you reach the door, then open it.').every((r) => r.length === 2));
  // What the plan reads is unchanged: one answer, boxed.
  assert.equal(solutionPlan('up, up, left'), { kind: 'answer', answer: 'up, up, left', actions: ['\\boxed{up, up, left}'] });
});

test('tool calls told in words: each call of a known tool, its arguments read as Python literals, then the <answer>', () => {
  const tools = [{ name: 'cd', parameters: ['path'] }, { name: 'mv', parameters: ['src', 'dst'] }, { name: 'tag', parameters: ['names', 'meta'] }];
  const call = (name: string, args: object): string => `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;
  assert.equal(describedToolCalls("1. cd(path='/home/document') 2. mv('a.txt', dst=\"b, c\") 3. <answer>done</answer>", tools), [
    call('cd', { path: '/home/document' }), call('mv', { src: 'a.txt', dst: 'b, c' }), '<answer>done</answer>',
  ]);
  assert.equal(describedToolCalls("tag(names=['x', 'y'], meta={'n': 2, 'ok': True, 'none': None}) then answer", tools), [call('tag', { names: ['x', 'y'], meta: { n: 2, ok: true, none: null } })]);
  // Words that are no call of a tool name none; a call it cannot read makes the whole unreadable.
  assert.is(describedToolCalls('Go to the folder (the document one) and print(it).', tools), undefined);
  assert.is(describedToolCalls('cd(path=somewhere_unquoted)', tools), undefined);
  assert.is(describedToolCalls("mv('a', 'b', 'c')", tools), undefined, 'more arguments than parameters');
  assert.ok(describesToolCalls("1. cd(path='/home') 2. <answer>done</answer>"));
  assert.not.ok(describesToolCalls('1. <tool_call>{"name": "cd", "arguments": {}}</tool_call> 2. <answer>done</answer>'));
});

test('a tool-use game whose solution() tells its calls in words: replayed and valid when they win, unproven when they lose', async () => {
  const dir = tempDir();
  const fixture = readFileSync(path.join(repoRoot, 'tests/fixtures/programs/tool-use/file-workflow-multi-turn.js'), 'utf8');
  const told = /solution\(\) \{ return "[^"]*"; \}/;
  assert.match(fixture, told);
  const files = {
    told: path.join(repoRoot, 'tests/fixtures/programs/tool-use/file-workflow-multi-turn.js'),
    losing: path.join(dir, 'losing.js'),
    prose: path.join(dir, 'prose.js'),
  };
  writeFileSync(files.losing, fixture.replace(told, `solution() { return "1. cd(path='/home/elsewhere') 2. <answer>done</answer>"; }`));
  writeFileSync(files.prose, fixture.replace(told, 'solution() { return "Go to the document folder, make the archive there, list it, then answer done."; }'));
  const result = await runCli(['validate', files.told, files.losing, files.prose, '--json']);
  const verdicts = JSON.parse(result.stdout) as { verdict: string; checks: { name: string; detail?: string }[] }[];
  const detail = (i: number): string => verdicts[i]!.checks.find((c) => c.name === 'reference-wins')?.detail ?? '';
  assert.equal(verdicts.map((v) => v.verdict), ['valid', 'unproven', 'unproven'], result.stdout);
  assert.match(detail(0), '4 turns (tool-use solution replayed, split from its text)');
  assert.match(detail(1), 'not proven: solution() describes its moves');
  assert.match(detail(2), 'not proven: solution() describes its moves');
});

test('a number every seed\'s text shows is fixed text, not a leak; beyond it, or in what changes, it is', () => {
  const fixed = (seed: number, extra = ''): { seed: number; observation: string; answer: string } => ({
    seed, observation: `A calendar of 12 pages starts in month ${seed}. How many months does it show?${extra}`, answer: '12',
  });
  const tasks = [1, 2, 3, 4].map((s) => fixed(s));
  assert.equal(revealingSeeds(tasks), []);
  assert.not.ok(answerLeaked(tasks));
  // A task that shows it once more than the fixed text does reveals it.
  const more = [fixed(1, ' (hint: 12)'), fixed(2, ' (hint: 12)'), fixed(3, ' (hint: 12)'), fixed(4)];
  assert.equal(revealingSeeds(more), [1, 2, 3]);
  assert.ok(answerLeaked(more));
  // The same text at every seed is the task itself: what it shows is not excused.
  const constant = [1, 2, 3, 4].map((seed) => ({ seed, observation: 'The answer is 12.', answer: '12' }));
  assert.ok(answerLeaked(constant));
  assert.is(answerShowings('12 pages, \\boxed{12}, 112, 12.', '12'), 3);
});

const jailProblem = checkJail().problem;
if (jailProblem) {
  console.log(`skipped: the cpython sandbox cannot start here: ${jailProblem}`);
  test.skip('the strict gate on the fixtures', () => {});
} else {
  test('on SPADE-accepted winnable programs: prose unproven, separators replayed, a fixed number no leak, a leak in the task still one', async () => {
    const files = readdirSync(folder).filter((f) => f.endsWith('.py') && f !== 'record.py').sort();
    const result = await runCli(['validate', ...files.map((f) => path.join(folder, f)), '--python-sandbox', 'cpython', '--json']);
    const verdicts = JSON.parse(result.stdout) as { file: string; verdict: string; reason?: string; checks: { name: string; ok: boolean; detail?: string }[]; readings: { spade: { verdict: string } } }[];
    const byFile = new Map(verdicts.map((v) => [path.basename(v.file), v]));
    // SPADE accepts every one of them, and the spade reading agrees.
    for (const file of files) {
      assert.ok(spade[file]?.accepted, `${file}: SPADE accepts it`);
      assert.is(byFile.get(file)!.readings.spade.verdict, 'valid', file);
    }
    const prose = byFile.get('prose_solution.py')!;
    assert.is(prose.verdict, 'unproven');
    assert.ok(prose.checks.every((c) => c.ok), JSON.stringify(prose.checks));
    assert.match(prose.checks.find((c) => c.name === 'reference-wins')!.detail!, /not proven: solution\(\) describes its moves/);
    const separated = byFile.get('separated_solution.py')!;
    assert.is(separated.verdict, 'valid', JSON.stringify(separated.checks));
    assert.match(separated.checks.find((c) => c.name === 'reference-wins')!.detail!, /3 turns \(sequence solution replayed, split from its text\)/);
    const fixed = byFile.get('fixed_number_answer.py')!;
    assert.is(fixed.verdict, 'valid', JSON.stringify(fixed.checks));
    assert.match(fixed.checks.find((c) => c.name === 'no-answer-leak')!.detail!, /0 of 4 seeds reveal it/);
    const leak = byFile.get('leak_in_task.py')!;
    assert.is(leak.verdict, 'invalid');
    assert.is(leak.reason, 'answer-leak');
    assert.is(result.code, 1, 'one program is invalid');
  });
}

test.run();
