/**
 * `gpqa-diamond`: GPQA's Diamond split (198 questions), scored as SPADE's evaluation scores it
 * (eval_offline/suites/gpqa_diamond.py, configs/games.yaml): the four options (the right one, then
 * the three wrong ones) shuffled by one `random.Random(42)` across the whole split, in file
 * order, and shown as `A. ...` lines under the question, with SPADE's prompt (read from its
 * source); 8 samples per question at temperature 0.7, top_p 0.95, 32,768 tokens; the letter read
 * as scored-answer-program.ts says. Figures: `gpqa_diamond_avg_at_n` (the mean over every sample)
 * and `gpqa_diamond_pass_at_n` (questions with a right sample), also under `_at_<n>`.
 *
 * GPQA's authors ask that its questions not be published in plain text: the suite's task text
 * is private (results and reports show ids and hashes, unless --show-task-text).
 *
 * Data: `gpqa-diamond:FILE`, the release's CSV (or JSON Lines / Parquet with its columns
 * `Question`, `Correct Answer`, `Incorrect Answer 1..3`; or rows SPADE has already shuffled,
 * `{question_id, question, options, answer}`, as its test fixture); else the release's
 * `gpqa_diamond.csv`, downloaded once from the gated Hugging Face dataset Idavidrein/gpqa with
 * HF_TOKEN, cached as `<dataDir>/gpqa/gpqa_diamond.csv`.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DataError, UsageError } from '../../core/errors.js';
import type { ScoredTask, SuiteSampling, SuiteScore, SuiteTask } from '../../core/concepts/suite.js';
import { defineStaticSuite, type StaticSuite } from '../static-suite.js';
import { readJsonLines, RecordError } from '../jsonl.js';
import { parquetAsJsonLines } from '../parquet.js';
import { cachedPath, fetchBytes, isOffline, OFFLINE_ENV, type DataFile, type DataOptions } from '../download.js';
import { writeFileAtomic } from '../../core/results/fs.js';
import { scoredAnswerProgram } from './scored-answer-program.js';
import { PythonRandom } from './python-random.js';
import { parseCsv } from './csv.js';
import { fill, literalsAfter, spadeFiles, template } from './spade-source.js';
import { count, passScores, withOverrides } from './scores.js';

/** SPADE's settings for GPQA-Diamond (eval_offline/configs/games.yaml). */
export const GPQA_SAMPLING: SuiteSampling = { n: 8, temperature: 0.7, topP: 0.95, maxTokens: 32768 };

export const GPQA_PAGE = 'https://huggingface.co/datasets/Idavidrein/gpqa';
export const GPQA_FILE: DataFile = { suite: 'gpqa', fileName: 'gpqa_diamond.csv', url: `${GPQA_PAGE}/resolve/main/gpqa_diamond.csv` };

export interface GpqaOptions extends DataOptions {
  skipBad?: boolean;
  sampling?: unknown;
  /** Download from here instead (a mirror). */
  url?: string;
  /** Sent as a bearer token; default HF_TOKEN. */
  token?: string;
}

/** One question as SPADE shows it: the options in their shuffled order and the right letter. */
export interface GpqaQuestion {
  id: string;
  question: string;
  options: string[];
  answer: string;
}

const LETTERS = 'ABCD';

/** The release's rows, each one question with its options shuffled by the split's one generator. */
export function shuffleQuestions(rows: readonly { question: string; correct: string; incorrect: [string, string, string] }[]): GpqaQuestion[] {
  const rng = new PythonRandom(42);
  return rows.map((row, i) => {
    const choices = [row.correct, ...row.incorrect];
    const order = rng.shuffle([0, 1, 2, 3]);
    return { id: `d${i}`, question: row.question, options: order.map((j) => choices[j]!), answer: LETTERS[order.indexOf(0)]! };
  });
}

const column = (row: Record<string, unknown>, name: string): string => {
  const value = row[name];
  if (typeof value !== 'string') throw new RecordError(`column "${name}" is missing`);
  return value;
};

/** A row of the release (its columns) or of SPADE's own shuffled form. */
type Row = { kind: 'release'; question: string; correct: string; incorrect: [string, string, string] } | { kind: 'shuffled'; value: GpqaQuestion };

function rowOf(value: unknown): Row {
  const row = (value ?? {}) as Record<string, unknown>;
  if (Array.isArray(row.options)) {
    const options = row.options;
    if (options.length !== 4 || !options.every((o) => typeof o === 'string')) throw new RecordError('field "options" should hold four texts');
    if (typeof row.answer !== 'string' || !LETTERS.includes(row.answer) || row.answer.length !== 1) throw new RecordError('field "answer" should be a letter A-D');
    return { kind: 'shuffled', value: { id: String(row.question_id ?? ''), question: column(row, 'question'), options: options as string[], answer: row.answer } };
  }
  return {
    kind: 'release',
    question: column(row, 'Question'),
    correct: column(row, 'Correct Answer'),
    incorrect: [column(row, 'Incorrect Answer 1'), column(row, 'Incorrect Answer 2'), column(row, 'Incorrect Answer 3')],
  };
}

/** The questions of a file: CSV, JSON Lines or Parquet. */
async function readQuestions(file: string, options: GpqaOptions): Promise<{ questions: (GpqaQuestion & { line: number })[]; skipped: number; firstProblem?: string }> {
  if (!existsSync(file)) throw new DataError(file, undefined, 'file not found');
  let rows: { line: number; value: Row }[];
  let skipped = 0;
  let firstProblem: string | undefined;
  if (/\.csv$/i.test(file)) {
    rows = parseCsv(await readFile(file, 'utf8'), file).map(({ line, row }) => {
      try {
        return { line, value: rowOf(row) };
      } catch (error) {
        throw new DataError(file, line, (error as Error).message);
      }
    });
  } else {
    let source = file;
    let scratch: string | undefined;
    if (/\.parquet$/i.test(file)) {
      // Parquet rows as JSON Lines, read with the same checks and file:line errors.
      scratch = mkdtempSync(path.join(tmpdir(), 'spade-gpqa-'));
      source = path.join(scratch, `${path.basename(file)}.jsonl`);
      writeFileSync(source, await parquetAsJsonLines(file));
    }
    const read = await readJsonLines(source, options, rowOf).finally(() => scratch && rmSync(scratch, { recursive: true, force: true }));
    rows = read.records;
    skipped = read.skipped;
    firstProblem = read.firstProblem;
  }
  const release = rows.filter((r) => r.value.kind === 'release');
  if (release.length && release.length !== rows.length) throw new DataError(file, undefined, 'rows mix the release\'s columns and SPADE\'s shuffled form');
  const questions = release.length
    ? shuffleQuestions(release.map((r) => r.value as Extract<Row, { kind: 'release' }>)).map((q, i) => ({ ...q, line: release[i]!.line }))
    : rows.map((r, i) => {
        const q = (r.value as Extract<Row, { kind: 'shuffled' }>).value;
        return { ...q, id: q.id || `d${i}`, line: r.line };
      });
  return { questions, skipped, firstProblem };
}

/** The release's CSV in the cache, downloaded with HF_TOKEN when missing. */
async function ensureGpqaFile(options: GpqaOptions): Promise<string> {
  const local = cachedPath(GPQA_FILE, options.dataDir);
  if (existsSync(local)) return local;
  const url = options.url ?? GPQA_FILE.url;
  if (isOffline(options.offline)) {
    throw new UsageError(`offline mode (${OFFLINE_ENV}=1): ${local} is missing; download gpqa_diamond.csv from ${GPQA_PAGE} into that folder, or pass gpqa-diamond:FILE`);
  }
  const token = options.token ?? process.env.HF_TOKEN;
  if (!token) {
    throw new UsageError(
      `gpqa-diamond: GPQA is a gated dataset. Accept its terms with your Hugging Face account at ${GPQA_PAGE}, then set HF_TOKEN to a token of that account ` +
        '(or pass gpqa-diamond:FILE with the release\'s gpqa_diamond.csv)',
    );
  }
  const base = options.fetch ?? fetch;
  const bytes = await fetchBytes(url, { ...options, fetch: (input, init) => base(input, { ...init, headers: { Authorization: `Bearer ${token}` } }) }).catch((error: Error) => {
    throw new UsageError(`${error.message}${/HTTP 40[13]/.test(error.message) ? ` (accept GPQA's terms at ${GPQA_PAGE} with the account of HF_TOKEN)` : ''}`);
  });
  writeFileAtomic(local, bytes);
  return local;
}

/** The suite's figures under SPADE's keys. */
export function gpqaScores(tasks: readonly ScoredTask[], n: number): Record<string, SuiteScore> {
  const { pass1, passAny, samples } = passScores(tasks);
  return {
    [`gpqa_diamond_avg_at_${n}`]: pass1,
    [`gpqa_diamond_pass_at_${n}`]: passAny,
    gpqa_diamond_avg_at_n: pass1,
    gpqa_diamond_pass_at_n: passAny,
    gpqa_diamond_n_problems: count(passAny.n),
    gpqa_diamond_n_samples: count(samples),
  };
}

/** SPADE's user message for one question (its template, from its source). */
export function gpqaPrompt(promptTemplate: string, question: Pick<GpqaQuestion, 'question' | 'options'>): string {
  const opts = question.options.map((o, i) => `${LETTERS[i]}. ${o}`).join('\n');
  return fill(promptTemplate, { question: question.question, opts });
}

export function createGpqaSuite(argument: string | undefined, options: GpqaOptions = {}): StaticSuite {
  const id = argument ? `gpqa-diamond:${argument}` : 'gpqa-diamond';
  const sampling = withOverrides(GPQA_SAMPLING, options.sampling, `suiteOptions["${id}"].sampling`);
  const suite = defineStaticSuite(
    {
      id,
      description: `GPQA-Diamond, scored as SPADE's evaluation: options shuffled by random.Random(42), ${sampling.n} samples per question, the \\boxed{} letter; avg@${sampling.n} and pass@${sampling.n}. Task text private.`,
      language: 'javascript',
      async load(dataDir) {
        const { gpqa } = await spadeFiles(['gpqa'], { ...options, dataDir });
        const promptTemplate = template(literalsAfter(gpqa, /user = \(/, 'eval_offline/suites/gpqa_diamond.py'));
        const file = argument ? path.resolve(argument) : await ensureGpqaFile({ ...options, dataDir });
        const read = await readQuestions(file, options);
        const tasks: SuiteTask[] = read.questions.map((q, index) => ({
          program: scoredAnswerProgram({
            id: `gpqa-diamond/${q.id}`,
            prompt: gpqaPrompt(promptTemplate, q),
            answer: q.answer,
            rule: 'gpqa',
            family: 'gpqa-diamond',
            origin: `${file}:${q.line}`,
          }),
          seed: index,
        }));
        return { tasks, skipped: read.skipped, firstProblem: read.firstProblem };
      },
    },
    options.dataDir,
  );
  return Object.assign(suite, { sampling, privateText: true, score: (tasks: readonly ScoredTask[]) => gpqaScores(tasks, sampling.n) });
}
