// SPADE's designer protocol against a local OpenAI-protocol server: the designer's, hint
// writer's and validator's requests carry exactly the messages and sampling SPADE's own code
// builds for the same inputs, and the memory is selected as SPADE selects it. The yardstick,
// tests/fixtures/spade-designer/expected.json, was produced by running SPADE's code with
// Debian's python3 (make-expected.py there says how to run it again).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import { repoRoot, tempDir } from '../../helpers/cli.js';
import openai from '../../../plugins/providers/openai.js';
import { createLLMDesigner } from '../../../core/roles/llm-designer.js';
import { createHintWriter } from '../../../core/roles/llm-hint.js';
import { createLLMReviewer } from '../../../core/roles/llm-reviewer.js';
import { loadCorpus } from '../../../core/roles/corpus.js';
import { createSpadeCode, runSpadeCode } from '../../../core/roles/spade-code.js';
import { spadeValidatorVerdict } from '../../../core/roles/spade-designer.js';
import { spadeCodeFiles } from '../../../benchmarks/games/spade-source.js';
import { deriveSeed } from '../../../core/run/random.js';
import type { EnvironmentProgram, Provider, SpadeMemoryRecord } from '../../../core/types.js';
import type { GateVerdict } from '../../../core/results/results.js';
import { UsageError } from '../../../core/errors.js';

const here = path.join(repoRoot, 'tests/fixtures/spade-designer');
const inputs = JSON.parse(readFileSync(path.join(here, 'inputs.json'), 'utf8')) as {
  designs: Record<string, { skill: string; promptSeed: number; memorySeed?: number }>;
  memory: SpadeMemoryRecord[];
  memoryRecord: { rolloutId: number; index: number; skill: string; winRate: number; regret: number };
};
type Built = { messages: { role: string; content: string }[]; sampling: { temperature?: number; top_p?: number; top_k?: number; max_tokens?: number } };
const expected = JSON.parse(readFileSync(path.join(here, 'expected.json'), 'utf8')) as {
  reply: string;
  program: string;
  designs: Record<string, Built>;
  hints: Record<string, Built>;
  validators: Record<string, Built>;
  memoryRecord: SpadeMemoryRecord;
  memorySelection: { seeds: string[]; negatives: string[] };
};
const dataDir = path.resolve(repoRoot, '../shared/datasets');
const code = createSpadeCode(() => spadeCodeFiles({ dataDir, offline: true }));
const program: EnvironmentProgram = { id: 'r0-e0', language: 'python', source: expected.program };

/** A request's body as SPADE's sampling and messages. */
function asSpade(body: Record<string, unknown>): Built {
  const sampling: Built['sampling'] = {};
  for (const key of ['temperature', 'top_p', 'top_k', 'max_tokens'] as const) if (body[key] !== undefined) sampling[key] = body[key] as number;
  // OpenAI's current field for the same budget.
  if (body.max_completion_tokens !== undefined) sampling.max_tokens = body.max_completion_tokens as number;
  return { messages: (body.messages as { role: string; content: string }[]).map(({ role, content }) => ({ role, content })), sampling };
}

async function withServer(fn: (server: WireServer, provider: Provider) => Promise<void>): Promise<void> {
  const server = await startWireServer('openai');
  try {
    const provider = await openai.create({ model: 'm', apiKey: 'sk-spade-designer-0123456789', baseURL: server.baseURL, retry: { baseDelayMs: 1, maxDelayMs: 2 }, maxRetries: 1 });
    await fn(server, provider);
  } finally {
    await server.close();
  }
}

test('the seeds spade-bench derives are the fixture\'s inputs', () => {
  assert.is(deriveSeed(5, 'spade-prompt', 0), inputs.designs.toolUse!.promptSeed);
  assert.is(deriveSeed(5, 'spade-prompt', 0), inputs.designs.memory!.promptSeed);
  assert.is(deriveSeed(5, 'spade-memory', 0), inputs.designs.memory!.memorySeed);
  assert.is(deriveSeed(deriveSeed(1, 'design', 0), 'spade-prompt', 0), inputs.designs.run!.promptSeed);
});

test("a tool-use design: SPADE's multi-turn variant with its rotation, grounded on a corpus document cut at 4,000 words, SPADE's sampling", () =>
  withServer(async (server, provider) => {
    server.script({ kind: 'reply', text: expected.reply });
    const corpus = await loadCorpus(path.join(here, 'corpus.jsonl'));
    const designer = createLLMDesigner(provider, { corpus, spade: { code, maxTurns: 25 } });
    assert.match(designer.label, "SPADE's protocol");
    const [designed] = await designer.design({ round: 0, count: 1, seed: 5, skills: ['Data Retrieval'], memory: [], recentSolveRates: [] });
    assert.equal(asSpade(server.requests[0]!.body), expected.designs.toolUse);
    assert.is(server.requests[0]!.body.top_k, 20);
    assert.is(designed!.meta?.params?.documentLine, 1);
    assert.match(expected.designs.toolUse!.messages.at(-1)!.content, '[Document truncated at ~4000 words]');
  }));

test("SPADE's designer records its reply's length and stop reason, and has no repair (a rejected slot is designed afresh)", () =>
  withServer(async (server, provider) => {
    server.script({ kind: 'reply', text: expected.reply, outputTokens: 321, finishReason: 'length' });
    const corpus = await loadCorpus(path.join(here, 'corpus.jsonl'));
    const designer = createLLMDesigner(provider, { corpus, spade: { code, maxTurns: 25 } });
    const [designed] = await designer.design({ round: 0, count: 1, seed: 5, skills: ['Data Retrieval'], memory: [], recentSolveRates: [] });
    assert.equal(designed!.meta?.params?.designerReply, { tokens: 321, finishReason: 'length' });
    assert.is(designer.repair, undefined);
    assert.type(createLLMDesigner(provider, { corpus }).repair, 'function');
  }));

test("a design shown SPADE's memory: same skill, two seeds from the top by regret in [0.15, 0.85], one negative by file name", () =>
  withServer(async (server, provider) => {
    server.script({ kind: 'reply', text: expected.reply });
    const corpus = await loadCorpus(path.join(here, 'corpus.jsonl'));
    const designer = createLLMDesigner(provider, { corpus, spade: { code, maxTurns: 25 } });
    await designer.design({ round: 0, count: 1, seed: 5, skills: ['Logical Deduction'], memory: [], recentSolveRates: [], spadeMemory: inputs.memory });
    assert.equal(asSpade(server.requests[0]!.body), expected.designs.memory);
    // The selection itself, made by SPADE's EnvironmentMemory with the same seed.
    const [selection] = await code.run([{ op: 'memory-select', memory: inputs.memory, seed: inputs.designs.memory!.memorySeed!, skill: 'Logical Deduction', seeds: 2, negatives: 1 }]);
    assert.equal({ seeds: selection!.seeds.map((r) => r.game_file), negatives: selection!.negatives.map((r) => r.game_file) }, expected.memorySelection);
    const user = expected.designs.memory!.messages.at(-1)!.content;
    for (const file of expected.memorySelection.seeds) assert.ok(user.includes(inputs.memory.find((r) => r.game_file === file)!.code_snippet), file);
    assert.ok(user.includes(`class ${path.basename(expected.memorySelection.negatives[0]!, '.py')}`));
  }));

test("the hint writer and the validator send SPADE's prompts with SPADE's sampling, by game type", () =>
  withServer(async (server, provider) => {
    server.route((body) => ({ kind: 'reply', text: (body.messages as { content: string }[])[0]!.content.includes('SOLVABILITY') || (body.messages as { content: string }[])[1]!.content.includes('playable') ? 'Looks fine. \\boxed{no}' : 'Divide first.' }));
    const hints = createHintWriter(provider, { spade: code });
    assert.is(await hints.write(program, undefined, 'single-turn'), 'Divide first.');
    await hints.write(program, undefined, 'tool-use');
    assert.equal(asSpade(server.requests[0]!.body), expected.hints.cognitive);
    assert.equal(asSpade(server.requests[1]!.body), expected.hints.tool_use);
    const reviewer = createLLMReviewer(provider, { spade: code });
    const verdict = { verdict: 'valid', checks: [], gameType: 'multi-turn' } as unknown as GateVerdict;
    const review = await reviewer.review(program, verdict);
    assert.is(review.accepted, false, 'SPADE reads its first \\boxed{}: no rejects');
    await reviewer.review(program, { ...verdict, gameType: 'tool-use' } as GateVerdict);
    assert.equal(asSpade(server.requests[2]!.body), expected.validators.cognitive);
    assert.equal(asSpade(server.requests[3]!.body), expected.validators.tool_use);
  }));

test("SPADE's reading of a validator's verdict: the first \\boxed{}, yes/y/true accept, none accepts", () => {
  assert.is(spadeValidatorVerdict('\\boxed{Yes} then \\boxed{no}'), true);
  assert.is(spadeValidatorVerdict('\\boxed{no} then \\boxed{yes}'), false);
  assert.is(spadeValidatorVerdict('no verdict'), true);
  assert.is(spadeValidatorVerdict(''), true);
});

test("a memory record is SPADE's: the game file as SPADE saves it, cut at 2,000 characters", async () => {
  const r = inputs.memoryRecord;
  const [record] = await code.run([{ op: 'memory-record', code: expected.program, rolloutId: r.rolloutId, index: r.index, skill: r.skill, winRate: r.winRate, regret: r.regret }]);
  assert.equal(record, expected.memoryRecord);
  const [long] = await code.run([{ op: 'memory-record', code: 'x'.repeat(5000), rolloutId: 0, index: 0, skill: 'Optimization', winRate: 1, regret: 0 }]);
  assert.is(long!.code_snippet.length, 2000);
});

test('the corpus is read as SPADE reads it: orig_doc before text, JSON Lines or Parquet', async () => {
  const dir = tempDir();
  const { parquetWriteFile } = await import('hyparquet-writer');
  const file = path.join(dir, 'docs.parquet');
  parquetWriteFile({ filename: file, columnData: [{ name: 'orig_doc', data: ['first document', ''] }, { name: 'text', data: ['ignored', 'second from text'] }] });
  const docs = await loadCorpus(file);
  assert.equal(docs.map((d) => d.text), ['first document', 'second from text']);
  assert.equal(docs.map((d) => d.line), [1, 2]);
});

test('no Python 3 for SPADE\'s code: a usage error that says what to do', async () => {
  const saved = process.env.SPADE_BENCH_SPADE_PYTHON;
  process.env.SPADE_BENCH_SPADE_PYTHON = path.join(tempDir(), 'no-python');
  try {
    await runSpadeCode(await spadeCodeFiles({ dataDir, offline: true }), [{ op: 'player-template' }]);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, UsageError);
    assert.match((error as Error).message, 'SPADE_BENCH_SPADE_PYTHON');
  } finally {
    if (saved === undefined) delete process.env.SPADE_BENCH_SPADE_PYTHON;
    else process.env.SPADE_BENCH_SPADE_PYTHON = saved;
  }
});

test.run();
