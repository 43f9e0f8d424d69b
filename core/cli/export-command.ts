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
  format: string;
  output?: string;
  suites?: string;
}

export const exportPositionals: PositionalSpec[] = [{ name: 'run', describe: 'The run folder (holding journal.jsonl)' }];

export const exportOptions: Record<string, FlagSpec> = {
  format: { type: 'string', arg: 'F', default: 'jsonl', describe: "jsonl: one line per episode (messages, per-step rewards, designer reward); pool: the environments the run played, in SPADE's pool layout (games/game_{round}_{index}_{skill}.py, their hints as games/*_hint.txt, manifest.jsonl, env_memory.json, checksums.sha256)" },
  output: { type: 'string', alias: 'o', arg: 'PATH', describe: 'Output file (jsonl) or folder (pool)' },
  suites: { type: 'string', arg: 'a,b', describe: 'pool: comma-separated suites whose environments to write [default: spade]' },
};

export async function exportCommand(args: ExportArgs): Promise<number> {
  if (!args.output) throw new UsageError('export: -o FILE (jsonl) or -o DIR (pool) is required');
  const runDir = path.resolve(args.run);
  const output = path.resolve(args.output);
  if (args.format === 'jsonl') {
    const n = exportEpisodes(runDir, output);
    process.stdout.write(`${n} episode${n === 1 ? '' : 's'} written to ${path.relative(process.cwd(), output) || output}\n`);
  } else if (args.format === 'pool') {
    const suites = args.suites?.split(',').map((s) => s.trim()).filter(Boolean);
    const index = exportPool(runDir, output, suites?.length ? suites : undefined);
    const where = path.relative(process.cwd(), output) || output;
    process.stdout.write(`${index.length} environment${index.length === 1 ? '' : 's'} written to ${where} (SPADE's layout: games/ with their hints, manifest.jsonl, env_memory.json, checksums.sha256; read it back with spade-pool:${where})\n`);
  } else {
    throw new UsageError(`export: --format must be jsonl or pool, got ${JSON.stringify(args.format)}`);
  }
  return EXIT.ok;
}
