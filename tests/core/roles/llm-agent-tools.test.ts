/**
 * An LLM agent plays tool-use games against local servers that speak OpenAI's and Anthropic's
 * wire protocols, through the official SDKs, in real sandboxes: a Python game (SPADE's format, in
 * the cpython sandbox) and a JavaScript one (isolated-vm). The scripted model reads the
 * conversation the agent sent (the task, then each tool result) and decides its next call from
 * it, so it wins only if the tools went out, its calls reached the environment and the results
 * came back; it answers wrong when told to, and then loses. The servers refuse malformed tool
 * turns with HTTP 400, as the APIs do, which would make the episode `errored`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startWireServer, type Protocol, type WireServer } from '../../helpers/wire-servers.js';
import { inventoryModel, viewOf } from '../../helpers/tool-use-models.js';
import { repoRoot } from '../../helpers/cli.js';
import { fixture } from '../../fixtures/programs/load.js';
import openai from '../../../plugins/providers/openai.js';
import anthropic from '../../../plugins/providers/anthropic.js';
import { createIsolatedVmSandbox } from '../../../plugins/sandboxes/isolated-vm.js';
import { createCpythonSandbox } from '../../../plugins/sandboxes/cpython/sandbox.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { createLLMAgent } from '../../../core/roles/llm-agent.js';
import { FORMAT_FEEDBACK, NOT_RUN_EXTRA_CALL } from '../../../core/roles/agent-tools.js';
import { playEpisode } from '../../../core/run/episode.js';
import { statsOf } from '../../../core/providers/layer.js';
import type { EnvironmentProgram, EpisodeResult, Provider, Sandbox } from '../../../core/types.js';

const KEY = 'sk-agent-tools-0123456789abcdef';
const jailProblem = checkJail().problem;
if (jailProblem) console.log(`skipped (the Python game): the cpython sandbox cannot start here: ${jailProblem}`);

const python: EnvironmentProgram = {
  id: 'inventory-py',
  language: 'python',
  source: readFileSync(path.join(repoRoot, 'tests/fixtures/spade-format/tool_use_inventory.py'), 'utf8'),
};
const javascript = fixture('tool-use/inventory');

const sandboxes: Record<EnvironmentProgram['language'], () => Sandbox> = (() => {
  const made: Partial<Record<EnvironmentProgram['language'], Sandbox>> = {};
  return {
    javascript: () => (made.javascript ??= createIsolatedVmSandbox({ limits: { callTimeoutMs: 10_000 } })),
    python: () => (made.python ??= createCpythonSandbox({ limits: { callTimeoutMs: 10_000 }, workers: 1 })),
  };
})();

const servers: WireServer[] = [];
const dirs: string[] = [];
test.after.each(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
test.after(async () => {
  await Promise.all(Object.values(sandboxes).map((make) => make().close()));
});

async function providerOn(protocol: Protocol, extra: Record<string, unknown> = {}): Promise<{ server: WireServer; provider: Provider }> {
  const server = await startWireServer(protocol);
  servers.push(server);
  const model = protocol === 'openai' ? 'gpt-4.1-mini' : 'claude-haiku-4-5';
  const provider = await (protocol === 'openai' ? openai : anthropic).create({ model, apiKey: KEY, baseURL: server.baseURL, maxRetries: 0, ...extra });
  return { server, provider };
}

async function play(program: EnvironmentProgram, provider: Provider, options: { protocol?: 'default' | 'spade'; seed?: number } = {}): Promise<EpisodeResult> {
  const environment = await sandboxes[program.language]().load(program, undefined, { maxTurns: 25 });
  try {
    const seed = options.seed ?? 5;
    const { info } = await environment.reset(seed);
    const agent = createLLMAgent(provider, { protocol: options.protocol ?? 'default' });
    return await playEpisode({
      suite: 't', program, environment, agent, taskSeed: seed, agentSeed: 1, attempt: 0, withHint: false, horizon: Number(info.max_turns), keepSteps: true,
    });
  } finally {
    await environment.dispose();
  }
}

const games: [string, EnvironmentProgram][] = [['JavaScript', javascript], ['Python (cpython)', python]];

for (const protocol of ['openai', 'anthropic'] as const) {
  for (const [language, program] of games) {
    const maybe = program.language === 'python' && jailProblem ? test.skip : test;

    maybe(`${protocol}, ${language} game: native tool calls and tool results; the right answer wins, extra calls are answered "not run"`, async () => {
      const { server, provider } = await providerOn(protocol);
      server.route((body) => inventoryModel(viewOf(protocol, body), { native: true, extraCall: true }));
      const result = await play(program, provider);
      assert.is(result.outcome, 'won', JSON.stringify(result.steps?.map((s) => [s.action, s.observation]), null, 1));
      assert.is(result.toolCalls, 3, 'list_warehouses, then get_stock twice');
      assert.is(result.turns, 4);
      assert.match(result.steps![0]!.action, /^<tool_call>\{"name":"list_warehouses","arguments":\{\}\}<\/tool_call>$/);
      // Every request offered the tools natively, in the vendor's shape.
      for (const request of server.requests) assert.equal(viewOf(protocol, request.body).tools, program.language === 'python' ? ['list_warehouses', 'get_stock'] : ['list_warehouses', 'get_stock', 'get_price']);
      const second = server.requests[1]!.body;
      if (protocol === 'openai') {
        const messages = second.messages as Record<string, unknown>[];
        const assistant = messages.at(-3)!;
        assert.is((assistant.tool_calls as unknown[]).length, 2);
        assert.equal(messages.slice(-2).map((m) => [m.role, m.tool_call_id]), [['tool', (assistant.tool_calls as { id: string }[])[0]!.id], ['tool', (assistant.tool_calls as { id: string }[])[1]!.id]]);
        assert.match(String(messages.at(-2)!.content), /^Tool result:\n\[/);
        assert.is(messages.at(-1)!.content, NOT_RUN_EXTRA_CALL);
      } else {
        const messages = second.messages as { role: string; content: Record<string, unknown>[] }[];
        const blocks = messages.at(-1)!.content;
        assert.equal(blocks.map((b) => b.type), ['tool_result', 'tool_result']);
        assert.equal(blocks.map((b) => b.tool_use_id), messages.at(-2)!.content.filter((b) => b.type === 'tool_use').map((b) => b.id));
        assert.is(blocks[1]!.content, NOT_RUN_EXTRA_CALL);
      }
      // The conversation kept for export holds the calls and their results.
      assert.ok(result.messages!.some((m) => m.role === 'tool' && m.content.startsWith('Tool result:')));
      assert.ok(result.usage!.inputTokens > 0 && result.usage!.outputTokens > 0, 'tool turns count their tokens');
    });

    maybe(`${protocol}, ${language} game: a wrong answer loses`, async () => {
      const { server, provider } = await providerOn(protocol);
      server.route((body) => inventoryModel(viewOf(protocol, body), { native: true, wrong: true }));
      const result = await play(program, provider);
      assert.is(result.outcome, 'lost');
      assert.ok(result.truncated, 'played to the horizon, answering wrong each time');
      assert.match(result.steps!.at(-1)!.observation, /Solution:/);
    });

    maybe(`${protocol}, ${language} game: the text protocol (providers[id].tools: false): tools listed in the system prompt, the XML form read, [FORMAT] feedback after a malformed call`, async () => {
      const { server, provider } = await providerOn(protocol, { tools: false });
      assert.is(provider.tools, false);
      server.route((body) => inventoryModel(viewOf(protocol, body), { native: false, malformedFirst: true }));
      const result = await play(program, provider);
      assert.is(result.outcome, 'won', JSON.stringify(result.steps?.map((s) => [s.action, s.observation]), null, 1));
      const first = viewOf(protocol, server.requests[0]!.body);
      assert.equal(first.tools, [], 'no native tools went out');
      assert.match(first.system, '<tool_call>{"name": "<tool_name>", "arguments": {<arguments as a JSON object>}}</tool_call>');
      assert.match(first.system, '"name":"get_stock"');
      // The malformed call reached the environment as written (its format error, -0.1); the feedback followed.
      assert.is(result.rewards![0], -0.1);
      const second = viewOf(protocol, server.requests[1]!.body);
      assert.ok(second.observations[0]!.endsWith(`\n\n${FORMAT_FEEDBACK}`), second.observations[0]);
      // The XML call went to the environment as the JSON call it reads.
      assert.is(result.steps![1]!.action, '<tool_call>{"name":"list_warehouses","arguments":{}}</tool_call>');
      assert.match(result.steps![2]!.action, /^<tool_call>\{"name":"get_stock","arguments":\{"item":"\w+","warehouse":"\w+"\}\}<\/tool_call>$/);
      assert.ok(server.requests.every((r) => !JSON.stringify(r.body.messages).includes('tool_call_id') && !JSON.stringify(r.body.messages).includes('tool_use_id')));
    });
  }
}

test("SPADE's protocol plays a tool-use game as SPADE's tool-use path does: no template, no system prompt, the tools natively, 0.6 / 0.95", async () => {
  const { server, provider } = await providerOn('openai');
  server.route((body) => inventoryModel(viewOf('openai', body), { native: true }));
  const result = await play(javascript, provider, { protocol: 'spade' });
  assert.is(result.outcome, 'won');
  const body = server.requests[0]!.body as { messages: { role: string; content: string }[]; temperature: number; top_p: number; tools: unknown[] };
  assert.equal(body.messages.map((m) => m.role), ['user']);
  assert.match(body.messages[0]!.content, /^How many \w+ are in stock across all warehouses\?/);
  assert.equal([body.temperature, body.top_p, body.tools.length], [0.6, 0.95, 3]);
});

test('the response cache covers tool turns: a second play of the same episode is served from it, with the same calls', async () => {
  const cacheDir = mkdtempSync(path.join(tmpdir(), 'spade-tool-cache-'));
  dirs.push(cacheDir);
  const { server, provider } = await providerOn('anthropic', { cacheDir });
  server.route((body) => inventoryModel(viewOf('anthropic', body), { native: true }));
  const first = await play(javascript, provider);
  const asked = server.requests.length;
  // A new provider for the same endpoint (as a resumed or repeated run makes), and a server that now only fails.
  server.route(() => ({ kind: 'error', status: 400, message: 'the cache should have answered' }));
  const again = await anthropic.create({ model: 'claude-haiku-4-5', apiKey: KEY, baseURL: server.baseURL, maxRetries: 0, cacheDir });
  const second = await play(javascript, again);
  assert.is(first.outcome, 'won');
  assert.is(second.outcome, 'won');
  assert.equal(second.steps!.map((s) => s.action), first.steps!.map((s) => s.action));
  assert.is(server.requests.length, asked, 'no request reached the server');
  const usage = statsOf(again)!.usage();
  assert.equal([usage.calls, usage.cachedCalls], [asked, asked]);
  assert.equal(second.usage, first.usage, 'cached turns count the tokens they cost when first made');
});

test.run();
