/**
 * What an environment's solution() says, read as the gate replays it:
 *   - a tool-use solution: `<tool_call>{...}</tool_call>` blocks, then `<answer>...</answer>`
 *     (SPADE's ToolUseBaseEnv games): each block is one action, in order;
 *   - a sequence: two or more lines, each holding one `\boxed{...}` action (an interactive game's
 *     winning moves; a list returned by solution() arrives this way, see core/gate/contract.ts);
 *   - otherwise one answer: the content of its last `\boxed{...}`, else the whole text, sent as
 *     `\boxed{answer}`.
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
