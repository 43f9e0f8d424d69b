/**
 * What every file-backed static suite shares: tasks loaded once per data folder, the frozen
 * order cut by `limit`, and the count of malformed records skipped (with `skipBad`), so a
 * suite that lost lines says so instead of reporting a silent smaller pool.
 */
import type { Language } from '../core/concepts/environment.js';
import type { SandboxLimits } from '../core/concepts/sandbox.js';
import type { Suite, SuiteLoadOptions, SuiteTask } from '../core/concepts/suite.js';

export interface StaticSuite extends Suite {
  /** Malformed records skipped by the last tasks() call (0 unless `skipBad`). */
  readonly skipped: number;
  /** The first skipped record's problem, as `file:line: message`. */
  readonly firstProblem: string | undefined;
}

export interface LoadedTasks {
  tasks: SuiteTask[];
  skipped: number;
  firstProblem?: string;
}

export interface StaticSuiteDefinition {
  id: string;
  description: string;
  language: Language;
  /** Sandbox limits the tasks need at least. */
  limits?: Partial<SandboxLimits>;
  /** Load every task from the data folder (`undefined`: the default cache). */
  load(dataDir: string | undefined): Promise<LoadedTasks>;
}

export function defineStaticSuite(definition: StaticSuiteDefinition, defaultDataDir?: string): StaticSuite {
  const loaded = new Map<string, Promise<LoadedTasks>>();
  let last: LoadedTasks | undefined;
  return {
    id: definition.id,
    description: definition.description,
    language: definition.language,
    ...(definition.limits ? { limits: definition.limits } : {}),
    get skipped() {
      return last?.skipped ?? 0;
    },
    get firstProblem() {
      return last?.firstProblem;
    },
    async tasks(options: SuiteLoadOptions = {}) {
      const dataDir = options.dataDir ?? defaultDataDir;
      const key = dataDir ?? '';
      let pending = loaded.get(key);
      if (!pending) {
        pending = definition.load(dataDir);
        loaded.set(key, pending);
        pending.catch(() => loaded.delete(key));
      }
      last = await pending;
      const limit = options.limit;
      return limit !== undefined && limit >= 0 ? last.tasks.slice(0, limit) : last.tasks.slice();
    },
  };
}

/**
 * Task ids `<prefix>/<record id>`, falling back to `<prefix>/<position>` when a record has no
 * id or repeats an earlier one, so ids stay unique within a suite.
 */
export function uniqueIds(prefix: string): (recordId: string | undefined, index: number) => string {
  const seen = new Set<string>();
  return (recordId, index) => {
    let id = `${prefix}/${recordId ?? index}`;
    if (seen.has(id)) id = `${prefix}/${index}`;
    seen.add(id);
    return id;
  };
}
