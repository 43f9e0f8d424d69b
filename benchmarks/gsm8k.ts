/**
 * GSM8K (openai/grade-school-math, test split): 1,319 grade-school maths word problems, each
 * exposed as a single-answer JavaScript environment with a numeric checker. The reference is
 * the number after `####`; the hint is the first line of the worked solution.
 */
import { answerProgram } from './answer-program.js';
import { ensureDataFile, type DataFile, type DataOptions } from './download.js';
import { readJsonLines, RecordError, stringField } from './jsonl.js';
import { defineStaticSuite, type StaticSuite } from './static-suite.js';

export const GSM8K_FILE: DataFile = {
  suite: 'gsm8k',
  fileName: 'test.jsonl',
  url: 'https://raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/test.jsonl',
  sha256: '3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14',
};

export interface Gsm8kOptions extends DataOptions {
  /** Skip malformed lines and count them (`suite.skipped`) instead of stopping. */
  skipBad?: boolean;
  /** Download from here instead of upstream (a mirror); the pinned checksum still applies. */
  url?: string;
}

export interface Gsm8kProblem {
  question: string;
  /** The final numeric answer, without thousands commas. */
  answer: string;
  /** The first step of the worked solution, calculator annotations removed. */
  hint: string;
}

/** One GSM8K record (`question`, `answer` ending in `#### <number>`) as a problem, or RecordError. */
export function gsm8kProblem(record: unknown): Gsm8kProblem {
  const question = stringField(record, 'question');
  const worked = stringField(record, 'answer');
  const mark = worked.lastIndexOf('####');
  if (mark < 0) throw new RecordError('field "answer" has no "#### <number>" final answer');
  const answer = worked.slice(mark + 4).trim().replace(/,/g, '');
  if (!/^-?\d+(\.\d+)?$/.test(answer)) throw new RecordError(`the final answer "${worked.slice(mark + 4).trim()}" is not a number`);
  const firstStep = worked.slice(0, mark).split('\n').map((l) => l.replace(/<<[^>]*>>/g, '').trim()).find((l) => l !== '');
  return { question, answer, hint: firstStep ?? 'Work through the problem one quantity at a time.' };
}

export function createGsm8kSuite(options: Gsm8kOptions = {}): StaticSuite {
  const file: DataFile = { ...GSM8K_FILE, url: options.url ?? GSM8K_FILE.url };
  return defineStaticSuite(
    {
      id: 'gsm8k',
      description: 'GSM8K test split: 1,319 grade-school maths word problems; the answer is read from \\boxed{} or the last number, exact numeric match.',
      language: 'javascript',
      async load(dataDir) {
        const local = await ensureDataFile(file, { ...options, dataDir });
        const read = await readJsonLines(local, options, gsm8kProblem);
        const tasks = read.records.map(({ line, value }, index) => ({
          program: answerProgram({
            id: `gsm8k/test/${index}`,
            question: value.question,
            answer: value.answer,
            checker: 'numeric',
            hint: value.hint,
            family: 'gsm8k',
            origin: `gsm8k/test.jsonl:${line}`,
          }),
          seed: index,
        }));
        return { tasks, skipped: read.skipped, firstProblem: read.firstProblem };
      },
    },
    options.dataDir,
  );
}
