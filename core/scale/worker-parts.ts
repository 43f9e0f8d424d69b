/**
 * What a worker (a thread, or a `spade-bench worker` process) builds for itself from the run's
 * config to evaluate environments: its own sandboxes and its own agent. It goes through the
 * same setup as a run (plugins, provider keys from this process's environment), without the
 * designer and the suites, which stay with the run.
 */
import { resolveConfig, type SpadeConfig } from '../config/config.js';
import { createRegistry, resolveAgentParts, type AgentParts } from '../setup/setup.js';

/** What a worker evaluates environments with. */
export type WorkerParts = AgentParts;

/**
 * `sandboxWorkers`: the interpreter processes this worker's Python sandbox may start. A worker
 * shares the machine with its siblings (threads of one pool, queue workers), so it is the
 * worker's share of the cores, not all of them.
 */
export function createWorkerParts(config: SpadeConfig, cwd = process.cwd(), sandboxWorkers = 1): Promise<WorkerParts> {
  // A config sent by an older version may lack newer keys: they take their defaults.
  return resolveAgentParts(createRegistry(cwd), resolveConfig(config), { sandboxWorkers });
}

/** Workers of a queue serve jobs of any run: parts are built once per distinct config and kept. */
export class WorkerPartsCache {
  private readonly made = new Map<string, Promise<WorkerParts>>();

  constructor(private readonly cwd = process.cwd(), private readonly keep = 4, private readonly sandboxWorkers = 1) {}

  get(config: SpadeConfig): Promise<WorkerParts> {
    // Everything the worker's agent and sandboxes are built from (two runs differing in one of these need their own).
    const key = JSON.stringify({
      agent: config.agent, sandbox: config.sandbox, pythonSandbox: config.pythonSandbox, plugins: config.plugins, limits: config.limits,
      providers: config.providers, agentMemory: config.agentMemory, agentProtocol: config.agentProtocol, prompt: config.prompts?.agent, sampling: config.sampling?.agent,
    });
    let parts = this.made.get(key);
    if (parts) {
      this.made.delete(key);
      this.made.set(key, parts);
      return parts;
    }
    parts = createWorkerParts(config, this.cwd, this.sandboxWorkers);
    parts.catch(() => this.made.delete(key));
    this.made.set(key, parts);
    if (this.made.size > this.keep) {
      const [oldest, old] = this.made.entries().next().value as [string, Promise<WorkerParts>];
      this.made.delete(oldest);
      void old.then((p) => p.close(), () => {});
    }
    return parts;
  }

  async close(): Promise<void> {
    const all = await Promise.allSettled(this.made.values());
    this.made.clear();
    await Promise.all(all.map((p) => (p.status === 'fulfilled' ? p.value.close() : undefined)));
  }
}
