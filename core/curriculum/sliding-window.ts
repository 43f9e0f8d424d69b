/**
 * RLVE's adaptive difficulty: a sliding window of difficulties per environment (RLVE's data
 * source; SPADE's SlidingWindowController, Variant A). Each environment has a window [low, high],
 * [0, 0] at the start; each task's difficulty is drawn uniformly from it. Outcomes are counted
 * only at the window's top: a = wins and b = decided attempts at difficulty `high`. Once b
 * reaches tauNum, the window moves up when a/b >= tauAcc (high += 1, low = max(low, high -
 * width + 1), high at most maxDifficulty), and a and b start again either way.
 */

export interface SlidingWindowSettings {
  /** Success rate at the top of the window that moves it up (SPADE's runs: 0.9). */
  tauAcc: number;
  /** Attempts at the top of the window before the check (SPADE's runs: 128). */
  tauNum: number;
  /** Most difficulties in a window (SPADE's runs: 4). */
  width: number;
  /** The highest difficulty a window reaches (SPADE's runs: 20). */
  maxDifficulty: number;
}

export interface DifficultyWindow {
  low: number;
  high: number;
  /** Wins and decided attempts at `high` since the last check. */
  wins: number;
  attempts: number;
}

export class SlidingWindow {
  private readonly windows = new Map<string, DifficultyWindow>();

  constructor(readonly settings: SlidingWindowSettings) {
    const { tauAcc, tauNum, width, maxDifficulty } = settings;
    if (!(tauAcc > 0 && tauAcc <= 1)) throw new RangeError(`tauAcc must be in (0, 1], got ${tauAcc}`);
    if (!(Number.isInteger(tauNum) && tauNum >= 1)) throw new RangeError(`tauNum must be a positive integer, got ${tauNum}`);
    if (!(Number.isInteger(width) && width >= 1)) throw new RangeError(`width must be a positive integer, got ${width}`);
    if (!(Number.isInteger(maxDifficulty) && maxDifficulty >= 0)) throw new RangeError(`maxDifficulty must be a non-negative integer, got ${maxDifficulty}`);
  }

  /** The environment's window (a copy). */
  window(environment: string): DifficultyWindow {
    return { ...this.state(environment) };
  }

  private state(environment: string): DifficultyWindow {
    let window = this.windows.get(environment);
    if (!window) this.windows.set(environment, (window = { low: 0, high: 0, wins: 0, attempts: 0 }));
    return window;
  }

  /** A difficulty drawn uniformly from the environment's window; `random` gives floats in [0, 1). */
  sample(environment: string, random: () => number): number {
    const { low, high } = this.state(environment);
    return low + Math.min(high - low, Math.floor(random() * (high - low + 1)));
  }

  /** Count one decided attempt at `difficulty`; true when it moved the window up. */
  record(environment: string, difficulty: number, won: boolean): boolean {
    const window = this.state(environment);
    if (difficulty !== window.high) return false;
    window.attempts++;
    if (won) window.wins++;
    if (window.attempts < this.settings.tauNum) return false;
    const promoted = window.wins / window.attempts >= this.settings.tauAcc && window.high < this.settings.maxDifficulty;
    if (promoted) {
      window.high++;
      window.low = Math.max(window.low, window.high - this.settings.width + 1);
    }
    window.wins = 0;
    window.attempts = 0;
    return promoted;
  }

  /** Mean low and high, and the highest high, over these environments. */
  summary(environments: readonly string[]): { meanLow: number; meanHigh: number; maxHigh: number } {
    if (environments.length === 0) return { meanLow: 0, meanHigh: 0, maxHigh: 0 };
    const windows = environments.map((e) => this.state(e));
    return {
      meanLow: windows.reduce((sum, w) => sum + w.low, 0) / windows.length,
      meanHigh: windows.reduce((sum, w) => sum + w.high, 0) / windows.length,
      maxHigh: Math.max(...windows.map((w) => w.high)),
    };
  }
}
