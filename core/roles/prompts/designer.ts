/**
 * The designer's prompts, after SPADE's: the interface contract, information hiding, the
 * difficulty rules, `\boxed{}` actions, the privileged hint, and a concrete example; then,
 * for each environment, the grounding document, the memory of past environments and the
 * agent's solve rates; and the repair prompt, which feeds the gate's reason back.
 */
import type { ChatMessage, EnvironmentProgram, EnvironmentRecord, Language } from '../../types.js';
import type { GateVerdict } from '../../results/results.js';
import { exampleProgram } from './examples.js';
import { memoryContext } from './memory-context.js';
import { isToolUseSkill, skillDescription } from '../../selfplay/skills.js';
import { extendsToolUseBase } from '../../run/game-type.js';
import { toolUseDesignerSystemPrompt } from './tool-use-designer.js';

const FENCE: Record<Language, string> = { python: '```python', javascript: '```javascript' };

const CONTRACT: Record<Language, string> = {
  python: [
    'Write one Python class (standard library only; `random`, `re`, `math` and the like are available) with these methods:',
    '- `reset(self, seed=None)` -> `(observation: str, info: dict)`: start a new episode. All randomness must come from `random.Random(seed)` (or `random.seed(seed)`), so the same seed gives the same task.',
    '- `step(self, action: str)` -> `(observation: str, reward: float, terminated: bool, truncated: bool, info: dict)`: `action` is the agent\'s whole reply; read the answer or command from the last `\\boxed{...}` in it.',
    '- `hint(self)` -> `str`: a privileged hint for the current episode that makes it easier without giving the answer away.',
    '- For a single-answer task: `solution(self)` -> `str`, the exact answer of the current episode (what goes inside `\\boxed{}`).',
    '- For a multi-turn task: `reference_action(self, observation: str)` -> `str`, a policy that wins the episode when it plays every turn from reset (it is how the environment is proved winnable). Put `"max_turns"` in the info of reset().',
    "- Name the class with a name ending in `Env` (SPADE's loader takes the first class whose name ends in Env), and give `__init__` a `max_turns` parameter with a default: the harness builds the class with `max_turns=` its turn budget when it needs one.",
  ].join('\n'),
  javascript: [
    'Write one JavaScript class, `export default class ...` (no imports, no I/O; `Math.random` is seeded from reset(seed) by the sandbox), with these methods:',
    '- `reset(seed)` -> `[observation: string, info: object]`: start a new episode; the same seed must give the same task.',
    '- `step(action)` -> `[observation: string, reward: number, terminated: boolean, truncated: boolean, info: object]`: `action` is the agent\'s whole reply; read the answer or command from the last `\\boxed{...}` in it.',
    '- `hint()` -> string: a privileged hint for the current episode that makes it easier without giving the answer away.',
    '- For a single-answer task: `solution()` -> string, the exact answer of the current episode (what goes inside `\\boxed{}`).',
    '- For a multi-turn task: `referenceAction(observation)` -> string, a policy that wins the episode when it plays every turn from reset. Put `max_turns` in the info of reset().',
  ].join('\n'),
};

/** The designer's system prompt. */
export function designerSystemPrompt(language: Language): string {
  return [
    'You are an environment designer. You write complete, executable training environments in which a reasoning agent (a language model) solves a task, in one turn or over several turns.',
    '',
    '## Interface',
    CONTRACT[language],
    '',
    '## Rules',
    '- Information hiding: the observations must never contain the answer, the hidden state, or anything that gives them away; the agent must reason or explore to win.',
    '- Verifiable: a win is `terminated=True` with a positive reward; a wrong answer or a random reply must lose. Check answers exactly (or numerically), never by substring.',
    '- Robust: `step()` must never raise, whatever the action (try "1", "2", "test", or a reply with no \\boxed{}); end the episode with truncated=True when the turns run out.',
    '- Deterministic: the same seed and the same actions give the same episode.',
    '- Self-contained and fast: every method returns within a fraction of a second, and observations stay short (under a few thousand characters).',
    '- Difficulty: the task should be hard enough that a strong agent fails it about half the time without the hint, and solvable with careful reasoning. Vary the kind of task; no trivia that needs outside knowledge.',
    '- Explain in the first observation what the task is, the action format (`\\boxed{...}`) and the turn limit.',
    '',
    '## Example',
    `${FENCE[language]}\n${exampleProgram(language)}\`\`\``,
    '',
    `Reply with one ${FENCE[language]} code block holding the whole program, and nothing after it.`,
  ].join('\n');
}

export interface DesignPromptInput {
  /** Index of this environment in the round, and how many the round has. */
  index: number;
  count: number;
  language: Language;
  memory: readonly EnvironmentRecord[];
  recentSolveRates: readonly number[];
  /** A grounding document sampled from the corpus. */
  document?: string;
  /** Single-answer or multi-turn, to vary the round. */
  kind: 'single-answer' | 'multi-turn';
  /** The cognitive skill this environment should exercise (SPADE's rotation). */
  skill?: string;
}

/** The user message asking for one environment. */
export function designUserPrompt(input: DesignPromptInput): string {
  const parts = [`Design environment ${input.index + 1} of ${input.count} this round: a new ${input.kind} environment.`];
  if (input.skill) parts.push('', `Cognitive skill to exercise: ${input.skill} (${skillDescription(input.skill)}).`);
  if (input.document) {
    parts.push('', 'Ground the task in this document: its subject, facts, or the kind of reasoning it needs (the agent will not see the document).', '<document>', input.document, '</document>');
  }
  const memory = memoryContext(input.memory, input.recentSolveRates, FENCE[input.language]);
  if (memory) parts.push('', memory);
  parts.push('', `Write the complete program, with hint() and ${input.kind === 'single-answer' ? 'solution()' : input.language === 'python' ? 'reference_action()' : 'referenceAction()'}.`);
  return parts.join('\n');
}

/** The failed check of a rejected program, in words. */
export function rejectionText(verdict: GateVerdict): string {
  const failed = verdict.checks.find((c) => !c.ok);
  return `${verdict.reason ?? verdict.verdict}${failed ? ` (check "${failed.name}": ${failed.detail ?? 'failed'})` : ''}`;
}

/** The conversation asking to fix a program the gate rejected. */
export function repairMessages(language: Language, program: EnvironmentProgram, verdict: GateVerdict, systemPrompt?: string): ChatMessage[] {
  const source = program.source.trim() || '(no program was found in your reply)';
  // A tool-use design (its slot's skill, or a program on ToolUseBaseEnv) is repaired with the tool-use prompt.
  const toolUse = isToolUseSkill(program.meta?.skill) || extendsToolUseBase(program);
  return [
    { role: 'system', content: systemPrompt ?? (toolUse ? toolUseDesignerSystemPrompt(language) : designerSystemPrompt(language)) },
    {
      role: 'user',
      content: [
        'The validation gate rejected this environment:',
        `${FENCE[language]}\n${source}\n\`\`\``,
        '',
        `Reason: ${rejectionText(verdict)}`,
        '',
        'Fix the problem and reply with the complete corrected program in one code block.',
      ].join('\n'),
    },
  ];
}
