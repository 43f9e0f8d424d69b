/**
 * The hint writer's prompts, after SPADE's hint generator (spade/core/hint_generator.py at
 * 9b2b813): the designer model reads an environment's source code, which the player never sees,
 * and writes a short hint that helps a player solve it without giving the answer away. The hint
 * is added to the first observation of the hinted plays, and regret (hinted minus unhinted
 * reward) measures how much it helps. Tool-use games get a procedural, value-free variant.
 * Written in spade-bench's own words from those facts.
 */
import type { ChatMessage, EnvironmentProgram } from '../../types.js';

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
  'You read the source code of a multi-turn tool-use environment and write a strategy hint for the language model agent that will play it.',
  '',
  'The agent acts one turn at a time: it calls tools with <tool_call>{"name": ..., "arguments": {...}}</tool_call>, reads each result, and submits <answer>...</answer> when the task is done. It never sees the code; you do. Your hint will be added to the end of its first observation.',
  '',
  'The hint must get the agent unstuck without doing the task for it: finding the actual values by calling tools is the skill being measured, so a hint the agent could copy to win is worthless.',
  '',
  'Describe:',
  '- which kinds of tools matter and in what order of phases (which result feeds which call), and which tools are distractors;',
  '- that the agent should read each result (and each instruction) to find the arguments, not assume them;',
  '- that it should submit its answer only once every step is done; and, where the environment expects it, to ask for a missing argument or decline a request the tools cannot serve.',
  '',
  'Rules:',
  '- Never write a concrete value from the code or its state (no ids, names, file names, paths, amounts, dates or statuses): use placeholders such as <order_id> or words such as "the account the user names".',
  '- No complete call-by-call walkthrough with the arguments filled in.',
  '- Do not mention variables, state fields or how the code checks the result.',
  '- Two or three sentences, under 100 words, specific to this environment\'s tools and goal.',
  '',
  'Reply with the hint text only: no JSON, no Markdown, no label.',
].join('\n');

/** True for a program written on SPADE's tool-use base class. */
export const isToolUseProgram = (program: Pick<EnvironmentProgram, 'source'>): boolean => /\bToolUseBaseEnv\b/.test(program.source);

/** The built-in system prompt for `program`. */
export function hintSystemPrompt(program: Pick<EnvironmentProgram, 'source'>): string {
  return isToolUseProgram(program) ? TOOL_GAME : ANSWER_GAME;
}

/** The messages asking for a hint: the system prompt, then the code (SPADE's user message). */
export function hintMessages(program: EnvironmentProgram, systemPrompt?: string): ChatMessage[] {
  const fence = program.language === 'python' ? '```python' : '```javascript';
  return [
    { role: 'system', content: systemPrompt ?? hintSystemPrompt(program) },
    { role: 'user', content: `Environment code:\n${fence}\n${program.source}\n\`\`\`` },
  ];
}
