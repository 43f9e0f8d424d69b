/**
 * SPADE's cognitive skills: the nine skills its designer writes games for (COGNITIVE_SKILLS in
 * spade/core/game_generator.py at 9b2b813; the names are SPADE's, the descriptions written here),
 * and SPADE's rotation of them: each round takes a window of k skills, the next round the next k
 * (wrapping around), and game i of a round gets skill i % k of its window.
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

/** SPADE's window size in its runs (SKILLS_PER_REGEN). */
export const DEFAULT_SKILLS_PER_ROUND = 3;

/** A skill's canonical name from how a user may write it (`Pattern_Recognition`, `pattern recognition`); undefined if unknown. */
export function skillName(written: string): string | undefined {
  const key = written.trim().replace(/[_\s]+/g, ' ').toLowerCase();
  return SKILL_NAMES.find((name) => name.toLowerCase() === key);
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
  return COGNITIVE_SKILLS.find((s) => s.name === skill)?.description ?? skill;
}
