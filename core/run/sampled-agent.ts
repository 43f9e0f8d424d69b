/**
 * How a suite with its own sampling (a published benchmark's protocol, Suite.sampling) is
 * played by a model-driven agent: each task's first observation is the whole prompt, the only
 * user message; its n samples come from one request where the server takes n (the provider
 * layer sends n requests otherwise), and each sample is one episode, its reply sent whole to the
 * environment, which scores it. A later turn of an episode is one sample of its own, the
 * conversation so far as the prompt.
 *
 * The episodes of a task start at once (core/run/play-schedule.ts); the first to ask sends the
 * task's request and the others take their sample from it by attempt number. The agent's
 * capacity counts samples, so that the provider's requests in flight, each carrying n samples,
 * stay busy. An agent without sample() (the offline reference policy) plays such a suite as any
 * other, `n` attempts per task.
 *
 * What a task's request spends is metered apart from the episode that sent it, and each episode
 * adds its share of it (attempt i takes share i of n) to its own `spent`: the n shares add up to
 * the request, and an episode a resumed run plays again (its request sent again) counts its
 * share once, as in an uninterrupted run, whether the episodes it shared with are kept or not.
 */
import type { Agent, AgentEpisode, AgentEpisodeContext, ChatChoice, ChatMessage, SuiteSampling } from '../types.js';
import { deriveSeed } from './random.js';
import { UsageMeter, activeMeter, meterCalls, usageShare } from '../providers/stats.js';

interface SampleGroup {
  samples: Promise<{ choices: ChatChoice[]; costUsd?: number }>;
  /** What the request spent, shared among the episodes that take its samples. */
  spent: UsageMeter;
  /** Episodes that have taken their sample; the group is forgotten when all n have. */
  taken: number;
}

/** The agent that plays a suite with `sampling`: `agent` asked through its sample(), or `agent` itself when it has none. */
export function sampledAgent(agent: Agent, sampling: SuiteSampling): Agent {
  const sample = agent.sample?.bind(agent);
  if (!sample) return agent;
  const n = Math.max(1, Math.floor(sampling.n));
  const groups = new Map<string, SampleGroup>();
  return {
    id: agent.id,
    label: agent.label,
    kind: agent.kind,
    // Each request carries n samples: n episodes per request in flight.
    capacity: (agent.capacity ?? 1) * n,
    sample,
    start(context: AgentEpisodeContext): AgentEpisode {
      const history: ChatMessage[] = [];
      let next = 0;
      return {
        transcript: () => [...history],
        async act(observation, turn) {
          history.push({ role: 'user', content: observation });
          let choice: ChatChoice | undefined;
          let costUsd: number | undefined;
          if (turn === 1) {
            // One request per task and prompt: keyed by the program and its first observation.
            const key = `${context.environment.id}\0${observation}`;
            let group = groups.get(key);
            if (!group) {
              const spent = new UsageMeter();
              const request = { messages: [...history], sampling, n, seed: deriveSeed(0, context.environment.id, 'samples'), signal: context.signal };
              group = { samples: meterCalls(spent, () => sample(request)), spent, taken: 0 };
              groups.set(key, group);
            }
            const index = context.attempt ?? group.taken;
            if (++group.taken >= n) groups.delete(key);
            // This episode's share of the request (of a failed request's answered calls too), once it is answered.
            const { spent } = group;
            const meter = activeMeter();
            const got = await group.samples.finally(() => meter?.add(usageShare(spent.usage(), index, n)));
            choice = got.choices[index % got.choices.length];
            if (got.costUsd !== undefined) costUsd = got.costUsd / got.choices.length;
          } else {
            const got = await sample({ messages: [...history], sampling, n: 1, seed: context.seed + next++, signal: context.signal });
            choice = got.choices[0];
            costUsd = got.costUsd;
          }
          const text = choice?.text ?? '';
          history.push({ role: 'assistant', content: text });
          return {
            reply: text,
            ...(choice && { usage: choice.usage, finishReason: choice.finishReason }),
            ...(choice?.sharedUsage && { sharedUsage: true }),
            ...(costUsd !== undefined && { costUsd }),
          };
        },
      };
    },
  };
}
