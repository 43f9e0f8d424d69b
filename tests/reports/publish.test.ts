import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { publishSite, safeFileName } from '../../reports/publish.js';
import { syntheticRun } from './fixtures.js';

test('index, one page per run, and the results JSON', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'spade-site-'));
  try {
    const runs = [syntheticRun({ runId: 'model-A' }), syntheticRun({ runId: '../../etc/passwd', seed: 2 })];
    await publishSite(runs, dir);
    assert.ok(existsSync(path.join(dir, 'index.html')));
    const pages = readdirSync(path.join(dir, 'runs')).sort();
    assert.equal(pages, ['etc_passwd.html', 'model-A.html']);
    const index = readFileSync(path.join(dir, 'index.html'), 'utf8');
    assert.ok(index.includes('href="runs/model-A.html"') && index.includes('href="runs/etc_passwd.html"'));
    assert.equal(JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')).length, 2);
    // no temporary files are left behind
    assert.not.ok(readdirSync(dir).some((name) => name.endsWith('.tmp')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('file names from run ids stay inside the folder', () => {
  assert.is(safeFileName('../x/y'), 'x_y');
  assert.is(safeFileName('...'), 'run');
});

test.run();
