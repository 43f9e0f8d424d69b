/**
 * `spade-bench table RUN... [--rq RQ1] [--format markdown|csv|latex]`: the paper's table
 * (core/results/paper-table.ts), one row per run, each figure a percentage with its 95%
 * interval, ready to set beside the paper's rows. The logic is tableCommand(), which takes the
 * parsed options.
 */
import path from 'node:path';
import { EXIT, UsageError } from '../errors.js';
import { readResults } from '../results/results-file.js';
import { PAPER_TABLES, figureText, figuresOfSeveralSuites, paperRows, percentCell, type PaperRow } from '../results/paper-table.js';
import type { FlagSpec, PositionalSpec } from './commands.js';

export const TABLE_FORMATS = ['markdown', 'csv', 'latex'] as const;

export interface TableArgs {
  runs?: string[];
  rq?: string;
  format?: (typeof TABLE_FORMATS)[number];
}

export const tablePositionals: PositionalSpec[] = [{ name: 'runs', variadic: true, describe: 'Run folders (or their results.json files), one row each' }];

export const tableOptions: Record<string, FlagSpec> = {
  rq: { type: 'string', choices: Object.keys(PAPER_TABLES), default: 'RQ1', describe: "The paper's table: RQ1 (the games table) or RQ2 (tool use)" },
  format: { type: 'string', choices: [...TABLE_FORMATS], default: 'markdown', describe: 'markdown, csv (each figure with its interval\'s low and high), or latex (rows for a tabular)' },
};

const csvCell = (text: string): string => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
const latexText = (text: string): string => text.replace(/[\\&%$#_{}~^]/g, (c) => (c === '\\' ? '\\textbackslash{}' : c === '~' ? '\\textasciitilde{}' : c === '^' ? '\\textasciicircum{}' : `\\${c}`));

/** The table as text in one of the formats. */
export function renderPaperTable(rows: readonly PaperRow[], rq: string, format: TableArgs['format'] = 'markdown'): string {
  const labels = PAPER_TABLES[rq]!.map((c) => c.label);
  if (format === 'csv') {
    const header = ['Method', ...labels.flatMap((l) => [l, `${l} low`, `${l} high`])];
    const lines = rows.map((r) => [r.method, ...r.cells.flatMap((s) => (s ? [percentCell(s.value), s.low !== undefined ? percentCell(s.low) : '', s.high !== undefined ? percentCell(s.high) : ''] : ['', '', '']))]);
    return [header, ...lines].map((cells) => cells.map(csvCell).join(',')).join('\n') + '\n';
  }
  if (format === 'latex') {
    const cell = (s: PaperRow['cells'][number]): string =>
      !s ? '--' : s.low !== undefined && s.high !== undefined ? `${percentCell(s.value)}\\,{\\scriptsize[${percentCell(s.low)}, ${percentCell(s.high)}]}` : percentCell(s.value);
    const header = `Method & ${labels.map(latexText).join(' & ')} \\\\`;
    return [header, '\\midrule', ...rows.map((r) => `${latexText(r.method)} & ${r.cells.map(cell).join(' & ')} \\\\`)].join('\n') + '\n';
  }
  const line = (cells: readonly string[]): string => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(['Method', ...labels]), `|${['---', ...labels.map(() => '---')].join('|')}|`, ...rows.map((r) => line([r.method, ...r.cells.map(figureText)]))].join('\n') + '\n';
}

export async function tableCommand(args: TableArgs): Promise<number> {
  const locations = (args.runs ?? []).map(String);
  if (!locations.length) throw new UsageError('table: name at least one run folder, e.g. spade-bench table runs/base runs/spade');
  const rq = args.rq ?? 'RQ1';
  if (!PAPER_TABLES[rq]) throw new UsageError(`table: --rq ${rq}: expected one of ${Object.keys(PAPER_TABLES).join(', ')}`);
  const format = args.format ?? 'markdown';
  if (!TABLE_FORMATS.includes(format)) throw new UsageError(`table: --format ${format}: expected one of ${TABLE_FORMATS.join(', ')}`);
  const runs = locations.map(readResults);
  const names = locations.map((l) => path.basename(l.replace(/\/results\.json$/, '').replace(/\/+$/, '')));
  process.stdout.write(renderPaperTable(paperRows(runs, rq, names), rq, format));
  // A cell holds one suite's figure: a run with the same figure from several suites is told so.
  runs.forEach((run, i) => {
    for (const { label, suites } of figuresOfSeveralSuites(run, rq)) {
      process.stderr.write(`spade-bench: ${names[i]}: ${label} is recorded by ${suites.length} suites (${suites.join(', ')}); the table shows ${suites[0]}'s: run one suite per figure to compare runs\n`);
    }
  });
  return EXIT.ok;
}
