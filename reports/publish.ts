/**
 * Publish a static site: `index.html` comparing every run (with links to each run's page),
 * `runs/<name>.html` per run, and `results.json` (the results array). Every file is written
 * atomically, so a half-written site is never served.
 */
import path from 'node:path';
import type { RunResults } from '../core/results/results.js';
import { writeFileAtomic } from '../core/results/fs.js';
import { renderHtmlReport } from './html.js';
import { runNames } from './runs.js';

/** A file name made only of safe characters (run ids come from results). */
export function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 100) || 'run';
}

/** Writes the site into `dir`; returns the paths written. */
export async function publishSite(runs: readonly RunResults[], dir: string): Promise<string[]> {
  const names = runNames(runs);
  const used = new Set<string>();
  const pages = names.map((name) => {
    let file = safeFileName(name);
    for (let n = 2; used.has(file); n++) file = `${safeFileName(name)}-${n}`;
    used.add(file);
    return `runs/${file}.html`;
  });
  const written: string[] = [];
  const write = (relative: string, data: string) => {
    const target = path.join(dir, relative);
    writeFileAtomic(target, data);
    written.push(target);
  };
  write('index.html', await renderHtmlReport(runs, { links: pages.map((href, i) => ({ href, label: `run ${names[i]}` })) }));
  for (const [i, results] of runs.entries()) {
    write(pages[i]!, await renderHtmlReport([results], { title: `spade-bench run ${names[i]}`, links: [{ href: '../index.html', label: 'all runs' }] }));
  }
  write('results.json', `${JSON.stringify(runs, null, 2)}\n`);
  return written;
}
