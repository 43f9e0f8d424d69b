/**
 * The hint writer's prompts, after SPADE's hint generator (spade/core/hint_generator.py at
 * 9b2b813): the designer model reads an environment's source code, which the player never sees,
 * and writes a short hint that helps a player solve it without giving the answer away. The hint
 * is added to the first observation of the hinted plays, and regret (hinted minus unhinted
 * reward) measures how much it helps. Tool-use games get a procedural, value-free variant.
 * Written in spade-bench's own words from those facts.
 */
import type { ChatMessage, EnvironmentProgram, GameType } from '../../types.js';

const ANSWER_GAME = [
  'You read the source code of a game and write a hint for the language model that will play it.',
  '',
  'The player sees only the text observations the game returns, and answers with \\boxed{...}. It never sees the code; you do. Your hint will be added to the end of its first observation.',
  '',
  'Work out from the code:',
  '1. the puzzle the game poses, as the player sees it (not as the code is written);',
  '2. how the right answer follows from what the player is shown (follow reset() and the check in step());',
  '3. the form the answer must take (one integer, a word, a comma-separated list...).',
  '',
  'Then write a hint that gives the key idea or method for this particular puzzle, and the form of the answer.',
  '',
  'Rules:',
  '- One to three sentences, under 100 words.',
  '- Speak only of what the player can see in the observation, never of variables, methods or other code.',
  '- Be specific to this game: no general advice such as "think step by step" or "check your work".',
  '- Never state the answer itself; explain how to reach it.',
  '',
  'Reply with the hint text only: no JSON, no Markdown, no label.',
].join('\n');

const TOOL_GAME = [
  'You read the source code of a tool-use environment and write a strategy hint for the language model agent that will play it.',
  '',
  'The agent acts one turn at a time: it calls tools with <tool_call>{"name": ..., "arguments": {...}}</tool_call>, reads each result, and submits <answer>...</answer> at the end. In an environment of several instructions it sees one instruction at a time and submits <answer>done</answer> only once every one of them is complete. It never sees the code; you do. Your hint will be added to the end of its first observation.',
  '',
  'The hint must get the agent unstuck without doing the task for it: finding the actual values by calling tools is the skill being measured, so a hint the agent could copy to win is worthless (and would reward environments that cannot be won without it). Give a plan with gaps, never the answer.',
  '',
  'Read the code for the strategy only, and describe it:',
  '- which kinds of tools matter and the order of the phases, in terms of what each tool is for ("first look up the record the user means, then change it, then check it"), not a call sequence with its arguments; and which tools are distractors or out of scope;',
  '- that the agent should work turn by turn and find the arguments by calling look-up or list tools and reading each result and instruction, not assume them;',
  '- when to submit: the answer once it is found, or <answer>done</answer> only after the last instruction is done, never straight away;',
  '- where the environment expects it: to ask for an argument an instruction leaves out rather than guess it, and to decline a request no tool can serve.',
  '',
  'Rules (they keep the answer from leaking):',
  '- Never write a concrete value from the code or its state: no ids, names, file names, paths, amounts, dates or statuses. Write placeholders such as <order_id> or words such as "the account the user names" instead.',
  '- No complete call-by-call walkthrough with the arguments filled in.',
  '- Only what the agent can observe of the tools: no variables, state fields or how the code checks success.',
  '- Do not tell it to answer with a single number or word and submit at once: this is a task to carry out with tools.',
  '- Two or three sentences, under 100 words, specific to this environment\'s tools and goal, and free of values.',
  '',
  'Reply with the hint text only: no JSON, no Markdown, no label.',
].join('\n');

/** True for a program written on SPADE's tool-use base class. */
export const isToolUseProgram = (program: Pick<EnvironmentProgram, 'source'>): boolean => /\bToolUseBaseEnv\b/.test(program.source);

/**
 * The built-in system prompt for `program`: the tool-use one for a tool-use game (its game type
 * as the gate found it, else its source naming ToolUseBaseEnv), as SPADE picks its hint prompt
 * by game type.
 */
export function hintSystemPrompt(program: Pick<EnvironmentProgram, 'source'>, gameType?: GameType): string {
  const toolUse = gameType === undefined ? isToolUseProgram(program) : gameType === 'tool-use';
  return toolUse ? TOOL_GAME : ANSWER_GAME;
}

/** The messages asking for a hint: the system prompt, then the code (SPADE's user message). */
export function hintMessages(program: EnvironmentProgram, systemPrompt?: string, gameType?: GameType): ChatMessage[] {
  const fence = program.language === 'python' ? '```python' : '```javascript';
  return [
    { role: 'system', content: systemPrompt ?? hintSystemPrompt(program, gameType) },
    { role: 'user', content: `Environment code:\n${fence}\n${program.source}\n\`\`\`` },
  ];
}
