/**
 * A question with one reference answer, as a single-answer JavaScript environment program:
 * reset() shows the question and asks for the answer in \boxed{}; step(reply) reads the answer
 * (the last \boxed{}, or for numbers the last number in the reply), scores it with the checker,
 * and ends the episode; solution() is the reference answer; hint() the privileged hint, if any.
 * GSM8K and every `jsonl:`/`parquet:`/`hf:` dataset are exposed this way.
 */
import type { EnvironmentProgram } from '../index.js';
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
function isCorrect(given) {
  if (given === null) return false;
  if (CHECKER === 'numeric') {
    const value = toNumber(given);
    return value !== null && value === toNumber(ANSWER);
  }
  if (CHECKER === 'exact') return normalizeAnswer(given) === normalizeAnswer(ANSWER);
  return containsToken(given, ANSWER);
}
`;

/** The program text after the data lines: one string per hint variant, shared by every task. */
function codeAfterData(withHint: boolean): string {
  const hintMethod = withHint ? `\n  hint() {\n    return HINT;\n  }` : '';
  return `${PRELUDE}${SCORING}
class StaticQuestion {
  constructor() {
    this.done = false;
  }
  reset(seed) {
    this.done = false;
    return [QUESTION + '\\n\\n' + INSTRUCTION, { horizon: 1, checker: CHECKER }];
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

/**
 * The environment program for one question. The task's values come first, as data lines
 * (`const NAME = <JSON>;`): every task of a dataset is then one compiled program in the
 * isolated-vm sandbox (core/data-header.ts). The source is made when read, from the task's data
 * lines and the code every task shares, so a suite of thousands of tasks keeps one copy of that
 * code rather than one per task.
 */
export function answerProgram(task: AnswerTask): EnvironmentProgram {
  const literal = (value: string): string => JSON.stringify(value);
  const data = `const QUESTION = ${literal(task.question)};
const ANSWER = ${literal(task.answer)};
const CHECKER = ${literal(task.checker)};
const INSTRUCTION = ${literal(INSTRUCTIONS[task.checker])};
${task.hint !== undefined ? `const HINT = ${literal(task.hint)};\n` : ''}`;
  const code = task.hint !== undefined ? CODE.withHint : CODE.withoutHint;
  return {
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
}
