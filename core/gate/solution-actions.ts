/**
 * What an environment's solution() says, read as the gate replays it:
 *   - a tool-use solution: `<tool_call>{...}</tool_call>` blocks, then `<answer>...</answer>`
 *     (SPADE's ToolUseBaseEnv games): each block is one action, in order;
 *   - a sequence: two or more lines, each holding one `\boxed{...}` action (an interactive game's
 *     winning moves; a list returned by solution() arrives this way, see core/gate/contract.ts);
 *   - otherwise one answer: the content of its last `\boxed{...}`, else the whole text, sent as
 *     `\boxed{answer}`.
 * A multi-turn game's solution() may describe its winning moves instead: in prose, or on one
 * line with separators (`up, up, left`, `A -> B -> C`, `\boxed{a} \boxed{b}`). Such a text is
 * no single answer (`describesActions`); `sequenceReadings` gives the ways it may split into
 * actions, which the gate tries, and a text none of them wins with proves nothing either way.
 */

export type SolutionPlan =
  | { kind: 'answer'; answer: string; actions: [string] }
  | { kind: 'sequence' | 'tool-use'; actions: string[] };

export const boxed = (answer: string): string => `\\boxed{${answer}}`;

/**
 * SPADE environments' solution() returns the bare answer or, in some, the answer already
 * boxed (`\\boxed{7}`): the content of its last \\boxed{...}, else the whole text.
 */
export function unboxed(answer: string): string {
  const at = answer.lastIndexOf('\\boxed{');
  if (at < 0) return answer;
  let depth = 0;
  for (let i = at + 6; i < answer.length; i++) {
    if (answer[i] === '{') depth++;
    else if (answer[i] === '}' && --depth === 0) return answer.slice(at + 7, i);
  }
  return answer;
}

const TOOL_BLOCK = /<tool_call>[\s\S]*?<\/tool_call>|<answer>[\s\S]*?<\/answer>/g;

/** How to replay `solution`'s text. */
export function solutionPlan(solution: string): SolutionPlan {
  const blocks = solution.match(TOOL_BLOCK);
  if (blocks && blocks.length > 0) return { kind: 'tool-use', actions: blocks };
  const lines = solution.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length >= 2 && lines.every((l) => l.includes('\\boxed{'))) return { kind: 'sequence', actions: lines };
  const answer = unboxed(solution);
  return { kind: 'answer', answer, actions: [boxed(answer)] };
}

/** Several `\boxed{...}` contents of a text, in order. */
function boxedContents(text: string): string[] {
  const out: string[] = [];
  for (let at = text.indexOf('\\boxed{'); at >= 0; at = text.indexOf('\\boxed{', at + 1)) {
    let depth = 0;
    for (let i = at + 6; i < text.length; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) {
        out.push(text.slice(at + 7, i));
        break;
      }
    }
  }
  return out;
}

const SEPARATORS = /\s*(?:->|=>|→|,|;|\|)\s*|\s*\n+\s*/;

/** True when a solution's text is no single answer: several boxed actions, separators, or words. */
export function describesActions(solution: string): boolean {
  const text = solution.trim();
  return boxedContents(text).length >= 2 || /->|=>|→|[,;|\n]/.test(unboxed(text)) || /\s/.test(unboxed(text).trim());
}

/**
 * The ways a describing text may split into actions, most specific first (at most three, each of
 * two or more actions, each boxed): its boxed contents; its items between separators; its
 * whitespace-separated words when there is no separator and each is short (a move, not prose).
 */
export function sequenceReadings(solution: string): string[][] {
  const text = solution.trim();
  const readings: string[][] = [];
  const add = (parts: string[]): void => {
    const actions = parts.map((p) => p.trim()).filter((p) => p !== '');
    if (actions.length >= 2 && !readings.some((r) => r.join('\n') === actions.join('\n'))) readings.push(actions);
  };
  add(boxedContents(text));
  add(text.replace(/\\boxed\{([^{}]*)\}/g, '$1').split(SEPARATORS));
  const words = text.split(/\s+/);
  if (!/->|=>|→|[,;|]/.test(text) && words.every((w) => w.length <= 12)) add(words.map((w) => w.replace(/^\\boxed\{([^{}]*)\}$/, '$1')));
  return readings.slice(0, 3).map((r) => r.map(boxed));
}

