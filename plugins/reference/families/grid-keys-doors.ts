/** Grid navigation with keys and doors: reach the goal, opening each door with its key. */
import { atDifficulty, type Family } from '../family.js';
import { multiTurnProgram } from './program-templates.js';

export const GRID_KEYS_DOORS_TITLE = 'Grid with keys and doors.';

const HORIZONS = [8, 12, 16, 20, 24, 32, 40, 48, 56, 64];
const KEYS = [0, 0, 1, 1, 1, 2, 2, 2, 3, 3];
/** Share of a perfect maze's inner walls knocked out (more dead ends when harder). */
const OPENNESS = [0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.05];
/** The shortest route must take at least this share of the horizon (less slack when harder). */
const MIN_ROUTE_SHARE = [0.45, 0.45, 0.5, 0.5, 0.5, 0.55, 0.55, 0.6, 0.6, 0.65];

const BODY = String.raw`
const MOVES = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };
const ALIASES = { u: 'up', n: 'up', north: 'up', d: 'down', s: 'down', south: 'down', l: 'left', w: 'left', west: 'left', r: 'right', e: 'right', east: 'right' };
/** A maze (rooms at even coordinates) with a share of its inner walls knocked out. */
function carveMaze(rng, W, H, openness) {
  const cells = [];
  for (let y = 0; y < H; y++) { const row = []; for (let x = 0; x < W; x++) row.push('#'); cells.push(row); }
  const stack = [[0, 0]];
  cells[0][0] = '.';
  while (stack.length > 0) {
    const [x, y] = stack[stack.length - 1];
    const options = [[2, 0], [-2, 0], [0, 2], [0, -2]].filter(([dx, dy]) => {
      const nx = x + dx, ny = y + dy;
      return nx >= 0 && ny >= 0 && nx < W && ny < H && cells[ny][nx] === '#';
    });
    if (options.length === 0) { stack.pop(); continue; }
    const [dx, dy] = pick(rng, options);
    cells[y + dy / 2][x + dx / 2] = '.';
    cells[y + dy][x + dx] = '.';
    stack.push([x + dx, y + dy]);
  }
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    if (cells[y][x] === '#' && (x % 2) + (y % 2) === 1 && rng() < openness) cells[y][x] = '.';
  }
  return cells;
}
/** Floor cells reachable from (x, y) when only doors below \`open\` can be passed. */
function reachable(cells, x, y, open) {
  const H = cells.length, W = cells[0].length;
  const seen = new Set([y * W + x]);
  const queue = [[x, y]];
  const out = [];
  while (queue.length > 0) {
    const [cx, cy] = queue.shift();
    out.push([cx, cy]);
    for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const nx = cx + dx, ny = cy + dy;
      if (nx < 0 || ny < 0 || nx >= W || ny >= H || seen.has(ny * W + nx)) continue;
      const c = cells[ny][nx];
      if (c === '#' || (c >= 'A' && c <= 'F' && c.charCodeAt(0) - 65 >= open)) continue;
      seen.add(ny * W + nx);
      queue.push([nx, ny]);
    }
  }
  return out;
}
function layout(rng, P, keys, openness) {
  const W = P.width;
  const H = P.height;
  const cells = carveMaze(rng, W, H, openness);
  const rooms = [];
  for (let y = 0; y < H; y += 2) for (let x = 0; x < W; x += 2) rooms.push([x, y]);
  const start = pick(rng, rooms);
  let goal = pick(rng, rooms);
  if (goal[0] === start[0] && goal[1] === start[1]) return null;
  cells[goal[1]][goal[0]] = 'G';
  const state = { W, H, cells, x: start[0], y: start[1], held: 0, keys: 0 };
  const route = plan(state);
  if (route === null || route.length < 3) return null;
  const path = [];
  let x = start[0], y = start[1];
  for (const move of route) { x += MOVES[move][0]; y += MOVES[move][1]; path.push([x, y]); }
  for (let i = 0; i < keys; i++) {
    const [dx, dy] = path[Math.floor(((i + 1) * (path.length - 1)) / (keys + 1))];
    if (cells[dy][dx] !== '.') return null;
    cells[dy][dx] = String.fromCharCode(65 + i);
  }
  for (let i = 0; i < keys; i++) {
    const spots = reachable(cells, start[0], start[1], i).filter(([kx, ky]) => cells[ky][kx] === '.' && !(kx === start[0] && ky === start[1]));
    const spot = pick(rng, spots);
    if (!spot) return null;
    cells[spot[1]][spot[0]] = String.fromCharCode(97 + i);
  }
  state.keys = keys;
  return state;
}
function passable(state, x, y, held) {
  if (x < 0 || y < 0 || x >= state.W || y >= state.H) return false;
  const c = state.cells[y][x];
  if (c === '#') return false;
  if (c >= 'A' && c <= 'F') return (held & (1 << (c.charCodeAt(0) - 65))) !== 0;
  return true;
}
function heldAfter(state, x, y, held) {
  const c = state.cells[y][x];
  return c >= 'a' && c <= 'f' ? held | (1 << (c.charCodeAt(0) - 97)) : held;
}
/** Shortest list of moves to the goal (breadth-first over position and keys held), or null. */
function plan(state) {
  const key = (x, y, h) => (h * state.H + y) * state.W + x;
  const seen = new Map();
  seen.set(key(state.x, state.y, state.held), null);
  let frontier = [[state.x, state.y, state.held]];
  while (frontier.length > 0) {
    const next = [];
    for (const [x, y, h] of frontier) {
      for (const name of ['up', 'down', 'left', 'right']) {
        const nx = x + MOVES[name][0];
        const ny = y + MOVES[name][1];
        if (!passable(state, nx, ny, h)) continue;
        const nh = heldAfter(state, nx, ny, h);
        const k = key(nx, ny, nh);
        if (seen.has(k)) continue;
        seen.set(k, [key(x, y, h), name]);
        if (state.cells[ny][nx] === 'G') {
          const moves = [];
          for (let at = k; seen.get(at) !== null; at = seen.get(at)[0]) moves.unshift(seen.get(at)[1]);
          return moves;
        }
        next.push([nx, ny, nh]);
      }
    }
    frontier = next;
  }
  return null;
}
function generate(rng, P) {
  for (let attempt = 0; attempt < 60; attempt++) {
    // Later attempts relax: a shorter shortest route, then no keys.
    const keys = attempt < 45 ? P.keys : 0;
    const openness = P.openness;
    const shortest = Math.floor(P.minRouteShare * P.horizon * (1 - attempt / 60));
    const state = layout(rng, P, keys, openness);
    if (state === null) continue;
    const route = plan(state);
    if (route !== null && route.length >= shortest && route.length <= P.horizon) return state;
  }
  const cells = [];
  for (let y = 0; y < P.height; y++) { const row = []; for (let x = 0; x < P.width; x++) row.push('.'); cells.push(row); }
  const x = randInt(rng, 0, P.width - 1);
  const y = randInt(rng, 0, P.height - 1);
  // The farthest cells within the horizon, so that random play rarely stumbles on the goal.
  let goals = [];
  let farthest = 0;
  for (let gy = 0; gy < P.height; gy++) for (let gx = 0; gx < P.width; gx++) {
    const d = Math.abs(gx - x) + Math.abs(gy - y);
    if (d < 1 || d > P.horizon || d < farthest) continue;
    if (d > farthest) { farthest = d; goals = []; }
    goals.push([gx, gy]);
  }
  const goal = pick(rng, goals);
  cells[goal[1]][goal[0]] = 'G';
  return { W: P.width, H: P.height, cells, x, y, held: 0, keys: 0 };
}
function render(state) {
  const rows = state.cells.map((row, y) => row.map((c, x) => {
    if (x === state.x && y === state.y) return '@';
    if (c >= 'a' && c <= 'f' && (state.held & (1 << (c.charCodeAt(0) - 97)))) return '.';
    return c;
  }).join(''));
  const held = [];
  for (let i = 0; i < state.keys; i++) if (state.held & (1 << i)) held.push(String.fromCharCode(97 + i));
  return '${GRID_KEYS_DOORS_TITLE}\n'
    + 'Map (' + state.W + ' wide, ' + state.H + ' high; row 1 is the top):\n'
    + rows.join('\n') + '\n'
    + 'Legend: @ you, G goal, # wall, . floor, lowercase letter = key, uppercase letter = door that its lowercase key opens (keys are kept).\n'
    + 'Keys held: ' + (held.length ? held.join(' ') : 'none') + '.\n'
    + 'Goal: reach G. Command: one of up, down, left, right, e.g. \\boxed{up}.';
}
function apply(state, command) {
  const word = asText(command).toLowerCase().replace(/[^a-z]/g, '');
  const name = MOVES[word] ? word : ALIASES[word];
  if (!name) return { message: 'Invalid command "' + asText(command).slice(0, 40) + '": use up, down, left or right.' };
  const nx = state.x + MOVES[name][0];
  const ny = state.y + MOVES[name][1];
  if (!passable(state, nx, ny, state.held)) {
    const outside = nx < 0 || ny < 0 || nx >= state.W || ny >= state.H;
    const c = outside ? '#' : state.cells[ny][nx];
    return { message: 'You cannot move ' + name + ': ' + (outside ? 'edge of the map' : c === '#' ? 'a wall' : 'door ' + c + ' is locked') + '.' };
  }
  const before = state.held;
  state.x = nx;
  state.y = ny;
  state.held = heldAfter(state, nx, ny, state.held);
  if (state.cells[ny][nx] === 'G') return { message: 'You move ' + name + ' and reach the goal: you win!', won: true };
  return { message: 'You move ' + name + '.' + (state.held !== before ? ' You pick up key ' + state.cells[ny][nx] + '.' : '') };
}
function hintOf(state) {
  const moves = plan(state) || [];
  const shown = moves.slice(0, Math.max(1, Math.ceil(moves.length / 2)));
  return 'A shortest route takes ' + moves.length + ' moves; it starts with: ' + shown.join(', ') + '.';
}
`;

/** Odd map sizes (a maze's rooms sit at even coordinates), about sqrt(5*horizon) across. */
function sizeForHorizon(horizon: number): { width: number; height: number } {
  const odd = (n: number) => (n % 2 === 1 ? n : n - 1);
  const width = odd(Math.max(3, Math.min(17, Math.floor(Math.sqrt(5 * horizon)))));
  return { width, height: odd(Math.max(3, Math.min(11, Math.floor(width * 0.7)))) };
}

export const gridKeysDoors: Family = {
  name: 'grid-keys-doors',
  skill: 'Spatial Reasoning',
  description: 'Navigate a walled grid to the goal, fetching keys to open doors; map size, doors and walls grow with difficulty.',
  multiTurn: true,
  title: GRID_KEYS_DOORS_TITLE,
  horizon: (difficulty) => atDifficulty(HORIZONS, difficulty),
  program(difficulty, variant = 0) {
    return this.programForHorizon!(this.horizon(difficulty), difficulty, variant);
  },
  programForHorizon(horizon, difficulty, variant = 0) {
    const h = Math.max(1, Math.round(horizon));
    return multiTurnProgram({
      className: 'GridKeysDoors',
      family: this.name,
      params: { horizon: h, variant, ...sizeForHorizon(h), keys: atDifficulty(KEYS, difficulty), openness: atDifficulty(OPENNESS, difficulty),
        minRouteShare: atDifficulty(MIN_ROUTE_SHARE, difficulty),
      },
      body: BODY,
    });
  },
};
