/**
 * `run --suites spade,rlve-adaptive` with the reference policy: both curricula run in rounds,
 * and the report, opened in Debian's Chromium from file://, shows them round by round side by
 * side (self-play's designer, RLVE's sliding windows), with no console error. A screenshot is
 * kept in tests/artifacts/curricula.png. Skipped where Chromium or the cpython jail is missing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.js';
import type { RoundLogKey, RunResults } from '../../core/results/results.js';
import { ROUND_LOG_KEYS } from '../../core/selfplay/round-log.js';
import { checkJail } from '../../plugins/sandboxes/cpython/jail.js';
import { repoRoot, runCli, tempDir } from '../helpers/cli.js';

const jailProblem = checkJail().problem;

if (!existsSync(CHROMIUM) || jailProblem) {
  console.log(`skipped: ${jailProblem ? `the cpython sandbox cannot start here: ${jailProblem}` : 'chromium not installed'}`);
  test.skip('run --suites spade,rlve-adaptive, report in Chromium', () => {});
} else {
  test('run --suites spade,rlve-adaptive: both curricula round by round, side by side, in Chromium', async () => {
    const dir = tempDir('spade-curricula-');
    try {
      // Small windows' checks, so that the reference agent's wins move them within four rounds.
      const config = path.join(dir, 'spade.config.json');
      writeFileSync(config, JSON.stringify({ curriculum: { tauNum: 4, tauAcc: 0.75 } }));
      const out = path.join(dir, 'run');
      const result = await runCli(['run', '--suites', 'spade,rlve-adaptive', '--config', config, '--rounds', '4', '--python-sandbox', 'cpython',
        '--data-dir', path.resolve(repoRoot, '../shared/datasets'), '--out', out]);
      assert.is(result.code, 0, result.stderr);
      assert.match(result.stdout + result.stderr, /rlve-adaptive round 3 of 0–3: .* windows up to/);
      const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults;
      assert.equal(results.suites.map((s) => [s.id, s.kind, s.rounds.length]), [['spade', 'selfplay', 4], ['rlve-adaptive', 'curriculum', 4]]);
      const adaptive = results.suites[1]!;
      assert.equal(new Set(adaptive.environments.map((e) => e.family)).size, 16, 'official16');
      assert.ok(adaptive.rounds.reduce((n, r) => n + r.window!.promotions, 0) > 0, 'the reference agent\'s wins move windows up');
      assert.ok(adaptive.rounds.at(-1)!.window!.maxHigh >= 1);
      assert.ok(adaptive.metrics.success.byDifficulty!.length >= 2, 'success by difficulty');
      // SPADE's round log in every round of both pools: every figure, null only with a reason.
      for (const suite of results.suites) {
        for (const round of suite.rounds) {
          assert.equal(Object.keys(round.log!.figures).sort(), [...ROUND_LOG_KEYS].sort(), `${suite.id} round ${round.round}`);
          for (const [key, value] of Object.entries(round.log!.figures)) assert.ok(value !== null || round.log!.missing[key as RoundLogKey], `${suite.id} ${key}`);
        }
      }
      assert.match(adaptive.rounds[0]!.log!.missing.rHint!, /without a hint/);
      assert.ok(results.suites[0]!.rounds.every((r) => typeof r.log!.figures.meanTurns === 'number'), 'self-play rounds were played');

      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        const errors: string[] = [];
        page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(pathToFileURL(path.join(out, 'report.html')).href, { waitUntil: 'load' });
        assert.equal(errors, []);
        const section = page.locator('#curriculum');
        const text = (await section.textContent())!;
        for (const series of ['spade · no hint', 'spade · with hint', 'rlve-adaptive', 'rlve-adaptive · window top', 'spade · played']) assert.ok(text.includes(series), `the curriculum charts show ${series}`);
        const marks = await section.locator('figure svg').evaluateAll((svgs) => svgs.map((svg) => svg.querySelectorAll('path[d]:not([d=""])').length));
        assert.ok(marks.length >= 4 && marks.every((n) => n > 0), String(marks));
        assert.is(await section.locator('table tbody tr').count(), 4, 'the windows, round by round');
        assert.ok((await page.locator('#overview').textContent())!.includes('curriculum'));
        assert.is(await page.locator('#designer-dynamics table.round-log').count(), 2, 'a round-log table per pool');
        assert.ok((await page.locator('#horizon').textContent())!.includes('Success by difficulty'));
        mkdirSync(path.join(repoRoot, 'tests/artifacts'), { recursive: true });
        await section.screenshot({ path: path.join(repoRoot, 'tests/artifacts/curricula.png') });
      } finally {
        await browser.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test.run();
