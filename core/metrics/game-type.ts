/**
 * A pool split by game type (single-turn, multi-turn, tool-use): validity and the agent's
 * success on each, measured as the whole pool's are (no-hint episodes; errored ones apart).
 */
import type { GameType } from '../types.js';
import { playsOf, type WithPlays } from './plays.js';
import type { GameTypeMetrics, Verdict } from '../results/results.js';
import { GAME_TYPES } from '../run/game-type.js';
import { wilsonInterval } from './intervals.js';

export interface GameTypedEnvironment extends WithPlays {
  gameType: GameType;
  verdict: Verdict;
}

/** One entry per game type present, in the order single-turn, multi-turn, tool-use. */
export function gameTypeMetrics(environments: readonly GameTypedEnvironment[]): Partial<Record<GameType, GameTypeMetrics>> {
  const out: Partial<Record<GameType, GameTypeMetrics>> = {};
  for (const type of GAME_TYPES) {
    const ofType = environments.filter((e) => e.gameType === type);
    if (ofType.length === 0) continue;
    let played = 0;
    let decided = 0;
    let won = 0;
    let turns = 0;
    let toolCalls = 0;
    let counted = 0;
    for (const e of ofType) {
      const tally = playsOf(e);
      played += tally.plain.won + tally.plain.lost + tally.plain.errored;
      decided += tally.plain.won + tally.plain.lost;
      won += tally.plain.won;
      turns += tally.decidedTurns;
      toolCalls += tally.toolCalls;
      counted += tally.toolCounted;
    }
    const entry: GameTypeMetrics = {
      environments: ofType.length,
      valid: ofType.filter((e) => e.verdict === 'valid').length,
      episodes: played,
      successRate: decided === 0 ? null : won / decided,
      interval: wilsonInterval(won, decided),
      meanTurns: decided === 0 ? 0 : turns / decided,
    };
    if (counted > 0) entry.toolCallsPerEpisode = toolCalls / counted;
    out[type] = entry;
  }
  return out;
}
