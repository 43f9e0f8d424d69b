/**
 * Resuming a run from its journal. A resumed run replays the same loop with the same seed;
 * every piece of work the journal already holds (a designer's round, a gate verdict, an
 * episode) is taken from it instead of being done again, so nothing is done twice and the
 * final results equal those of an uninterrupted run.
 */
import type { GateVerdict, ReviewRecord } from './results.js';
import type { EnvironmentProgram, EpisodeResult } from '../types.js';
import type { HintRecord, JournalRecord } from './journal.js';

const key = (suite: string, id: string): string => `${suite}\u0000${id}`;
const episodeKey = (e: Pick<EpisodeResult, 'attempt' | 'withHint'>): string => `${e.attempt}:${e.withHint ? 'hint' : 'plain'}`;

export class PriorWork {
  private readonly designs = new Map<string, EnvironmentProgram[]>();
  private readonly verdicts = new Map<string, GateVerdict>();
  private readonly reviews = new Map<string, ReviewRecord>();
  private readonly hints = new Map<string, HintRecord>();
  private readonly episodeMap = new Map<string, Map<string, EpisodeResult>>();
  private readonly environments = new Set<string>();
  /** The config the run was started with (from its first `start` record). */
  readonly config: Record<string, unknown> | undefined;
  readonly runId: string | undefined;
  readonly startedAt: string | undefined;
  readonly size: number;

  constructor(records: readonly JournalRecord[] = []) {
    let config: Record<string, unknown> | undefined;
    let runId: string | undefined;
    let startedAt: string | undefined;
    for (const r of records) {
      switch (r.type) {
        case 'start':
          if (!config) ({ config, runId, startedAt } = r);
          break;
        case 'designed':
          this.designs.set(key(r.suite, String(r.round)), r.programs);
          break;
        case 'verdict':
          this.verdicts.set(key(r.suite, r.id), r.verdict);
          break;
        case 'review':
          this.reviews.set(key(r.suite, r.id), r.review);
          break;
        case 'hint':
          this.hints.set(key(r.suite, r.id), r.hint);
          break;
        case 'episode': {
          const k = key(r.episode.suite, r.episode.environmentId);
          let m = this.episodeMap.get(k);
          if (!m) this.episodeMap.set(k, (m = new Map()));
          m.set(episodeKey(r.episode), r.episode);
          break;
        }
        case 'environment':
          this.environments.add(key(r.suite, r.environment.id));
          break;
        default:
          break;
      }
    }
    this.config = config;
    this.runId = runId;
    this.startedAt = startedAt;
    this.size = records.length;
  }

  designed(suite: string, round: number): EnvironmentProgram[] | undefined {
    return this.designs.get(key(suite, String(round)));
  }

  verdict(suite: string, id: string): GateVerdict | undefined {
    return this.verdicts.get(key(suite, id));
  }

  /** The reviewer's journaled review of this environment (asking again could get another answer). */
  review(suite: string, id: string): ReviewRecord | undefined {
    return this.reviews.get(key(suite, id));
  }

  /** The designer's journaled hint for this program (asking again could get another one). */
  hint(suite: string, id: string): HintRecord | undefined {
    return this.hints.get(key(suite, id));
  }

  /** The journaled episode of this attempt, if it finished. */
  episode(suite: string, id: string, attempt: number, withHint: boolean): EpisodeResult | undefined {
    return this.episodeMap.get(key(suite, id))?.get(episodeKey({ attempt, withHint }));
  }

  /** The environment's summary line is already in the journal. */
  environmentDone(suite: string, id: string): boolean {
    return this.environments.has(key(suite, id));
  }
}

/** `base` (when any) with gate verdicts this invocation already has, by program id: the gate runs once per program. */
export function withKnownVerdicts(base: PriorWork | undefined, known: ReadonlyMap<string, GateVerdict>): PriorWork {
  return new KnownVerdicts(base, known);
}

class KnownVerdicts extends PriorWork {
  constructor(
    private readonly base: PriorWork | undefined,
    private readonly known: ReadonlyMap<string, GateVerdict>,
  ) {
    super();
  }
  override designed(suite: string, round: number): EnvironmentProgram[] | undefined {
    return this.base?.designed(suite, round);
  }
  override verdict(suite: string, id: string): GateVerdict | undefined {
    return this.known.get(id) ?? this.base?.verdict(suite, id);
  }
  override hint(suite: string, id: string): HintRecord | undefined {
    return this.base?.hint(suite, id);
  }
  override review(suite: string, id: string): ReviewRecord | undefined {
    return this.base?.review(suite, id);
  }
  override episode(suite: string, id: string, attempt: number, withHint: boolean): EpisodeResult | undefined {
    return this.base?.episode(suite, id, attempt, withHint);
  }
  override environmentDone(suite: string, id: string): boolean {
    return this.base?.environmentDone(suite, id) ?? false;
  }
}
