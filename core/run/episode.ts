/**
 * One episode: an agent plays a loaded environment from reset(seed) until it terminates, is
 * truncated, or reaches the horizon. A win is an episode that terminates with a positive
 * final reward. Failures of the sandbox or the provider make the episode `errored`, which is
 * counted apart from losses, never dropped. A tool-use environment's tools are read after
 * reset() and handed to the agent, and its episodes count their tool calls.
 *
 * An agent may end the episode itself (AgentTurn.ended: its reply was cut at its token budget, or
 * its context is full, SPADE's rule): that turn is not sent to the environment, and the episode
 * ends truncated, a loss.
 *
 * A hinted play shows the hint as SPADE does: appended to the first observation, after a blank
 * line, as `HINT: <hint>` (its hint_injection_template). The hint is the one the designer model
 * wrote for the program when there is one (for every program under SPADE's designer protocol,
 * else only for programs without hint()), else the program's own hint().
 */
import type { Agent, ChatMessage, EnvironmentProgram, EpisodeResult, EpisodeStep, LoadedEnvironment, TokenUsage } from '../types.js';
import { SandboxError } from '../errors.js';
import { countToolCalls, toolDefinitionsOf } from './tool-calls.js';
import { errorClassOf } from './error-class.js';

/**
 * An episode cut by the run's own stop (a signal, a failure elsewhere): it has no result, so it
 * is neither journaled nor counted; a resumed run plays it.
 */
export class EpisodeAbortedError extends Error {
  constructor() {
    super('the episode was cut by the run\'s stop');
    this.name = 'EpisodeAbortedError';
  }
}

export interface EpisodeOptions {
  suite: string;
  program: EnvironmentProgram;
  environment: LoadedEnvironment;
  agent: Agent;
  /** Seed passed to reset(): the task. */
  taskSeed: number;
  /** Seed of the agent's own randomness for this attempt. */
  agentSeed: number;
  attempt: number;
  withHint: boolean;
  /** The designer's hint for a hinted play (it wins over the program's hint()). */
  hint?: string;
  horizon: number;
  round?: number;
  /** Keep the trajectory in the result. */
  keepSteps?: boolean;
  signal?: AbortSignal;
  /** Throw a collateral SandboxError (another environment's fault) instead of recording the episode errored. */
  rethrowCollateral?: boolean;
}

/** Observations longer than this are cut in kept trajectories (the report shows samples). */
const KEPT_OBSERVATION_CHARS = 2000;

/** The first observation of a hinted play: SPADE's `{observation}\n\nHINT: {hint}`. */
export function withHint(observation: string, hint: string): string {
  return `${observation}\n\nHINT: ${hint}`;
}

export async function playEpisode(options: EpisodeOptions): Promise<EpisodeResult> {
  const { environment, agent, program } = options;
  const started = performance.now();
  const steps: EpisodeStep[] = [];
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let costUsd: number | undefined;
  const finishReasons: string[] = [];
  let sharedUsage = false;
  let agentTruncated: EpisodeResult['agentTruncated'];
  let totalReward = 0;
  let outcome: EpisodeResult['outcome'] = 'lost';
  let error: string | undefined;
  let errorKind: EpisodeResult['errorKind'];
  let errorClass: string | undefined;
  let firstObservation: string | undefined;
  let transcript: (() => ChatMessage[]) | undefined; // LLM agents' conversation, kept for export
  const toolUse = environment.capabilities.tools === true && environment.getTools !== undefined;
  try {
    const reset = await environment.reset(options.taskSeed);
    firstObservation = reset.observation;
    // The designer's hint when one was written for the program (always, under SPADE's designer protocol), else its own hint().
    const hint = !options.withHint ? undefined : options.hint !== undefined ? options.hint : environment.capabilities.hint ? await environment.hint() : undefined;
    const observation = hint === undefined ? reset.observation : withHint(reset.observation, hint);
    const tools = toolUse ? toolDefinitionsOf(await environment.getTools!()) : undefined;
    const episode = await agent.start({
      environment: program,
      observation,
      hint,
      seed: options.agentSeed,
      attempt: options.attempt,
      horizon: options.horizon,
      ...(tools && { tools }),
      signal: options.signal,
    });
    transcript = episode.transcript?.bind(episode);
    let current = observation;
    for (let turn = 1; turn <= options.horizon; turn++) {
      const reply = await episode.act(current, turn);
      if (reply.usage) {
        usage.inputTokens += reply.usage.inputTokens;
        usage.outputTokens += reply.usage.outputTokens;
      }
      if (reply.costUsd !== undefined) costUsd = (costUsd ?? 0) + reply.costUsd;
      if (reply.finishReason !== undefined) finishReasons.push(reply.finishReason);
      if (reply.sharedUsage) sharedUsage = true;
      // The agent truncated the episode (SPADE's rule): nothing is sent to the environment, a loss.
      if (reply.ended) {
        agentTruncated = reply.ended;
        break;
      }
      const step = await environment.step(reply.reply);
      totalReward += step.reward;
      steps.push({
        action: reply.reply,
        observation: options.keepSteps ? step.observation.slice(0, KEPT_OBSERVATION_CHARS) : '',
        reward: step.reward,
        terminated: step.terminated,
        truncated: step.truncated,
      });
      current = step.observation;
      if (step.terminated) {
        outcome = step.reward > 0 ? 'won' : 'lost';
        break;
      }
      if (step.truncated) break;
    }
  } catch (e) {
    if (options.rethrowCollateral && e instanceof SandboxError && e.collateral) throw e;
    if (options.signal?.aborted) throw new EpisodeAbortedError();
    outcome = 'errored';
    error = e instanceof SandboxError ? `sandbox ${e.kind}${e.method ? ` in ${e.method}()` : ''}: ${e.message}` : `${(e as Error).name}: ${(e as Error).message}`;
    errorKind = e instanceof SandboxError ? e.kind : 'agent';
    errorClass = errorClassOf(e);
  }
  const result: EpisodeResult = {
    suite: options.suite,
    environmentId: program.id,
    attempt: options.attempt,
    withHint: options.withHint,
    seed: options.taskSeed,
    horizon: options.horizon,
    outcome,
    turns: steps.length,
    totalReward,
    wallMs: performance.now() - started,
  };
  if (toolUse) result.toolCalls = countToolCalls(steps.map((s) => s.action));
  if (options.round !== undefined) result.round = options.round;
  if (error) result.error = error;
  if (errorKind) result.errorKind = errorKind;
  if (errorClass) result.errorClass = errorClass;
  if (usage.inputTokens || usage.outputTokens) result.usage = usage;
  if (sharedUsage) result.sharedUsage = true;
  if (finishReasons.length) result.finishReasons = finishReasons;
  if (costUsd !== undefined) result.costUsd = costUsd;
  // For RL export: per-step rewards and how every episode ended, and the agent's conversation.
  result.rewards = steps.map((s) => s.reward);
  result.terminated = agentTruncated ? false : (steps.at(-1)?.terminated ?? false);
  result.truncated = agentTruncated !== undefined || (steps.at(-1)?.truncated ?? false);
  if (agentTruncated) result.agentTruncated = agentTruncated;
  const messages = transcript?.();
  if (messages?.length) result.messages = messages;
  if (options.keepSteps) {
    result.steps = steps;
    if (firstObservation !== undefined) result.firstObservation = firstObservation.slice(0, KEPT_OBSERVATION_CHARS);
  }
  return result;
}
