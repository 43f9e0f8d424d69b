/**
 * `spade-bench report RUN_DIR...`: the comparison report of one or more runs, as one
 * self-contained HTML file, Markdown (for CI step summaries) or JSON; or a static site.
 */
import type { FlagSpec, PositionalSpec } from './commands.js';
import path from 'node:path';
import { EXIT, UsageError } from '../errors.js';
import { readResults } from '../results/results-file.js';
import { writeFileAtomic } from '../results/fs.js';

export const reportPositionals: PositionalSpec[] = [
  { name: 'runs', variadic: true, describe: 'Run folders (or their results.json files); several are shown side by side' },
];

export const reportOptions: Record<string, FlagSpec> = {
  o: { type: 'string', alias: 'out', arg: 'FILE', describe: 'Output file; "-" prints to standard output [default: report.html / report.md / report.json]' },
  format: { type: 'string', choices: ['html', 'markdown', 'json'], default: 'html', describe: 'html: one self-contained file; markdown: a summary for CI step summaries; json: the results array' },
  publish: { type: 'string', arg: 'DIR', describe: 'Write a static site to this folder instead: index.html, one page per run, results.json' },
};

export interface ReportArgs {
  runs?: string[];
  o?: string;
  format?: 'html' | 'markdown' | 'json';
  publish?: string;
}

export { readResults };

export async function reportCommand(args: ReportArgs): Promise<number> {
  const runs = (args.runs ?? []).map(readResults);
  if (!runs.length) throw new UsageError('report: name at least one run folder');
  if (args.publish) {
    const { publishSite } = await import('../../reports/publish.js');
    const written = await publishSite(runs, args.publish);
    process.stdout.write(`published ${written.length} files to ${args.publish} (open ${path.join(args.publish, 'index.html')})\n`);
    return EXIT.ok;
  }
  const format = args.format ?? 'html';
  let text: string;
  if (format === 'markdown') text = (await import('../../reports/markdown.js')).renderMarkdownReport(runs);
  else if (format === 'json') text = `${JSON.stringify(runs, null, 2)}\n`;
  else text = await (await import('../../reports/html.js')).renderHtmlReport(runs);
  const out = args.o ?? `report.${format === 'markdown' ? 'md' : format}`;
  if (out === '-') process.stdout.write(text);
  else {
    writeFileAtomic(out, text);
    process.stderr.write(`wrote ${out} (${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB)\n`);
  }
  return EXIT.ok;
}
