// The shards of a run on the command line, numbered from 1 as in Jest, Vitest and Playwright:
// `--shard 1/2` and `--shard 2/2`, merged, give the results.json of the whole run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, tempDir } from '../../helpers/cli.js';
import { comparable, journaledEpisodes } from '../../helpers/results.js';

const small = ['--seed', '3', '--rounds', '1', '--envs-per-round', '3', '--attempts', '1', '--limit', '7', '--workers', '1'];

test('--shard 1/2 and --shard 2/2 merged equal the whole run', async () => {
  const dir = tempDir('spade-shard-cli-');
  const run = async (out: string, ...extra: string[]): Promise<string> => {
    const r = await runCli(['run', '--out', path.join(dir, out), ...small, ...extra]);
    assert.is(r.code, 0, r.stderr);
    return path.join(dir, out);
  };
  const whole = await run('whole');
  const first = await run('s1', '--shard', '1/2');
  const second = await run('s2', '--shard', '2/2');
  assert.equal(JSON.parse(readFileSync(path.join(first, 'shard.json'), 'utf8')), { shard: '1/2', index: 0, count: 2 });
  const merged = await runCli(['merge', second, first, '-o', path.join(dir, 'all')]);
  assert.is(merged.code, 0, merged.stderr);
  assert.equal(comparable(path.join(dir, 'all')), comparable(whole));
  assert.equal(journaledEpisodes(path.join(dir, 'all')), journaledEpisodes(whole));
  assert.ok(existsSync(path.join(dir, 'all', 'report.html')));
});

test('--shard 0/2 is refused with the form that counts from 1, and nothing is written', async () => {
  const cwd = tempDir();
  const r = await runCli(['run', '--out', 'x', '--shard', '0/2'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'the first of 2 is 1/2');
  assert.not.ok(existsSync(path.join(cwd, 'x')));
});

test.run();
