/**
 * A question with one reference answer, as a single-answer JavaScript environment program:
 * reset() shows the question and asks for the answer in \boxed{}; step(reply) reads the answer
 * (the last \boxed{}, or for numbers the last number in the reply), scores it with the checker,
 * and ends the episode; solution() is the reference answer; hint() the privileged hint, if any.
 * GSM8K and every `jsonl:`/`parquet:`/`hf:` dataset are exposed this way.
 */
import { DATA_PARAMETER, declareDataHeader, type DataHeader } from '../core/results/data-header.js';
import type { EnvironmentProgram } from '../core/concepts/environment.js';
import { PRELUDE } from '../plugins/reference/families/prelude.js';

/**
 * How a reply is scored against the reference answer:
 * - `numeric`: the last \boxed{} (else the whole reply), its last number; equal as numbers
 *   (thousands commas, `$`, `\$` and trailing zeros such as `18.0` tolerated);
 * - `exact`: the last \boxed{} (else the whole reply) equals the answer, ignoring case,
 *   spacing and commas;
 * - `contains`: the last \boxed{} (else the whole reply) contains the answer as a whole token.
 */
export type AnswerChecker = 'exact' | 'numeric' | 'contains';

export const ANSWER_CHECKERS: readonly AnswerChecker[] = ['exact', 'numeric', 'contains'];

export interface AnswerTask {
  /** Stable id, e.g. `gsm8k/test/17`. */
  id: string;
  question: string;
  answer: string;
  checker: AnswerChecker;
  /** SPADE's privileged hint; the program has no hint() without one. */
  hint?: string;
  /** Recorded in the program's meta (family, origin, params). */
  family: string;
  origin: string;
  params?: Record<string, unknown>;
}

export const INSTRUCTIONS: Record<AnswerChecker, string> = {
  numeric: 'Solve the problem. Give your final answer as a number in \\boxed{}.',
  exact: 'Give your final answer in \\boxed{}.',
  contains: 'Give your final answer in \\boxed{}.',
};

/** Program text after the prelude: reading and scoring an answer. */
const SCORING = String.raw`
/**
 * The numbers in a text, in order: -1,234.5 style, each a whole token (\`18x\` and \`18th\` are
 * not numbers); a minus sign counts only at a token start.
 */
function numbersIn(text) {
  const plain = asText(text).replace(/\\[$%!,; ]/g, ' ');
  return plain.match(/(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])/g) || [];
}
function toNumber(text) {
  const value = Number(asText(text).replace(/[$,\s]/g, ''));
  return Number.isFinite(value) ? value : null;
}
/** The part of a reply that holds the answer, as text, or null when there is none. */
function givenAnswer(reply) {
  const boxed = lastBoxed(reply);
  const source = boxed !== null ? boxed : asText(reply);
  if (CHECKER === 'numeric') {
    const numbers = numbersIn(source);
    return numbers.length ? numbers[numbers.length - 1] : null;
  }
  const text = source.trim();
  return text ? text : null;
}
/** The reference answer as a number (numeric checker), read once. */
let answerNumber;
function isCorrect(given) {
  if (given === null) return false;
  if (CHECKER === 'numeric') {
    const value = toNumber(given);
    if (answerNumber === undefined) answerNumber = toNumber(ANSWER);
    return value !== null && value === answerNumber;
  }
  if (CHECKER === 'exact') return normalizeAnswer(given) === normalizeAnswer(ANSWER);
  return containsToken(given, ANSWER);
}
`;

/** The program text after the data lines: one string per hint variant, shared by every task. */
function codeAfterData(withHint: boolean): string {
  const hintMethod = withHint ? `\n  hint() {\n    return HINT;\n  }` : '';
  return `${PRELUDE}${SCORING}
/** The task as the agent reads it (one string, made once: reset() is called many times). */
const TASK_TEXT = QUESTION + '\\n\\n' + INSTRUCTION;
class StaticQuestion {
  constructor() {
    this.done = false;
  }
  reset(seed) {
    this.done = false;
    return [TASK_TEXT, { horizon: 1, checker: CHECKER }];
  }
  step(action) {
    if (this.done) return ['The episode is over.', 0, true, false, { over: true }];
    this.done = true;
    const given = givenAnswer(action);
    const correct = isCorrect(given);
    return [correct ? 'Correct.' : 'Incorrect.', correct ? 1 : 0, true, false, { given: given === null ? null : given.slice(0, 200) }];
  }
  solution() {
    return ANSWER;
  }${hintMethod}
}
export default StaticQuestion;
`;
}

const CODE = { withHint: codeAfterData(true), withoutHint: codeAfterData(false) };

/** The data header's constants, in order (HINT only when the task has one). */
const NAMES = { withHint: ['QUESTION', 'ANSWER', 'CHECKER', 'INSTRUCTION', 'HINT'], withoutHint: ['QUESTION', 'ANSWER', 'CHECKER', 'INSTRUCTION'] };

/**
 * Each variant's code as splitDataHeader gives it (core/results/data-header.ts): the data lines with
 * their values taken out, then the code. One string per variant, shared by every task's header.
 */
const HEADER_CODE = {
  withHint: `${NAMES.withHint.map((name, i) => `const ${name} = ${DATA_PARAMETER}[${i}];`).join('\n')}\n${CODE.withHint}`,
  withoutHint: `${NAMES.withoutHint.map((name, i) => `const ${name} = ${DATA_PARAMETER}[${i}];`).join('\n')}\n${CODE.withoutHint}`,
};

/**
 * The environment program for one question. The task's values come first, as data lines
 * (`const NAME = <JSON>;`): every task of a dataset is then one compiled program in the
 * isolated-vm sandbox (core/results/data-header.ts). The source is made when read, from the task's data
 * lines and the code every task shares, so a suite of thousands of tasks keeps one copy of that
 * code rather than one per task. The program's data header is declared with it, as splitting
 * the source would give it, so nothing splits thousands of sources to find it.
 */
export function answerProgram(task: AnswerTask): EnvironmentProgram {
  const variant = task.hint !== undefined ? 'withHint' : 'withoutHint';
  const literals = [task.question, task.answer, task.checker, INSTRUCTIONS[task.checker], ...(task.hint !== undefined ? [task.hint] : [])].map((value) => JSON.stringify(value));
  const names = NAMES[variant];
  const data = literals.map((value, i) => `const ${names[i]} = ${value};\n`).join('');
  // The header's values are read out of `data` (slices of it, not copies of the question).
  let at = 0;
  const values = literals.map((value, i) => {
    at += `const ${names[i]} = `.length;
    const slice = data.slice(at, at + value.length);
    at += value.length + 2;
    return slice;
  });
  const code = CODE[variant];
  const program: EnvironmentProgram = {
    id: task.id,
    language: 'javascript',
    get source() {
      return data + code;
    },
    meta: {
      family: task.family,
      horizon: 1,
      origin: task.origin,
      params: { checker: task.checker, ...task.params },
      curated: true,
      // The template's code, with the task's values in its data header.
      trustedCode: true,
    },
  };
  // JSON.stringify leaves U+2028 and U+2029 as they are: a line with one is no data line to
  // splitDataHeader (it would move V8's line numbers), and its header is read from the source.
  if (literals.some((value) => /[\u2028\u2029]/.test(value))) return program;
  const header: DataHeader = { code: HEADER_CODE[variant], values, names, headerLength: data.length };
  return declareDataHeader(program, header);
}
