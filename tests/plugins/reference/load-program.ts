/**
 * A tiny local loader for the reference families' programs in tests: node's `vm`, a fresh
 * context per program, no host globals. (The real sandboxes live in plugins/sandboxes/.)
 */
import vm from 'node:vm';
import type { Agent } from '../../../core/types.js';

export interface PlainEnvironment {
  reset(seed: number): [string, Record<string, unknown>];
  step(action: string): [string, number, boolean, boolean, Record<string, unknown>];
  solution?(): string;
  hint(): string;
  referenceAction?(observation: string): string;
}

export function loadProgram(source: string): () => PlainEnvironment {
  const match = /export default (\w+);\s*$/.exec(source);
  if (!match) throw new Error('the program does not end with `export default ClassName;`');
  const script = `(function () {\n${source.slice(0, match.index)}\nreturn ${match[1]};\n})()`;
  const context = vm.createContext(Object.create(null));
  const EnvironmentClass = vm.runInContext(script, context, { timeout: 2000 }) as new () => PlainEnvironment;
  return () => new EnvironmentClass();
}

/** Play an episode with the program's own reference (solution or referenceAction); true when it wins. */
export function referenceWins(make: () => PlainEnvironment, seed: number): { won: boolean; turns: number } {
  const env = make();
  let [observation, info] = env.reset(seed);
  const horizon = Number(info.horizon ?? 1);
  for (let turn = 1; turn <= horizon; turn++) {
    const reply = env.solution ? `\\boxed{${env.solution()}}` : env.referenceAction!(observation);
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
