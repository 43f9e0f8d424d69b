/**
 * The HTML comparison report: ONE self-contained file that opens from file:// with no network.
 * Charts are SVG rendered at build time; the only script filters the environment browser, and a
 * Content-Security-Policy allows nothing else (no requests, no other script), as a second line
 * of defence behind escaping every string that comes from results.
 */
import { createHash } from 'node:crypto';
import type { RunResults } from '../core/results/results.js';
import { escapeHtml } from './escape.js';
import { STYLE } from './style.js';
import { runNames } from './runs.js';
import { runCard } from './run-card.js';
import { overviewSection } from './overview.js';
import { poolRows } from './pools.js';
import { curriculumSection } from './curriculum.js';
import { designerDynamicsSection } from './designer-dynamics.js';
import { horizonSection } from './horizon.js';
import { BROWSER_SCRIPT, browserSectionParts, DEFAULT_BROWSER_LIMITS, type BrowserLimits } from './browser.js';
import { paperTableSection } from './paper-table.js';
import { summarySection } from './summary.js';
import { bannerHtml, erroredRuns, runWarnings } from './banner.js';

export interface HtmlReportOptions {
  title?: string;
  /** Links shown under the title (e.g. one page per run in a published site). */
  links?: { href: string; label: string }[];
  browser?: Partial<BrowserLimits>;
}

const CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${createHash('sha256').update(BROWSER_SCRIPT).digest('base64')}'; base-uri 'none'; form-action 'none'`;

export async function renderHtmlReport(runs: readonly RunResults[], options: HtmlReportOptions = {}): Promise<string> {
  return (await htmlReportParts(runs, options)).join('');
}

/**
 * The report in parts, in order (joined, renderHtmlReport's text): the environment browser,
 * most of the page, comes one environment at a time, so that a writer need never hold the
 * page as one string.
 */
export async function htmlReportParts(runs: readonly RunResults[], options: HtmlReportOptions = {}): Promise<string[]> {
  if (runs.length === 0) throw new RangeError('renderHtmlReport needs at least one run');
  const names = runNames(runs);
  const multipleRuns = runs.length > 1;
  const rows = poolRows(runs, names);
  const errored = erroredRuns(runs, names);
  const [overview, curriculum, dynamics, horizon] = await Promise.all([
    overviewSection(rows, multipleRuns),
    curriculumSection(runs, names),
    designerDynamicsSection(runs, names),
    horizonSection(rows, multipleRuns),
  ]);
  const title = options.title ?? `spade-bench report: ${names.join(' vs ')}`;
  const links = (options.links ?? []).map((link) => `<a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a>`).join('');
  const head = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
<h1>${escapeHtml(title)}</h1>
<div class="muted">SPADE self-play against static suites on goal diversity, verifier validity, throughput and long-horizon success. Generated ${escapeHtml(new Date().toISOString())}.</div>
<nav class="toc"><a href="#summary">Summary</a><a href="#runs">Runs</a><a href="#overview">Overview</a><a href="#curriculum">Curriculum</a><a href="#designer-dynamics">Designer dynamics</a><a href="#horizon">Long-horizon success</a><a href="#environments">Environments</a>${links}</nav>
${bannerHtml(errored)}
${runWarnings(runs, names)}
</header>
${summarySection(rows, names, runs)}
${paperTableSection(runs, names)}
<section id="runs"><h2>Runs</h2><div class="runs">${runs.map((results, i) => runCard(results, names[i]!, multipleRuns ? rows.find((row) => row.runIndex === i)?.colour : undefined)).join('\n')}</div></section>
${overview}
${curriculum}
${dynamics}
${horizon}
`;
  const foot = `
<footer>spade-bench results schema v${escapeHtml(runs[0]!.schemaVersion)} · this file makes no network requests.</footer>
</main>
<script>${BROWSER_SCRIPT}</script>
</body>
</html>
`;
  return [head, ...browserSectionParts(runs, names, { ...DEFAULT_BROWSER_LIMITS, ...options.browser }), foot];
}
