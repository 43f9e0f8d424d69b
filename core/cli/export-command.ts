/**
 * `spade-bench export RUN_DIR --format jsonl -o FILE` (one line per episode, for RL trainers)
 * and `--format pool -o DIR` (the environments the run played, in SPADE's pool layout: games/,
 * manifest.jsonl, checksums.sha256).
 */
import path from 'node:path';
import { EXIT, UsageError } from '../errors.js';
import { exportEpisodes, exportPool } from '../results/export.js';
import type { FlagSpec, PositionalSpec } from './commands.js';

export interface ExportArgs {
  run: string;
  format: 'jsonl' | 'pool';
  out: string;
  suites?: string;
}

export const exportPositionals: PositionalSpec[] = [{ name: 'run', describe: 'The run folder (holding journal.jsonl)' }];

export const exportOptions: Record<string, FlagSpec> = {
  format: { type: 'string', arg: 'F', choices: ['jsonl', 'pool'], default: 'jsonl', describe: "jsonl: one line per episode (messages, per-step rewards, designer reward); pool: the environments the run played, in SPADE's pool layout (games/game_{round}_{index}_{skill}.py, their hints as games/*_hint.txt, manifest.jsonl, env_memory.json, checksums.sha256)" },
  out: { type: 'string', alias: 'o', arg: 'PATH', demandOption: true, describe: 'Output file (jsonl; "-" prints to standard output) or new, empty folder (pool)' },
  suites: { type: 'string', arg: 'a,b', describe: 'pool: comma-separated suites whose environments to write [default: spade]' },
};

export async function exportCommand(args: ExportArgs): Promise<number> {
  const runDir = path.resolve(args.run);
  if (args.format === 'jsonl' && args.suites !== undefined) throw new UsageError('--suites chooses the suites of --format pool; --format jsonl writes every episode (filter its lines by their "suite")');
  if (args.format === 'pool' && args.out === '-') throw new UsageError('--format pool writes a folder: name it with -o DIR ("-", standard output, is for --format jsonl)');
  if (args.format === 'jsonl' && args.out === '-') {
    const n = exportEpisodes(runDir, '-');
    process.stderr.write(`${n} episode${n === 1 ? '' : 's'} written to standard output\n`);
    return EXIT.ok;
  }
  const output = path.resolve(args.out);
  if (args.format === 'jsonl') {
    const n = exportEpisodes(runDir, output);
    process.stdout.write(`${n} episode${n === 1 ? '' : 's'} written to ${path.relative(process.cwd(), output) || output}\n`);
  } else {
    const suites = args.suites?.split(',').map((s) => s.trim()).filter(Boolean);
    const index = exportPool(runDir, output, suites?.length ? suites : undefined);
    const where = path.relative(process.cwd(), output) || output;
    process.stdout.write(`${index.length} environment${index.length === 1 ? '' : 's'} written to ${where} (SPADE's layout: games/ with their hints, manifest.jsonl, env_memory.json, checksums.sha256; read it back with spade-pool:${where})\n`);
  }
  return EXIT.ok;
}
