/**
 * `spade-bench merge DIR... -o DIR`: the shard folders of one run (`--shard i/n`) merged into
 * one run folder, whose results.json equals the unsharded run's; `spade-bench report` reads it
 * like any other.
 */
import path from 'node:path';
import { EXIT, UsageError } from '../errors.js';
import { mergeShardRuns } from '../scale/merge.js';
import { renderReport } from '../setup/builtins.js';
import type { FlagSpec, PositionalSpec } from './commands.js';

export interface MergeArgs {
  dirs?: string[];
  out?: string;
}

export const mergePositionals: PositionalSpec[] = [{ name: 'dirs', variadic: true, describe: 'The shard folders (every shard i/n once)' }];

export const mergeOptions: Record<string, FlagSpec> = {
  out: { type: 'string', alias: 'o', arg: 'DIR', demandOption: true, describe: 'Folder for the merged results.json, report.html and journal.jsonl' },
};

export async function mergeCommand(args: MergeArgs): Promise<number> {
  const dirs = (args.dirs ?? []).map(String);
  if (!dirs.length) throw new UsageError('merge: name the shard folders, e.g. spade-bench merge runs/s0 runs/s1 -o runs/all');
  if (!args.out) throw new UsageError('merge: -o DIR is required');
  const cwd = process.cwd();
  const results = await mergeShardRuns(dirs.map((d) => path.resolve(cwd, d)), path.resolve(cwd, args.out), { renderReport });
  const episodes = results.suites.reduce((n, s) => n + s.metrics.throughput.episodes, 0);
  process.stdout.write(
    `merged ${dirs.length} shards: ${results.suites.length} suite(s), ${episodes} episodes${results.run.complete ? '' : ' (some shard is incomplete: "complete": false)'}\n` +
      `  results  ${path.join(args.out, 'results.json')}\n  report   ${path.join(args.out, 'report.html')}\n`,
  );
  return EXIT.ok;
}
