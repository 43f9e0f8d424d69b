/**
 * A pool split by game type (single-turn, multi-turn, tool-use): validity and the agent's
 * success on each, measured as the whole pool's are (no-hint episodes; errored ones apart).
 */
import type { EpisodeResult, GameType } from '../types.js';
import type { GameTypeMetrics, Verdict } from '../results/results.js';
import { GAME_TYPES } from '../run/game-type.js';
import { wilsonInterval } from './intervals.js';

export interface GameTypedEnvironment {
  gameType: GameType;
  verdict: Verdict;
  episodes: readonly EpisodeResult[];
}

/** One entry per game type present, in the order single-turn, multi-turn, tool-use. */
export function gameTypeMetrics(environments: readonly GameTypedEnvironment[]): Partial<Record<GameType, GameTypeMetrics>> {
  const out: Partial<Record<GameType, GameTypeMetrics>> = {};
  for (const type of GAME_TYPES) {
    const ofType = environments.filter((e) => e.gameType === type);
    if (ofType.length === 0) continue;
    const played = ofType.flatMap((e) => e.episodes.filter((episode) => !episode.withHint));
    const decided = played.filter((episode) => episode.outcome !== 'errored');
    const won = decided.filter((episode) => episode.outcome === 'won').length;
    const entry: GameTypeMetrics = {
      environments: ofType.length,
      valid: ofType.filter((e) => e.verdict === 'valid').length,
      episodes: played.length,
      successRate: decided.length === 0 ? null : won / decided.length,
      interval: wilsonInterval(won, decided.length),
      meanTurns: decided.length === 0 ? 0 : decided.reduce((sum, episode) => sum + episode.turns, 0) / decided.length,
    };
    const counted = decided.filter((episode) => episode.toolCalls !== undefined);
    if (counted.length > 0) entry.toolCallsPerEpisode = counted.reduce((sum, episode) => sum + episode.toolCalls!, 0) / counted.length;
    out[type] = entry;
  }
  return out;
}
