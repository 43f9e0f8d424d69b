// The LLM designer against a local OpenAI-protocol server: the real prompts go out, the
// scripted replies come back as programs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startWireServer, type WireServer } from '../../helpers/wire-servers.js';
import { tempDir } from '../../helpers/cli.js';
import openai from '../../../plugins/providers/openai.js';
import { createLLMDesigner } from '../../../core/roles/llm-designer.js';
import { loadCorpus } from '../../../core/roles/corpus.js';
import type { DesignRequest, EnvironmentRecord, Provider } from '../../../core/types.js';
import type { GateVerdict } from '../../../core/results/results.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/llm/${name}.md`, import.meta.url), 'utf8');
const request = (extra: Partial<DesignRequest> = {}): DesignRequest => ({ round: 2, count: 2, seed: 5, memory: [], recentSolveRates: [], ...extra });
type Body = { messages: { role: string; content: string }[]; seed: number };
const bodies = (server: WireServer): Body[] => server.requests.map((r) => r.body as unknown as Body);

async function withServer(fn: (server: WireServer, provider: Provider) => Promise<void>): Promise<void> {
  const server = await startWireServer('openai');
  try {
    const provider = await openai.create({ model: 'designer-m', apiKey: 'sk-designer-test-0123456789', baseURL: server.baseURL, retry: { baseDelayMs: 1, maxDelayMs: 2 }, maxRetries: 1 });
    await fn(server, provider);
  } finally {
    await server.close();
  }
}

test('writes one program per slot from the replies, ids r<round>-e<i>, origin the provider', () =>
  withServer(async (server, provider) => {
    server.script({ kind: 'reply', text: fixture('single-answer') }, { kind: 'reply', text: fixture('multi-turn-two-blocks') });
    const designer = createLLMDesigner(provider, { requestsInFlight: 1 });
    assert.is(designer.kind, 'llm');
    assert.match(designer.label, 'openai:designer-m');
    const programs = await designer.design(request());
    assert.equal(programs.map((p) => p.id), ['r2-e0', 'r2-e1']);
    assert.ok(programs.every((p) => p.language === 'python' && p.meta?.origin === 'openai:designer-m'));
    assert.match(programs[0]!.source, 'class ProductEnv');
    assert.match(programs[1]!.source, 'class ThermometerEnv');
    const [system, user] = bodies(server)[0]!.messages;
    // The system prompt: the contract, information hiding, difficulty, \boxed actions, the hint, an example.
    for (const part of ['reset(self, seed=None)', 'step(self, action: str)', 'hint(self)', 'Information hiding', 'Difficulty', '\\boxed{', 'class BinarySearchEnv']) assert.match(system!.content, part);
    assert.match(user!.content, 'single-answer');
    assert.match(bodies(server)[1]!.messages[1]!.content, 'multi-turn');
    assert.is.not(bodies(server)[0]!.seed, bodies(server)[1]!.seed, 'each slot has its own seed');
  }));

test('JavaScript designs ask for the JavaScript contract', () =>
  withServer(async (server, provider) => {
    await createLLMDesigner(provider, { language: 'javascript' }).design(request({ count: 1 }));
    const system = bodies(server)[0]!.messages[0]!.content;
    assert.match(system, 'export default class');
    assert.match(system, 'referenceAction(observation)');
  }));

test('the memory conditions the prompt: high-regret seeds with code, too easy / too hard / rejected as negatives, solve rates', () =>
  withServer(async (server, provider) => {
    const memory: EnvironmentRecord[] = [
      { id: 'r0-e0', round: 0, valid: true, solveRate: 0.5, regret: 0.4, task: 'seed task', source: 'class SeedEnv: pass' },
      { id: 'r0-e1', round: 0, valid: true, solveRate: 1, regret: 0, task: 'Compute 2 plus 2', source: 'class EasyEnv: pass' },
      { id: 'r0-e2', round: 0, valid: true, solveRate: 0, regret: 0, task: 'Prove the Riemann hypothesis', source: '' },
      { id: 'r0-e3', round: 0, valid: false, reason: 'answer-leak', task: 'Compute 3 times 4 (it is 12)' },
    ];
    await createLLMDesigner(provider).design(request({ count: 1, memory, recentSolveRates: [0.25, 0.75] }));
    const user = bodies(server)[0]!.messages[1]!.content;
    assert.match(user, 'class SeedEnv: pass');
    assert.not.match(user, 'class EasyEnv');
    assert.match(user, 'Too easy');
    assert.match(user, 'Compute 2 plus 2');
    assert.match(user, 'Prove the Riemann hypothesis');
    assert.match(user, 'answer-leak');
    assert.match(user, '25%, 75%');
  }));

test('corpus grounding: one document per design, the same for the same seed', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'corpus.jsonl');
  writeFileSync(file, ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((w) => JSON.stringify({ text: `Document about ${w}.` })).join('\n'));
  const corpus = await loadCorpus(file);
  const grounded = async (seed: number): Promise<string[]> => {
    let docs: string[] = [];
    await withServer(async (server, provider) => {
      await createLLMDesigner(provider, { corpus, requestsInFlight: 1 }).design(request({ count: 3, seed }));
      docs = bodies(server).map((b) => /Document about (\w+)/.exec(b.messages[1]!.content)?.[1] ?? 'none');
    });
    return docs;
  };
  const first = await grounded(9);
  assert.ok(first.every((d) => d !== 'none'), 'every design is grounded');
  assert.equal(await grounded(9), first);
  writeFileSync(file, '{"text": "ok"}\n{"title": "no text"}\n');
  try {
    await loadCorpus(file);
    assert.unreachable('a line without text is an error');
  } catch (error) {
    assert.match((error as Error).message, 'corpus.jsonl:2');
  }
});

test('a failed call is an errored slot; a reply without a program a commented slot that says why; not a crash', () =>
  withServer(async (server, provider) => {
    server.script({ kind: 'error', status: 400, message: 'context length exceeded' }, { kind: 'reply', text: fixture('prose-only') });
    const programs = await createLLMDesigner(provider, { requestsInFlight: 1 }).design(request());
    assert.is(programs.length, 2);
    assert.is(programs[0]!.source, '', 'no program for a failed call');
    assert.is(programs[0]!.designError?.errorClass, 'provider:client');
    assert.match(programs[0]!.designError!.message, 'context length exceeded');
    assert.match(programs[1]!.source, '# design failed: no python program');
    assert.match(programs[1]!.source, "# I'm sorry");
  }));

test('repair sends the program and the gate\'s reason back, and names the repair after the slot', () =>
  withServer(async (server, provider) => {
    server.script({ kind: 'reply', text: fixture('single-answer') });
    const designer = createLLMDesigner(provider);
    const broken = { id: 'r1-e3', language: 'python' as const, source: 'class LeakyEnv: pass', meta: { origin: 'openai:designer-m' } };
    const verdict: GateVerdict = { verdict: 'invalid', reason: 'answer-leak', checks: [{ name: 'no-answer-leak', ok: false, detail: 'the first observation contains the answer "1643"' }], gameType: 'single-turn', wallMs: 1 };
    const fixed = await designer.repair!(broken, verdict, { round: 1, attempt: 1, originalId: 'r1-e3', seed: 3 });
    assert.is(fixed.id, 'r1-e3-fix1');
    const { designerReply, ...params } = fixed.meta!.params!;
    assert.equal(params, { repairOf: 'r1-e3', repairAttempt: 1 });
    // The reply's length and stop reason as the server reported them, for the round log.
    assert.is((designerReply as { finishReason: string }).finishReason, 'stop');
    assert.ok((designerReply as { tokens: number }).tokens > 0, JSON.stringify(designerReply));
    assert.match(fixed.source, 'class ProductEnv');
    const user = bodies(server)[0]!.messages[1]!.content;
    assert.match(user, 'class LeakyEnv: pass');
    assert.match(user, 'answer-leak');
    assert.match(user, 'contains the answer "1643"');
  }));

test.run();
