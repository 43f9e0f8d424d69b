/**
 * `rlve:FILE` and `rlve-heldout`: RLVE's evaluation files as static suites. A file is a JSON
 * array of `{user_prompt, metadata}`, metadata a JSON string (or object) `{environment, config:
 * {seed, parameter, passing_reward_threshold}}`. Each task's prompt is the file's, as given;
 * its answer is scored by the environment restored from the metadata (RLVE's set_config()).
 * `rlve-heldout` is RLVE's held-out test set: 2,500 tasks of 50 environments, downloaded once
 * from the pinned commit and checked against its SHA-256.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DataError, UsageError } from '../../core/errors.js';
import type { Suite, SuiteLoadOptions, SuiteTask } from '../../core/concepts/suite.js';
import { ensureDataFile } from '../download.js';
import type { RlveEnvironment } from './catalog.js';
import { HELDOUT_FILE } from './gym.js';
import { runnable, type RlveOptions } from './options.js';
import { recordedTaskSource, rlveProgram, type RecordedTask } from './program.js';
import { loadRlve, RLVE_LIMITS } from './suite.js';

export interface RlveFileOptions extends RlveOptions {
  /** Skip malformed records and count them instead of stopping at the first. */
  skipBad?: boolean;
  /** Resolve a relative FILE against this folder (default: the working directory). */
  cwd?: string;
  /** `rlve-heldout`: download from here instead (a mirror); the pinned checksum still applies. */
  url?: string;
}

class RecordProblem extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One record of an evaluation file as a task of the catalog's environment, or RecordProblem. */
export function recordedTask(record: unknown, byId: ReadonlyMap<string, RlveEnvironment>): RecordedTask {
  if (!isObject(record)) throw new RecordProblem('expected an object {user_prompt, metadata}');
  const prompt = record.user_prompt;
  if (typeof prompt !== 'string' || prompt.trim() === '') throw new RecordProblem('"user_prompt" must be a non-empty string');
  let metadata = record.metadata;
  if (typeof metadata === 'string') {
    try {
      metadata = JSON.parse(metadata);
    } catch (error) {
      throw new RecordProblem(`"metadata" is not JSON: ${(error as Error).message}`);
    }
  }
  if (!isObject(metadata)) throw new RecordProblem('"metadata" must be a JSON object (or its text) {environment, config}');
  const name = metadata.environment;
  if (typeof name !== 'string') throw new RecordProblem('"metadata.environment" must be an RLVE identifier');
  const environment = byId.get(name);
  if (!environment) throw new RecordProblem(`RLVE has no environment "${name}"`);
  const config = metadata.config;
  if (!isObject(config)) throw new RecordProblem('"metadata.config" must be an object {seed, parameter, passing_reward_threshold}');
  if (typeof config.seed !== 'number' || !Number.isInteger(config.seed) || config.seed < 0) throw new RecordProblem('"metadata.config.seed" must be a non-negative integer');
  if (!isObject(config.parameter)) throw new RecordProblem('"metadata.config.parameter" must be an object');
  const threshold = config.passing_reward_threshold;
  if (threshold !== undefined && (typeof threshold !== 'number' || !Number.isFinite(threshold))) throw new RecordProblem('"metadata.config.passing_reward_threshold" must be a number');
  return {
    environment,
    prompt,
    config: { seed: config.seed, parameter: config.parameter, ...(threshold !== undefined ? { passing_reward_threshold: threshold } : {}) },
  };
}

interface Loaded {
  tasks: SuiteTask[];
  skipped: number;
  firstProblem?: string;
  skippedTasks: Record<string, number>;
}

/** An RLVE evaluation file as a suite with id `id`; `locate` gives the file's path for a data folder. */
function evaluationFileSuite(id: string, description: string, options: RlveFileOptions, locate: (dataDir: string | undefined) => Promise<string>): Suite {
  let last: Loaded = { tasks: [], skipped: 0, skippedTasks: {} };
  return {
    id,
    description,
    language: 'python',
    limits: RLVE_LIMITS,
    get skipped() {
      return last.skipped;
    },
    get firstProblem() {
      return last.firstProblem;
    },
    get skippedTasks() {
      return last.skippedTasks;
    },
    async tasks(load: SuiteLoadOptions = {}) {
      const file = await locate(load.dataDir);
      const { gym, catalog } = await loadRlve(options, load.dataDir);
      let records: unknown;
      try {
        records = JSON.parse(await readFile(file, 'utf8'));
      } catch (error) {
        throw new DataError(file, undefined, `not an RLVE evaluation file (a JSON array of {user_prompt, metadata}): ${(error as Error).message}`);
      }
      if (!Array.isArray(records)) throw new DataError(file, undefined, 'not an RLVE evaluation file: expected a JSON array of {user_prompt, metadata}');
      const byId = new Map(catalog.map((e) => [e.id, e]));
      const loaded: Loaded = { tasks: [], skipped: 0, skippedTasks: {} };
      const recorded: { task: RecordedTask; index: number }[] = [];
      records.forEach((record, index) => {
        try {
          recorded.push({ task: recordedTask(record, byId), index });
        } catch (error) {
          if (!(error instanceof RecordProblem)) throw error;
          const problem = `${file}: record ${index}: ${error.message}`;
          if (!options.skipBad) throw new DataError(file, undefined, `record ${index}: ${error.message} (use --skip-bad to skip unusable records)`);
          loaded.skipped++;
          loaded.firstProblem ??= problem;
        }
      });
      const usable = new Set(runnable([...new Set(recorded.map((r) => r.task.environment))], load.pythonPackages).runnable);
      for (const { task, index } of recorded) {
        if (!usable.has(task.environment)) {
          const reason = `${task.environment.packages.filter((p) => !load.pythonPackages?.includes(p)).join(' and ')} missing from the Python sandbox`;
          loaded.skippedTasks[reason] = (loaded.skippedTasks[reason] ?? 0) + 1;
          continue;
        }
        loaded.tasks.push({
          program: rlveProgram(`${id}/${task.environment.id}/${index}`, recordedTaskSource(task), task.environment, gym.root, {
            origin: `${path.basename(file)}[${index}]`,
            params: { environment: task.environment.id, seed: task.config.seed, passingRewardThreshold: task.config.passing_reward_threshold ?? 1 },
          }),
          seed: task.config.seed,
        });
      }
      last = loaded;
      return load.limit !== undefined && load.limit >= 0 ? loaded.tasks.slice(0, load.limit) : loaded.tasks.slice();
    },
  };
}

/** `rlve:FILE`: an RLVE evaluation file of the user's. */
export function createRlveFileSuite(file: string, options: RlveFileOptions = {}): Suite {
  if (!file) throw new UsageError('rlve: expected rlve:FILE, a JSON array of {user_prompt, metadata} in RLVE\'s evaluation format (or the suites rlve, rlve-heldout, rlve-adaptive)');
  const resolved = path.resolve(options.cwd ?? process.cwd(), file);
  return evaluationFileSuite(`rlve:${file}`, `RLVE evaluation file ${file}: each prompt as given, scored by its environment restored from the metadata.`, options, async () => resolved);
}

/** `rlve-heldout`: RLVE's held-out test set (2,500 tasks, 50 environments). */
export function createRlveHeldoutSuite(options: RlveFileOptions = {}): Suite {
  const file = { ...HELDOUT_FILE, url: options.url ?? HELDOUT_FILE.url };
  return evaluationFileSuite(
    'rlve-heldout',
    "RLVE's held-out test set: 2,500 tasks of 50 environments, each prompt as given, scored by its environment restored from the metadata.",
    options,
    (dataDir) => ensureDataFile(file, { ...options, dataDir: dataDir ?? options.dataDir }),
  );
}
