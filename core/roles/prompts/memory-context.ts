/**
 * What the designer is shown of the environment memory: the environments with the highest
 * regret (the hint helped most: the agent can learn there) as few-shot seeds, with their
 * code; environments that were too easy or too hard, and rejected ones, as negative examples
 * (their task text and why); and the agent's recent solve rates.
 */
import type { EnvironmentRecord } from '../../types.js';

/** Win rate at or above which an environment is too easy, and at or below which too hard. */
export const TOO_EASY = 0.9;
export const TOO_HARD = 0.1;

export interface MemorySelection {
  seeds: EnvironmentRecord[];
  tooEasy: EnvironmentRecord[];
  tooHard: EnvironmentRecord[];
  rejected: EnvironmentRecord[];
}

export interface MemorySelectionOptions {
  seeds?: number;
  negatives?: number;
}

const recentFirst = (a: EnvironmentRecord, b: EnvironmentRecord): number => b.round - a.round;

/** Pick few-shot seeds and negative examples from the memory (most recent last). */
export function selectFromMemory(memory: readonly EnvironmentRecord[], { seeds = 2, negatives = 3 }: MemorySelectionOptions = {}): MemorySelection {
  const played = memory.filter((r) => r.valid && r.solveRate !== undefined);
  const inBand = played.filter((r) => r.solveRate! > TOO_HARD && r.solveRate! < TOO_EASY);
  return {
    seeds: [...inBand].sort((a, b) => (b.regret ?? 0) - (a.regret ?? 0) || (b.designerReward ?? 0) - (a.designerReward ?? 0) || recentFirst(a, b)).slice(0, seeds),
    tooEasy: played.filter((r) => r.solveRate! >= TOO_EASY).sort(recentFirst).slice(0, negatives),
    tooHard: played.filter((r) => r.solveRate! <= TOO_HARD).sort(recentFirst).slice(0, negatives),
    rejected: memory.filter((r) => !r.valid).sort(recentFirst).slice(0, negatives),
  };
}

const pct = (x: number | undefined): string => (x === undefined ? 'n/a' : `${Math.round(x * 100)}%`);
const clip = (text: string | undefined, chars: number): string => {
  const t = (text ?? '').trim();
  return t.length <= chars ? t : `${t.slice(0, chars)} [...]`;
};

/** The memory section of the design prompt, or '' before the first round has been played. */
export function memoryContext(memory: readonly EnvironmentRecord[], recentSolveRates: readonly number[], fence: string): string {
  const pick = selectFromMemory(memory);
  const parts: string[] = [];
  if (recentSolveRates.length) {
    const last = recentSolveRates.slice(-5).map((r) => pct(r)).join(', ');
    parts.push(`The agent's solve rate (without the hint) in recent rounds, oldest first: ${last}. Aim for environments it solves 40-60% of the time without the hint.`);
  }
  if (pick.seeds.length) {
    parts.push('Environments that worked well (the agent solved them sometimes, and the hint helped). Write something new in this spirit, not a copy:');
    for (const r of pick.seeds) {
      parts.push(`- ${r.id}: solved ${pct(r.solveRate)} without the hint, ${pct((r.solveRate ?? 0) + (r.regret ?? 0))} with it.\n${fence}\n${clip(r.source, 3000)}\n\`\`\``);
    }
  }
  if (pick.tooEasy.length) {
    parts.push('Too easy (solved almost always without the hint), avoid tasks like these or make them harder:');
    for (const r of pick.tooEasy) parts.push(`- solved ${pct(r.solveRate)}: ${clip(r.task, 300)}`);
  }
  if (pick.tooHard.length) {
    parts.push('Too hard (almost never solved), avoid tasks like these or make them easier:');
    for (const r of pick.tooHard) parts.push(`- solved ${pct(r.solveRate)}: ${clip(r.task, 300)}`);
  }
  if (pick.rejected.length) {
    parts.push('Rejected by the validation gate, do not repeat these mistakes:');
    for (const r of pick.rejected) parts.push(`- ${r.reason ?? 'invalid'}${r.task ? `: ${clip(r.task, 200)}` : ''}`);
  }
  return parts.join('\n');
}
