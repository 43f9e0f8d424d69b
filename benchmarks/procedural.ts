/**
 * The `procedural` static suite: the reference families at fixed difficulties and horizons
 * 1, 2, 4, 8, 16, 32 and 64, with a frozen seed, so success against horizon compares between
 * runs and models. Horizon 1 comes from the single-answer families, longer horizons from the
 * multi-turn families whose horizon can be set, and the tool-use games join at the horizons
 * they are made for (8 and 16), TOOL_USE_INSTANCES tasks per family and difficulty, on top of
 * the others. Tasks are interleaved across horizons, so any `limit` takes a balanced prefix.
 */
import type { EnvironmentProgram } from '../core/concepts/environment.js';
import type { Suite, SuiteLoadOptions, SuiteTask } from '../core/concepts/suite.js';
import type { Family } from '../plugins/reference/family.js';
import { FAMILIES } from '../plugins/reference/families/index.js';

export const PROCEDURAL_HORIZONS: readonly number[] = [1, 2, 4, 8, 16, 32, 64];
export const PROCEDURAL_DIFFICULTIES: readonly number[] = [2, 5, 8];
/** About this many tasks per horizon (rounded up to whole family x difficulty blocks). */
export const TASKS_PER_HORIZON = 45;
/** Tasks per tool-use family and difficulty at each horizon it plays at. */
export const TOOL_USE_INSTANCES = 1;
/** Changing this changes every task: it is part of the suite's definition. */
export const PROCEDURAL_SEED = 20_240_601;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function familiesAt(horizon: number): Family[] {
  if (horizon === 1) return FAMILIES.filter((f) => !f.multiTurn);
  return FAMILIES.filter((f) => f.multiTurn && f.programForHorizon && horizon >= (f.minHorizon ?? 2) && horizon <= (f.maxHorizon ?? Infinity));
}

/** The tasks of one horizon, interleaved over instance, difficulty and family. */
function tasksAtHorizon(horizon: number): SuiteTask[] {
  const families = familiesAt(horizon);
  // Tool-use games come on top of the others' TASKS_PER_HORIZON, so the others' tasks stay the same.
  const blocks = families.filter((f) => !f.toolUse).length * PROCEDURAL_DIFFICULTIES.length;
  if (blocks === 0) return [];
  const instances = Math.ceil(TASKS_PER_HORIZON / blocks);
  const sources = new Map<string, string>();
  const tasks: SuiteTask[] = [];
  for (let k = 0; k < instances; k++) {
    for (const difficulty of PROCEDURAL_DIFFICULTIES) {
      for (const family of families) {
        if (family.toolUse && k >= TOOL_USE_INSTANCES) continue;
        const key = `${family.name}-h${horizon}-d${difficulty}`;
        let source = sources.get(key);
        if (source === undefined) {
          source = horizon === 1 ? family.program(difficulty) : family.programForHorizon!(horizon, difficulty);
          sources.set(key, source);
        }
        const id = `procedural/${key}-${k}`;
        const program: EnvironmentProgram = {
          id,
          language: 'javascript',
          source,
          meta: { family: family.name, skill: family.skill, difficulty, horizon, origin: 'procedural', trustedCode: true },
        };
        tasks.push({ program, seed: (fnv1a(id) ^ PROCEDURAL_SEED) >>> 0 });
      }
    }
  }
  return tasks;
}

/** Round-robin over the horizons, so a prefix of any length is balanced across them. */
function interleave(lists: SuiteTask[][]): SuiteTask[] {
  const out: SuiteTask[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const list of lists) if (i < list.length) out.push(list[i]!);
  return out;
}

export function createProceduralSuite(): Suite {
  let all: SuiteTask[] | undefined;
  return {
    id: 'procedural',
    description: `The reference families at difficulties ${PROCEDURAL_DIFFICULTIES.join(', ')} and horizons ${PROCEDURAL_HORIZONS.join(', ')}, with a frozen seed.`,
    language: 'javascript',
    async tasks(options: SuiteLoadOptions = {}): Promise<SuiteTask[]> {
      all ??= interleave(PROCEDURAL_HORIZONS.map(tasksAtHorizon));
      const limit = options.limit === undefined ? all.length : Math.max(0, Math.floor(options.limit));
      return all.slice(0, limit);
    },
  };
}
