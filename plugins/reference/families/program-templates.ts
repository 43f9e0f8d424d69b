/**
 * The three program shapes the families write. A family supplies only its task logic, as plain
 * JavaScript function declarations; the template wraps it in SPADE's environment class
 * (reset/step/solution/hint/referenceAction) with the turn, format and episode-end rules, or,
 * for tool-use games, in a subclass of SPADE's ToolUseBaseEnv (toolUseProgram, below).
 *
 * Single-answer body must define:
 *   generate(rng, P) -> { observation, answer, hint }
 *   optionally isCorrect(answer, task) -> boolean   (default: normalised equality with task.answer)
 * Multi-turn body must define:
 *   generate(rng, P) -> state                     (plain JSON data: each reset gets a copy)
 *   render(state) -> string                       (task statement and current state)
 *   apply(state, command) -> { message, won?, lost? }   (mutates state)
 *   plan(state) -> string[]                       (winning commands from the current state)
 *   hintOf(state) -> string
 * `P` holds the family's parameters (always including `horizon`).
 */
import { PRELUDE } from './prelude.js';

export interface ProgramSpec {
  className: string;
  family: string;
  /** The family's parameters; `variant` (optional) is mixed into every reset seed. */
  params: Record<string, unknown> & { horizon: number; variant?: number };
  body: string;
}

/**
 * The family's name and parameters come first, as data lines (`const NAME = <JSON>;`): the
 * isolated-vm sandbox then compiles a family's code once for all its parameters
 * (core/results/data-header.ts).
 */
function header(spec: ProgramSpec): string {
  return `// Environment family "${spec.family}" (spade-bench reference designer).\nconst FAMILY = ${JSON.stringify(spec.family)};\nconst P = ${JSON.stringify(spec.params)};\n${PRELUDE}\n${spec.body}\n`;
}

export function singleAnswerProgram(spec: ProgramSpec & { customCheck?: boolean }): string {
  const defaultCheck = spec.customCheck
    ? ''
    : 'function isCorrect(answer, task) { return normalizeAnswer(answer) === normalizeAnswer(task.answer); }\n';
  return `${header(spec)}${defaultCheck}
class ${spec.className} {
  constructor() { this.task = null; this.done = false; }
  reset(seed) {
    // A task is a pure function of the seed, and some cost milliseconds to generate (deduction
    // clues, subset searches): the last few are kept, so replaying a seed is cheap.
    this.tasks = this.tasks || new Map();
    let task = this.tasks.get(seed);
    if (task === undefined) {
      const rng = episodeRandom(seed);
      task = generate(rng, P);
      let fallback = null;
      for (let tries = 0; tries < 40 && task.observation.toLowerCase().includes(asText(task.answer).toLowerCase()); tries++) {
        if (fallback === null && !containsToken(task.observation, task.answer)) fallback = task;
        task = generate(rng, P);
      }
      if (task.observation.toLowerCase().includes(asText(task.answer).toLowerCase()) && fallback !== null) task = fallback;
      if (this.tasks.size >= 8) this.tasks.delete(this.tasks.keys().next().value);
      this.tasks.set(seed, task);
    }
    this.task = task;
    this.done = false;
    return [task.observation + '\\nReply with your final answer in \\\\boxed{...}. You have one attempt.', { horizon: 1, family: FAMILY }];
  }
  step(action) {
    if (this.task === null) return ['No task yet: call reset(seed) first.', 0, true, false, { error: 'not-reset' }];
    if (this.done) return ['The episode is over.', 0, true, false, { over: true }];
    this.done = true;
    const answer = lastBoxed(action);
    if (answer === null) return ['Format error: no \\\\boxed{...} answer found. The episode is over.', 0, true, false, { formatError: true }];
    let correct = false;
    try { correct = isCorrect(answer, this.task) === true; } catch (e) { correct = false; }
    return [correct ? 'Correct.' : 'Incorrect. The episode is over.', correct ? 1 : 0, true, false, { correct }];
  }
  solution() { return this.task === null ? '' : asText(this.task.answer); }
  hint() { return this.task === null ? '' : asText(this.task.hint); }
}
export default ${spec.className};
`;
}

export function multiTurnProgram(spec: ProgramSpec): string {
  return `${header(spec)}
class ${spec.className} {
  constructor() { this.state = null; this.turn = 0; this.done = false; }
  view(message) {
    const left = P.horizon - this.turn;
    const status = this.done ? 'The episode is over.' : 'Turns left: ' + left + ' of ' + P.horizon + '. Reply with one command in \\\\boxed{...}.';
    return (message ? message + '\\n\\n' : '') + render(this.state) + '\\n' + status;
  }
  reset(seed) {
    // A start state is a pure function of the seed, and some cost a millisecond to generate
    // (mazes checked by search): the last few are kept as JSON, and each episode gets a copy.
    this.starts = this.starts || new Map();
    let start = this.starts.get(seed);
    if (start === undefined) {
      start = JSON.stringify(generate(episodeRandom(seed), P));
      if (this.starts.size >= 8) this.starts.delete(this.starts.keys().next().value);
      this.starts.set(seed, start);
    }
    this.state = JSON.parse(start);
    this.turn = 0;
    this.done = false;
    return [this.view(''), { horizon: P.horizon, family: FAMILY }];
  }
  step(action) {
    if (this.state === null) return ['No episode yet: call reset(seed) first.', 0, true, false, { error: 'not-reset' }];
    if (this.done) return [this.view('The episode is over.'), 0, true, false, { over: true }];
    this.turn++;
    const command = lastBoxed(action);
    let message;
    let reward = 0;
    let terminated = false;
    const info = { turn: this.turn, horizon: P.horizon };
    if (command === null) {
      message = 'Format error: no \\\\boxed{...} command found; the turn is lost.';
      info.formatError = true;
    } else {
      let outcome;
      try { outcome = apply(this.state, command); } catch (e) { outcome = { message: 'Invalid command.' }; }
      message = asText(outcome.message);
      if (outcome.won) { reward = 1; terminated = true; }
      else if (outcome.lost) { terminated = true; }
    }
    const truncated = !terminated && this.turn >= P.horizon;
    if (truncated) message += ' You ran out of turns.';
    this.done = terminated || truncated;
    return [this.view(message), reward, terminated, truncated, info];
  }
  referenceAction(observation) {
    if (this.state === null || this.done) return '\\\\boxed{?}';
    const steps = plan(this.state);
    return steps.length > 0 ? 'I play ' + steps[0] + '. \\\\boxed{' + steps[0] + '}' : '\\\\boxed{?}';
  }
  hint() { return this.state === null ? '' : asText(hintOf(this.state)); }
}
export default ${spec.className};
`;
}

/** One tool of a tool-use program: the role its code plays, the name it is called by, and its parameters' names. */
export interface ToolBinding {
  /** The body's TOOLS entry that implements it. */
  role: string;
  name: string;
  /** The role's argument names as this tool calls them (`{ folder: 'path' }`); absent ones keep the role's names. */
  rename?: Record<string, string>;
}

/**
 * A tool-use program: a subclass of SPADE's ToolUseBaseEnv with one tool_<name>(args) method
 * per tool. The body must define:
 *   TOOLS: { [role]: { description, params: { [arg]: JSON Schema }, required?: [arg...], run(state, args) -> string } }
 *   generate(rng, P) -> { observation, state, answer, plan, solution, hint, messages? }
 *     plan: the reference's actions, one per turn (tool calls, then the answer);
 *     messages: the multi-turn variant's instructions (the first is in the observation),
 *     judged in turn by criterion(state, index) -> boolean, which the body then defines.
 * P.tools lists the ToolBindings: which roles are offered, under which names.
 */
export function toolUseProgram(spec: ProgramSpec & { params: { tools: ToolBinding[] } }): string {
  const methods = spec.params.tools.map((tool) => {
    const back = Object.fromEntries(Object.entries(tool.rename ?? {}).map(([canonical, actual]) => [actual, canonical]));
    return `  tool_${tool.name}(args) { return this.use(${JSON.stringify(tool.role)}, args, ${JSON.stringify(back)}); }`;
  });
  return `${header(spec)}
/** The tools as this program offers them: SPADE's self._tools (name -> description and parameters). */
function toolTable() {
  const table = {};
  for (const tool of P.tools) {
    const role = TOOLS[tool.role];
    const rename = tool.rename || {};
    const properties = {};
    for (const arg of Object.keys(role.params)) properties[rename[arg] || arg] = role.params[arg];
    const parameters = { type: 'object', properties };
    if (role.required && role.required.length) parameters.required = role.required.map((arg) => rename[arg] || arg);
    table[tool.name] = { description: role.description, parameters };
  }
  return table;
}
/** The action that calls a role's tool with arguments under the role's names (for plans and solutions). */
function planCall(role, args) {
  const tool = P.tools.find((t) => t.role === role);
  const rename = tool.rename || {};
  const named = {};
  for (const key of Object.keys(args)) named[rename[key] || key] = args[key];
  return '<tool_call>' + JSON.stringify({ name: tool.name, arguments: named }) + '</tool_call>';
}
class ${spec.className} extends ToolUseBaseEnv {
  constructor() { super(P.horizon); }
  reset(seed) {
    // A world is a pure function of the seed: the last few are kept as JSON, and each episode gets a copy.
    this.worlds = this.worlds || new Map();
    let world = this.worlds.get(seed);
    if (world === undefined) {
      world = JSON.stringify(generate(episodeRandom(seed), P));
      if (this.worlds.size >= 8) this.worlds.delete(this.worlds.keys().next().value);
      this.worlds.set(seed, world);
    }
    const w = JSON.parse(world);
    this._state = w.state;
    this._tools = toolTable();
    this._expected_answer = w.answer;
    this._plan = w.plan;
    this._solution = w.solution;
    this._hint = w.hint;
    if (w.messages) {
      this._user_messages = w.messages;
      this._message_criteria = w.messages.map((_, i) => (state) => criterion(state, i));
      this._current_msg = 0;
    }
    return [w.observation, { horizon: P.horizon, family: FAMILY }];
  }
  /** Run a tool's role with its arguments under the role's names; the multi-turn variant reports progress after it. */
  use(role, args, back) {
    const named = {};
    for (const key of Object.keys(args || {})) named[back[key] || key] = args[key];
    const result = TOOLS[role].run(this._state, named);
    return this._user_messages ? result + this._advance_if_done() : result;
  }
${methods.join('\n')}
  _check_answer(answer) {
    if (this._user_messages) return asText(answer).trim().toLowerCase() === 'done' && this._current_msg >= this._user_messages.length;
    return super._check_answer(answer);
  }
  referenceAction(observation) {
    return this._plan ? this._plan[Math.min(this.turn_count, this._plan.length - 1)] : '<answer>?</answer>';
  }
  solution() { return this._solution || ''; }
  hint() { return this._hint || ''; }
}
export default ${spec.className};
`;
}
