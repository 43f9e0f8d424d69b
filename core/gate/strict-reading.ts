/**
 * The gate's `strict` reading: SPADE's checks (the `spade` reading, which it starts from, so it
 * rejects everything SPADE rejects) and then spade-bench's own, each recorded as a GateCheck; the
 * first failure ends it:
 *   spade                  SPADE's own checks passed (core/gate/spade-reading.ts);
 *   load, reset            the program loads and reset() keeps the contract;
 *   tools                  a tool-use environment's get_tools() keeps its contract (OpenAI
 *                          function schemas with names every API accepts);
 *   smoke-test             SPADE's step("1"), step("2"), step("test") (resetting when an episode
 *                          ends) neither throw nor break the contract: SPADE lets a game crash on
 *                          an unboxed reply, which an agent's reply without \boxed{} would do;
 *   deterministic          reset(seed) twice gives the same first observation and the same
 *                          scripted trajectory (the reference's, else the smoke actions);
 *   reference-wins         solution() replayed wins: one answer as \boxed{answer}; a sequence of
 *                          boxed actions, or tool calls then <answer>, each as an action (see
 *                          solution-actions.ts); or referenceAction(observation) wins within the
 *                          horizon. A tool-use game with referenceAction() is proven by it (its
 *                          solution() may describe the calls in words); without one, its solution()
 *                          is replayed, calls it tells in words (`cd(path='/home')`) as tool calls;
 *   wrong-answer-loses     one-answer solutions: near misses (answer+"x", ±1, "0", empty) lose;
 *                          tool-use: after the reference's own tool calls, near misses of its
 *                          final <answer> lose;
 *   random-loses           seeded random play wins at most RANDOM_WIN_LIMIT of its episodes;
 *   no-answer-leak         one-answer solutions and tool-use games: the first observation does not
 *                          reveal the answer (at most of four seeds: see answer-leak.ts; a tool-use
 *                          game's "done" is no answer);
 *   hint                   hint(), when present, returns text.
 * A program with neither solution() nor referenceAction() that passes every check is `unproven`;
 * so is a multi-turn game whose solution() describes its moves in a way the gate cannot replay
 * (prose, or separators none of whose splits wins, or tool calls in words it cannot read or that
 * do not win: solution-actions.ts): it proves nothing either
 * way, so `reference-loses` is kept for a solution that was replayed and lost.
 * A curated dataset's task (meta.curated: GSM8K, HumanEval, RLVE's files, ...) is scored as its
 * authors define the score: a check that fails on it after it loads and resets (SPADE's own
 * checks included) is recorded as a doubt (a failed check beside a playable verdict: `valid` when
 * its reference won, else `unproven`), never a rejection that would drop it from the figure.
 * Any SandboxError ends it `invalid` with its kind as the reason code.
 */
import type { EnvironmentCapabilities, EnvironmentProgram, GameType, Info, LoadedEnvironment, Sandbox, SandboxLimits, StepResult } from '../types.js';
import type { GateCheck, GateReason } from '../results/results.js';
import { SandboxError } from '../errors.js';
import { gameTypeOf } from '../run/game-type.js';
import { answerText, readToolAction } from '../run/tool-calls.js';
import { deriveSeed, mulberry32 } from '../run/random.js';
import { answerLeaked, leaksAnswer, revealingSeeds, type SeededTask } from './answer-leak.js';
import { boxed, describedToolCalls, describesActions, describesToolCalls, sequenceReadings, solutionPlan, type SolutionPlan, type ToolSignature } from './solution-actions.js';
import type { Reading } from './spade-reading.js';

/** SPADE's smoke-test actions. */
export const SMOKE_ACTIONS = ['1', '2', 'test'] as const;

/** The largest share of random-play episodes that may win. */
export const RANDOM_WIN_LIMIT = 0.25;

/** Seeds at which the answer-leak check reads the task (the gate's seed and the next ones). */
const LEAK_SEEDS = 4;

export interface StrictOptions {
  seed: number;
  maxTurns: number;
  randomTrials: number;
  limits?: Partial<SandboxLimits>;
  /** Keep the loaded environment when the reading passes (the caller then disposes it). */
  keep: boolean;
  /**
   * The program already loaded, to read instead of loading it again: this reading then owns it
   * (and disposes it, unless kept).
   */
  environment?: LoadedEnvironment;
  rethrowCollateral?: boolean;
}

export interface StrictOutcome {
  reading: Reading;
  checks: GateCheck[];
  firstObservation?: string;
  horizon?: number;
  capabilities?: EnvironmentCapabilities;
  /** The program's game type, once reset() gave its horizon. */
  gameType?: GameType;
  /** The loaded environment, when kept. */
  environment?: LoadedEnvironment;
}

/** A check failed: ends the reading with this reason. */
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

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The horizon: the program's meta, else reset()'s info, else the game's own max_turns as built, else the run's turn budget. */
function horizonOf(program: EnvironmentProgram, info: Info, maxTurns: number, built?: number): number {
  return positiveInteger(program.meta?.horizon) ?? positiveInteger(info.horizon) ?? positiveInteger(info.max_turns) ?? positiveInteger(built) ?? maxTurns;
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

/** The start of a trajectory's last observation, for a rejection's detail (what a designer repairing it needs to see). */
function lastWords(trajectory: Trajectory): string {
  const last = trajectory.steps.at(-1)?.observation.replace(/\s+/g, ' ').trim();
  if (!last) return '';
  return `; its last observation: "${last.length > 200 ? `${last.slice(0, 200)}...` : last}"`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export async function strictReading(sandbox: Sandbox, program: EnvironmentProgram, spade: Reading, options: StrictOptions): Promise<StrictOutcome> {
  const { seed, maxTurns, randomTrials } = options;
  const checks: GateCheck[] = [];
  const pass = (name: string, detail?: string): void => {
    checks.push(detail === undefined ? { name, ok: true } : { name, ok: true, detail });
  };
  const curated = program.meta?.curated === true;
  // SPADE's checks come first: what SPADE rejects, strict rejects, for SPADE's reason (a curated task's: a doubt).
  if (spade.verdict === 'invalid' && curated) {
    checks.push({ name: 'spade', ok: false, detail: `doubt: ${spade.detail ?? spade.reason ?? 'rejected'}` });
  } else if (spade.verdict === 'invalid') {
    await options.environment?.dispose();
    checks.push({ name: 'spade', ok: false, detail: spade.detail ?? spade.reason ?? 'rejected' });
    return { reading: { verdict: 'invalid', reason: spade.reason ?? 'crash', detail: spade.detail }, checks };
  }
  else pass('spade', "SPADE's own checks (validate_game) pass");

  let phase = 'load';
  let env: LoadedEnvironment | undefined;
  let firstObservation: string | undefined;
  let horizon: number | undefined;
  let capabilities: EnvironmentCapabilities | undefined;
  let gameType: GameType | undefined;
  // The game's tools (name, parameters in order), to read a solution that describes its calls.
  let signatures: ToolSignature[] = [];
  // Once the reference won: a curated task's later doubts leave it valid.
  let referenceWon = false;
  try {
    env = options.environment ?? await sandbox.load(program, options.limits, { maxTurns });
    capabilities = env.capabilities;
    const abilities = Object.entries(capabilities).filter(([, has]) => has === true).map(([name]) => name);
    pass('load', abilities.length ? `has ${abilities.join(', ')}` : 'no solution, hint or referenceAction');

    phase = 'reset';
    const first = await env.reset(seed);
    firstObservation = first.observation;
    horizon = horizonOf(program, first.info, maxTurns, capabilities.maxTurns);
    gameType = gameTypeOf(program, { tools: capabilities.tools, horizon });
    pass('reset', `horizon ${horizon}, ${gameType}`);

    if (capabilities.tools) {
      phase = 'tools';
      if (!env.getTools) throw new SandboxError('contract', 'the environment says it has tools, but its sandbox cannot read them', 'get_tools');
      const schemas = await env.getTools();
      const names = schemas.map((tool) => tool.function.name);
      signatures = schemas.map((tool) => ({ name: tool.function.name, parameters: Object.keys((tool.function.parameters as { properties?: object }).properties ?? {}) }));
      pass('tools', `${plural(names.length, 'tool')}${names.length ? `: ${names.join(', ')}` : ''}`);
    }

    const toolUse = gameType === 'tool-use';
    // A tool-use game's referenceAction() plays its tool calls against the tools' real results,
    // and its solution() may describe them in words: the reference policy proves it when there
    // is one; otherwise solution()'s tool calls and <answer> are replayed.
    const replaySolution = capabilities.solution && !(toolUse && capabilities.referenceAction);
    phase = 'smoke-test';
    for (const action of SMOKE_ACTIONS) {
      const step = await env.step(action);
      if (step.terminated || step.truncated) await env.reset(seed);
    }
    pass('smoke-test');

    phase = 'deterministic';
    const loaded = env;
    const turns = horizon;
    const has = capabilities;
    let plan: SolutionPlan | undefined;
    let solutionText: string | undefined;
    const reference = async (at: number = seed): Promise<Trajectory> => {
      if (replaySolution) {
        await loaded.reset(at);
        const text = await loaded.solution();
        const next = solutionPlan(text);
        if (at === seed) solutionText = text;
        if (at !== seed) return play(loaded, at, Math.min(turns, next.actions.length), (_, turn) => next.actions[turn]!);
        if (plan !== undefined && next.actions.join('\n') !== plan.actions.join('\n')) {
          throw new Rejection('nondeterministic', `solution() gave "${plan.actions.join(' ')}", then "${next.actions.join(' ')}" for the same seed`);
        }
        plan = next;
        const actions = next.actions;
        return play(loaded, seed, Math.min(turns, actions.length), (_, turn) => actions[turn]!);
      }
      if (has.referenceAction) return play(loaded, at, turns, (observation) => loaded.referenceAction(observation));
      return play(loaded, seed, Math.min(turns, SMOKE_ACTIONS.length), (_, turn) => SMOKE_ACTIONS[turn]!);
    };
    const once = await reference();
    const twice = await reference();
    if (once.first !== firstObservation) throw new Rejection('nondeterministic', 'reset() with the same seed gave a different first observation');
    if (!sameTrajectory(once, twice)) throw new Rejection('nondeterministic', 'the same seed and actions gave a different episode');
    pass('deterministic');

    let proven = capabilities.solution || capabilities.referenceAction;
    let trajectory = once;
    if (proven) {
      phase = 'reference-wins';
      // A multi-turn game's solution() that describes its moves (prose, separators) rather than
      // giving one answer: each way it splits into actions is tried; none winning proves nothing.
      let described: string | undefined;
      if (plan?.kind === 'answer' && !once.won && turns > 1 && describesActions(plan.answer)) {
        described = plan.answer;
        for (const actions of sequenceReadings(plan.answer)) {
          const replayed = await play(loaded, seed, Math.min(turns, actions.length), (_, turn) => actions[turn]!);
          if (replayed.won) {
            plan = { kind: 'sequence', actions };
            trajectory = replayed;
            described = undefined;
            break;
          }
        }
      }
      // A tool-use solution whose calls are told in words beside its <answer> ("1. cd(path=...) 2.
      // ..."): the calls of the game's tools it names are replayed; words it cannot be read from
      // prove nothing either way.
      if (plan?.kind === 'tool-use' && !once.won && solutionText !== undefined && describesToolCalls(solutionText)) {
        described = solutionText;
        const calls = describedToolCalls(solutionText, signatures);
        if (calls) {
          const replayed = await play(loaded, seed, Math.min(turns, calls.length), (_, turn) => calls[turn]!);
          if (replayed.won) {
            plan = { kind: 'tool-use', actions: calls };
            trajectory = replayed;
            described = undefined;
          }
        }
      }
      if (described !== undefined) {
        proven = false;
        plan = undefined;
        const shown = described.replace(/\s+/g, ' ').trim();
        pass('reference-wins', `not proven: solution() describes its moves ("${shown.length > 120 ? `${shown.slice(0, 120)}...` : shown}") in a form the gate cannot replay, and no split of it into actions won`);
      } else if (plan !== undefined) {
        const how = plan.kind === 'answer' ? boxed(plan.answer) : `solution()'s ${plan.actions.length} actions`;
        if (!trajectory.won && plan.actions.length > turns) throw new Rejection('reference-loses', `${how} take more than the ${turns} turns of an episode`);
        if (!trajectory.won) {
          const ending = trajectory.ended ? `final reward ${trajectory.steps.at(-1)?.reward}` : `the episode had not ended after ${plural(trajectory.steps.length, 'turn')}`;
          throw new Rejection('reference-loses', `${how} did not win (${ending}${lastWords(trajectory)})`);
        }
      } else if (!once.won) {
        if (!once.ended) throw new Rejection('no-episode-end', `the reference policy did not end the episode within ${turns} turns`);
        throw new Rejection('reference-loses', `the reference policy did not win (final reward ${once.steps.at(-1)?.reward})`);
      }
      if (proven) {
        referenceWon = true;
        pass('reference-wins', `${plural(trajectory.steps.length, 'turn')}${plan && plan.kind !== 'answer' ? ` (${plan.kind} solution replayed${trajectory !== once ? ', split from its text' : ''})` : ''}`);
      }
    }

    const answer = plan?.kind === 'answer' ? plan.answer : undefined;
    if (answer !== undefined) {
      phase = 'wrong-answer-loses';
      const wrongs = wrongAnswers(answer);
      for (const wrong of wrongs) {
        await env.reset(seed);
        const step = await env.step(boxed(wrong));
        if (step.terminated && step.reward > 0) throw new Rejection('wrong-answer-wins', `the wrong answer \\boxed{${wrong}} won`);
      }
      pass('wrong-answer-loses');
    }

    // A tool-use game's answer is the reference's winning <answer>: after the same tool calls,
    // answers close to it must not win (random play never answers, so it cannot tell).
    const finalOf = (trajectory: Trajectory): string | undefined => {
      const final = toolUse && trajectory.won ? readToolAction(trajectory.actions.at(-1)!) : undefined;
      return final?.kind === 'answer' ? final.answer : undefined;
    };
    const toolAnswer = finalOf(once);
    if (toolAnswer !== undefined) {
      phase = 'wrong-answer-loses';
      for (const wrong of wrongAnswers(toolAnswer)) {
        await env.reset(seed);
        for (const action of once.actions.slice(0, -1)) await env.step(action);
        const step = await env.step(answerText(wrong));
        if (step.terminated && step.reward > 0) throw new Rejection('wrong-answer-wins', `after the reference's tool calls, the wrong answer ${answerText(wrong)} won`);
      }
      pass('wrong-answer-loses', `after the reference's ${plural(once.actions.length - 1, 'tool turn')}`);
    }

    // A curated dataset's task (meta.curated) is not judged on what only judges a designer:
    // a one-digit answer that random play guesses, or a word problem that mentions its answer.
    // Random play is not even played there (random text is no attempt at a GSM8K or HumanEval task).
    phase = 'random-loses';
    if (curated) {
      pass('random-loses', 'not played: a curated task (random play judges designers)');
    } else {
      const random = mulberry32(deriveSeed(seed, program.id, 'random-play'));
      // Random play draws from the moves the reference made, but never from its winning move
      // alone: in a single-answer or deduction environment that move is the answer itself, and
      // replaying it is not random play. A winning move the reference also made mid-episode
      // (a step "right" on a grid) stays in.
      const finalAction = trajectory.actions.at(-1);
      const midActions = new Set(trajectory.actions.slice(0, -1));
      const moves = answer !== undefined ? [] : trajectory.actions.filter((a) => a !== finalAction || midActions.has(a));
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

    if (answer !== undefined) {
      phase = 'no-answer-leak';
      if (curated) {
        if (firstObservation.includes(boxed(answer.trim()))) throw new Rejection('answer-leak', `the first observation contains \\boxed{${answer}}`);
        pass('no-answer-leak');
      } else {
        const tasks: SeededTask[] = [{ seed, observation: firstObservation, answer }];
        if (leaksAnswer(firstObservation, answer)) {
          // Shown at this seed: is it revealed, or there by coincidence? Read the next seeds' tasks.
          for (let next = seed + 1; tasks.length < LEAK_SEEDS; next++) {
            const { observation } = await env.reset(next);
            const other = solutionPlan(await env.solution());
            tasks.push({ seed: next, observation, answer: other.kind === 'answer' ? other.answer : '' });
          }
          if (answerLeaked(tasks)) throw new Rejection('answer-leak', `the first observation contains the answer "${answer}" (at seeds ${revealingSeeds(tasks).join(', ')} of ${tasks.map((t) => t.seed).join(', ')})`);
        }
        pass('no-answer-leak', tasks.length > 1 ? `the answer shows at seed ${seed} in text every seed's task shows, or by coincidence (${revealingSeeds(tasks).length} of ${tasks.length} seeds reveal it)` : undefined);
      }
    }

    // "done" ends SPADE's multi-turn tool-use variant: it is the protocol, not an answer to hide.
    if (toolAnswer !== undefined && toolAnswer.toLowerCase() !== 'done' && !curated) {
      phase = 'no-answer-leak';
      const tasks: SeededTask[] = [{ seed, observation: firstObservation, answer: toolAnswer }];
      if (leaksAnswer(firstObservation, toolAnswer)) {
        // Shown at this seed: is it revealed, or there by coincidence? The reference plays the next seeds' tasks.
        for (let next = seed + 1; tasks.length < LEAK_SEEDS; next++) {
          const other = await reference(next);
          tasks.push({ seed: next, observation: other.first, answer: finalOf(other) ?? '' });
        }
        if (answerLeaked(tasks)) throw new Rejection('answer-leak', `the first observation contains the answer "${toolAnswer}" (at seeds ${revealingSeeds(tasks).join(', ')} of ${tasks.map((t) => t.seed).join(', ')})`);
      }
      pass('no-answer-leak', tasks.length > 1 ? `the answer shows at seed ${seed} by coincidence only (${revealingSeeds(tasks).length} of ${tasks.length} seeds reveal it)` : undefined);
    }

    if (capabilities.hint) {
      phase = 'hint';
      await env.reset(seed);
      const hint = await env.hint();
      pass('hint', `${hint.length} characters`);
    }

    const outcome: StrictOutcome = {
      reading: proven ? { verdict: 'valid' } : { verdict: 'unproven', reason: 'unproven' },
      checks,
      firstObservation,
      horizon,
      capabilities,
      gameType,
    };
    if (options.keep) {
      outcome.environment = env;
      env = undefined; // the caller's now
    }
    return outcome;
  } catch (error) {
    if (options.rethrowCollateral && error instanceof SandboxError && error.collateral) throw error;
    const { reason, detail } = rejectionOf(error, phase);
    // A curated task that loads and resets is played whatever strict doubts: the doubt is shown beside it.
    const doubt = curated && phase !== 'load' && phase !== 'reset';
    checks.push({ name: phase, ok: false, detail: doubt ? `doubt (${reason}): ${detail}` : detail });
    const outcome: StrictOutcome = {
      reading: doubt ? (referenceWon ? { verdict: 'valid' } : { verdict: 'unproven', reason: 'unproven' }) : { verdict: 'invalid', reason, detail },
      checks,
    };
    if (firstObservation !== undefined) outcome.firstObservation = firstObservation;
    if (horizon !== undefined) outcome.horizon = horizon;
    if (capabilities !== undefined) outcome.capabilities = capabilities;
    if (gameType !== undefined) outcome.gameType = gameType;
    return outcome;
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
