/**
 * One task of a paper suite scored from the reply's text (AIME, GPQA-Diamond), as a single-turn
 * JavaScript environment program: reset() gives the whole prompt (the only user message the
 * model sees); step(reply) reads the answer as SPADE's evaluation reads it and scores it:
 *
 *   aime  the last `\boxed{...}` whose content has no braces (SPADE's `\\boxed\{([^{}]+)\}`,
 *         stripped), then the equivalence of aime-equivalence.ts;
 *   gpqa  the last `\boxed{A-D}`, else the first `answer is X` / `Answer: X` (any case, with
 *         Python's Unicode reading of \s and \b), the letter upper-cased, equal to the right
 *         option's letter.
 *
 * A reply with no answer is wrong; so is a reply cut at the token budget, scored on the text
 * it has, as SPADE scores it. The step's info says what was read (`predicted`).
 */
import { DATA_PARAMETER, declareDataHeader, type DataHeader } from '../../core/results/data-header.js';
import type { EnvironmentProgram } from '../../core/concepts/environment.js';
import { AIME_EQUIVALENCE_SOURCE } from './aime-equivalence.js';

export type AnswerRule = 'aime' | 'gpqa';

export interface ScoredAnswerTask {
  id: string;
  /** The user message, exactly as sent. */
  prompt: string;
  /** The reference answer (AIME: an integer's text; GPQA: the right option's letter). */
  answer: string;
  rule: AnswerRule;
  family: string;
  origin: string;
  params?: Record<string, unknown>;
}

const CODE = `${AIME_EQUIVALENCE_SOURCE}
function lastMatch(pattern, text) {
  let found = null;
  for (const m of text.matchAll(pattern)) found = m;
  return found;
}
function predictedAnswer(reply) {
  const text = String(reply);
  if (RULE === 'aime') {
    const m = lastMatch(/\\\\boxed\\{([^{}]+)\\}/g, text);
    return m ? m[1].trim() : null;
  }
  const boxed = lastMatch(/\\\\boxed\\{([A-D])\\}/g, text);
  if (boxed) return boxed[1].toUpperCase();
  // SPADE's re.IGNORECASE pattern, read as Python reads it on text: its \\s takes Unicode
  // whitespace with \\x1c-\\x1f and \\x85 (not U+FEFF), its \\b ends at any letter or digit of
  // any script (\\w), and case folds as Unicode does (ſ is s): the u flag.
  const said = /(?:answer is|Answer:)(?:(?!\\ufeff)[\\s\\x1c-\\x1f\\x85])*([A-D])(?![\\p{L}\\p{N}_])/iu.exec(text);
  return said ? said[1].toUpperCase() : null;
}
function isCorrect(predicted) {
  if (predicted === null) return false;
  return RULE === 'aime' ? aimeEquivalent(predicted, ANSWER) : predicted === ANSWER;
}
class ScoredAnswer {
  constructor() {
    this.done = false;
  }
  reset(seed) {
    this.done = false;
    return [PROMPT, { horizon: 1 }];
  }
  step(action) {
    if (this.done) return ['The episode is over.', 0, true, false, { over: true }];
    this.done = true;
    const predicted = predictedAnswer(action);
    const correct = isCorrect(predicted);
    return [correct ? 'Correct.' : 'Incorrect.', correct ? 1 : 0, true, false, { predicted: predicted === null ? null : predicted.slice(0, 200) }];
  }
  solution() {
    return ANSWER;
  }
}
export default ScoredAnswer;
`;

const NAMES = ['PROMPT', 'ANSWER', 'RULE'];
const HEADER_CODE = `${NAMES.map((name, i) => `const ${name} = ${DATA_PARAMETER}[${i}];`).join('\n')}\n${CODE}`;

/** The environment program of one task; its data header is declared with it (see answer-program.ts). */
export function scoredAnswerProgram(task: ScoredAnswerTask): EnvironmentProgram {
  const literals = [task.prompt, task.answer, task.rule].map((v) => JSON.stringify(v));
  const data = literals.map((value, i) => `const ${NAMES[i]} = ${value};\n`).join('');
  let at = 0;
  const values = literals.map((value, i) => {
    at += `const ${NAMES[i]} = `.length;
    const slice = data.slice(at, at + value.length);
    at += value.length + 2;
    return slice;
  });
  const program: EnvironmentProgram = {
    id: task.id,
    language: 'javascript',
    get source() {
      return data + CODE;
    },
    meta: { family: task.family, horizon: 1, origin: task.origin, ...(task.params && { params: task.params }), curated: true, trustedCode: true },
  };
  if (literals.some((value) => /[\u2028\u2029]/.test(value))) return program;
  const header: DataHeader = { code: HEADER_CODE, values, names: NAMES, headerLength: data.length };
  return declareDataHeader(program, header);
}
