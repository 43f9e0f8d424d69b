/**
 * The reference agent: the offline, deterministic player of the reference policy. It reads only
 * observations (and the hint when given, and a tool-use game's tool schemas), recognises the
 * family from the task text, and searches with a node budget in an order seeded by the attempt's
 * seed, so its win rate is graded and falls as difficulty grows. In tool-use games it calls the
 * tools its schemas describe and the turn budget bounds its search. Tasks it cannot read get
 * `\boxed{?}` (a loss).
 */
import type { Agent, AgentEpisode, AgentEpisodeContext } from '../../core/concepts/roles.js';
import { createRandom } from './random.js';
import { GIVE_UP_REPLY } from './solvers/solver.js';
import { solverFor } from './solvers/index.js';

export interface ReferenceAgentOptions {
  /**
   * Search nodes per single-answer task (candidates tried). Multi-turn players get an eighth of
   * it per turn (states expanded, or codes checked). Default 400.
   */
  budget?: number;
}

export const DEFAULT_AGENT_BUDGET = 400;
/** Multi-turn players re-plan every turn, so each turn gets this share of the budget. */
const TURN_SHARE = 1 / 8;

export function createReferenceAgent(options: ReferenceAgentOptions = {}): Agent {
  const budget = Math.max(1, Math.floor(options.budget ?? DEFAULT_AGENT_BUDGET));
  return {
    id: 'reference',
    label: 'reference policy: budgeted search agent (offline, deterministic)',
    kind: 'reference',
    // A CPU-bound search with no model behind it: worth a core of its own in each thread.
    workerThreads: true,
    start(context: AgentEpisodeContext): AgentEpisode {
      // A hinted play's first observation ends with the hint (`\n\nHINT: ...`): the solvers read
      // the task without it, and the hint itself from context.hint.
      const suffix = context.hint === undefined ? undefined : `\n\nHINT: ${context.hint}`;
      const task = (observation: string): string => (suffix && observation.endsWith(suffix) ? observation.slice(0, -suffix.length) : observation);
      const solver = solverFor(task(context.observation));
      const share = context.horizon > 1 ? TURN_SHARE : 1;
      const episode = solver?.start(task(context.observation), {
        hint: context.hint,
        random: createRandom(context.seed),
        budget: Math.max(1, Math.floor(budget * share)),
        horizon: context.horizon,
        ...(context.tools && { tools: context.tools }),
      });
      return {
        async act(observation) {
          return { reply: episode ? episode.act(task(observation)) : GIVE_UP_REPLY };
        },
      };
    },
  };
}
