/**
 * perf/README.md is written by the benchmarks, not by hand: each bench file ends by publishing
 * its tables, which prints them and rewrites that file's section of the README (between
 * `<!-- bench:NAME -->` markers), stamped with the date, the machine, Node's version and the
 * load average when the bench started. A run rewrites only the sections of the files it ran;
 * the sections stay in the order of the file names.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const README = path.join(path.dirname(fileURLToPath(import.meta.url)), 'README.md');
const INTRO = `# What a run costs

Written by \`npm run bench\` (\`npm run bench -- NAME\` runs the files whose name contains NAME):
each file of \`perf/\` rewrites its section below with the figures of its latest run, the date
and the machine it ran on. Medians unless a column says otherwise. The figures move with the
machine's other work (the load average is given): compare figures of one run, where a table
sets two setups side by side, rather than figures of two runs.
`;

/** The load average when this process started: other work on the machine moves the figures. */
const startLoad = os.loadavg()[0]!;

export type Row = Record<string, string | number | undefined>;

export interface Table {
  /** What the rows are, above the table. */
  caption?: string;
  rows: readonly Row[];
}

export interface Publication {
  /** What the bench measures, in a sentence or two (targets included). */
  about: string;
  tables: readonly Table[];
  /** Lines under the tables: ratios, targets met, setups skipped and why. */
  notes?: readonly string[];
}

const cell = (value: string | number | undefined): string => (value === undefined ? '' : String(value).replace(/\|/g, '\\|'));

function markdownTable(rows: readonly Row[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return [`| ${columns.join(' | ')} |`, `|${columns.map(() => ' --- |').join('')}`, ...rows.map((row) => `| ${columns.map((c) => cell(row[c])).join(' | ')} |`)].join('\n');
}

/** The machine, in one line. */
export function machine(): string {
  const cpus = os.cpus();
  const gib = Math.round(os.totalmem() / 2 ** 30);
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${gib} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** Print the tables and notes, and rewrite the bench file's section of perf/README.md. */
export function publish(benchFile: string, publication: Publication): void {
  const name = path.basename(fileURLToPath(benchFile)).replace(/\.bench\.ts$/, '');
  for (const table of publication.tables) {
    if (table.caption) console.log(table.caption);
    console.table(table.rows);
  }
  for (const note of publication.notes ?? []) console.log(note);

  const stamp = `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · ${machine()} · load average ${startLoad.toFixed(2)} at the start`;
  const body = [
    `## ${name}`,
    publication.about,
    ...publication.tables.map((table) => [table.caption, markdownTable(table.rows)].filter(Boolean).join('\n\n')),
    ...(publication.notes?.length ? [publication.notes.map((note) => `- ${note.replace(/\s*\n\s*/g, ' ')}`).join('\n')] : []),
    `_${stamp}_`,
  ].join('\n\n');
  const text = existsSync(README) ? readFileSync(README, 'utf8') : INTRO;
  const sections = new Map<string, string>();
  for (const match of text.matchAll(/<!-- bench:(\S+) -->\n([\s\S]*?)\n<!-- \/bench:\1 -->/g)) sections.set(match[1]!, match[2]!);
  sections.set(name, body);
  const ordered = [...sections.keys()].sort().map((key) => `<!-- bench:${key} -->\n${sections.get(key)}\n<!-- /bench:${key} -->`);
  writeFileSync(README, `${INTRO}\n${ordered.join('\n\n')}\n`);
}

/** Three significant digits: enough for a median that moves by more than that from run to run. */
export const figure = (value: number): number => Number(value.toPrecision(3));

/** A tinybench Bench's tasks as rows: median, mean and p99 latency in ms, and the samples taken. */
export function benchRows(bench: { tasks: readonly { name: string; result: unknown }[] }): Row[] {
  return bench.tasks.map(({ name, result }) => {
    const r = result as { state: string; latency?: { p50: number; mean: number; p99: number; samplesCount: number }; error?: Error };
    if (!r.latency) return { task: name, 'median ms': r.error ? `failed: ${r.error.message.slice(0, 80)}` : r.state };
    return { task: name, 'median ms': figure(r.latency.p50), 'mean ms': figure(r.latency.mean), 'p99 ms': figure(r.latency.p99), samples: r.latency.samplesCount };
  });
}
