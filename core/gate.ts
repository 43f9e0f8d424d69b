/**
 * The validation gate: decides whether a designed environment is a valid, verifiable goal.
 * Checks run in order, each recorded as a GateCheck; the first failure ends the gate:
 *   load, reset            the program loads and reset() keeps its contract;
 *   tools                  a tool-use environment's get_tools() keeps its contract (OpenAI
 *                          function schemas with names every API accepts);
 *   smoke-test             SPADE's step("1"), step("2"), step("test") (resetting when an
 *                          episode ends) neither throw nor break the contract;
 *   deterministic          reset(seed) twice gives the same first observation and the same
 *                          scripted trajectory (the reference's, else the smoke actions);
 *   reference-wins         single-answer: step("\boxed{solution()}") terminates with reward > 0;
 *                          multi-turn and tool-use: referenceAction(observation) wins within
 *                          the horizon (a tool-use program's solution() describes tool calls
 *                          and an answer, not a single answer, so it is not played as one);
 *   wrong-answer-loses     single-answer: perturbed answers (solution+"x", ±1, "0", empty) lose;
 *                          tool-use: after the reference's tool calls, perturbed versions of
 *                          its final <answer> lose;
 *   random-loses           seeded random play wins at most RANDOM_WIN_LIMIT of its episodes;
 *   no-answer-leak         single-answer and tool-use: the first observation does not contain
 *                          the answer (a tool-use game's "done" is no answer);
 *   hint                   hint(), when present, returns text.
 * A program with neither solution() nor referenceAction() that passes every check is
 * `unproven` (so is a tool-use program without referenceAction()). Any SandboxError ends the
 * gate `invalid` with its kind as the reason code.
 */
import type { EnvironmentProgram, GameType, Sandbox, SandboxLimits, StepResult, LoadedEnvironment, Info } from './types.js';
import { SandboxError } from './errors.js';
import { gameTypeOf } from './game-type.js';
import { answerText, readToolAction } from './tool-calls.js';
import type { GateCheck, GateReason, GateVerdict } from './results.js';
import { deriveSeed, mulberry32 } from './random.js';

export interface GateOptions {
  /** Seed passed to reset() (the task). Default 0. */
  seed?: number;
  /** Horizon when neither meta.horizon nor reset()'s info gives one. Default 64. */
  maxTurns?: number;
  /** Episodes of random play. Default 8. */
  randomTrials?: number;
  limits?: Partial<SandboxLimits>;
  /**
   * Called with the loaded environment when it passed (valid or unproven): the caller then
   * owns it and disposes it, so playing it needs no second load.
   */
  keep?: (environment: LoadedEnvironment) => void;
  /** Throw a collateral SandboxError (another environment's fault) instead of giving a verdict. */
  rethrowCollateral?: boolean;
}

/** Every reason code the gate can give a rejected (or unproven) environment. */
export const GATE_REASONS: readonly (GateReason | 'unproven')[] = [
  'syntax', 'load', 'timeout', 'memory', 'output-limit', 'call-limit', 'crash', 'contract',
  'escape-attempt', 'missing-method', 'smoke-test', 'nondeterministic', 'reference-loses',
  'wrong-answer-wins', 'random-wins', 'answer-leak', 'no-episode-end', 'unproven',
];

/** SPADE's smoke-test actions. */
export const SMOKE_ACTIONS = ['1', '2', 'test'] as const;

/** The largest share of random-play episodes that may win. */
export const RANDOM_WIN_LIMIT = 0.25;

const DEFAULT_MAX_TURNS = 64;
const DEFAULT_RANDOM_TRIALS = 8;

/** A check failed: ends the gate with this reason. */
class Rejection extends Error {
  constructor(readonly reason: GateReason, message: string) {
    super(message);
  }
}

interface Trajectory {
  first: string;
  steps: StepResult[];
  actions: string[];
  /** Terminated with a positive final reward. */
  won: boolean;
  /** Ended (terminated or truncated) within the horizon. */
  ended: boolean;
}

const boxed = (answer: string): string => `\\boxed{${answer}}`;

/**
 * SPADE environments' solution() returns the bare answer or, in some, the answer already
 * boxed (`\\boxed{7}`): the content of its last \\boxed{...}, else the whole text.
 */
export function unboxed(answer: string): string {
  const at = answer.lastIndexOf('\\boxed{');
  if (at < 0) return answer;
  let depth = 0;
  for (let i = at + 6; i < answer.length; i++) {
    if (answer[i] === '{') depth++;
    else if (answer[i] === "}" && --depth === 0) return answer.slice(at + 7, i);
  }
  return answer;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function horizonOf(program: EnvironmentProgram, info: Info, maxTurns: number): number {
  return positiveInteger(program.meta?.horizon) ?? positiveInteger(info.horizon) ?? positiveInteger(info.max_turns) ?? maxTurns;
}

/** Play one episode from reset(seed), choosing each action with `choose`, up to the horizon. */
async function play(
  env: LoadedEnvironment,
  seed: number,
  horizon: number,
  choose: (observation: string, turn: number) => Promise<string> | string,
): Promise<Trajectory> {
  const { observation: first } = await env.reset(seed);
  const trajectory: Trajectory = { first, steps: [], actions: [], won: false, ended: false };
  let observation = first;
  for (let turn = 0; turn < horizon; turn++) {
    const action = await choose(observation, turn);
    const step = await env.step(action);
    trajectory.actions.push(action);
    trajectory.steps.push(step);
    observation = step.observation;
    if (step.terminated || step.truncated) {
      trajectory.ended = true;
      trajectory.won = step.terminated && step.reward > 0;
      break;
    }
  }
  return trajectory;
}

function sameTrajectory(a: Trajectory, b: Trajectory): boolean {
  if (a.first !== b.first || a.steps.length !== b.steps.length) return false;
  return a.steps.every((s, i) => {
    const t = b.steps[i]!;
    return a.actions[i] === b.actions[i] && s.observation === t.observation && s.reward === t.reward
      && s.terminated === t.terminated && s.truncated === t.truncated;
  });
}

/** Answers close to the solution that must not win. */
export function wrongAnswers(solution: string): string[] {
  const answer = solution.trim();
  const candidates = [`${answer}x`, '0', ''];
  if (/^-?\d+(\.\d+)?$/.test(answer)) candidates.push(String(Number(answer) + 1), String(Number(answer) - 1));
  return [...new Set(candidates)].filter((c) => c !== answer);
}

/** True when the answer shows in the text: boxed, or as a whole token of two or more characters. */
export function leaksAnswer(text: string, solution: string): boolean {
  const answer = solution.trim();
  if (!answer) return false;
  if (text.includes(boxed(answer))) return true;
  if (answer.length < 2 || !text.includes(answer)) return false;
  const escaped = answer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'u').test(text);
}

export async function validateEnvironment(
  sandbox: Sandbox,
  program: EnvironmentProgram,
  options: GateOptions = {},
): Promise<GateVerdict> {
  const started = performance.now();
  const seed = options.seed ?? 0;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const randomTrials = options.randomTrials ?? DEFAULT_RANDOM_TRIALS;
  const checks: GateCheck[] = [];
  const verdict = (partial: Omit<GateVerdict, 'checks' | 'wallMs'>): GateVerdict => ({
    ...partial,
    checks,
    wallMs: performance.now() - started,
  });
  const pass = (name: string, detail?: string): void => {
    checks.push(detail === undefined ? { name, ok: true } : { name, ok: true, detail });
  };

  let phase = 'load';
  let env: LoadedEnvironment | undefined;
  let firstObservation: string | undefined;
  let horizon: number | undefined;
  let tools: boolean | undefined;
  let gameType: GameType | undefined;
  try {
    env = await sandbox.load(program, options.limits);
    const { capabilities } = env;
    tools = capabilities.tools;
    const abilities = Object.entries(capabilities).filter(([, has]) => has).map(([name]) => name);
    pass('load', abilities.length ? `has ${abilities.join(', ')}` : 'no solution, hint or referenceAction');

    phase = 'reset';
    const first = await env.reset(seed);
    firstObservation = first.observation;
    horizon = horizonOf(program, first.info, maxTurns);
    gameType = gameTypeOf(program, { tools, horizon });
    pass('reset', `horizon ${horizon}, ${gameType}`);

    if (capabilities.tools) {
      phase = 'tools';
      if (!env.getTools) throw new SandboxError('contract', 'the environment says it has tools, but its sandbox cannot read them', 'get_tools');
      const schemas = await env.getTools();
      const names = schemas.map((tool) => tool.function.name);
      pass('tools', `${names.length} tool${names.length === 1 ? '' : 's'}${names.length ? `: ${names.join(', ')}` : ''}`);
    }

    phase = 'smoke-test';
    for (const action of SMOKE_ACTIONS) {
      const step = await env.step(action);
      if (step.terminated || step.truncated) await env.reset(seed);
    }
    pass('smoke-test');

    phase = 'deterministic';
    const loaded = env;
    const turns = horizon;
    // solution() is a single answer, except in a tool-use game (tool calls and an answer).
    const singleAnswer = capabilities.solution && gameType !== 'tool-use';
    let solution: string | undefined;
    const reference = async (): Promise<Trajectory> => {
      if (singleAnswer) {
        const { observation } = await loaded.reset(seed);
        const answer = unboxed(await loaded.solution());
        if (solution !== undefined && answer !== solution) {
          throw new Rejection('nondeterministic', `solution() gave "${solution}", then "${answer}" for the same seed`);
        }
        solution = answer;
        const step = await loaded.step(boxed(answer));
        return { first: observation, steps: [step], actions: [boxed(answer)], won: step.terminated && step.reward > 0, ended: step.terminated || step.truncated };
      }
      if (capabilities.referenceAction) return play(loaded, seed, turns, (observation) => loaded.referenceAction(observation));
      return play(loaded, seed, Math.min(turns, SMOKE_ACTIONS.length), (_, turn) => SMOKE_ACTIONS[turn]!);
    };
    const once = await reference();
    const twice = await reference();
    if (once.first !== firstObservation) throw new Rejection('nondeterministic', 'reset() with the same seed gave a different first observation');
    if (!sameTrajectory(once, twice)) throw new Rejection('nondeterministic', 'the same seed and actions gave a different episode');
    pass('deterministic');

    const proven = singleAnswer || capabilities.referenceAction;
    if (proven) {
      phase = 'reference-wins';
      if (!once.won) {
        const how = singleAnswer ? `\\boxed{${solution}}` : 'the reference policy';
        if (!once.ended) throw new Rejection('no-episode-end', `${how} did not end the episode within ${turns} turns`);
        throw new Rejection('reference-loses', `${how} did not win (final reward ${once.steps.at(-1)?.reward})`);
      }
      pass('reference-wins', `${once.steps.length} turn${once.steps.length === 1 ? '' : 's'}`);
    }

    if (solution !== undefined) {
      phase = 'wrong-answer-loses';
      for (const wrong of wrongAnswers(solution)) {
        await env.reset(seed);
        const step = await env.step(boxed(wrong));
        if (step.terminated && step.reward > 0) throw new Rejection('wrong-answer-wins', `the wrong answer \\boxed{${wrong}} won`);
      }
      pass('wrong-answer-loses');
    }

    // A tool-use game's answer is the reference's winning <answer>: after the same tool calls,
    // answers close to it must not win (random play never answers, so it cannot tell).
    const finalAction = gameType === 'tool-use' && once.won ? readToolAction(once.actions.at(-1)!) : undefined;
    const toolAnswer = finalAction?.kind === 'answer' ? finalAction.answer : undefined;
    if (toolAnswer !== undefined) {
      phase = 'wrong-answer-loses';
      for (const wrong of wrongAnswers(toolAnswer)) {
        await env.reset(seed);
        for (const action of once.actions.slice(0, -1)) await env.step(action);
        const step = await env.step(answerText(wrong));
        if (step.terminated && step.reward > 0) throw new Rejection('wrong-answer-wins', `after the reference's tool calls, the wrong answer ${answerText(wrong)} won`);
      }
      pass('wrong-answer-loses', `after the reference's ${once.actions.length - 1} tool turn${once.actions.length === 2 ? '' : 's'}`);
    }

    // A curated dataset's task (meta.curated) is not judged on what only judges a designer:
    // a one-digit answer that random play guesses, or a word problem that mentions its answer.
    // Random play is not even played there (random text is no attempt at a GSM8K or HumanEval task).
    const curated = program.meta?.curated === true;
    phase = 'random-loses';
    if (curated) {
      pass('random-loses', 'not played: a curated task (random play judges designers)');
    } else {
      const random = mulberry32(deriveSeed(seed, program.id, 'random-play'));
      // Random play draws from the moves the reference made, but never from its winning move
      // alone: in a single-answer or deduction environment that move is the answer itself, and
      // replaying it is not random play. A winning move the reference also made mid-episode
      // (a step "right" on a grid) stays in.
      const finalAction = once.actions.at(-1);
      const midActions = new Set(once.actions.slice(0, -1));
      const moves = singleAnswer ? [] : once.actions.filter((a) => a !== finalAction || midActions.has(a));
      const vocabulary = [...new Set([...moves, ...SMOKE_ACTIONS])];
      const pick = (): string => {
        const i = Math.floor(random() * (vocabulary.length + 1));
        return i < vocabulary.length ? vocabulary[i]! : boxed(String(Math.floor(random() * 100)));
      };
      let randomWins = 0;
      for (let trial = 0; trial < randomTrials; trial++) {
        if ((await play(env, seed, turns, pick)).won) randomWins++;
      }
      if (randomWins > RANDOM_WIN_LIMIT * randomTrials) {
        throw new Rejection('random-wins', `random play won ${randomWins} of ${randomTrials} episodes`);
      }
      pass('random-loses', `${randomWins}/${randomTrials} won`);
    }

    if (solution !== undefined) {
      phase = 'no-answer-leak';
      const leaked = curated ? firstObservation.includes(boxed(solution.trim())) : leaksAnswer(firstObservation, solution);
      if (leaked) throw new Rejection('answer-leak', `the first observation contains the answer "${solution}"`);
      pass('no-answer-leak');
    }
    // "done" ends SPADE's multi-turn variant: it is the protocol, not an answer to hide.
    if (toolAnswer !== undefined && toolAnswer.toLowerCase() !== 'done' && !curated) {
      phase = 'no-answer-leak';
      if (leaksAnswer(firstObservation, toolAnswer)) throw new Rejection('answer-leak', `the first observation contains the answer "${toolAnswer}"`);
      pass('no-answer-leak');
    }

    if (capabilities.hint) {
      phase = 'hint';
      await env.reset(seed);
      const hint = await env.hint();
      pass('hint', `${hint.length} characters`);
    }

    if (options.keep) {
      options.keep(env);
      env = undefined; // the caller's now
    }
    return verdict({ verdict: proven ? 'valid' : 'unproven', ...(proven ? {} : { reason: 'unproven' as const }), firstObservation, horizon, gameType });
  } catch (error) {
    if (options.rethrowCollateral && error instanceof SandboxError && error.collateral) throw error;
    const { reason, detail } = rejectionOf(error, phase);
    checks.push({ name: phase, ok: false, detail });
    return verdict({
      verdict: 'invalid',
      reason,
      ...(firstObservation !== undefined ? { firstObservation } : {}),
      ...(horizon !== undefined ? { horizon } : {}),
      gameType: gameType ?? gameTypeOf(program, { tools, horizon: horizon ?? program.meta?.horizon }),
    });
  } finally {
    await env?.dispose();
  }
}

function rejectionOf(error: unknown, phase: string): { reason: GateReason; detail: string } {
  if (error instanceof Rejection) return { reason: error.reason, detail: error.message };
  if (error instanceof SandboxError) {
    const where = error.method && !error.message.includes(`${error.method}()`) ? `${error.method}(): ` : '';
    const reason: GateReason = phase === 'smoke-test' && error.kind === 'crash' ? 'smoke-test' : error.kind;
    return { reason, detail: `${error.kind}: ${where}${error.message}` };
  }
  // A sandbox must reject with SandboxError; anything else is reported, not thrown at the run.
  return { reason: 'crash', detail: `unexpected ${(error as Error)?.name ?? 'error'}: ${(error as Error)?.message ?? String(error)}` };
}
