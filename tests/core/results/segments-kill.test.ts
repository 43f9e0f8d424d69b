// A run whose journal closes and gzips segments all along (small segments), killed with SIGKILL
// at five random moments (mid-write, mid-close, mid-gzip alike) and resumed each time, ends with
// the results of a run never interrupted, every episode journaled once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { runCli, startCli, tempDir } from '../../helpers/cli.js';
import { mulberry32 } from '../../../core/run/random.js';
import { readJournal } from '../../../core/results/journal.js';
import { comparable } from '../../helpers/results.js';

const args = ['--seed', '3', '--rounds', '1', '--envs-per-round', '4', '--attempts', '100', '--suites', 'procedural', '--limit', '20', '--environments-in-flight', '2'];
const env = { ...process.env, SPADE_BENCH_JOURNAL_SEGMENT_BYTES: String(64 * 1024) };

/** The episodes journaled in `dir`, as suite/environment/attempt/hint keys, sorted (duplicates kept). */
function episodes(dir: string): string[] {
  let records;
  try {
    records = readJournal(dir);
  } catch {
    return []; // not started yet
  }
  return records.flatMap((r) => (r.type === 'episode' ? [`${r.episode.suite}/${r.episode.environmentId}/${r.episode.attempt}/${r.episode.withHint}`] : [])).sort();
}

async function killAt(out: string, count: number): Promise<boolean> {
  const { child, done } = startCli(['run', '--out', out, ...args], { env });
  let killed = false;
  const timer = setInterval(() => {
    if (!killed && episodes(out).length >= count) killed = child.kill('SIGKILL');
  }, 20);
  const result = await done;
  clearInterval(timer);
  return killed && result.signal === 'SIGKILL';
}

test('killed with SIGKILL at five random moments of a run of small gzipped segments, resumed each time: the same results', async () => {
  const reference = path.join(tempDir(), 'whole');
  const whole = await runCli(['run', '--out', reference, ...args], { env });
  assert.is(whole.code, 0, whole.stderr);
  const expected = comparable(reference);
  const expectedEpisodes = episodes(reference);
  const total = expectedEpisodes.length;
  assert.ok(total >= 2000, `a run of 2,000 episodes or more (${total})`);
  const closed = readdirSync(path.join(reference, 'journal'));
  assert.ok(closed.length >= 5 && closed.every((f) => f.endsWith('.jsonl.gz')), `segments closed and gzipped: ${closed.length}`);

  const random = mulberry32(Date.now() >>> 0);
  const points = Array.from({ length: 5 }, () => 1 + Math.floor(random() * (total - 2)));
  let kills = 0;
  for (const point of points) {
    const out = path.join(tempDir(), `killed-at-${point}`);
    if (await killAt(out, point)) kills++;
    const resumed = await runCli(['run', '--out', out, '--resume'], { env });
    assert.is(resumed.code, 0, `resume after a kill at episode ${point}: ${resumed.stderr}`);
    assert.ok(existsSync(path.join(out, 'results.json')));
    assert.equal(comparable(out), expected, `results after a kill at episode ${point}`);
    assert.equal(episodes(out), expectedEpisodes, `every episode journaled once (kill at episode ${point})`);
  }
  assert.ok(kills >= 3, `at least three runs were really killed mid-way (${kills} of ${points.length})`);
});

test.run();
