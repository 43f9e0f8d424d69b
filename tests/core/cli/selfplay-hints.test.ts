// Hints as SPADE makes them, in a real LLM self-play run against a local OpenAI-compatible
// server: the designer model is asked for a hint for each valid program without hint() (its own
// source in the user message, temperature 0.3), the run journals it and a resumed run reuses
// it, and the hint appears in the first observation of the hinted plays only.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, tempDir } from '../../helpers/cli.js';
import { startWireServer, type RecordedRequest } from '../../helpers/wire-servers.js';
import type { EpisodeLine } from '../../../core/results/export.js';
import type { RunResults } from '../../../core/results/results.js';

const program = readFileSync(new URL('../../fixtures/llm/no-hint.md', import.meta.url), 'utf8');
const source = /```python\n([\s\S]*?)```/.exec(program)![1]!;
const jsonLines = <T>(file: string): T[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);

type Message = { role: string; content: string };
const messagesOf = (r: RecordedRequest): Message[] => r.body.messages as Message[];
const isHintRequest = (r: RecordedRequest): boolean => messagesOf(r).some((m) => m.role === 'user' && m.content.startsWith('Environment code:'));
const isDesignRequest = (r: RecordedRequest): boolean => messagesOf(r)[0]?.content.startsWith('You are an environment designer') ?? false;

test('the designer model writes a hint per valid program without hint(); only hinted plays see it; a resumed run reuses it', async () => {
  const server = await startWireServer('openai');
  let hints = 0;
  server.route((body) => {
    const messages = body.messages as Message[];
    if (messages.some((m) => m.role === 'user' && m.content.startsWith('Environment code:'))) {
      return { kind: 'reply', text: `Divide, then keep what is left over; answer with one integer. (hint ${++hints})` };
    }
    if (messages[0]?.content.startsWith('You are an environment designer')) return { kind: 'reply', text: program };
    return { kind: 'reply', text: 'My answer: \\boxed{0}', inputTokens: 40, outputTokens: 5 };
  });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false }));
  const env = { OPENAI_API_KEY: 'sk-selfplay-hints-0123456789', OPENAI_BASE_URL: server.baseURL };
  const args = ['run', '--suites', 'spade', '--designer', 'openai:M', '--agent', 'openai:M', '--rounds', '1', '--envs-per-round', '2', '--attempts', '2', '--environments-in-flight', '1', '--python-sandbox', 'pyodide'];
  try {
    const r = await runCli([...args, '--out', 'out'], { cwd, env });
    assert.is(r.code, 0, r.stderr);
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    const environments = results.suites[0]!.environments;
    assert.equal(environments.map((e) => e.verdict), ['valid', 'valid'], JSON.stringify(environments.map((e) => e.checks.at(-1))));

    // One hint request per valid program without hint(): SPADE's user message, temperature 0.3.
    const asked = server.requests.filter(isHintRequest);
    assert.is(asked.length, 2);
    for (const request of asked) {
      const [system, user] = messagesOf(request);
      assert.is(system!.role, 'system');
      assert.match(system!.content, 'hint');
      assert.ok(environments.some((e) => user!.content === `Environment code:\n\`\`\`python\n${e.source}\n\`\`\``), 'the program\'s own source, in a python block');
      assert.match(user!.content, source.trim());
      assert.is(request.body.temperature, 0.3);
    }
    // SPADE's skills reach the designer, and the results.
    assert.ok(server.requests.filter(isDesignRequest).every((q) => messagesOf(q).some((m) => m.content.includes('Cognitive skill to exercise: '))));
    assert.equal(environments.map((e) => e.skill), ['Pattern Recognition', 'Logical Deduction']);

    // Journaled, and shown in the results.
    const journal = jsonLines<{ type: string; id?: string; hint?: { hint?: string; by: string } }>(path.join(cwd, 'out/journal.jsonl'));
    // Design slots run at once (a model-driven run keeps the provider busy): hints are journaled as they come.
    const journaled = journal.filter((j) => j.type === 'hint').sort((a, b) => a.id!.localeCompare(b.id!));
    assert.equal(journaled.map((j) => j.id), ['r0-e0', 'r0-e1']);
    assert.ok(journaled.every((j) => j.hint!.by === 'openai:M' && j.hint!.hint?.startsWith('Divide, then keep')));
    assert.equal(environments.map((e) => e.designerHint), journaled.map((j) => j.hint!.hint));

    // The hint is in the first observation of the hinted plays, and nowhere in the others.
    const out = path.join(cwd, 'episodes.jsonl');
    assert.is((await runCli(['export', path.join(cwd, 'out'), '--format', 'jsonl', '-o', out], { cwd })).code, 0);
    const lines = jsonLines<EpisodeLine>(out);
    assert.is(lines.length, 8, 'two environments, two attempts, with and without the hint');
    for (const line of lines) {
      const hint = environments.find((e) => e.id === line.environment_id)!.designerHint!;
      const [, first, ...rest] = line.messages;
      if (line.with_hint) assert.ok(first!.content.endsWith(`\n\nHINT: ${hint}`), first!.content);
      else assert.not.ok(first!.content.includes('HINT'), first!.content);
      assert.ok(rest.every((m) => !m.content.includes('HINT: ')), 'only the first observation carries it');
    }

    // A run resumed after the hints were journaled asks for none again, and plays with the same ones.
    const resumed = path.join(cwd, 'resumed');
    const records = readFileSync(path.join(cwd, 'out/journal.jsonl'), 'utf8').trim().split('\n');
    const cut = records.findLastIndex((line) => JSON.parse(line).type === 'hint');
    await runCli(['run', '--out', 'resumed', '--validate-only', '--suites', 'procedural', '--limit', '1'], { cwd, env }); // makes the folder
    writeFileSync(path.join(resumed, 'journal.jsonl'), `${records.slice(0, cut + 1).join('\n')}\n`);
    const before = server.requests.length;
    const again = await runCli(['run', '--out', 'resumed', '--resume'], { cwd, env });
    assert.is(again.code, 0, again.stderr);
    const later = server.requests.slice(before);
    assert.is(later.filter(isHintRequest).length, 0, 'the journaled hints are reused');
    assert.ok(later.length > 0, 'the plays were made');
    const resumedResults = JSON.parse(readFileSync(path.join(resumed, 'results.json'), 'utf8')) as RunResults;
    assert.equal(resumedResults.suites[0]!.environments.map((e) => e.designerHint), environments.map((e) => e.designerHint));
    // The plays of the program whose hint was journaled last come after that hint (design slots
    // run at once, so which program that is varies): they were made again, with it.
    const lastHinted = (JSON.parse(records[cut]!) as { id: string }).id;
    const lastHint = environments.find((e) => e.id === lastHinted)!.designerHint;
    assert.ok(later.some((q) => messagesOf(q).some((m) => m.content.endsWith(`\n\nHINT: ${lastHint}`))));
  } finally {
    await server.close();
  }
});

test.run();
