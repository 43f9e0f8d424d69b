/** Right-place / wrong-place scoring of a code guess (lock clues and Mastermind). */
const counts = new Int8Array(10);

export function guessFeedback(code: readonly number[], guess: readonly number[]): [number, number] {
  let exact = 0;
  let common = 0;
  counts.fill(0);
  for (let i = 0; i < code.length; i++) {
    if (code[i] === guess[i]) exact++;
    counts[code[i]!]!++;
  }
  for (let i = 0; i < guess.length; i++) {
    if (counts[guess[i]!]! > 0) {
      counts[guess[i]!]!--;
      common++;
    }
  }
  return [exact, common - exact];
}

export interface ScoredGuess {
  guess: number[];
  exact: number;
  near: number;
}

/** Lines like "  4821: 1 right place, 2 wrong place" in an observation. */
export function readScoredGuesses(observation: string): ScoredGuess[] {
  const out: ScoredGuess[] = [];
  for (const m of observation.matchAll(/^\s*(\d+): (\d+) right place, (\d+) wrong place/gm)) {
    out.push({ guess: m[1]!.split('').map(Number), exact: Number(m[2]), near: Number(m[3]) });
  }
  return out;
}

export function consistentWith(code: readonly number[], clues: readonly ScoredGuess[]): boolean {
  for (const clue of clues) {
    const [exact, near] = guessFeedback(code, clue.guess);
    if (exact !== clue.exact || near !== clue.near) return false;
  }
  return true;
}
