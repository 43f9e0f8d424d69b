// `spade-bench run --gate spade --agent-protocol spade --slot-attempts 3` against a local
// OpenAI-compatible server: a slot whose first design is rejected is designed afresh, the second
// design is read as SPADE reads it (first python block, brace repair) and passes; validity per
// slot, first try and per program are in the results with the round's pass rate (its log's validationPassRate); the agent's
// requests carry SPADE's budgets, and a reply cut at its budget truncates its episode as a loss.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runCli, tempDir } from '../../helpers/cli.js';
import { startWireServer } from '../../helpers/wire-servers.js';
import type { RunResults } from '../../../core/results/results.js';
import type { EpisodeResult } from '../../../core/types.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/llm/${name}.md`, import.meta.url), 'utf8');

test('a slot designed afresh under SPADE\'s gate, validity three ways, and SPADE\'s agent budgets', async () => {
  const server = await startWireServer('openai');
  // The second design: SPADE's brace repair fixes a field that is not an expression; a helper block follows it.
  const second = `${fixture('single-answer').replace('return f"Split it: ', 'return f"{first step} Split it: ')}\n\`\`\`python\ndef helper():\n    return 1\n\`\`\`\n`;
  server.script(
    { kind: 'reply', text: fixture('prose-only') },
    { kind: 'reply', text: second },
    { kind: 'reply', text: 'Let me multiply this carefully, digit by digit', finishReason: 'length' },
  );
  server.setDefault({ kind: 'reply', text: 'It is \\boxed{0}', inputTokens: 40, outputTokens: 4 });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cacheDir: path.join(cwd, 'cache') }));
  const env = { OPENAI_API_KEY: 'sk-slots-cli-0123456789', OPENAI_BASE_URL: server.baseURL };
  try {
    const r = await runCli([
      'run', '--out', 'out', '--suites', 'spade', '--designer', 'openai:M', '--agent', 'openai:M', '--rounds', '1', '--envs-per-round', '1',
      '--attempts', '1', '--gate', 'spade', '--agent-protocol', 'spade', '--slot-attempts', '3', '--repairs', '0',
      // SPADE's player template is built from SPADE's source: the shared offline copy.
      '--data-dir', path.resolve(repoRoot, '../shared/datasets'),
    ], { cwd, env: { ...env, SPADE_BENCH_OFFLINE: '1' } });
    assert.is(r.code, 0, r.stderr);
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    const suite = results.suites[0]!;
    const [environment] = suite.environments;
    assert.is(environment!.id, 'r0-e0-s2');
    assert.is(environment!.verdict, 'valid');
    assert.match(environment!.source, 'return f"{{first step}} Split it: ');
    assert.not.match(environment!.source, 'def helper');
    assert.equal(environment!.repairs!.map((p) => [p.id, p.reason, p.resampled]), [['r0-e0', 'syntax', true]]);
    const validity = suite.metrics.validity;
    assert.equal([validity.firstTry!.valid, validity.firstTry!.proposed], [0, 1]);
    assert.equal([validity.perSlot!.valid, validity.perSlot!.slots], [1, 1]);
    assert.equal([validity.perProgram!.valid, validity.perProgram!.programs], [1, 2]);
    assert.is(suite.rounds[0]!.log!.figures.validationPassRate, 1);

    // The agent's requests: SPADE's template, sampling and budget.
    const agentRequests = server.requests.filter((q) => String((q.body.messages as { content: string }[])[0]!.content).startsWith('You are playing a language game.'));
    assert.is(agentRequests.length, 2, 'one play without the hint, one with');
    for (const { body } of agentRequests) {
      assert.equal([body.temperature, body.top_p, body.top_k, body.max_completion_tokens], [0.6, 0.95, 20, 8192]);
      assert.equal(body.chat_template_kwargs, { enable_thinking: false });
    }
    // The reply cut at its budget truncated its episode: a loss, nothing sent to the environment.
    const episodes = readFileSync(path.join(cwd, 'out/journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; episode?: EpisodeResult })
      .filter((l) => l.type === 'episode').map((l) => l.episode!);
    const cut = episodes.filter((e) => e.agentTruncated === 'length');
    assert.is(cut.length, 1, JSON.stringify(episodes.map((e) => [e.outcome, e.finishReasons])));
    assert.equal([cut[0]!.outcome, cut[0]!.turns, cut[0]!.truncated], ['lost', 0, true]);
  } finally {
    await server.close();
  }
});

test.run();
