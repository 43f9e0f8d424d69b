/**
 * SPADE's environment memory (`--memory spade`; spade/core/env_memory.py and the memory update
 * of spade/slime/spade_rollout.py at 9b2b813): after each round, every environment the agent
 * played is recorded as SPADE records it (its game file as SPADE saves it, cut to a 2,000-character
 * snippet, its skill, its actor win rate: the share of plain plays with a positive reward, and
 * its regret: mean hinted reward minus mean plain reward, 0 without a hint), the most recent 200
 * kept. The records are written to `env_memory.json` in the run folder after each round, in
 * SPADE's layout (a list of its EnvironmentRecord), so SPADE can load it and a later look can
 * see what the designer was shown. Which records a design is shown is SPADE's own selection,
 * made by SPADE's code when the prompt is built (core/roles/llm-designer.ts).
 */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SpadeMemoryRecord } from '../types.js';
import type { Evaluation } from '../run/evaluate.js';
import { playReward } from './rewards.js';
import type { SpadeCode } from '../roles/spade-code.js';
import { SPADE_MEMORY } from '../roles/spade-designer.js';
import { makeFolder } from '../results/fs.js';

/** The file of SPADE's memory in a run folder. */
export const SPADE_MEMORY_FILE = 'env_memory.json';

export interface SpadeMemoryKeeper {
  /** The memory, oldest first. */
  readonly records: readonly SpadeMemoryRecord[];
  /** Records the round's played environments, then writes the file (when the keeper has one). */
  addRound(evaluations: readonly Evaluation[], round: number): Promise<void>;
}

/** The slot index of a self-play program id (`r3-e12`, or a repair's `r3-e12-fix1`). */
const slotIndex = (id: string): number => Number(/^r\d+-e(\d+)/.exec(id)?.[1] ?? 0);

/** SPADE's inputs of one played environment, or undefined when it was not played. */
export function spadeMemoryInputs(e: Evaluation): { winRate: number; regret: number } | undefined {
  const s = e.summary;
  if (s.verdict === 'invalid' || s.review?.accepted === false || !s.source) return undefined;
  const plain = e.episodes.filter((p) => !p.withHint && p.outcome !== 'errored');
  if (plain.length === 0) return undefined;
  const winRate = plain.filter((p) => playReward(p) > 0).length / plain.length;
  const regret = s.hintMeanReward !== undefined && s.meanReward !== undefined ? s.hintMeanReward - s.meanReward : 0;
  return { winRate, regret };
}

export function createSpadeMemory(code: SpadeCode, folder?: string): SpadeMemoryKeeper {
  const records: SpadeMemoryRecord[] = [];
  return {
    records,
    async addRound(evaluations, round) {
      const played = evaluations.flatMap((e) => {
        const inputs = spadeMemoryInputs(e);
        return inputs ? [{ e, ...inputs }] : [];
      });
      const made = await code.run(
        played.map(({ e, winRate, regret }) => ({
          op: 'memory-record' as const, code: e.summary.source!, rolloutId: round, index: slotIndex(e.summary.id), skill: e.summary.skill ?? '', winRate, regret,
        })),
      );
      records.push(...made);
      if (records.length > SPADE_MEMORY.maxSize) records.splice(0, records.length - SPADE_MEMORY.maxSize);
      if (folder) {
        makeFolder(folder);
        const file = path.join(folder, SPADE_MEMORY_FILE);
        writeFileSync(`${file}.tmp`, `${JSON.stringify(records, null, 2)}\n`);
        renameSync(`${file}.tmp`, file);
      }
    },
  };
}
