// SPADE's agent protocol (--agent-protocol spade) in a real run against a local OpenAI-compatible
// server: SPADE's first-turn template and no system prompt, only the text after the last
// </think> read and the first boxed answer sent, 25 turns for a program that sets none, a seed
// of its own for each attempt, and SPADE's sampling (temperature 0.6, top_p 0.95).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, tempDir } from '../../helpers/cli.js';
import { startWireServer, type RecordedRequest } from '../../helpers/wire-servers.js';
import type { EpisodeLine } from '../../../core/results/export.js';
import type { RunResults } from '../../../core/results/results.js';

const program = readFileSync(new URL('../../fixtures/llm/no-hint.md', import.meta.url), 'utf8');
const jsonLines = <T>(file: string): T[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);
type Message = { role: string; content: string };
const messagesOf = (r: RecordedRequest): Message[] => r.body.messages as Message[];

/** A reply whose thinking holds a boxed answer, and whose visible part holds two. */
const REPLY = '<think>Maybe \\boxed{3}? No.</think>The remainder is \\boxed{5}, not \\boxed{6}.';

test("--agent-protocol spade plays as SPADE's player does", async () => {
  const server = await startWireServer('openai');
  server.route((body) => {
    const messages = body.messages as Message[];
    if (messages.some((m) => m.role === 'user' && m.content.startsWith('Environment code:'))) return { kind: 'reply', text: 'Divide and keep the rest.' };
    if (messages[0]?.content.startsWith('You are an environment designer')) return { kind: 'reply', text: program };
    return { kind: 'reply', text: REPLY, inputTokens: 30, outputTokens: 9 };
  });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false }));
  const env = { OPENAI_API_KEY: 'sk-agent-protocol-0123456789', OPENAI_BASE_URL: server.baseURL };
  try {
    const r = await runCli(['run', '--out', 'out', '--suites', 'spade', '--designer', 'openai:D', '--agent', 'openai:A', '--agent-protocol', 'spade',
      '--rounds', '1', '--envs-per-round', '1', '--attempts', '3', '--python-sandbox', 'pyodide', '--data-dir', path.resolve(repoRoot, '../shared/datasets')], { cwd, env: { ...env, SPADE_BENCH_OFFLINE: '1' } });
    assert.is(r.code, 0, r.stderr);
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    assert.is(results.run.config.agentProtocol, 'spade');
    assert.match(results.run.agentLabel, "SPADE's protocol");
    const [environment] = results.suites[0]!.environments;
    assert.is(environment!.verdict, 'valid', JSON.stringify(environment!.checks));

    const plays = server.requests.filter((q) => q.body.model === 'A');
    assert.ok(plays.length >= 6);
    for (const request of plays) {
      const messages = messagesOf(request);
      // No system prompt; the first user message is SPADE's template around the first observation.
      assert.is(messages[0]!.role, 'user');
      assert.ok(messages[0]!.content.startsWith('You are playing a language game. Make valid actions to win.\nObservation: What is the remainder of '), messages[0]!.content);
      assert.ok(messages[0]!.content.endsWith('\nPlease reason step by step, and put your final answer within \\boxed{}.'));
      assert.is(request.body.temperature, 0.6);
      assert.is(request.body.top_p, 0.95);
    }
    // The environment got the first boxed answer after </think>: \boxed{5}.
    assert.ok(environment!.sample!.steps.every((s) => s.action === '\\boxed{5}'), JSON.stringify(environment!.sample!.steps.map((s) => s.action)));

    const out = path.join(cwd, 'episodes.jsonl');
    assert.is((await runCli(['export', path.join(cwd, 'out'), '--format', 'jsonl', '-o', out], { cwd })).code, 0);
    const lines = jsonLines<EpisodeLine>(out);
    // The program's reset() names no horizon: its own max_turns (3), not SPADE's turn budget (25).
    assert.ok(lines.every((l) => l.horizon === 3), JSON.stringify(lines.map((l) => l.horizon)));
    // A seed of its own for each attempt; the hinted attempt i replays unhinted attempt i's.
    const plain = lines.filter((l) => !l.with_hint).sort((a, b) => a.attempt - b.attempt);
    const hinted = lines.filter((l) => l.with_hint).sort((a, b) => a.attempt - b.attempt);
    assert.is(new Set(plain.map((l) => l.seed)).size, 3);
    assert.equal(hinted.map((l) => l.seed), plain.map((l) => l.seed));
    // The transcript keeps the model's whole reply, thinking included.
    assert.is(plain[0]!.messages[1]!.content, REPLY);
  } finally {
    await server.close();
  }
});

test.run();
