/** Reference player for Mastermind: sweep codes in random order, guessing the first one consistent with all feedback. */
import { MASTERMIND_TITLE } from '../families/mastermind.js';
import { CandidateSweep, randomCandidate, type IntRange } from '../search.js';
import { consistentWith, readScoredGuesses } from './feedback.js';
import { boxedReply, GIVE_UP_REPLY, type Solver } from './solver.js';

export const mastermindSolver: Solver = {
  family: 'mastermind',
  title: MASTERMIND_TITLE,
  start(first, context) {
    const shape = /secret code of (\d+) digits, each from 1 to (\d+)/.exec(first);
    if (!shape) return { act: () => GIVE_UP_REPLY };
    const ranges: IntRange[] = Array.from({ length: Number(shape[1]) }, () => ({ lo: 1, hi: Number(shape[2]) }));
    for (const m of (context.hint ?? '').matchAll(/digit (\d+) is (\d+)/g)) {
      const i = Number(m[1]) - 1;
      if (ranges[i]) ranges[i] = { lo: Number(m[2]), hi: Number(m[2]) };
    }
    // Codes passed over stay inconsistent as feedback accumulates, so one sweep serves the whole game.
    const sweep = new CandidateSweep(ranges, context.random);
    return {
      act(observation) {
        const history = readScoredGuesses(observation);
        const code = sweep.next(context.budget, (candidate) => consistentWith(candidate, history))
          ?? randomCandidate(ranges, context.random);
        return boxedReply(`I guess ${code.join('')}.`, code.join(''));
      },
    };
  },
};
