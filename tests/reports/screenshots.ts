/**
 * Makes docs/images/report-1400.webp and report-820.webp: the report comparing three real runs,
 * as Debian's Chromium shows it at 1400 px and at 820 px.
 *
 * The three runs are made by the real command line, from source:
 *  - `offline`: the offline default (`spade-bench run`, every option at its default);
 *  - `local-server`: the same with `--agent openai:echo` against a local OpenAI-compatible
 *    server on 127.0.0.1 (tests/helpers/wire-servers.ts: it answers each call with the last
 *    user message, so the agent loses almost every game);
 *  - `server-down`: a server that answers every call with HTTP 500 and `--max-errors 100%`,
 *    so the run goes as far as it can and records every episode as errored (one retry a call,
 *    set in a config file, keeps it short).
 * Then `spade-bench report` of the three, and full-page screenshots cut after the overview's
 * charts (the whole report is many screens long), encoded as WebP by Chromium.
 *
 *   node --no-node-snapshot --import tsx tests/reports/screenshots.ts [WORK_DIR]
 *
 * WORK_DIR (default: a new folder under the system's temp folder) keeps the runs; runs already
 * in it are reused, so the report can be shot again without running the models again. Prints
 * the overlapping x-axis labels it finds (none is expected) and exits 1 if there are any.
 */
import { existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing, collectErrors, xLabelOverlaps } from '../helpers/chromium.js';
import { repoRoot, runCli } from '../helpers/cli.js';
import { startWireServer } from '../helpers/wire-servers.js';

const WIDTHS = [1400, 820];
/** Most pixels kept from the top of each full-page screenshot (banners, summary, runs, the overview's charts). */
const MAX_HEIGHT = 5200;
/** WebP quality, 0 to 1. */
const QUALITY = 0.8;

const missing = chromiumMissing();
if (missing) {
  console.error(`cannot make the screenshots: ${missing}`);
  process.exit(2);
}

const work = path.resolve(process.argv[2] ?? mkdtempSync(path.join(os.tmpdir(), 'spade-shots-')));
mkdirSync(work, { recursive: true });
const images = path.join(repoRoot, 'docs/images');
mkdirSync(images, { recursive: true });

/** Runs the command line, failing on an exit code that is not one of `codes`. */
async function cli(args: string[], env: NodeJS.ProcessEnv = {}, codes = [0]): Promise<void> {
  console.log(`spade-bench ${args.join(' ')}`);
  const result = await runCli(args, { cwd: work, env });
  if (!codes.includes(result.code ?? -1)) {
    throw new Error(`spade-bench ${args.join(' ')} exited ${result.code}:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`);
  }
  console.log(result.stdout.trim().split('\n').slice(-3).join('\n'));
}

const done = (name: string) => existsSync(path.join(work, name, 'results.json'));

if (!done('offline')) await cli(['run', '--out', 'offline']);

if (!done('local-server')) {
  const server = await startWireServer('openai', { record: false });
  try {
    await cli(['run', '--out', 'local-server', '--agent', 'openai:echo'], { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-local' });
  } finally {
    await server.close();
  }
}

if (!done('server-down')) {
  const server = await startWireServer('openai', { record: false });
  server.setDefault({ kind: 'error', status: 500, message: 'the model server failed' });
  const config = path.join(work, 'one-retry.config.mjs');
  writeFileSync(config, 'export default { providers: { openai: { maxRetries: 1 } } };\n');
  try {
    // The run completes with every episode errored; its exit code says so (not 0).
    await cli(['run', '--out', 'server-down', '--agent', 'openai:echo', '--max-errors', '100%', '--config', config], { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-local' }, [0, 1, 4]);
  } finally {
    await server.close();
  }
}

const report = path.join(work, 'compare.html');
await cli(['report', 'offline', 'local-server', 'server-down', '-o', report]);

const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
let failed = false;
try {
  for (const width of WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors = collectErrors(page);
    await page.goto(pathToFileURL(report).href, { waitUntil: 'load' });
    const { labels, overlaps } = await xLabelOverlaps(page);
    console.log(`${width} px: ${labels} x labels, ${overlaps.length} overlapping${overlaps.length ? `: ${JSON.stringify(overlaps.slice(0, 10))}` : ''}`);
    if (overlaps.length > 0 || errors.length > 0) failed = true;
    if (errors.length > 0) console.log(`${width} px: page errors: ${errors.join('\n')}`);
    // The first screens: down to the end of the overview's charts, at most MAX_HEIGHT.
    const full = (await page.evaluate('document.documentElement.scrollHeight')) as number;
    const chartsEnd = (await page.evaluate("Math.ceil(document.querySelector('.charts').getBoundingClientRect().bottom + scrollY + 16)")) as number;
    const height = Math.min(full, chartsEnd, MAX_HEIGHT);
    const png = await page.screenshot({ type: 'png', fullPage: true, clip: { x: 0, y: 0, width, height } });
    // Encoded as WebP by the browser itself (a tenth of the PNG's size for a page of text and flat colours).
    const webp = (await page.evaluate(`(async () => {
      const image = new Image();
      image.src = 'data:image/png;base64,${png.toString('base64')}';
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      canvas.getContext('2d').drawImage(image, 0, 0);
      return canvas.toDataURL('image/webp', ${QUALITY});
    })()`)) as string;
    if (!webp.startsWith('data:image/webp;base64,')) throw new Error(`Chromium did not encode WebP: ${webp.slice(0, 40)}`);
    const file = path.join(images, `report-${width}.webp`);
    writeFileSync(file, Buffer.from(webp.slice(webp.indexOf(',') + 1), 'base64'));
    console.log(`${path.relative(repoRoot, file)}: ${width} x ${height} of ${full} px, ${Math.round(statSync(file).size / 1024)} KiB`);
    await page.close();
  }
} finally {
  await browser.close();
}
console.log(`runs and report kept in ${work}`);
process.exitCode = failed ? 1 : 0;
