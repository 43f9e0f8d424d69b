/**
 * The designer side under `--designer-protocol spade`: what SPADE's runs for the paper set, read
 * from its launch scripts and configs at 9b2b813 (cmd/games/train_spade_30b.sh,
 * cmd/tool_use/_train_spade_blend.sh, spade/slime/arguments.py), and the helpers that turn a
 * slot of a round into a request for SPADE's own prompt code (spade-code.ts).
 *
 * - Designs are always multi-turn (env_generation_template qwen3_multiturn_game_generation) and,
 *   with a corpus, corpus-grounded (CorpusGroundedOrchestrator: a fresh document per attempt);
 *   tool-use designs use the multi-turn variant (SPADE_MULTITURN_ENV_GEN=1) with its domain and
 *   task-type rotation, under the qwen3_tool_use_game_generation template; difficulty medium.
 * - Designer sampling: temperature 0.6, top_p 0.95, top_k 20, 16,384 tokens.
 * - Corpus documents cut at 6,000 words (4,000 for tool use), by SPADE's loader.
 * - Hints: always the hint writer's, temperature 0.3, 4,096 tokens (2,048 for tool use).
 * - Validator (the LLM reviewer): temperature 0.3, 16,384 tokens; SPADE's verdict reading.
 * - Memory: two seeds and one negative example per design (env_memory.py).
 */
import type { GameType } from '../types.js';
import type { SpadeDesignRequest, SpadeMemoryRecord } from './spade-code.js';

export const SPADE_DESIGN = {
  difficulty: 'medium',
  cognitiveTemplate: 'qwen3_multiturn_game_generation',
  toolUseTemplate: 'qwen3_tool_use_game_generation',
  sampling: { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 16384 },
  maxDocWords: { cognitive: 6000, tool_use: 4000 },
} as const;

export const SPADE_HINT = { temperature: 0.3, maxTokens: { cognitive: 4096, tool_use: 2048 } } as const;
export const SPADE_VALIDATOR = { temperature: 0.3, maxTokens: 16384 } as const;
/** Seeds and negative examples SPADE's designer is shown per design (orchestrator.py _augment_prompt_with_memory). */
export const SPADE_MEMORY = { seeds: 2, negatives: 1, maxSize: 200 } as const;

/** SPADE's name of a game type. */
export const spadeGameType = (toolUse: boolean): 'cognitive' | 'tool_use' => (toolUse ? 'tool_use' : 'cognitive');
export const spadeGameTypeOf = (gameType: GameType | undefined): 'cognitive' | 'tool_use' => spadeGameType(gameType === 'tool-use');

/** The request for SPADE's code that builds one slot's design prompt. */
export function spadeDesignRequest(slot: {
  skill: string;
  toolUse: boolean;
  round: number;
  index: number;
  maxTurns: number;
  promptSeed: number;
  documentLine?: string;
  memory?: readonly SpadeMemoryRecord[];
  memorySeed?: number;
}): SpadeDesignRequest {
  const gameType = spadeGameType(slot.toolUse);
  return {
    op: 'design',
    gameType,
    skill: slot.skill,
    difficulty: SPADE_DESIGN.difficulty,
    template: slot.toolUse ? SPADE_DESIGN.toolUseTemplate : SPADE_DESIGN.cognitiveTemplate,
    ...(slot.documentLine !== undefined ? { documentLine: slot.documentLine } : {}),
    maxDocWords: SPADE_DESIGN.maxDocWords[gameType],
    maxTurns: slot.maxTurns,
    sampling: { ...SPADE_DESIGN.sampling },
    rolloutId: slot.round,
    index: slot.index,
    promptSeed: slot.promptSeed,
    ...(slot.memory?.length ? { memory: [...slot.memory], memorySeed: slot.memorySeed ?? 0 } : {}),
  };
}

/** SPADE's reading of a validator reply (env_validator.py): the first \boxed{...}; yes, y or true accepts; none accepts. */
export function spadeValidatorVerdict(reply: string): boolean {
  if (!reply) return true;
  const match = /\\boxed\{(.+?)\}/.exec(reply);
  if (!match) return true;
  return ['yes', 'y', 'true'].includes(match[1]!.trim().toLowerCase());
}
