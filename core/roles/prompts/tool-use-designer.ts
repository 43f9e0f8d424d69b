/**
 * The designer's prompts for tool-use games, after SPADE's tool-use template
 * (spade/core/prompts/tool_use_template.py at 9b2b813), in spade-bench's own words: a subclass of
 * ToolUseBaseEnv with simulated tools; what the base class already does; the rules of a fair
 * tool-use task (information hiding, state with query and mutation tools, exact arguments,
 * unneeded tools, parameter names that match the schemas); SPADE's two variants, one task per
 * episode or several user instructions revealed one at a time (with the solvability rules of
 * its criteria); its three difficulty levels; and one worked example.
 *
 * One thing is spade-bench's own: solution() writes the winning calls as the agent sends them
 * (`<tool_call>` JSON, one per line, then `<answer>`), so the gate can replay it and prove the
 * game winnable (SPADE's example describes the calls in words, which proves nothing).
 */
import type { Language } from '../../types.js';
import { toolUseSkill } from '../../selfplay/skills.js';
import { toolUseExampleProgram } from './examples.js';

const FENCE: Record<Language, string> = { python: '```python', javascript: '```javascript' };

/** SPADE's two forms of a tool-use game. */
export type ToolUseVariant = 'single-task' | 'multi-turn';

/** SPADE's difficulty levels of a tool-use game. */
export type ToolUseDifficulty = 'easy' | 'medium' | 'hard';

/** What each difficulty level asks for (SPADE's levels). */
export const TOOL_USE_DIFFICULTY: Record<ToolUseDifficulty, readonly string[]> = {
  easy: ['One or two tool calls solve it: one tool, or a short chain of two.', 'Three or four tools in all, one of them not needed.', 'The answer follows from one or two results.'],
  medium: ['Two to four calls, each using what an earlier one returned.', 'Four to six tools in all, one or two of them not needed.', 'The answer combines what several results say.'],
  hard: [
    'Four calls or more, in an order that matters.',
    'Five to eight tools in all, two or three of them not needed.',
    'The answer takes reasoning over a chain of results.',
    'Some tool returns part of the data at a time (pages), so it must be called again.',
  ],
};

const HOW: Record<Language, readonly string[]> = {
  python: [
    '- Write one class `class SomethingEnv(ToolUseBaseEnv):` (its name ends in `Env`). Do not import ToolUseBaseEnv: it is already defined. Standard library only.',
    '- `reset(self, seed=None)` builds the task from `random.Random(seed)`: it sets `self._state` (the simulated back end), `self._tools` (tool name -> `{"description": ..., "parameters": <JSON Schema of type "object">}`) and `self._expected_answer`, and returns `(observation, {})`.',
    '- One method `tool_<name>(self, <parameters>)` per tool, returning a string. Its parameter names must be exactly the property names of the tool\'s schema (a schema with `"account"` needs `def tool_x(self, account)`), or every call fails.',
    '- `solution(self)`: the winning calls of the current task, one per line, each exactly as the agent sends it, `<tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>` (build it with json.dumps), then a last line `<answer>...</answer>`. It is replayed to prove the game winnable, and shown to the agent when its turns run out, so it must never raise.',
    '- `get_tools()` comes from `self._tools`; the episode lasts `self.max_turns` turns (10; `super().__init__(max_turns=N)` in `__init__` to change it).',
  ],
  javascript: [
    '- Write one class `export default class SomethingEnv extends ToolUseBaseEnv` (no imports: the sandbox defines ToolUseBaseEnv; `Math.random` is seeded from reset(seed)).',
    '- `reset(seed)` builds the task: it sets `this._state` (the simulated back end), `this._tools` (tool name -> `{ description, parameters: <JSON Schema of type "object"> }`) and `this._expected_answer`, and returns `[observation, {}]`.',
    '- One method `tool_<name>(args)` per tool, returning a string; it gets the arguments as one object (`tool_transfer({ from, to, amount })`) whose keys are the property names of the tool\'s schema.',
    '- `solution()`: the winning calls of the current task, one per line, each exactly as the agent sends it, `<tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>` (build it with JSON.stringify), then a last line `<answer>...</answer>`. It is replayed to prove the game winnable, and shown to the agent when its turns run out, so it must never throw.',
    '- `get_tools()` comes from `this._tools`; the episode lasts `this.max_turns` turns (10; `super({ max_turns: N })` in the constructor to change it).',
  ],
};

/** The system prompt of a tool-use design. */
export function toolUseDesignerSystemPrompt(language: Language): string {
  const self = language === 'python' ? 'self' : 'this';
  return [
    'You are an environment designer. You write tool-use environments: a task that a language-model agent completes by calling simulated tools, one call per turn, before it submits an answer.',
    '',
    '## What you write',
    ...HOW[language],
    '',
    '## What the base class already does (do not write step(), and do not parse tags yourself)',
    `- It reads the agent's reply: \`<answer>...</answer>\` first, else \`<tool_call>{"name": ..., "arguments": {...}}</tool_call>\`, and calls your \`tool_<name>\` method; the agent sees the result as "Tool result: ...".`,
    '- A reply with neither tag, or a call that is not JSON, costs 0.1; an unknown tool gets the list of the tools there are.',
    `- It checks the answer with \`_check_answer(answer)\`: the same text ignoring case, or the same number within 0.01 once "$" and "," are removed. Override it when the task needs another check (for example that the final state is right).`,
    '- It counts turns, ends the episode at max_turns and then shows solution().',
    '',
    '## Rules of a good tool-use task',
    '- Tools are simulated methods: no network, files or processes. They are deterministic: all randomness is in reset(), from the seed.',
    '- The first observation says what to find or do and the form of the answer, but never the answer or the data that gives it away; the agent must call tools to find out.',
    '- No single tool gives the answer: the agent has to combine two or three tools at least.',
    `- The back end has state in \`${self}._state\` (balances, folders, orders, flags...), with query tools that read it and mutation tools that change it and say whether they succeeded. A mutation called before its precondition holds returns an error message (a move into a folder not yet created: "Error: ... not found"), so the agent must look before it acts. Ask for at least three mutations that depend on each other.`,
    '- Arguments are checked exactly: if the task says to write "hello", only "hello" succeeds.',
    '- 3 to 8 tools with simple arguments (strings, numbers, booleans); one or two of them are not needed for the task and are not marked as such; at least one parameter is constrained with `enum` and `required` in its schema.',
    '- Realistic simulated data: 10 to 50 records, varied by the seed. The answer is computed from the data, never written in by hand, and simple: a number, an id, a comma-separated list.',
    '- The task is solvable from the tool results alone, within max_turns - 2 calls, without calling a tool once per record.',
    '- Before you answer, trace reset(seed=42): what data it makes, which calls solve it, and that solution() gives exactly those calls and the right answer.',
    '',
    '## Example (one task per episode)',
    `${FENCE[language]}\n${toolUseExampleProgram(language)}\`\`\``,
    '',
    `Reply with one ${FENCE[language]} code block holding the whole program, and nothing after it.`,
  ].join('\n');
}

/** The multi-turn variant's structure and the rules that keep it solvable. */
function multiTurnRules(language: Language): string[] {
  const self = language === 'python' ? 'self' : 'this';
  const advance = language === 'python'
    ? [
        '    def _advance_if_done(self):',
        '        if self._current_msg >= len(self._user_messages) or not self._message_criteria[self._current_msg](self._state):',
        '            return ""',
        '        self._current_msg += 1',
        '        if self._current_msg == len(self._user_messages):',
        '            return "\\n\\n[ALL STEPS COMPLETE] Submit <answer>done</answer>."',
        '        return f"\\n\\n[STEP {self._current_msg} COMPLETE - NEW INSTRUCTION] {self._user_messages[self._current_msg]}"',
      ]
    : ['    (the JavaScript base class already has `_advance_if_done()` doing exactly this: when the current criterion holds, move to the next instruction and return "[STEP n COMPLETE - NEW INSTRUCTION] <next instruction>", or "[ALL STEPS COMPLETE] Submit <answer>done</answer>." after the last)'];
  return [
    'This environment is MULTI-TURN: like a real user, it gives one short instruction at a time and the next only once the current one is done.',
    `- In reset(): \`${self}._user_messages\`, 3 to 5 short, specific instructions in plain words (no tool names, no implementation details); \`${self}._message_criteria\`, one function of the state per instruction, true once it is done; \`${self}._current_msg = 0\`; \`${self}._expected_answer = "done"\`. reset() returns the first instruction only (with a word on replying <answer>done</answer> at the end).`,
    '- Every tool ends with its result plus `_advance_if_done()`, which moves on when the current criterion holds and shows the next instruction in the tool result:',
    ...advance,
    `- Override \`_check_answer\`: true only for "done" once every instruction is complete. (A premature "done" is then told, by the base class, which step is still pending.)`,
    '- Allow up to 4-8 calls per instruction, and set max_turns to fit all of them.',
    '- solution() gives the calls that complete every instruction in order, then `<answer>done</answer>`.',
    'A criterion that cannot be met makes the game unwinnable. Check each one:',
    '1. It is false on the state reset() builds and becomes true only through the instruction\'s own action. For a read or check instruction, have the read tool record that it ran, and test that.',
    '2. It reads the state in the shape the tools write it (a list of dicts is searched by field, not with `in` and a string).',
    '3. Every value it needs (an id, a date, an amount) is stated in the instruction or returned by some tool: nothing the agent would have to guess.',
    '4. The tool that satisfies it can succeed: every key it looks up is one that reset() or another tool really writes.',
    '5. The instruction asks for exactly what the criterion checks, no more and no less.',
    '6. Trace reset(seed=0) and your solution() call by call: each criterion turns true in order, none is true early, none raises.',
  ];
}

/** Domains SPADE rotates multi-turn tool-use games over (one per design), after the agent benchmarks it targets. */
export const TOOL_USE_DOMAINS: readonly string[] = [
  'retail orders (orders, items, refunds, shipping)',
  'travel booking (flights and hotels: search, reserve, pay, cancel)',
  'a phone company account (plans, lines, bills, data add-ons)',
  'personal banking (accounts, transfers, cards, invoices)',
  'a calendar assistant (events, invitations, reminders)',
  'a file system (files and folders: move, copy, search)',
  'an online shop (catalogue, cart, checkout, coupons)',
  'customer support (tickets, status, assignment, notes)',
  'a smart home (lights, heating, locks, scenes)',
  'a project tracker (tasks, owners, status, due dates)',
];

/** SPADE's kinds of multi-turn task, with how often it draws each (3, 2, 1 and 1 in 7). */
export const TOOL_USE_TASK_KINDS: readonly { name: string; weight: number; text: string }[] = [
  { name: 'execute', weight: 3, text: 'Straightforward execution: each instruction is done by calling the right tools in order, and its criterion checks the state that results.' },
  { name: 'read-then-write', weight: 2, text: 'Read, then write: at least one instruction needs a query first and a change that depends on what it returned ("every order over $100", "each line past its data cap"), and its criterion checks that the changes followed that condition, not only that a tool was called.' },
  { name: 'missing-value', weight: 1, text: 'A value left out: at least one instruction refers to something it does not name ("cancel my latest order"), which the agent must look up with a read tool first; the write tool returns an error for a wrong or guessed value, so guessing cannot meet the criterion.' },
  { name: 'out-of-scope', weight: 1, text: 'A request out of scope: exactly one instruction asks for something no tool can do (in a shop, tomorrow\'s weather). Add a tool decline_request(reason: string, required) that records the refusal in the state and moves on; that instruction\'s criterion holds only once it was called, and no other tool could seem to fulfil the request.' },
];

export interface ToolUseDesignInput {
  index: number;
  count: number;
  language: Language;
  skill: string;
  variant: ToolUseVariant;
  difficulty: ToolUseDifficulty;
  /** A number from the design's seed, which picks the example tasks shown, the domain and the kind of task. */
  pick: number;
  /** A grounding document sampled from the corpus. */
  document?: string;
  /** The environment memory and solve rates, already written out (memoryContext). */
  memory?: string;
}

/** The user message asking for one tool-use environment. */
export function toolUseDesignUserPrompt(input: ToolUseDesignInput): string {
  const skill = toolUseSkill(input.skill);
  const parts = [`Design environment ${input.index + 1} of ${input.count} this round: a new ${input.variant === 'multi-turn' ? 'MULTI-TURN' : 'single-task'} tool-use environment.`, ''];
  parts.push(`Tool-use skill to exercise: ${input.skill}${skill ? ` (${skill.category}): ${skill.description}` : ''}.`);
  if (skill) parts.push('Kinds of task (pick one or invent your own):', ...skill.examples.map((e) => `- ${e}`));
  parts.push('', `Difficulty: ${input.difficulty}.`, ...TOOL_USE_DIFFICULTY[input.difficulty].map((rule) => `- ${rule}`));
  if (input.variant === 'multi-turn') {
    const domain = TOOL_USE_DOMAINS[input.pick % TOOL_USE_DOMAINS.length]!;
    const drawn = Math.floor(input.pick / TOOL_USE_DOMAINS.length) % TOOL_USE_TASK_KINDS.reduce((sum, k) => sum + k.weight, 0);
    let acc = 0;
    const kind = TOOL_USE_TASK_KINDS.find((k) => (acc += k.weight) > drawn)!;
    parts.push('', `Domain: ${domain}. A realistic user reaching a goal there (search, book, order, update, cancel, transfer, schedule), not a quiz or a puzzle.`);
    parts.push(`Kind of task: ${kind.text}`);
    parts.push('', ...multiTurnRules(input.language));
  } else {
    parts.push('', 'One task per episode: the first observation states it, the data is fixed at reset(), and the agent submits one answer.');
  }
  if (input.document) {
    const multi = input.variant === 'multi-turn';
    parts.push(
      '',
      multi
        ? 'You may borrow names, numbers or entities from this snippet for flavour, but the domain above stays the domain; never mention the snippet in the instructions.'
        : 'Set the tools and data in the domain of this document. The game must stand on its own: the agent will not see the document, and no text of the game mentions it.',
      '<document>',
      input.document,
      '</document>',
    );
  }
  if (input.memory) parts.push('', input.memory);
  parts.push('', 'Write the complete program, with solution() replaying the winning calls.');
  return parts.join('\n');
}

/**
 * The difficulty of the next design from the agent's latest solve rate and the band the
 * designer aims at: harder above the band, easier below it, medium within it or before any
 * play (SPADE's tool-use runs design at medium).
 */
export function toolUseDifficulty(recentSolveRates: readonly number[], band: readonly [number, number] = [0.4, 0.6]): ToolUseDifficulty {
  const last = recentSolveRates.at(-1);
  if (last === undefined) return 'medium';
  if (last > band[1]) return 'hard';
  if (last < band[0]) return 'easy';
  return 'medium';
}
