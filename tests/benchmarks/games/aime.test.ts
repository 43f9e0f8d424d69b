// AIME scored as SPADE's evaluation scores it: fixed replies served by a local OpenAI-protocol
// server go through a real run (the vllm: provider, the openai SDK); every per-sample verdict
// and every figure equals what SPADE's own scoring functions gave on the same replies
// (tests/fixtures/games/aime-spade.json, recorded with Debian's python3, where math-verify is
// absent: SPADE's integer fallback), and the LaTeX forms of an integer are read as math-verify
// reads them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { runCli, tempDir } from '../../helpers/cli.js';
import type { RunResults } from '../../../core/results/results.js';
import type { EpisodeResult } from '../../../core/concepts/episode.js';
import { FIXTURES, gamesDataDir, samplingServer, writeJsonLines } from './games-data.js';
import { AIME_EQUIVALENCE_SOURCE } from '../../../benchmarks/games/aime-equivalence.js';

type Samples = [string, string][];
const replies = JSON.parse(readFileSync(path.join(FIXTURES, 'aime-replies.json'), 'utf8')) as { problems: { label: string; samples: Samples }[]; latexForms: { label: string; samples: Samples } };
const spade = JSON.parse(readFileSync(path.join(FIXTURES, 'aime-spade.json'), 'utf8')) as {
  perSample: [number, number, string | null, boolean][];
  metrics: Record<string, number>;
  latexForms: [string, string | null, boolean][];
};
const INSTRUCTION = '\nPlease reason step by step, and put your final answer within \\boxed{}.';

/** Episodes of the run's journal, by suite. */
function episodes(out: string): EpisodeResult[] {
  return readFileSync(path.join(out, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.type === 'episode').map((r) => r.episode as EpisodeResult);
}

test('AIME: every sample verdict and figure equals SPADE\'s; n samples in one request with SPADE\'s sampling', async () => {
  const dataDir = gamesDataDir();
  // SPADE's own layout: 2025 without the instruction (it is appended), 2026 with it already there.
  writeJsonLines(path.join(dataDir, 'aime-2025/aime-2025.jsonl'), replies.problems.map((p, i) => ({ prompt: [{ role: 'user', content: `problem ${i}` }], label: p.label })));
  writeJsonLines(path.join(dataDir, 'aime-2026/aime-2026.jsonl'), [{ prompt: [{ role: 'user', content: `problem latex${INSTRUCTION}` }], label: replies.latexForms.label }]);
  const server = await samplingServer((prompt) => {
    const m = /^problem (\w+)\n/.exec(prompt);
    if (!m || !prompt.endsWith(INSTRUCTION) || prompt.indexOf(INSTRUCTION) !== prompt.length - INSTRUCTION.length) return undefined;
    return m[1] === 'latex' ? replies.latexForms.samples : replies.problems[Number(m[1])]!.samples;
  });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ providers: { vllm: { baseURL: server.baseURL } }, suiteOptions: { aime: { sampling: { n: 8 } } } }));
  try {
    const r = await runCli(['run', '--out', 'out', '--agent', 'vllm:test-model', '--suites', 'aime', '--data-dir', dataDir], { cwd });
    assert.is(r.code, 0, r.stderr);
    // One request per problem, each asking for n samples with SPADE's AIME sampling.
    assert.is(server.requests.length, 4);
    for (const { body } of server.requests) {
      assert.is(body.n, 8);
      assert.is(body.temperature, 1);
      assert.is(body.top_p, 0.95);
      assert.is(body.top_k, 20);
      assert.is(body.max_tokens, 32768);
      assert.is((body.messages as unknown[]).length, 1, 'the problem is the only message');
    }
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    const suite = results.suites[0]!;
    assert.equal(suite.sampling, { n: 8, temperature: 1, topP: 0.95, topK: 20, maxTokens: 32768 });
    const played = episodes(path.join(cwd, 'out'));
    // Every sample's verdict, as SPADE's _extract_boxed and _verify_answer gave it.
    for (const [problem, sample, , correct] of spade.perSample) {
      const episode = played.find((e) => e.environmentId === `aime/2025/${problem}` && e.attempt === sample)!;
      assert.is(episode.outcome, correct ? 'won' : 'lost', `problem ${problem}, sample ${sample}: ${replies.problems[problem]!.samples[sample]![0]}`);
      assert.equal(episode.finishReasons, [replies.problems[problem]!.samples[sample]![1]]);
    }
    // Every figure of 2025 as SPADE's metrics (pass@1 over every sample, pass@8 over problems).
    const scores = suite.scores!;
    for (const [key, value] of Object.entries(spade.metrics)) {
      if (key.endsWith('elapsed_sec')) continue;
      assert.ok(Math.abs(scores[key]!.value - value) < 1e-12, `${key}: ${scores[key]?.value} vs SPADE's ${value}`);
    }
    assert.ok(scores.aime2025_pass1!.low! <= scores.aime2025_pass1!.value && scores.aime2025_pass1!.value <= scores.aime2025_pass1!.high!);
    // The LaTeX forms of 42: SPADE's fallback (no math-verify here) says wrong to every one; the
    // math-aware reading says right to those math-verify reads as the integer 42.
    assert.ok(spade.latexForms.every(([, , correct]) => correct === false));
    const latex = played.filter((e) => e.environmentId === 'aime/2026/0').sort((a, b) => a.attempt - b.attempt).map((e) => e.outcome === 'won');
    assert.equal(latex, [true, true, true, true, true, true, false, false]);
    assert.is(scores.aime2026_pass1!.value, 6 / 8);
    assert.is(scores.aime_overall_pass1!.value, (spade.metrics.aime2025_pass1! + 6 / 8) / 2);
  } finally {
    await server.close();
  }
});

test('AIME: a boxed form of 42 is right where math-verify or SPADE\'s fallback says so, and only there', () => {
  // The check runs inside the task's program; here it is our own code, run in a plain context.
  const context = vm.createContext({});
  vm.runInContext(AIME_EQUIVALENCE_SOURCE, context);
  const recorded = JSON.parse(readFileSync(path.join(FIXTURES, 'aime-math-verify.json'), 'utf8')) as { label: string; forms: { predicted: string; mathVerify: boolean | null; fallback: boolean }[] };
  assert.ok(recorded.forms.some((f) => f.mathVerify && !f.fallback) && recorded.forms.some((f) => !f.mathVerify && !f.fallback));
  for (const form of recorded.forms) {
    const right = (context.aimeEquivalent as (predicted: string, label: string) => boolean)(form.predicted, recorded.label);
    assert.is(right, form.mathVerify === true || form.fallback, JSON.stringify(form));
  }
});

test('AIME: a year\'s file in SPADE\'s layout that is malformed stops the run with its file and line (exit 2)', async () => {
  const dataDir = gamesDataDir();
  writeJsonLines(path.join(dataDir, 'aime-2025/aime-2025.jsonl'), [{ prompt: 'not a list', label: '1' }]);
  const r = await runCli(['run', '--out', 'out', '--suites', 'aime:2025', '--data-dir', dataDir, '--validate-only'], { cwd: tempDir() });
  assert.is(r.code, 2);
  assert.match(r.stderr, /aime-2025\.jsonl:1: field "prompt" is not a list of messages/);
});

test.run();
