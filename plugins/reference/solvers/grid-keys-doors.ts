/** Reference player for the keys-and-doors grid: budgeted breadth-first search over (position, keys). */
import { GRID_KEYS_DOORS_TITLE } from '../families/grid-keys-doors.js';
import { decideByBreadthFirst } from '../breadth-first.js';
import { randomItem } from '../random.js';
import { boxedReply, GIVE_UP_REPLY, hintedMoves, type Solver } from './solver.js';

interface GridView {
  rows: string[];
  x: number;
  y: number;
  goal: [number, number];
}

interface Position {
  x: number;
  y: number;
  /** Keys held, one bit per key letter (a = bit 0). */
  held: number;
}

const STEPS = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] } as const;
type Direction = keyof typeof STEPS;
const DIRECTIONS = Object.keys(STEPS) as Direction[];

function readGrid(observation: string): (GridView & { held: number }) | undefined {
  const lines = observation.split('\n');
  const at = lines.findIndex((line) => line.startsWith('Map ('));
  if (at < 0) return undefined;
  const rows: string[] = [];
  for (let i = at + 1; i < lines.length && !lines[i]!.startsWith('Legend:'); i++) rows.push(lines[i]!);
  const y = rows.findIndex((row) => row.includes('@'));
  const goalY = rows.findIndex((row) => row.includes('G'));
  if (y < 0 || goalY < 0) return undefined;
  const heldLine = /Keys held: ([a-z ]+|none)\./.exec(observation);
  let held = 0;
  if (heldLine && heldLine[1] !== 'none') for (const k of heldLine[1]!.split(' ')) held |= 1 << (k.charCodeAt(0) - 97);
  return { rows, x: rows[y]!.indexOf('@'), y, goal: [rows[goalY]!.indexOf('G'), goalY], held };
}

function cellAt(grid: GridView, x: number, y: number): string {
  return grid.rows[y]?.[x] ?? '#';
}

function movesFrom(grid: GridView, p: Position): Array<[Direction, Position]> {
  const out: Array<[Direction, Position]> = [];
  for (const direction of DIRECTIONS) {
    const x = p.x + STEPS[direction][0];
    const y = p.y + STEPS[direction][1];
    const c = cellAt(grid, x, y);
    if (c === '#') continue;
    if (c >= 'A' && c <= 'F' && !(p.held & (1 << (c.charCodeAt(0) - 65)))) continue;
    const held = c >= 'a' && c <= 'f' ? p.held | (1 << (c.charCodeAt(0) - 97)) : p.held;
    out.push([direction, { x, y, held }]);
  }
  return out;
}

function keyCount(held: number): number {
  let n = 0;
  for (let h = held; h; h &= h - 1) n++;
  return n;
}

export const gridKeysDoorsSolver: Solver = {
  family: 'grid-keys-doors',
  title: GRID_KEYS_DOORS_TITLE,
  start(_first, context) {
    const planned = hintedMoves(context.hint);
    const visits = new Map<string, number>();
    return {
      act(observation) {
        const grid = readGrid(observation);
        if (!grid) return GIVE_UP_REPLY;
        const here: Position = { x: grid.x, y: grid.y, held: grid.held };
        const key = (p: Position) => `${p.x},${p.y},${p.held}`;
        visits.set(key(here), (visits.get(key(here)) ?? 0) + 1);
        const hinted = planned.shift();
        if (hinted && movesFrom(grid, here).some(([d]) => d === hinted)) return boxedReply(`I move ${hinted}.`, hinted);
        planned.length = 0;
        const decision = decideByBreadthFirst<Position, Direction>(here, {
          key,
          moves: (p) => movesFrom(grid, p),
          isGoal: (p) => p.x === grid.goal[0] && p.y === grid.goal[1],
          score: (p) => 10 * keyCount(p.held) - Math.abs(p.x - grid.goal[0]) - Math.abs(p.y - grid.goal[1]) - 3 * (visits.get(key(p)) ?? 0),
        }, context.budget, context.random);
        const move = decision.move ?? randomItem(context.random, movesFrom(grid, here))?.[0] ?? 'up';
        return boxedReply(`I move ${move}.`, move);
      },
    };
  },
};
