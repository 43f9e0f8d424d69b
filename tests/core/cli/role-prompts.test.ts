// prompts.{designer,hint,agent,reviewer}: a file's text replaces that role's system prompt;
// sampling.{role} sets its model calls' sampling. A prompt file that cannot be read stops the
// run before anything is written, naming the key (exit 2).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, tempDir } from '../../helpers/cli.js';
import { startWireServer, type RecordedRequest } from '../../helpers/wire-servers.js';

const program = readFileSync(new URL('../../fixtures/llm/no-hint.md', import.meta.url), 'utf8');
type Message = { role: string; content: string };
const system = (r: RecordedRequest): string | undefined => (r.body.messages as Message[]).find((m) => m.role === 'system')?.content;

test('each role takes its system prompt from its file, and its sampling from the config', async () => {
  const server = await startWireServer('openai');
  const PROMPTS = { designer: 'DESIGNER PROMPT FILE', hint: 'HINT PROMPT FILE', agent: 'AGENT PROMPT FILE', reviewer: 'REVIEWER PROMPT FILE' };
  server.route((body) => {
    const first = (body.messages as Message[])[0]!.content;
    if (first === PROMPTS.designer) return { kind: 'reply', text: program };
    if (first === PROMPTS.hint) return { kind: 'reply', text: 'Keep the remainder.' };
    if (first === PROMPTS.reviewer) return { kind: 'reply', text: 'Fine. \\boxed{ACCEPT}' };
    return { kind: 'reply', text: '\\boxed{1}' };
  });
  const cwd = tempDir();
  for (const [role, text] of Object.entries(PROMPTS)) writeFileSync(path.join(cwd, `${role}.txt`), text);
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({
    cache: false,
    prompts: { designer: 'designer.txt', hint: 'hint.txt', agent: 'agent.txt', reviewer: 'reviewer.txt' },
    sampling: { designer: { temperature: 0.2, topP: 0.5 }, hint: { temperature: 0.1 }, agent: { temperature: 0.9, maxTokens: 77 }, reviewer: { topP: 0.3 } },
  }));
  const env = { OPENAI_API_KEY: 'sk-role-prompts-0123456789', OPENAI_BASE_URL: server.baseURL };
  try {
    const r = await runCli(['run', '--out', 'out', '--suites', 'spade', '--designer', 'openai:D', '--agent', 'openai:A', '--reviewer', 'openai:R',
      '--rounds', '1', '--envs-per-round', '1', '--attempts', '1', '--python-sandbox', 'pyodide'], { cwd, env });
    assert.is(r.code, 0, r.stderr);
    const by = (model: string, prompt: string) => server.requests.filter((q) => q.body.model === model && system(q) === prompt);
    const [design] = by('D', PROMPTS.designer);
    assert.ok(design, 'the designer used its file');
    assert.equal([design!.body.temperature, design!.body.top_p], [0.2, 0.5]);
    const [hint] = by('D', PROMPTS.hint);
    assert.ok(hint, 'the hint writer used its file');
    assert.is(hint!.body.temperature, 0.1);
    const plays = by('A', PROMPTS.agent);
    assert.ok(plays.length >= 2, 'the agent used its file');
    assert.ok(plays.every((q) => q.body.temperature === 0.9 && q.body.max_completion_tokens === 77), JSON.stringify(plays[0]!.body));
    const [review] = by('R', PROMPTS.reviewer);
    assert.ok(review, 'the reviewer used its file');
    assert.is(review!.body.top_p, 0.3);
    assert.is(server.requests.filter((q) => !Object.values(PROMPTS).includes(system(q) ?? '')).length, 0, 'no built-in prompt was sent');
  } finally {
    await server.close();
  }
});

test('a prompt file that cannot be read stops the run before anything is written (exit 2, naming the key)', async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ prompts: { hint: 'missing.txt' } }));
  const r = await runCli(['run', '--out', 'out', '--designer', 'openai:D', '--agent', 'openai:A'], { cwd, env: { OPENAI_API_KEY: 'sk-role-prompts-0123456789' } });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /prompts\.hint: cannot read .*missing\.txt: ENOENT/);
  assert.not.ok(existsSync(path.join(cwd, 'out', 'journal.jsonl')));
});

test.run();
