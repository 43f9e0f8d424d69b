// A self-play run as SPADE ran it, against a local OpenAI-protocol server:
// --designer-protocol spade --agent-protocol spade --memory spade, grounded on a corpus, with
// an LLM validator. The designer's, hint writer's and validator's requests carry exactly the
// messages and sampling SPADE's own code builds for the same inputs
// (tests/fixtures/spade-designer/expected.json, made by make-expected.py there), the hint is
// always the hint writer's, each environment is played 8 times plain and 16 times with the
// hint, and SPADE's memory is written to env_memory.json as SPADE records it. A slot whose
// design is rejected is designed afresh, each time SPADE's prompt built anew (a new seed, a new
// document), at most 5 designs, with validity per slot and at the first try in results.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, tempDir } from '../../helpers/cli.js';
import { startWireServer, type RecordedRequest } from '../../helpers/wire-servers.js';
import type { EpisodeLine } from '../../../core/results/export.js';
import type { RunResults } from '../../../core/results/results.js';
import type { SpadeMemoryRecord } from '../../../core/types.js';

const fixtures = path.join(repoRoot, 'tests/fixtures/spade-designer');
type Built = { messages: { role: string; content: string }[]; sampling: Record<string, number> };
const expected = JSON.parse(readFileSync(path.join(fixtures, 'expected.json'), 'utf8')) as {
  reply: string;
  program: string;
  designs: Record<string, Built>;
  hints: Record<string, Built>;
  validators: Record<string, Built>;
  memoryRecord: SpadeMemoryRecord;
};
type Message = { role: string; content: string };
const messagesOf = (r: RecordedRequest): Message[] => (r.body.messages as Message[]).map(({ role, content }) => ({ role, content }));
const samplingOf = (r: RecordedRequest): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const key of ['temperature', 'top_p', 'top_k'] as const) if (r.body[key] !== undefined) out[key] = r.body[key] as number;
  const max = r.body.max_completion_tokens ?? r.body.max_tokens;
  if (max !== undefined) out.max_tokens = max as number;
  return out;
};
const same = (a: Message[], b: Message[]): boolean => JSON.stringify(a) === JSON.stringify(b);
const jsonLines = <T>(file: string): T[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);

/** Two rounds of one slot under SPADE's designer, agent and memory protocols, with an LLM reviewer and a corpus; the run's results. */
async function spadeRun(cwd: string, baseURL: string, corpus: string): Promise<RunResults> {
  const env = { OPENAI_API_KEY: 'sk-designer-protocol-0123456789', OPENAI_BASE_URL: baseURL, SPADE_BENCH_OFFLINE: '1' };
  const r = await runCli([
    'run', '--out', 'out', '--suites', 'spade', '--designer', 'openai:M', '--agent', 'openai:M', '--reviewer', 'openai:M',
    '--designer-protocol', 'spade', '--agent-protocol', 'spade', '--memory', 'spade', '--corpus', corpus,
    '--rounds', '2', '--envs-per-round', '1', '--skills', 'Pattern_Recognition', '--python-sandbox', 'pyodide', '--data-dir', path.resolve(repoRoot, '../shared/datasets'),
  ], { cwd, env });
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
}

test('a run under SPADE\'s designer, agent and memory protocols sends what SPADE\'s code builds, plays 8 plain and 16 hinted', async () => {
  const server = await startWireServer('openai');
  const design = expected.designs.run!;
  const isDesign = (r: RecordedRequest): boolean => same(messagesOf(r).slice(0, 1), design.messages.slice(0, 1));
  const isHint = (r: RecordedRequest): boolean => messagesOf(r)[0]?.content === expected.hints.cognitive!.messages[0]!.content;
  const isValidator = (r: RecordedRequest): boolean => messagesOf(r)[0]?.content === expected.validators.cognitive!.messages[0]!.content;
  server.route((body) => {
    const request = { body } as RecordedRequest;
    if (isDesign(request)) return { kind: 'reply', text: expected.reply };
    if (isHint(request)) return { kind: 'reply', text: 'Take the remainder of the division; answer with one integer.' };
    if (isValidator(request)) return { kind: 'reply', text: 'Solvable and winnable. \\boxed{yes}' };
    // The player: right when the number is even, else always wrong (so some plays are lost).
    const task = /remainder of (\d+) divided by (\d+)/.exec(JSON.stringify(body.messages));
    const [n, d] = task ? [Number(task[1]), Number(task[2])] : [1, 1];
    return { kind: 'reply', text: `<think>work</think> \\boxed{${n % 2 === 0 ? n % d : d + 1}}` };
  });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false }));
  try {
    const results = await spadeRun(cwd, server.baseURL, path.join(fixtures, 'corpus.jsonl'));
    const config = results.run.config as unknown as { designerProtocol: string; selfplay: { plainAttempts: number; hintedAttempts: number; memory: string } };
    assert.is(config.designerProtocol, 'spade');
    assert.equal([config.selfplay.plainAttempts, config.selfplay.hintedAttempts, config.selfplay.memory], [8, 16, 'spade']);
    assert.match(results.run.designerLabel, "SPADE's protocol");
    const environments = results.suites[0]!.environments;
    assert.equal(environments.map((e) => [e.id, e.verdict, e.source === expected.program]), [['r0-e0', 'valid', true], ['r1-e0', 'valid', true]], JSON.stringify(environments.map((e) => e.checks)));

    // Exactly SPADE's requests: the corpus-grounded multi-turn design (round 0's inputs are the
    // fixture's), the hint, the validator, once per environment.
    const designs = server.requests.filter(isDesign);
    assert.is(designs.length, 2);
    assert.equal(messagesOf(designs[0]!), design.messages);
    assert.equal(samplingOf(designs[0]!), design.sampling);
    assert.equal(samplingOf(designs[1]!), design.sampling);
    const hints = server.requests.filter(isHint);
    assert.is(hints.length, 2, 'the hint writer writes every hint');
    for (const hint of hints) assert.equal({ messages: messagesOf(hint), sampling: samplingOf(hint) }, expected.hints.cognitive);
    const validators = server.requests.filter(isValidator);
    assert.is(validators.length, 2);
    for (const v of validators) assert.equal({ messages: messagesOf(v), sampling: samplingOf(v) }, expected.validators.cognitive);
    for (const e of environments) {
      assert.is(e.review?.accepted, true);
      assert.is(e.designerHint, 'Take the remainder of the division; answer with one integer.');
    }

    // 8 plain plays and 16 hinted ones per environment, the hint in the first observation of the hinted ones.
    const out = path.join(cwd, 'episodes.jsonl');
    assert.is((await runCli(['export', path.join(cwd, 'out'), '--format', 'jsonl', '-o', out], { cwd })).code, 0);
    const lines = jsonLines<EpisodeLine>(out);
    const reward = (l: EpisodeLine): number => l.total_reward;
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const memory = JSON.parse(readFileSync(path.join(cwd, 'out/env_memory.json'), 'utf8')) as SpadeMemoryRecord[];
    assert.is(memory.length, 2);
    environments.forEach((e, round) => {
      const plain = lines.filter((l) => l.environment_id === e.id && !l.with_hint);
      const hinted = lines.filter((l) => l.environment_id === e.id && l.with_hint);
      assert.equal([plain.length, hinted.length], [8, 16]);
      assert.ok(hinted.every((l) => l.messages.some((m) => m.content.includes(`HINT: ${e.designerHint}`))));
      // SPADE's memory, as SPADE records it: the saved game file cut at 2,000 characters, the share
      // of plain plays with a positive reward, regret = mean hinted reward - mean plain reward.
      const winRate = plain.filter((l) => reward(l) > 0).length / plain.length;
      assert.ok(winRate > 0 && winRate < 1, `some plays won and some lost (${winRate})`);
      assert.equal(memory[round], {
        ...expected.memoryRecord,
        game_file: expected.memoryRecord.game_file.replace('game_00000_', `game_0000${round}_`),
        rollout_id: round,
        actor_win_rate: winRate,
        regret: mean(hinted.map(reward)) - mean(plain.map(reward)),
      });
    });

    // Round 1's designer is shown round 0's environment as SPADE selects it: the same skill, a
    // win rate in [0.15, 0.85] (the run's seeds give one), so a seed with its code, not a negative.
    const first = memory[0]!;
    const user = messagesOf(designs[1]!).at(-1)!.content;
    assert.ok(first.actor_win_rate >= 0.15 && first.actor_win_rate <= 0.85, String(first.actor_win_rate));
    assert.ok(user.includes(`\`\`\`python\n${first.code_snippet}\n\`\`\``), 'shown as a seed');
    assert.not.ok(user.includes(`class ${path.basename(first.game_file, '.py')}`), 'not as a negative example');
    assert.not.ok(messagesOf(designs[0]!).at(-1)!.content.includes(first.code_snippet), 'round 0 had no memory');

    // The report says which protocols ran.
    assert.match(readFileSync(path.join(cwd, 'out/report.html'), 'utf8'), "designer side SPADE&#39;s");
  } finally {
    await server.close();
  }
});

test("a rejected slot is designed afresh as SPADE resamples it: a new SPADE prompt and document each time, at most 5 designs", async () => {
  const server = await startWireServer('openai');
  const design = expected.designs.run!;
  const isDesign = (r: RecordedRequest): boolean => same(messagesOf(r).slice(0, 1), design.messages.slice(0, 1));
  const isHint = (r: RecordedRequest): boolean => messagesOf(r)[0]?.content === expected.hints.cognitive!.messages[0]!.content;
  const isValidator = (r: RecordedRequest): boolean => messagesOf(r)[0]?.content === expected.validators.cognitive!.messages[0]!.content;
  // Round 0's slot gets no program in any of its designs; round 1's first design has none, its second does.
  const noProgram = 'I would rather describe the game in words than write it.';
  let designs = 0;
  const roundZeroDesigns = 5;
  server.route((body) => {
    const request = { body } as RecordedRequest;
    if (isDesign(request)) return { kind: 'reply', text: ++designs <= roundZeroDesigns + 1 ? noProgram : expected.reply };
    if (isHint(request)) return { kind: 'reply', text: 'Take the remainder of the division.' };
    if (isValidator(request)) return { kind: 'reply', text: '\\boxed{yes}' };
    const task = /remainder of (\d+) divided by (\d+)/.exec(JSON.stringify(body.messages));
    const [n, d] = task ? [Number(task[1]), Number(task[2])] : [1, 1];
    return { kind: 'reply', text: `\\boxed{${n % 2 === 0 ? n % d : d + 1}}` };
  });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false }));
  // Many short documents, each one line, so each shows in SPADE's prompt as written.
  const documents = Array.from({ length: 200 }, (_, k) => `Reference note ${k}: ${Array.from({ length: 12 }, (_, w) => `term${(k * 7 + w * 3) % 50}`).join(' ')}.`);
  writeFileSync(path.join(cwd, 'corpus.jsonl'), `${documents.map((text) => JSON.stringify({ text })).join('\n')}\n`);
  try {
    const results = await spadeRun(cwd, server.baseURL, path.join(cwd, 'corpus.jsonl'));
    const config = results.run.config as unknown as { selfplay: { slotAttempts?: number; repairs?: number } };
    assert.is(config.selfplay.repairs ?? 0, 0, 'no repairs under SPADE\'s protocol');

    // Every design is SPADE's prompt built afresh: the fixture's prompt (same template, skill,
    // round-0 inputs) around a document drawn anew from the corpus, SPADE's sampling, a seed of its own.
    const sent = server.requests.filter(isDesign);
    assert.is(sent.length, roundZeroDesigns + 2, 'five designs for round 0, then two for round 1');
    const fixtureDocument = /<REFERENCE_DOCUMENT>\n([\s\S]*?)\n<\/REFERENCE_DOCUMENT>/.exec(design.messages.at(-1)!.content)![1]!;
    const shown = sent.map((q) => {
      const document = documents.find((d) => messagesOf(q).at(-1)!.content.includes(`<REFERENCE_DOCUMENT>\n${d}\n</REFERENCE_DOCUMENT>`));
      assert.ok(document, 'a document of the corpus, whole');
      const messages = design.messages.map((m, i) => (i === design.messages.length - 1 ? { ...m, content: m.content.replace(fixtureDocument, document!) } : m));
      assert.equal(messagesOf(q), messages);
      assert.equal(samplingOf(q), design.sampling);
      return document!;
    });
    assert.is(new Set(shown).size, shown.length, `a new document each design: ${shown.join(' | ')}`);
    const seeds = sent.map((q) => q.body.seed);
    assert.ok(seeds.every((s) => typeof s === 'number'));
    assert.is(new Set(seeds).size, seeds.length, 'a new seed each design');

    // Round 0's slot stopped at 5 designs, invalid; round 1's passed at its second.
    const suite = results.suites[0]!;
    const [first, second] = suite.environments;
    assert.equal([first!.id, first!.verdict], ['r0-e0-s5', 'invalid']);
    assert.equal(first!.repairs!.map((p) => [p.id, p.resampled]), [['r0-e0', true], ['r0-e0-s2', true], ['r0-e0-s3', true], ['r0-e0-s4', true]]);
    assert.equal([second!.id, second!.verdict, second!.source === expected.program], ['r1-e0-s2', 'valid', true]);
    assert.equal(second!.repairs!.map((p) => [p.id, p.resampled]), [['r1-e0', true]]);
    // Validity per slot and at the first try, beside per program, in results; SPADE's pass rate by round.
    const { validity } = suite.metrics;
    assert.equal([validity.firstTry!.valid, validity.firstTry!.proposed], [0, 2]);
    assert.equal([validity.perSlot!.valid, validity.perSlot!.slots], [1, 2]);
    assert.equal([validity.perProgram!.valid, validity.perProgram!.programs], [1, roundZeroDesigns + 2]);
    assert.equal(suite.rounds.map((round) => round.log!.figures.validationPassRate), [0, 1]);
    // SPADE's validator count: nothing reached the validator in round 0, its one check in round 1 accepted.
    assert.equal(suite.rounds.map((round) => round.log!.figures.validatorRejectionRateRun), [null, 0]);
    assert.match(suite.rounds[0]!.log!.missing.validatorRejectionRateRun!, 'nothing has reached the validator');
    // The reply figures are recorded for SPADE's designs: the reply each slot ended with.
    assert.ok(suite.rounds.every((round) => typeof round.log!.figures.designerResponseTokens === 'number'), JSON.stringify(suite.rounds.map((round) => round.log!.missing)));

    // Only the accepted program is reviewed and hinted, with SPADE's requests; it is played 8 plain and 16 hinted.
    const validators = server.requests.filter(isValidator);
    assert.is(validators.length, 1);
    assert.equal({ messages: messagesOf(validators[0]!), sampling: samplingOf(validators[0]!) }, expected.validators.cognitive);
    const hints = server.requests.filter(isHint);
    assert.is(hints.length, 1);
    assert.equal({ messages: messagesOf(hints[0]!), sampling: samplingOf(hints[0]!) }, expected.hints.cognitive);
    const out = path.join(cwd, 'episodes.jsonl');
    assert.is((await runCli(['export', path.join(cwd, 'out'), '--format', 'jsonl', '-o', out], { cwd })).code, 0);
    const lines = jsonLines<EpisodeLine>(out);
    assert.equal([lines.filter((l) => l.environment_id === second!.id && !l.with_hint).length, lines.filter((l) => l.environment_id === second!.id && l.with_hint).length], [8, 16]);
    assert.not.ok(lines.some((l) => l.environment_id.startsWith('r0-')), 'nothing of round 0 was played');
  } finally {
    await server.close();
  }
});

test('--memory spade with spade-bench\'s own prompts, prompt files or repairs with SPADE\'s, are refused, saying why', async () => {
  const cwd = tempDir();
  const r = await runCli(['run', '--out', 'out', '--suites', 'spade', '--designer', 'openai:M', '--agent', 'openai:M', '--memory', 'spade'], { cwd, env: { OPENAI_API_KEY: 'sk-designer-protocol-0123456789', OPENAI_BASE_URL: 'http://127.0.0.1:9' } });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, '--memory spade');
  assert.match(r.stderr, '--designer-protocol spade');
  // Prompt files replace spade-bench's own prompts: they have no place beside SPADE's.
  writeFileSync(path.join(cwd, 'hint.txt'), 'Write a hint.');
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ prompts: { hint: 'hint.txt' } }));
  const files = await runCli(['run', '--out', 'out2', '--suites', 'spade', '--designer', 'openai:M', '--agent', 'openai:M', '--designer-protocol', 'spade'], { cwd, env: { OPENAI_API_KEY: 'sk-designer-protocol-0123456789', OPENAI_BASE_URL: 'http://127.0.0.1:9' } });
  assert.is(files.code, 2, files.stderr);
  assert.match(files.stderr, 'prompts.hint');
  // SPADE designs a rejected slot afresh: a repair beside it would be one more fresh design.
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false }));
  const repairs = await runCli(['run', '--out', 'out4', '--suites', 'spade', '--designer', 'openai:M', '--agent', 'openai:M', '--designer-protocol', 'spade', '--repairs', '1'], { cwd, env: { OPENAI_API_KEY: 'sk-designer-protocol-0123456789', OPENAI_BASE_URL: 'http://127.0.0.1:9' } });
  assert.is(repairs.code, 2, repairs.stderr);
  assert.match(repairs.stderr, '--repairs');
  assert.match(repairs.stderr, '--slot-attempts');
  // No Python for SPADE's code: the run stops before it starts, saying what to do.
  const shared = path.resolve(repoRoot, '../shared/datasets');
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false }));
  const python = await runCli(['run', '--out', 'out3', '--suites', 'spade', '--designer', 'openai:M', '--agent', 'openai:M', '--designer-protocol', 'spade', '--data-dir', shared], {
    cwd, env: { OPENAI_API_KEY: 'sk-designer-protocol-0123456789', OPENAI_BASE_URL: 'http://127.0.0.1:9', SPADE_BENCH_OFFLINE: '1', SPADE_BENCH_SPADE_PYTHON: path.join(cwd, 'no-python') },
  });
  assert.is(python.code, 2, python.stderr);
  assert.match(python.stderr, 'SPADE_BENCH_SPADE_PYTHON');
});

test.run();
