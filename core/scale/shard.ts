/**
 * Sharded runs (`--shard i/n`): each of n invocations runs a deterministic slice of one run,
 * and `spade-bench merge` puts the slices back together. Shards are numbered 1 to n on the
 * command line, as Jest, Vitest and Playwright number theirs (`--shard=1/3`).
 *
 * A static suite is split by task index: shard i takes the tasks whose index (after `limit`,
 * counted from 0) is i - 1 modulo n. Self-play cannot be split without changing it: each
 * round's designs depend on every environment of the round before (the memory and the solve
 * rates), so the whole self-play pool runs in shard 1, and the other shards run static tasks only;
 * so does a curriculum pool (each round's difficulties depend on the outcomes before).
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Suite, SuiteLoadOptions, SuiteTask } from '../types.js';
import { UsageError } from '../errors.js';
import { writeFileAtomic, makeFolder } from '../results/fs.js';

export interface Shard {
  /** 0-based: shard `1/n` on the command line has index 0. */
  index: number;
  count: number;
}

/** Each shard's output folder records which slice it ran, for `merge`. */
export const SHARD_FILE = 'shard.json';

/** How a shard is written for people: `1/3` for index 0 of 3. */
export const shardLabel = (shard: Shard): string => `${shard.index + 1}/${shard.count}`;

/** `"i/n"` with 1 <= i <= n. */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const number = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match && number === 0 && count >= 1) {
    throw new UsageError(`--shard: shards are numbered from 1 to n: the first of ${count} is 1/${count}, the last ${count}/${count} (got ${JSON.stringify(text)})`);
  }
  if (!match || count < 1 || number > count) throw new UsageError(`--shard: expected i/n with 1 <= i <= n (e.g. 1/4), got ${JSON.stringify(text)}`);
  return { index: number - 1, count };
}

/** The suite's tasks whose index is `shard.index` modulo `shard.count`; everything else about the suite is kept. */
export function shardSuite(suite: Suite, shard: Shard): Suite {
  const sliced: Suite = Object.create(suite, {
    tasks: {
      value: async (options: SuiteLoadOptions): Promise<SuiteTask[]> =>
        (await suite.tasks(options)).filter((_, i) => i % shard.count === shard.index),
    },
  });
  return sliced;
}

/**
 * A run's suites and self-play flag for one shard, and `shard.json` in its output folder.
 * Call after the output folder is prepared.
 */
export function applyShard(parts: { suites: Suite[]; selfplay: boolean }, shard: Shard, outDir: string): { suites: Suite[]; selfplay: boolean } {
  makeFolder(outDir);
  writeFileAtomic(path.join(outDir, SHARD_FILE), `${JSON.stringify({ shard: shardLabel(shard), ...shard })}\n`);
  // A curriculum pool's rounds depend on each other, as self-play's do: it runs whole, in shard 1.
  const suites = parts.suites.filter((s) => !s.curriculum || shard.index === 0).map((s) => (s.curriculum ? s : shardSuite(s, shard)));
  return { suites, selfplay: parts.selfplay && shard.index === 0 };
}

/** The slice a run folder holds, or undefined for a whole run. `index` in the file is 0-based, as it always was. */
export function readShard(dir: string): Shard | undefined {
  const file = path.join(dir, SHARD_FILE);
  if (!existsSync(file)) return undefined;
  const { index, count } = JSON.parse(readFileSync(file, 'utf8')) as Shard;
  if (!(Number.isInteger(index) && Number.isInteger(count) && index >= 0 && index < count)) throw new UsageError(`${file}: not a shard of a run (index ${index} of ${count})`);
  return { index, count };
}
