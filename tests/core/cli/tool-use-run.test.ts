// Runs of tool-use games with models, against a local OpenAI-compatible server:
// - `run --game-type tool-use` asks a scripted designer model for tool-use games with the
//   tool-use prompt, gates its two programs (SPADE's single-task and multi-turn variants, in
//   Python), asks for each one's hint with the tool-use hint prompt, and an LLM agent plays them
//   with native tool calls, winning both (the scripted agent model reads the tool results it is sent);
// - `--agent-protocol spade` plays SPADE-format tool-use games as SPADE's tool-use path does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, tempDir } from '../../helpers/cli.js';
import { startWireServer, type RecordedRequest } from '../../helpers/wire-servers.js';
import { inventoryModel, ticketDeskModel, viewOf } from '../../helpers/tool-use-models.js';
import type { RunResults } from '../../../core/results/results.js';

const game = (name: string): string => readFileSync(path.join(repoRoot, 'tests/fixtures/spade-format', name), 'utf8');
const reply = (source: string): string => `Here is the environment.\n\n\`\`\`python\n${source}\`\`\`\n`;

type Message = { role: string; content: string };
const system = (r: RecordedRequest): string => (r.body.messages as Message[]).find((m) => m.role === 'system')?.content ?? '';
const isDesign = (r: RecordedRequest): boolean => system(r).startsWith('You are an environment designer.');
const isHint = (r: RecordedRequest): boolean => (r.body.messages as Message[]).some((m) => m.role === 'user' && m.content.startsWith('Environment code:'));

test('--game-type tool-use: tool-use designs from the tool-use prompt, gated, hinted with the tool-use hint prompt, played with native tool calls', async () => {
  const server = await startWireServer('openai');
  server.route((body) => {
    const messages = body.messages as Message[];
    const user = messages.find((m) => m.role === 'user')?.content ?? '';
    if (messages[0]?.content.startsWith('You are an environment designer.')) {
      return { kind: 'reply', text: reply(game(/Design environment 1 of/.test(user) ? 'tool_use_inventory.py' : 'tool_use_multi_turn.py')) };
    }
    if (user.startsWith('Environment code:')) return { kind: 'reply', text: 'Work one instruction at a time: look up the record first with the listing tool, then change it. Take every id from the results.' };
    const view = viewOf('openai', body);
    return /How many/.test(view.task) ? inventoryModel(view, { native: true }) : ticketDeskModel(view, { native: true });
  });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false }));
  const env = { OPENAI_API_KEY: 'sk-selfplay-tools-0123456789', OPENAI_BASE_URL: server.baseURL };
  try {
    const r = await runCli(['run', '--out', 'out', '--suites', 'spade', '--designer', 'openai:M', '--agent', 'openai:M', '--game-type', 'tool-use', '--rounds', '1', '--envs-per-round', '2', '--attempts', '1'], { cwd, env });
    assert.is(r.code, 0, r.stderr);
    const suite = (JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults).suites[0]!;

    // The designer was asked with the tool-use prompt, for SPADE's first tool-use skills.
    const designs = server.requests.filter(isDesign);
    assert.is(designs.length, 2, JSON.stringify(suite.environments.map((e) => [e.id, e.repairs, e.checks])));
    for (const d of designs) {
      assert.match(system(d), 'You write tool-use environments');
      assert.match(system(d), 'class SomethingEnv(ToolUseBaseEnv)');
    }
    assert.equal(suite.environments.map((e) => e.skill), ['API Orchestration', 'Data Retrieval']);

    // Both programs passed the gate as tool-use games.
    assert.equal(suite.environments.map((e) => [e.verdict, e.gameType]), [['valid', 'tool-use'], ['valid', 'tool-use']], JSON.stringify(suite.environments.map((e) => e.checks.at(-1))));
    assert.is(suite.metrics.byGameType?.['tool-use']?.valid, 2);

    // A hint was asked for each, with the tool-use hint prompt, and shown to the hinted plays.
    const hints = server.requests.filter(isHint);
    assert.is(hints.length, 2);
    for (const h of hints) {
      assert.match(system(h), 'write a strategy hint for the language model agent');
      assert.match(system(h), 'Never write a concrete value from the code');
    }
    assert.ok(suite.environments.every((e) => e.designerHint?.startsWith('Work one instruction at a time')));

    // The agent got the tools natively and sent the results back as tool messages; it won both games.
    const plays = server.requests.filter((q) => !isDesign(q) && !isHint(q));
    assert.ok(plays.every((q) => Array.isArray(q.body.tools) && (q.body.tools as unknown[]).length > 0), 'every agent request offered the tools');
    assert.ok(plays.some((q) => (q.body.messages as Message[]).some((m) => m.role === 'tool')), 'tool results went back as tool messages');
    assert.equal(suite.environments.map((e) => [e.solveRate, e.hintSolveRate]), [[1, 1], [1, 1]]);
    const byType = suite.metrics.byGameType!['tool-use']!;
    assert.is(byType.successRate, 1);
    assert.ok(byType.toolCallsPerEpisode! >= 3, `tool calls per episode: ${byType.toolCallsPerEpisode}`);
  } finally {
    await server.close();
  }
});

test("--agent-protocol spade plays SPADE-format tool-use games as SPADE's tool-use path: the observation as it is, no system prompt, the tools natively, each game's own max_turns", async () => {
  const server = await startWireServer('openai');
  server.route((body) => {
    const view = viewOf('openai', body);
    return /How many/.test(view.task) ? inventoryModel(view, { native: true }) : ticketDeskModel(view, { native: true });
  });
  const cwd = tempDir();
  mkdirSync(path.join(cwd, 'pool'));
  for (const name of ['tool_use_inventory.py', 'tool_use_multi_turn.py']) copyFileSync(path.join(repoRoot, 'tests/fixtures/spade-format', name), path.join(cwd, 'pool', name));
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false }));
  const env = { OPENAI_API_KEY: 'sk-spade-tools-0123456789', OPENAI_BASE_URL: server.baseURL };
  try {
    // SPADE's player template is built by SPADE's code, read from the offline copy of its source.
    const r = await runCli(['run', '--out', 'out', '--suites', 'spade-pool:pool', '--agent', 'openai:A', '--agent-protocol', 'spade', '--attempts', '2', '--data-dir', path.resolve(repoRoot, '../shared/datasets')], { cwd, env: { ...env, SPADE_BENCH_OFFLINE: '1' } });
    assert.is(r.code, 0, r.stderr);
    const suite = (JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults).suites[0]!;
    // ToolUseBaseEnv's own 10 turns, within SPADE's budget of 25.
    assert.equal(suite.environments.map((e) => [e.gameType, e.verdict, e.horizon, e.solveRate]), [['tool-use', 'valid', 10, 1], ['tool-use', 'valid', 10, 1]]);
    for (const request of server.requests) {
      const messages = request.body.messages as Message[];
      assert.is(messages[0]!.role, 'user', 'no system prompt');
      assert.match(messages[0]!.content, /^(How many \w+ are in stock|Customer \w+ is waiting)/, 'the observation as it is, without the game template');
      assert.equal([request.body.temperature, request.body.top_p, (request.body.tools as unknown[]).length > 0], [0.6, 0.95, true]);
    }
  } finally {
    await server.close();
  }
});

test('--game-type takes cognitive or tool-use; --skills may name a tool-use skill', async () => {
  const bad = await runCli(['run', '--out', path.join(tempDir(), 'bad'), '--game-type', 'puzzles']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, 'selfplay.gameType');
  const badSkill = await runCli(['run', '--out', path.join(tempDir(), 'bad'), '--skills', 'Juggling']);
  assert.is(badSkill.code, 2);
  assert.match(badSkill.stderr, 'Multi-Step Workflows');
});

test.run();
