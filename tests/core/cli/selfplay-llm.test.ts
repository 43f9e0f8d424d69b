// A model as designer and agent: `spade-bench run --suites spade --designer openai:M --agent openai:M
// --rounds 1` against a local OpenAI-compatible server yields valid Python environments
// through the gate, and export writes them (episodes for RL trainers, and the pool).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, tempDir } from '../../helpers/cli.js';
import { startWireServer } from '../../helpers/wire-servers.js';
import { codeHash, type EpisodeLine, type PoolManifestLine } from '../../../core/results/export.js';
import type { RunResults } from '../../../core/results/results.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/llm/${name}.md`, import.meta.url), 'utf8');
const jsonLines = <T>(file: string): T[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);

test('a model designs and plays one round; export writes the episodes and the pool', async () => {
  const server = await startWireServer('openai');
  server.script({ kind: 'reply', text: fixture('single-answer') }, { kind: 'reply', text: fixture('multi-turn-two-blocks') });
  server.setDefault({ kind: 'reply', text: 'My answer: \\boxed{0}', inputTokens: 50, outputTokens: 5 });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cacheDir: path.join(cwd, 'cache') }));
  const env = { OPENAI_API_KEY: 'sk-selfplay-cli-0123456789', OPENAI_BASE_URL: server.baseURL };
  try {
    const r = await runCli(['run', '--out', 'out', '--suites', 'spade', '--designer', 'openai:M', '--agent', 'openai:M', '--rounds', '1', '--envs-per-round', '2', '--attempts', '1'], { cwd, env });
    assert.is(r.code, 0, r.stderr);
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    assert.is(results.run.designerKind, 'llm');
    const suite = results.suites[0]!;
    assert.is(suite.metrics.validity.proposed, 2);
    assert.is(suite.metrics.validity.valid, 2, JSON.stringify(suite.environments.map((e) => [e.id, e.reason, e.checks.at(-1)])));
    assert.equal(suite.environments.map((e) => e.language), ['python', 'python']);
    // The sandbox that ran them is named, on the console, in the results and in the report.
    assert.match(r.stderr, /sandbox isolated-vm, Python (cpython|pyodide) /);
    assert.match(results.run.pythonSandbox ?? '', /^(cpython|pyodide)$/);
    assert.match(readFileSync(path.join(cwd, 'out/report.html'), 'utf8'), `; Python: ${results.run.pythonSandbox}`);
    assert.is(suite.rounds[0]!.valid, 2);
    // SPADE's round log: the designer's replies as the server counted them, none cut at the limit.
    const log = suite.rounds[0]!.log!;
    assert.ok(log.figures.designerResponseTokens! > 0, JSON.stringify(log));
    assert.is(log.figures.designerTruncatedShare, 0);
    assert.is(log.figures.validationPassRate, 1);
    // The designer's prompt went out: the contract and the \boxed format.
    const designPrompt = (server.requests[0]!.body.messages as { content: string }[])[0]!.content;
    assert.match(designPrompt, 'reset(self, seed=None)');

    // Episodes, one line each: messages, per-step rewards, how it ended, the environment's code hash and designer reward.
    const out = path.join(cwd, 'episodes.jsonl');
    const jsonl = await runCli(['export', path.join(cwd, 'out'), '--format', 'jsonl', '-o', out]);
    assert.is(jsonl.code, 0, jsonl.stderr);
    const exported = await runCli(['export', path.join(cwd, 'out'), '--format', 'pool', '-o', path.join(cwd, 'pool')]);
    assert.is(exported.code, 0, exported.stderr);
    const lines = jsonLines<EpisodeLine>(out);
    assert.is(lines.length, 4, 'two environments, played once with and once without the hint');
    const sources = new Map(suite.environments.map((e) => [e.id, e.source]));
    for (const line of lines) {
      assert.is(line.code_hash, codeHash(sources.get(line.environment_id)!));
      assert.is(line.rewards.length, line.turns);
      assert.is(line.messages.length, 1 + 2 * line.turns, 'system, then an observation and a reply per turn');
      assert.is(line.messages[2]!.content, 'My answer: \\boxed{0}');
      assert.ok(line.terminated || line.truncated, 'every episode ended');
      assert.type(line.designer_reward, 'number');
      assert.is(line.input_tokens, 50 * line.turns);
    }
    // The hint is added to the first observation of the hinted plays only, as SPADE does.
    assert.ok(lines.some((l) => l.with_hint && l.messages[1]!.content.includes('\n\nHINT: ')), 'the hint reached the agent');
    assert.ok(lines.filter((l) => !l.with_hint).every((l) => !l.messages.some((m) => m.content.includes('HINT: '))), 'unhinted plays have no hint');

    // The pool, in SPADE's layout: games/game_{round}_{index}_{skill}.py with SPADE's header line,
    // manifest.jsonl, SPADE's env_memory.json, checksums.sha256.
    const pool = path.join(cwd, 'pool');
    assert.equal(readdirSync(pool).sort(), ['checksums.sha256', 'env_memory.json', 'games', 'manifest.jsonl']);
    assert.equal(readdirSync(path.join(pool, 'games')).filter((f) => f.endsWith('.py')).sort(), ['game_00000_000_pattern_recognition.py', 'game_00000_001_logical_deduction.py']);
    const manifest = jsonLines<PoolManifestLine>(path.join(pool, 'manifest.jsonl'));
    for (const line of manifest) {
      const text = readFileSync(path.join(pool, line.file_name), 'utf8');
      assert.is(text, `"""SPADE self-play generated game"""\n\n${sources.get(line.id)!.trimEnd()}\n`);
      assert.match(text, /\nclass \w+Env\b/, 'its class name ends in Env');
    }
    assert.equal(manifest.map((l) => [l.id, l.skill]), [['r0-e0', 'Pattern Recognition'], ['r0-e1', 'Logical Deduction']]);

    // spade-pool:DIR reads that layout back, and the gate gives each program the same verdicts.
    const back = await runCli(['run', '--out', 'back', '--suites', 'spade-pool:pool', '--validate-only'], { cwd, env });
    assert.is(back.code, 0, back.stderr);
    const reread = (JSON.parse(readFileSync(path.join(cwd, 'back/results.json'), 'utf8')) as RunResults).suites[0]!;
    assert.equal(reread.environments.map((e) => e.id), manifest.map((l) => `spade-pool/${l.game_id}`));
    reread.environments.forEach((e, i) => {
      const original = suite.environments.find((x) => x.id === manifest[i]!.id)!;
      assert.equal([e.verdict, e.readings], [original.verdict, original.readings], e.id);
      assert.is(e.skill, original.skill);
    });  } finally {
    await server.close();
  }
});

test('the LLM flags reach the roles: --corpus grounds designs, --reviewer reviews, bad values stop early', async () => {
  const server = await startWireServer('openai');
  server.script({ kind: 'reply', text: fixture('single-answer') }, { kind: 'reply', text: fixture('single-answer') });
  // The reviewer (model J) rejects; everything else answers like an agent.
  server.setDefault({ kind: 'reply', text: 'Looks broken to me. \\boxed{reject}' });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false }));
  writeFileSync(path.join(cwd, 'corpus.jsonl'), `${JSON.stringify({ text: 'Tide tables of the harbour of Saint-Malo' })}\n`);
  const env = { OPENAI_API_KEY: 'sk-selfplay-flags-0123456789', OPENAI_BASE_URL: server.baseURL };
  try {
    const args = ['run', '--suites', 'spade', '--designer', 'openai:M', '--agent', 'openai:M', '--rounds', '1', '--envs-per-round', '2', '--attempts', '1'];
    const r = await runCli([...args, '--out', 'out', '--corpus', 'corpus.jsonl', '--reviewer', 'openai:J', '--agent-memory', 'window:2', '--language', 'python', '--repairs', '0'], { cwd, env });
    assert.is(r.code, 0, r.stderr);
    const prompts = server.requests.filter((q) => q.body.model === 'M').map((q) => JSON.stringify(q.body.messages));
    assert.ok(prompts.slice(0, 2).every((p) => p.includes('Saint-Malo')), 'each design is grounded on the corpus document');
    assert.ok(server.requests.some((q) => q.body.model === 'J'), 'the reviewer model was asked');
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    const reviewed = results.suites[0]!.environments.filter((e) => e.review);
    assert.ok(reviewed.length > 0, 'reviews are recorded apart from the gate');
    assert.ok(reviewed.every((e) => e.review!.accepted === false && e.verdict === 'valid'), JSON.stringify(reviewed.map((e) => [e.verdict, e.review])));
    assert.is(results.suites[0]!.rounds[0]!.valid, 0, 'a rejected review keeps the environment out of play');
    for (const [flag, value] of [['--agent-memory', 'forever'], ['--language', 'cobol']] as const) {
      const bad = await runCli([...args, '--out', `bad${flag}`, flag, value], { cwd, env });
      assert.is(bad.code, 2, `${flag} ${value}: ${bad.stderr}`);
      assert.match(bad.stderr, flag === '--language' ? 'selfplay.language' : 'agentMemory');
    }
  } finally {
    await server.close();
  }
});

test.run();
