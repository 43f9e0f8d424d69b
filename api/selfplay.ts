/**
 * `spade-bench/selfplay`: the parts of the self-play loop on their own: designer rewards,
 * SPADE's skills, RLVE's adaptive difficulty window, R-Zero's repetition penalty, and the LLM
 * designer, agent and reviewer.
 */

/** Designer rewards: SPADE's (regret + difficulty band, on its episode rewards), its regret-only reward, solve-rate band, Absolute Zero's learnability, R-Zero's uncertainty. */
export { plateau, episodeReward, spadeDesignerReward, regretReward, learnabilityReward, uncertaintyReward, designerReward } from '../core/selfplay/rewards.js';
/** The rewards' names and inputs. */
export type { DesignerRewardName, PlateauOptions, SpadeRewardInput } from '../core/selfplay/rewards.js';
/**
 * SPADE's round-level rewards: learning potential (per-skill fast and slow means), the regret
 * recipe, the variance term, and the blend with its micro-learning-potential and frontier terms,
 * each raw and centred per skill as SPADE trains on them.
 */
export {
  LearningPotential, learningPotentialRewards, regretBasedRewards, varianceReward, microLearningPotential, blendParts, blendRewards,
  SPADE_LP_GAMMAS, SPADE_BLEND_DEFAULTS, SPADE_BLEND_AS_RUN, SPADE_SOLVE_RATE,
} from '../core/selfplay/rewards.js';
/** The blend's weights and parts, and a round's games and rewards as those functions take and give them. */
export type { BlendOptions, BlendParts, RoundGame, RoundRewards } from '../core/selfplay/rewards.js';
/** SPADE's per-step round log: its figures (with SPADE's names) from a round's designs and evaluations. */
export { roundLog, ROUND_LOG_FIGURES, ROUND_LOG_KEYS } from '../core/selfplay/round-log.js';
/** SPADE's cognitive and tool-use skills and their rotation over rounds. */
export { COGNITIVE_SKILLS, SKILL_NAMES, TOOL_USE_SKILLS, TOOL_USE_SKILL_NAMES, DESIGN_GAME_TYPES, defaultSkills, isToolUseSkill, skillName, skillSlug, skillsForRound } from '../core/selfplay/skills.js';
/** A tool-use skill's facts (category, complexity, kinds of task), and what a self-play run designs (cognitive or tool-use games). */
export type { ToolUseSkill, DesignGameType } from '../core/selfplay/skills.js';
/** RLVE's adaptive difficulty: a sliding window of difficulties per environment (what curriculum pools such as rlve-adaptive are played with). */
export { SlidingWindow } from '../core/curriculum/sliding-window.js';
/** The sliding window's settings (tauAcc, tauNum, width, maxDifficulty) and one environment's window. */
export type { SlidingWindowSettings, DifficultyWindow } from '../core/curriculum/sliding-window.js';
/** R-Zero's repetition penalty over a round's tasks, and the BLEU it is built on. */
export { repetitionPenalties, sentenceBleu } from '../core/selfplay/repetition-penalty.js';
/** The LLM designer: a provider writes environment programs with SPADE-style prompts, and repairs rejected ones. */
export { createLLMDesigner } from '../core/roles/llm-designer.js';
/** The LLM agent: a provider plays environments; its memory of long episodes (`full`, `window:K`, `summary[:K]`). */
export { createLLMAgent, parseAgentMemory } from '../core/roles/llm-agent.js';
/** The LLM reviewer after the gate ("accept unless a clear fatal bug"), and how its verdict is read from a reply. */
export { createLLMReviewer, reviewDecision } from '../core/roles/llm-reviewer.js';
/** What reviews environments after the gate, and the LLM reviewer's options. */
export type { EnvironmentReviewer, LLMReviewerOptions } from '../core/roles/llm-reviewer.js';
/** The environment program in a model's reply, whatever prose or fences surround it. */
export { extractProgram } from '../core/roles/code-extraction.js';
