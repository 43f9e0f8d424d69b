/** Reference player for the Tower of Hanoi: budgeted breadth-first search over disk placements. */
import { TOWER_OF_HANOI_TITLE } from '../families/tower-of-hanoi.js';
import { decideByBreadthFirst } from '../breadth-first.js';
import { boxedReply, GIVE_UP_REPLY, hintedMoves, type Solver } from './solver.js';

const PEGS = 'ABC';

/** peg[d] is the peg (0..2) of disk d+1. */
type Placement = number[];

function readPlacement(observation: string): { peg: Placement; target: number } | undefined {
  const peg: Placement = [];
  for (const m of observation.matchAll(/^\s*Peg ([ABC]): (.*)$/gm)) {
    if (m[2]!.startsWith('(empty)')) continue;
    for (const disk of m[2]!.trim().split(/\s+/)) peg[Number(disk) - 1] = PEGS.indexOf(m[1]!);
  }
  const target = /onto peg ([ABC])\./.exec(observation);
  if (!target || peg.length === 0 || peg.some((p) => p === undefined)) return undefined;
  return { peg, target: PEGS.indexOf(target[1]!) };
}

function legalMoves(peg: Placement): Array<[string, Placement]> {
  const top = [Infinity, Infinity, Infinity];
  for (let d = peg.length - 1; d >= 0; d--) top[peg[d]!] = d;
  const out: Array<[string, Placement]> = [];
  for (let from = 0; from < 3; from++) {
    const disk = top[from]!;
    if (disk === Infinity) continue;
    for (let to = 0; to < 3; to++) {
      if (to === from || top[to]! < disk) continue;
      const next = peg.slice();
      next[disk] = to;
      out.push([`${PEGS[from]} ${PEGS[to]}`, next]);
    }
  }
  return out;
}

function encode(peg: Placement): number {
  let code = 0;
  for (let d = peg.length - 1; d >= 0; d--) code = code * 3 + peg[d]!;
  return code;
}

/** Disks already home, counted from the largest down (they never need to move again). */
function settled(peg: Placement, target: number): number {
  let n = 0;
  for (let d = peg.length - 1; d >= 0 && peg[d] === target; d--) n++;
  return n;
}

export const towerOfHanoiSolver: Solver = {
  family: 'tower-of-hanoi',
  title: TOWER_OF_HANOI_TITLE,
  start(_first, context) {
    const planned = hintedMoves(context.hint);
    const visits = new Map<number, number>();
    return {
      act(observation) {
        const view = readPlacement(observation);
        if (!view) return GIVE_UP_REPLY;
        const here = encode(view.peg);
        visits.set(here, (visits.get(here) ?? 0) + 1);
        const hinted = planned.shift();
        if (hinted && legalMoves(view.peg).some(([m]) => m === hinted)) return boxedReply(`I move the top disk from ${hinted.replace(' ', ' to ')}.`, hinted);
        planned.length = 0;
        const decision = decideByBreadthFirst<Placement, string>(view.peg, {
          key: encode,
          moves: legalMoves,
          isGoal: (peg) => peg.every((p) => p === view.target),
          score: (peg) => 4 * settled(peg, view.target) + peg.filter((p) => p === view.target).length - 2 * (visits.get(encode(peg)) ?? 0),
        }, context.budget, context.random);
        const move = decision.move ?? legalMoves(view.peg)[0]?.[0] ?? 'A B';
        return boxedReply(`I move the top disk from ${move.replace(' ', ' to ')}.`, move);
      },
    };
  },
};
