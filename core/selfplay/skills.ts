/**
 * SPADE's skills: the nine cognitive skills its designer writes games for (COGNITIVE_SKILLS in
 * spade/core/game_generator.py at 9b2b813), and the six tool-use skills of its tool-use runs
 * (TOOL_USE_SKILLS in spade/core/prompts/tool_use_template.py; `--spade-game-type tool_use`
 * runs rotate these six and no others). The names are SPADE's; the descriptions and example
 * tasks are written here. SPADE's rotation: each round takes a window of k skills, the next
 * round the next k (wrapping around), and game i of a round gets skill i % k of its window.
 */

export interface CognitiveSkill {
  name: string;
  /** What games of this skill ask of the player, for the designer's prompt. */
  description: string;
}

export const COGNITIVE_SKILLS: readonly CognitiveSkill[] = [
  { name: 'Pattern Recognition', description: 'find the rule behind a sequence, a grid transformation, an encoding or input-output pairs, then apply it' },
  { name: 'Logical Deduction', description: 'reach the one conclusion a set of premises or clues allows, ruling the alternatives out' },
  { name: 'Strategic Planning', description: 'plan several moves ahead to reach a goal under constraints (paths, schedules, resources)' },
  { name: 'Mathematical Reasoning', description: 'solve a mathematical problem exactly: equations, counting, number theory, probability, geometry' },
  { name: 'Spatial Reasoning', description: 'track positions, directions and shapes in a grid or space as they move and turn' },
  { name: 'Causal Inference', description: 'work out what causes what in a system from its behaviour, and predict the effect of a change' },
  { name: 'Memory Recall', description: 'keep track of information given earlier in the episode and use it later' },
  { name: 'Optimization', description: 'find the best solution under constraints (knapsack, scheduling, shortest routes), not just a feasible one' },
  { name: 'Language Understanding', description: 'read and manipulate language: word puzzles, anagrams, riddles, meaning' },
];

export const SKILL_NAMES: readonly string[] = COGNITIVE_SKILLS.map((s) => s.name);

/** A tool-use skill: what its games ask of the agent, and the kind of task that exercises it. */
export interface ToolUseSkill extends CognitiveSkill {
  /** SPADE's category of the skill. */
  category: string;
  /** How hard SPADE rates its tasks. */
  complexity: 'low' | 'medium' | 'high';
  /** Kinds of task a designer may pick from (or invent beside). */
  examples: readonly string[];
}

export const TOOL_USE_SKILLS: readonly ToolUseSkill[] = [
  {
    name: 'API Orchestration', category: 'Stateful Operations', complexity: 'medium',
    description: 'chain tool calls that each change the state, in an order where every call builds on the last',
    examples: [
      'open an account session, move money between two accounts, then confirm both balances',
      'find stock in a warehouse, reserve it, confirm the reservation and issue the invoice',
      'look up a route, book a seat on it, attach the traveller, then confirm the booking',
    ],
  },
  {
    name: 'Data Retrieval', category: 'Query Then Act', complexity: 'low',
    description: 'find the needed facts with query tools first, then act on exactly what was found',
    examples: [
      'list a folder, locate the right file, read it and pull one figure out of it',
      'search a customer by name, fetch their orders and report the latest one',
      'query records that match a condition and report an aggregate of them',
    ],
  },
  {
    name: 'State Modification', category: 'Mutation Chains', complexity: 'medium',
    description: 'carry out a sequence of changes where each one depends on the state the previous ones left',
    examples: [
      'create a user, grant a role, add them to a group, then check the membership',
      'lay out a folder tree, then move and rename files into it',
      'bring a device through its start-up states before issuing its commands',
    ],
  },
  {
    name: 'Error Recovery', category: 'Robustness', complexity: 'high',
    description: 'notice a failing call, check the state, and retry with a corrected call',
    examples: [
      'a move fails with "not found": search for the right path and move again',
      'an action is refused for lack of rights: obtain them, then repeat it',
      'verify a precondition with a query before a call that cannot be undone',
    ],
  },
  {
    name: 'Tool Selection', category: 'Decision Making', complexity: 'low',
    description: 'pick the right tool among similar ones from what the state shows',
    examples: [
      'check where you are before choosing between moving and acting in place',
      'read an item\'s kind, then use the handler made for that kind',
      'see whether a record exists to decide between creating and updating it',
    ],
  },
  {
    name: 'Multi-Step Workflows', category: 'Sequential Planning', complexity: 'high',
    description: 'run an ordered workflow whose later steps need the results of earlier ones',
    examples: [
      'order handling: search, check stock, reserve, pay, confirm, notify',
      'setting up a service: inspect, configure, enable, test, verify, log the outcome',
      'a data job: connect, query, filter, transform, write, check the output',
    ],
  },
];

export const TOOL_USE_SKILL_NAMES: readonly string[] = TOOL_USE_SKILLS.map((s) => s.name);

/**
 * The kind of games a self-play run designs by default, as SPADE's `--spade-game-type`:
 * `cognitive` rotates the nine cognitive skills, `tool-use` the six tool-use skills.
 */
export const DESIGN_GAME_TYPES = ['cognitive', 'tool-use'] as const;
export type DesignGameType = (typeof DESIGN_GAME_TYPES)[number];

/** The skills a run of this game type rotates when none are named. */
export const defaultSkills = (gameType: DesignGameType): readonly string[] => (gameType === 'tool-use' ? TOOL_USE_SKILL_NAMES : SKILL_NAMES);

/** True for one of SPADE's tool-use skills: a slot with it is designed as a tool-use game. */
export const isToolUseSkill = (skill: string | undefined): boolean => skill !== undefined && TOOL_USE_SKILL_NAMES.includes(skill);

/** The tool-use skill of that name, if it is one. */
export const toolUseSkill = (skill: string): ToolUseSkill | undefined => TOOL_USE_SKILLS.find((s) => s.name === skill);

/** SPADE's window size in its runs (SKILLS_PER_REGEN). */
export const DEFAULT_SKILLS_PER_ROUND = 3;

/** A skill's canonical name from how a user may write it (`Pattern_Recognition`, `pattern recognition`); undefined if unknown. */
export function skillName(written: string): string | undefined {
  const key = written.trim().replace(/[_\s]+/g, ' ').toLowerCase();
  return [...SKILL_NAMES, ...TOOL_USE_SKILL_NAMES].find((name) => name.toLowerCase() === key);
}

/** The skill's file-name slug, as SPADE names pool files (`pattern_recognition`). */
export const skillSlug = (skill: string): string => skill.toLowerCase().replace(/ /g, '_');

/** The window of skills active in `round`: k skills from round·k on (all of them when k covers the list). */
export function skillWindow(skills: readonly string[], perRound: number, round: number): string[] {
  const n = skills.length;
  if (perRound <= 0 || perRound >= n) return [...skills];
  const start = (round * perRound) % n;
  return Array.from({ length: perRound }, (_, j) => skills[(start + j) % n]!);
}

/** The skill of each of a round's `count` games: game i gets skill i % k of the round's window. */
export function skillsForRound(skills: readonly string[], perRound: number, round: number, count: number): string[] {
  const window = skillWindow(skills, perRound, round);
  return Array.from({ length: count }, (_, i) => window[i % window.length]!);
}

/** The description of a skill (its name when it is not one of SPADE's). */
export function skillDescription(skill: string): string {
  return [...COGNITIVE_SKILLS, ...TOOL_USE_SKILLS].find((s) => s.name === skill)?.description ?? skill;
}
