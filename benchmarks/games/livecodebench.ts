/**
 * `livecodebench` (release_v6), scored as SPADE's evaluation scores it
 * (eval_offline/suites/livecodebench.py, configs/games.yaml): SPADE's prompt (the question, the
 * starter code when there is one, the request for one python block; read from its source), one
 * sample per problem at temperature 0.2, top_p 0.95, 16,384 tokens; the last python fence run
 * against the problem's public and private tests as LiveCodeBench's official runner does
 * (livecodebench-program.ts), in the Python sandbox's jail. Figures:
 * `livecodebench_pass_at_1` (the mean over problems of the share of samples passing every test),
 * and per difficulty.
 *
 * Data: `livecodebench:FILE`, a release file in LiveCodeBench's format (`test6.jsonl`); else
 * release_v6's `test6.jsonl`, downloaded once from the Hugging Face dataset
 * livecodebench/code_generation_lite (checked by its size, 134,303,240 bytes, as SPADE's setup
 * script checks it), cached as `<dataDir>/livecodebench/test6.jsonl`.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { DataError } from '../../core/errors.js';
import type { ScoredTask, SuiteSampling, SuiteScore, SuiteTask } from '../../core/concepts/suite.js';
import { defineStaticSuite, type StaticSuite } from '../static-suite.js';
import { readJsonLines, RecordError, stringField } from '../jsonl.js';
import { cachedPath, ensureDataFile, type DataFile, type DataOptions } from '../download.js';
import { liveCodeBenchProgram, type LiveCodeBenchProblem } from './livecodebench-program.js';
import { literalsAfter, spadeFiles, template } from './spade-source.js';
import { count, meanWithInterval, withOverrides } from './scores.js';

/** SPADE's settings for LiveCodeBench (eval_offline/configs/games.yaml). */
export const LCB_SAMPLING: SuiteSampling = { n: 1, temperature: 0.2, topP: 0.95, maxTokens: 16384 };

export const LCB_FILE: DataFile = {
  suite: 'livecodebench',
  fileName: 'test6.jsonl',
  url: 'https://huggingface.co/datasets/livecodebench/code_generation_lite/resolve/main/test6.jsonl',
};
/** The size SPADE's setup script checks the download against. */
export const LCB_FILE_BYTES = 134_303_240;

/** A call's wall time: every test of a problem runs in one step (6 s each at most, the runner's limit). */
export const LCB_LIMITS = { callTimeoutMs: 600_000, memoryMb: 1024 } as const;

export interface LiveCodeBenchOptions extends DataOptions {
  skipBad?: boolean;
  sampling?: unknown;
  url?: string;
}

/** SPADE's prompt for a problem, from the literals of its `_format_prompt`. */
export interface LcbPromptParts {
  starterBefore: string;
  starterAfter: string;
  closing: string;
}

export function lcbPrompt(parts: LcbPromptParts, question: string, starter: string): string {
  const lines = [question];
  if (starter) lines.push(parts.starterBefore + starter + parts.starterAfter);
  lines.push(parts.closing);
  return lines.join('\n');
}

/** The literals of SPADE's `_format_prompt` (eval_offline/suites/livecodebench.py). */
export function lcbPromptParts(source: string): LcbPromptParts {
  const file = 'eval_offline/suites/livecodebench.py';
  return {
    starterBefore: template(literalsAfter(source, /user_parts\.append\(\s*(?="\\nStarter)/, file)),
    starterAfter: template(literalsAfter(source, /user_parts\.append\(\s*"\\nStarter[^+]*\+ starter_code \+/, file)),
    closing: template(literalsAfter(source, /user_parts\.append\(\s*(?=\s*"\\nWrite)/, file)),
  };
}

interface Row {
  questionId: string;
  content: string;
  starter: string;
  publicTests: string;
  privateTests: string;
  fnName: string | null;
  difficulty?: string;
}

/** One release row: its tests are kept as the release has them (the private ones are decoded in the jail). */
function releaseRow(value: unknown): Row {
  const row = value as Record<string, unknown>;
  const metadataText = typeof row?.metadata === 'string' ? row.metadata : '{}';
  let metadata: Record<string, unknown>;
  try {
    metadata = JSON.parse(metadataText) as Record<string, unknown>;
  } catch {
    throw new RecordError('field "metadata" is not JSON');
  }
  const publicTests = stringField(row, 'public_test_cases');
  try {
    if (!Array.isArray(JSON.parse(publicTests))) throw new Error();
  } catch {
    throw new RecordError('field "public_test_cases" is not a JSON list');
  }
  return {
    questionId: stringField(row, 'question_id'),
    content: stringField(row, 'question_content'),
    starter: typeof row.starter_code === 'string' ? row.starter_code : '',
    publicTests,
    privateTests: stringField(row, 'private_test_cases'),
    fnName: typeof metadata.func_name === 'string' ? metadata.func_name : null,
    ...(typeof row.difficulty === 'string' && { difficulty: row.difficulty }),
  };
}

async function ensureLcbFile(options: LiveCodeBenchOptions): Promise<string> {
  const local = await ensureDataFile({ ...LCB_FILE, url: options.url ?? LCB_FILE.url }, options);
  const size = statSync(local).size;
  if (size !== LCB_FILE_BYTES && local === cachedPath(LCB_FILE, options.dataDir)) {
    throw new DataError(local, undefined, `${size} bytes, release_v6's test6.jsonl has ${LCB_FILE_BYTES}: delete it to download it again`);
  }
  return local;
}

/** The suite's figures under SPADE's keys: pass@1 over problems, and per difficulty. */
export function lcbScores(tasks: readonly ScoredTask[]): Record<string, SuiteScore> {
  const played = tasks.filter((t) => t.episodes.length > 0);
  const rate = (t: ScoredTask): number => t.episodes.filter((e) => e.outcome === 'won').length / t.episodes.length;
  const scores: Record<string, SuiteScore> = {
    livecodebench_pass_at_1: meanWithInterval(played.map(rate)),
    livecodebench_n_problems: count(played.length),
    livecodebench_n_samples: count(played.reduce((sum, t) => sum + t.episodes.length, 0)),
  };
  for (const difficulty of ['easy', 'medium', 'hard']) {
    const some = played.filter((t) => t.meta?.params?.difficulty === difficulty);
    if (some.length) scores[`livecodebench_${difficulty}_pass_at_1`] = meanWithInterval(some.map(rate));
  }
  return scores;
}

export function createLiveCodeBenchSuite(argument: string | undefined, options: LiveCodeBenchOptions = {}): StaticSuite {
  const id = argument ? `livecodebench:${argument}` : 'livecodebench';
  const sampling = withOverrides(LCB_SAMPLING, options.sampling, `suiteOptions["${id}"].sampling`);
  const suite = defineStaticSuite(
    {
      id,
      description: `LiveCodeBench release_v6, scored as SPADE's evaluation: ${sampling.n} sample(s) per problem, the last python block run against every test as LiveCodeBench's runner does, in the Python sandbox; pass@1.`,
      language: 'python',
      limits: LCB_LIMITS,
      async load(dataDir) {
        const { livecodebench } = await spadeFiles(['livecodebench'], { ...options, dataDir });
        const parts = lcbPromptParts(livecodebench);
        const file = argument ? path.resolve(argument) : await ensureLcbFile({ ...options, dataDir });
        if (!existsSync(file)) throw new DataError(file, undefined, 'file not found');
        const read = await readJsonLines(file, options, releaseRow);
        const tasks: SuiteTask[] = read.records.map(({ line, value }, index) => {
          const problem: LiveCodeBenchProblem = {
            questionId: value.questionId,
            prompt: lcbPrompt(parts, value.content, value.starter),
            publicTests: value.publicTests,
            privateTests: value.privateTests,
            fnName: value.fnName,
            ...(value.difficulty && { difficulty: value.difficulty }),
            origin: `${file}:${line}`,
          };
          return { program: liveCodeBenchProgram(problem), seed: index };
        });
        return { tasks, skipped: read.skipped, firstProblem: read.firstProblem };
      },
    },
    options.dataDir,
  );
  return Object.assign(suite, { sampling, score: lcbScores });
}
