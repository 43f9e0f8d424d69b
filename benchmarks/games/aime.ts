/**
 * `aime` (AIME 2025 and 2026; `aime:2025` for one year), scored as SPADE's evaluation scores it
 * (eval_offline/suites/aime.py, configs/games.yaml): the problem is the user message with SPADE's
 * step-by-step `\boxed{}` instruction appended (read from SPADE's preparation script); 64 samples
 * per problem at temperature 1.0, top_p 0.95, top_k 20, 32,768 tokens; the last brace-free
 * `\boxed{...}` of a sample, checked as aime-equivalence.ts says. Figures, per year:
 * `aime<Y>_pass1` (the mean over every sample), `aime<Y>_pass_at_<n>` (problems with a right
 * sample), and `aime_overall_pass1` (the mean of the years').
 *
 * Data, per year, the first found:
 *   1. SPADE's own layout in the data folder: `<dataDir>/aime-<year>/aime-<year>.jsonl`, rows
 *      `{"prompt": [messages], "label": "<int>"}` (the instruction appended to the user message
 *      unless it already ends with it, as SPADE's preparation script leaves it);
 *   2. MathArena's release of the year (`MathArena/aime_<year>` on the Hugging Face Hub, fields
 *      `problem` and `answer`), downloaded once into `<dataDir>/hf/...` (see huggingface.ts).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DataError, UsageError } from '../../core/errors.js';
import type { ScoredTask, SuiteSampling, SuiteScore, SuiteTask } from '../../core/concepts/suite.js';
import { defineStaticSuite, type StaticSuite } from '../static-suite.js';
import { readJsonLines, RecordError } from '../jsonl.js';
import { ensureHuggingFaceRows, type HuggingFaceOptions } from '../huggingface.js';
import type { DataOptions } from '../download.js';
import { scoredAnswerProgram } from './scored-answer-program.js';
import { literalsAfter, spadeFiles, template } from './spade-source.js';
import { count, passScores, withOverrides } from './scores.js';

export const AIME_YEARS = [2025, 2026] as const;

/** SPADE's settings for AIME (eval_offline/configs/games.yaml). */
export const AIME_SAMPLING: SuiteSampling = { n: 64, temperature: 1.0, topP: 0.95, topK: 20, maxTokens: 32768 };

export interface AimeOptions extends DataOptions, HuggingFaceOptions {
  skipBad?: boolean;
  /** Overrides of the sampling (n, temperature, topP, topK, maxTokens, chatTemplateKwargs). */
  sampling?: unknown;
}

/** SPADE's layout of a year's file under a data folder. */
export const spadeAimeFile = (dataDir: string, year: number): string => path.join(dataDir, `aime-${year}`, `aime-${year}.jsonl`);

interface AimeProblem {
  prompt: string;
  label: string;
}

/** A row of SPADE's layout: its one user message (the instruction appended when missing) and label. */
function spadeRow(instruction: string) {
  return (value: unknown): AimeProblem => {
    const row = value as { prompt?: unknown; label?: unknown };
    if (!Array.isArray(row?.prompt)) throw new RecordError('field "prompt" is not a list of messages');
    const users = row.prompt.filter((m: { role?: unknown }) => m?.role === 'user');
    const others = row.prompt.filter((m: { role?: unknown }) => m?.role !== 'user');
    if (users.length !== 1 || others.length > 0 || typeof users[0].content !== 'string') throw new RecordError('field "prompt" should hold exactly one user message with text content');
    if (typeof row.label !== 'string' && typeof row.label !== 'number') throw new RecordError('field "label" is missing');
    const content = users[0].content as string;
    return { prompt: content.endsWith(instruction) ? content : content + instruction, label: String(row.label) };
  };
}

/** A row of MathArena's release: `problem` and `answer`. */
function matharenaRow(instruction: string) {
  return (value: unknown): AimeProblem => {
    const row = value as { problem?: unknown; answer?: unknown };
    if (typeof row?.problem !== 'string') throw new RecordError('field "problem" is not text');
    if (typeof row.answer !== 'string' && typeof row.answer !== 'number') throw new RecordError('field "answer" is missing');
    return { prompt: row.problem + instruction, label: String(row.answer) };
  };
}

/** The years a suite argument names: all of AIME_YEARS, or one. */
export function aimeYears(argument: string | undefined): number[] {
  if (!argument) return [...AIME_YEARS];
  const year = Number(argument);
  if (!Number.isInteger(year) || year < 1983 || year > 2100) throw new UsageError(`aime:${argument}: expected a year, such as aime:2025`);
  return [year];
}

/** The suite's figures under SPADE's keys, per year and overall. */
export function aimeScores(tasks: readonly ScoredTask[], n: number): Record<string, SuiteScore> {
  const scores: Record<string, SuiteScore> = {};
  const years = [...new Set(tasks.map((t) => Number(t.meta?.params?.year)))].sort();
  const pass1s: number[] = [];
  for (const year of years) {
    const { pass1, passAny, samples } = passScores(tasks.filter((t) => Number(t.meta?.params?.year) === year));
    scores[`aime${year}_pass1`] = pass1;
    scores[`aime${year}_pass_at_${n}`] = passAny;
    scores[`aime${year}_n_problems`] = count(passAny.n);
    scores[`aime${year}_n_samples`] = count(samples);
    pass1s.push(pass1.value);
  }
  if (pass1s.length) scores.aime_overall_pass1 = { value: pass1s.reduce((a, b) => a + b, 0) / pass1s.length, n: pass1s.length };
  return scores;
}

export function createAimeSuite(argument: string | undefined, options: AimeOptions = {}): StaticSuite {
  const years = aimeYears(argument);
  const id = argument ? `aime:${argument}` : 'aime';
  const sampling = withOverrides(AIME_SAMPLING, options.sampling, `suiteOptions["${id}"].sampling`);
  const suite = defineStaticSuite(
    {
      id,
      description: `AIME ${years.join(' and ')}, scored as SPADE's evaluation: ${sampling.n} samples per problem, the last \\boxed{} checked as an integer; pass@1 and pass@${sampling.n}.`,
      language: 'javascript',
      async load(dataDir) {
        const { aimePreparation } = await spadeFiles(['aimePreparation'], { ...options, dataDir });
        const instruction = template(literalsAfter(aimePreparation, /^INSTRUCTION = /m, 'cmd/eval/prepare_aime_datasets.py'));
        const tasks: SuiteTask[] = [];
        let skipped = 0;
        let firstProblem: string | undefined;
        for (const year of years) {
          const spadeFile = dataDir ? spadeAimeFile(dataDir, year) : undefined;
          let file: string;
          let convert: (value: unknown) => AimeProblem;
          if (spadeFile && existsSync(spadeFile)) {
            file = spadeFile;
            convert = spadeRow(instruction);
          } else {
            file = await ensureHuggingFaceRows(`MathArena/aime_${year}`, { ...options, dataDir, split: options.split ?? 'train' });
            convert = matharenaRow(instruction);
          }
          const read = await readJsonLines(file, options, convert);
          if (read.records.length === 0) throw new DataError(file, undefined, `no AIME ${year} problems`);
          skipped += read.skipped;
          firstProblem ??= read.firstProblem;
          read.records.forEach(({ line, value }, index) => {
            tasks.push({
              program: scoredAnswerProgram({
                id: `aime/${year}/${index}`,
                prompt: value.prompt,
                answer: value.label,
                rule: 'aime',
                family: `aime-${year}`,
                origin: `${file}:${line}`,
                params: { year, index },
              }),
              seed: index,
            });
          });
        }
        return { tasks, skipped, firstProblem };
      },
    },
    options.dataDir,
  );
  return Object.assign(suite, { sampling, score: (tasks: readonly ScoredTask[]) => aimeScores(tasks, sampling.n) });
}
