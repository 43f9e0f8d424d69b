/**
 * HumanEval (openai/human-eval): 164 Python programming problems, each exposed as a Python
 * environment program (see humaneval-program.ts) run by the Python sandbox (cpython or
 * pyodide). pass@k from n samples comes from the metrics over the agent's attempts.
 */
import { ensureDataFile, type DataFile, type DataOptions } from './download.js';
import { humanEvalProgram, type HumanEvalProblem } from './humaneval-program.js';
import { readJsonLines, RecordError, stringField } from './jsonl.js';
import { defineStaticSuite, type StaticSuite } from './static-suite.js';

export const HUMANEVAL_FILE: DataFile = {
  suite: 'humaneval',
  fileName: 'HumanEval.jsonl.gz',
  url: 'https://raw.githubusercontent.com/openai/human-eval/master/data/HumanEval.jsonl.gz',
  sha256: 'b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef',
};

/**
 * The slowest canonical solution (HumanEval/75) takes about a second under Pyodide, over the
 * default 1 s call limit; the agent's endless loops stop at the tick budget well before this.
 */
export const HUMANEVAL_LIMITS = { callTimeoutMs: 10_000 } as const;

export interface HumanEvalOptions extends DataOptions {
  /** Skip malformed lines and count them (`suite.skipped`) instead of stopping. */
  skipBad?: boolean;
  /** Download from here instead of upstream (a mirror); the pinned checksum still applies. */
  url?: string;
}

/** One HumanEval record as a problem, or RecordError. */
export function humanEvalProblem(record: unknown): HumanEvalProblem {
  const problem: HumanEvalProblem = {
    task_id: stringField(record, 'task_id'),
    prompt: stringField(record, 'prompt'),
    canonical_solution: stringField(record, 'canonical_solution'),
    test: stringField(record, 'test'),
    entry_point: stringField(record, 'entry_point'),
  };
  if (!/^[A-Za-z_]\w*$/.test(problem.entry_point)) throw new RecordError(`entry_point "${problem.entry_point}" is not a Python name`);
  if (!/\bdef\s+check\s*\(/.test(problem.test)) throw new RecordError('field "test" does not define check(candidate)');
  return problem;
}

export function createHumanEvalSuite(options: HumanEvalOptions = {}): StaticSuite {
  const file: DataFile = { ...HUMANEVAL_FILE, url: options.url ?? HUMANEVAL_FILE.url };
  return defineStaticSuite(
    {
      id: 'humaneval',
      description: 'HumanEval: 164 Python problems; the reply is reduced to code and run with the problem\'s check(candidate) in the Python sandbox.',
      language: 'python',
      limits: HUMANEVAL_LIMITS,
      async load(dataDir) {
        const local = await ensureDataFile(file, { ...options, dataDir });
        const read = await readJsonLines(local, options, humanEvalProblem);
        const tasks = read.records.map(({ value }, index) => ({ program: humanEvalProgram(value), seed: index }));
        return { tasks, skipped: read.skipped, firstProblem: read.firstProblem };
      },
    },
    options.dataDir,
  );
}
