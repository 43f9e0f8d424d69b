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

/** The text of a tool-use solution outside its `<tool_call>` and `<answer>` blocks describes something (words, not numbering). */
export function describesToolCalls(solution: string): boolean {
  return /[A-Za-z]{2}/.test(solution.replace(TOOL_BLOCK, ' '));
}

/** A tool's name and the order of its parameters, as its schema lists them. */
export interface ToolSignature {
  name: string;
  parameters: readonly string[];
}

/**
 * The tool calls a tool-use solution describes in words, as SPADE's prompt allows ("1.
 * cd(path='/home/document') 2. mkdir(name='temp') 3. <answer>done</answer>"): each `name(...)`
 * of a known tool, in order, its arguments read as Python literals (by keyword, or by position
 * in the order of the tool's parameters), written as `<tool_call>` blocks, followed by the
 * solution's `<answer>` blocks. Undefined when no call of a known tool can be read.
 */
export function describedToolCalls(solution: string, tools: readonly ToolSignature[]): string[] | undefined {
  const known = new Map(tools.map((tool) => [tool.name, tool]));
  const prose = solution.replace(/<answer>[\s\S]*?<\/answer>/g, ' ');
  const calls: string[] = [];
  const name = /\b([A-Za-z_][\w-]*)\s*\(/g;
  for (let match = name.exec(prose); match; match = name.exec(prose)) {
    const tool = known.get(match[1]!);
    const open = match.index + match[0].length - 1;
    const close = tool ? closingBracket(prose, open) : -1;
    if (!tool || close < 0) continue;
    const args = pythonArguments(prose.slice(open + 1, close), tool.parameters);
    if (!args) return undefined;
    calls.push(`<tool_call>${JSON.stringify({ name: tool.name, arguments: args })}</tool_call>`);
    name.lastIndex = close + 1;
  }
  if (calls.length === 0) return undefined;
  return [...calls, ...(solution.match(/<answer>[\s\S]*?<\/answer>/g) ?? [])];
}

/** Where the bracket opened at `open` closes, quotes and nested brackets skipped; -1 when it does not. */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const end = quoteEnd(text, i);
      if (end < 0) return -1;
      i = end;
    } else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && --depth === 0) return i;
  }
  return -1;
}

/** Where the string literal opened by the quote at `at` ends (its closing quote), -1 when it does not. */
function quoteEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === text[at]) return i;
  }
  return -1;
}

/** The top-level items of a comma-separated list (brackets and quotes respected). */
function topLevelItems(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") i = Math.max(i, quoteEnd(text, i));
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      items.push(text.slice(start, i));
      start = i + 1;
    }
  }
  items.push(text.slice(start));
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/** A call's arguments as a JSON object: keyword ones by name, positional ones by the parameters' order; undefined when unreadable. */
function pythonArguments(text: string, parameters: readonly string[]): Record<string, unknown> | undefined {
  const args: Record<string, unknown> = {};
  let position = 0;
  for (const item of topLevelItems(text)) {
    const keyword = /^([A-Za-z_]\w*)\s*=(?!=)\s*([\s\S]*)$/.exec(item);
    const key = keyword ? keyword[1]! : parameters[position++];
    if (key === undefined) return undefined;
    const value = pythonLiteral(keyword ? keyword[2]! : item);
    if (value === undefined) return undefined;
    args[key] = value;
  }
  return args;
}

/** A Python literal (string, number, True/False/None, list, tuple or dict of them) as JSON, undefined when it is none. */
function pythonLiteral(text: string): unknown {
  const t = text.trim();
  if (t === 'True' || t === 'False') return t === 'True';
  if (t === 'None') return null;
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return Number(t);
  if ((t[0] === '"' || t[0] === "'") && quoteEnd(t, 0) === t.length - 1) {
    return t.slice(1, -1).replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t' })[c] ?? c);
  }
  if ((t[0] === '[' || t[0] === '(') && closingBracket(t, 0) === t.length - 1) {
    const items = topLevelItems(t.slice(1, -1)).map(pythonLiteral);
    return items.includes(undefined) ? undefined : items;
  }
  if (t[0] === '{' && closingBracket(t, 0) === t.length - 1) {
    const entries: [string, unknown][] = [];
    for (const item of topLevelItems(t.slice(1, -1))) {
      const colon = /^('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*:\s*([\s\S]+)$/.exec(item);
      const key = colon && pythonLiteral(colon[1]!);
      const value = colon ? pythonLiteral(colon[2]!) : undefined;
      if (typeof key !== 'string' || value === undefined) return undefined;
      entries.push([key, value]);
    }
    return Object.fromEntries(entries);
  }
  return undefined;
}
