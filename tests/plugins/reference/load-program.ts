/**
 * A tiny local loader for the reference families' programs in tests: node's `vm`, a fresh
 * context per program, no host globals but SPADE's ToolUseBaseEnv, as the sandboxes give it.
 * (The real sandboxes live in plugins/sandboxes/.)
 */
import vm from 'node:vm';
import type { Agent, ToolDefinition } from '../../../core/types.js';
import { TOOL_USE_BASE_ENV_SOURCE } from '../../../plugins/sandboxes/tool-use-base-env.js';
import { toolDefinitionsOf } from '../../../core/run/tool-calls.js';
import { toToolSchemas } from '../../../core/gate/contract.js';

export interface PlainEnvironment {
  reset(seed: number): [string, Record<string, unknown>];
  step(action: string): [string, number, boolean, boolean, Record<string, unknown>];
  solution?(): string;
  hint(): string;
  referenceAction?(observation: string): string;
  /** Tool-use programs (ToolUseBaseEnv subclasses): their tools as OpenAI function schemas. */
  get_tools?(): unknown;
}

/** The tools of a tool-use environment after reset(), checked as the sandboxes check them; undefined for other games. */
export function toolsOf(env: PlainEnvironment): ToolDefinition[] | undefined {
  return env.get_tools ? toolDefinitionsOf(toToolSchemas(env.get_tools(), { maxOutputBytes: 65536 })) : undefined;
}

export function loadProgram(source: string): () => PlainEnvironment {
  const match = /export default (\w+);\s*$/.exec(source);
  if (!match) throw new Error('the program does not end with `export default ClassName;`');
  const script = `(function () {\n${source.slice(0, match.index)}\nreturn ${match[1]};\n})()`;
  const context = vm.createContext(Object.create(null));
  vm.runInContext(`${TOOL_USE_BASE_ENV_SOURCE}\nglobalThis.ToolUseBaseEnv = ToolUseBaseEnv;`, context);
  const EnvironmentClass = vm.runInContext(script, context, { timeout: 2000 }) as new () => PlainEnvironment;
  return () => new EnvironmentClass();
}

/** Play an episode with the program's own reference (solution or referenceAction); true when it wins. */
export function referenceWins(make: () => PlainEnvironment, seed: number): { won: boolean; turns: number } {
  const env = make();
  let [observation, info] = env.reset(seed);
  const horizon = Number(info.horizon ?? 1);
  // A tool-use program's solution() lists tool calls; its reference policy plays them.
  const singleAnswer = env.solution && !env.get_tools;
  for (let turn = 1; turn <= horizon; turn++) {
    const reply = singleAnswer ? `\\boxed{${env.solution!()}}` : env.referenceAction!(observation);
    const [next, reward, terminated, truncated] = env.step(reply);
    observation = next;
    if (reward >= 1 && terminated) return { won: true, turns: turn };
    if (terminated || truncated) return { won: false, turns: turn };
  }
  return { won: false, turns: horizon };
}

/** Play one episode of a program with an agent; true when it wins. */
export async function agentWins(
  agent: Agent,
  source: string,
  make: () => PlainEnvironment,
  seed: number,
  withHint: boolean,
): Promise<boolean> {
  const env = make();
  const [first, info] = env.reset(seed);
  const horizon = Number(info.horizon ?? 1);
  const episode = await agent.start({
    environment: { id: 'test', language: 'javascript', source },
    observation: first,
    hint: withHint ? env.hint() : undefined,
    seed: seed * 7919 + 1,
    horizon,
    tools: toolsOf(env),
  });
  let observation = first;
  for (let turn = 0; turn < horizon; turn++) {
    const { reply } = await episode.act(observation, turn);
    const [next, reward, terminated, truncated] = env.step(reply);
    if (reward >= 1 && terminated) return true;
    if (terminated || truncated) return false;
    observation = next;
  }
  return false;
}
