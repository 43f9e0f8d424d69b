/** Tower of Hanoi from a scattered start: move every disk onto the target peg. */
import { atDifficulty, clampDifficulty, type Family } from '../family.js';
import { multiTurnProgram } from './program-templates.js';

export const TOWER_OF_HANOI_TITLE = 'Tower of Hanoi.';

/** Disks per difficulty; the horizon is 2^disks (an optimal solution needs at most 2^disks - 1 moves). */
const DISKS = [2, 2, 3, 3, 4, 4, 5, 5, 6, 6];

const BODY = String.raw`
const PEGS = 'ABC';
function generate(rng, P) {
  const n = P.disks;
  const target = randInt(rng, 0, 2);
  let peg;
  do {
    peg = [];
    for (let d = 0; d < n; d++) peg.push(P.classic ? (target + 1 + (rng() < 0.5 ? 1 : 0)) % 3 : randInt(rng, 0, 2));
    if (P.classic) peg.fill(peg[0]);
  } while (peg.every((p) => p === target));
  return { n, peg, target };
}
function stack(state, p) {
  const disks = [];
  for (let d = state.n - 1; d >= 0; d--) if (state.peg[d] === p) disks.push(d + 1);
  return disks;
}
function render(state) {
  const lines = [];
  for (let p = 0; p < 3; p++) {
    const disks = stack(state, p);
    lines.push('  Peg ' + PEGS[p] + ': ' + (disks.length ? disks.join(' ') : '(empty)'));
  }
  return '${TOWER_OF_HANOI_TITLE}\n'
    + 'Disks are numbered 1 (smallest) to ' + state.n + ' (largest); each peg is listed from bottom to top.\n'
    + lines.join('\n') + '\n'
    + 'Goal: move all disks onto peg ' + PEGS[state.target] + '. Move one top disk per turn, never onto a smaller disk.\n'
    + 'Command: the source peg and the destination peg, e.g. \\boxed{A C} moves the top disk of A onto C.';
}
function apply(state, command) {
  const letters = asText(command).toUpperCase().replace(/[^ABC]/g, '');
  if (letters.length !== 2 || letters[0] === letters[1]) return { message: 'Invalid command "' + asText(command).slice(0, 40) + '": name two different pegs, e.g. A C.' };
  const from = PEGS.indexOf(letters[0]);
  const to = PEGS.indexOf(letters[1]);
  const source = stack(state, from);
  const dest = stack(state, to);
  if (source.length === 0) return { message: 'Peg ' + letters[0] + ' is empty; nothing moved.' };
  const disk = source[source.length - 1];
  if (dest.length > 0 && dest[dest.length - 1] < disk) return { message: 'Disk ' + disk + ' cannot go onto smaller disk ' + dest[dest.length - 1] + '; nothing moved.' };
  state.peg[disk - 1] = to;
  const won = state.peg.every((p) => p === state.target);
  return { message: 'Moved disk ' + disk + ' from ' + letters[0] + ' to ' + letters[1] + '.' + (won ? ' All disks are on the goal peg: you win!' : ''), won };
}
/** Optimal moves from any configuration to all disks on the target peg. */
function plan(state) {
  const peg = state.peg.slice();
  const moves = [];
  function moveTower(k, to) {
    if (k < 0) return;
    if (peg[k] === to) { moveTower(k - 1, to); return; }
    const spare = 3 - peg[k] - to;
    moveTower(k - 1, spare);
    moves.push(PEGS[peg[k]] + ' ' + PEGS[to]);
    peg[k] = to;
    moveTower(k - 1, to);
  }
  moveTower(state.n - 1, state.target);
  return moves;
}
function hintOf(state) {
  const moves = plan(state);
  const shown = moves.slice(0, Math.max(1, Math.ceil(moves.length / 2)));
  return 'A shortest solution takes ' + moves.length + ' moves; it starts with: ' + shown.join(', ') + '.';
}
`;

function disksForHorizon(horizon: number): number {
  return Math.max(1, Math.min(10, Math.floor(Math.log2(Math.max(2, horizon)))));
}

export const towerOfHanoi: Family = {
  name: 'tower-of-hanoi',
  skill: 'Strategic Planning',
  description: 'Tower of Hanoi from a scattered (or, when hard, a single-tower) start; disks and horizon grow with difficulty.',
  multiTurn: true,
  title: TOWER_OF_HANOI_TITLE,
  horizon: (difficulty) => 2 ** atDifficulty(DISKS, difficulty),
  program(difficulty, variant = 0) {
    return this.programForHorizon!(this.horizon(difficulty), difficulty, variant);
  },
  programForHorizon(horizon, difficulty, variant = 0) {
    return multiTurnProgram({
      className: 'TowerOfHanoi',
      family: this.name,
      params: { horizon: Math.max(1, Math.round(horizon)), variant, disks: disksForHorizon(horizon), classic: clampDifficulty(difficulty) >= 9 },
      body: BODY,
    });
  },
};
