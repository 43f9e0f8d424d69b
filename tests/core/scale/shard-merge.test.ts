// Sharded runs: the slices of a run, merged, give the results.json of the unsharded run, and
// the merged folder is a run like any other (journal, report).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseShard, shardSuite } from '../../../core/scale/shard.js';
import { mergeShardRuns } from '../../../core/scale/merge.js';
import { renderReport } from '../../../core/setup/builtins.js';
import { createProceduralSuite } from '../../../benchmarks/procedural.js';
import { runLocally, smallConfig } from './local-run.js';
import { comparable, journaledEpisodes } from '../../helpers/results.js';
import { runCli, tempDir } from '../../helpers/cli.js';
import type { RunResults, UsageMetrics } from '../../../core/results/results.js';
import { journalRecords, JOURNAL_FILE, type JournalRecord } from '../../../core/results/journal.js';
import { PriorWork } from '../../../core/results/resume.js';

test('parseShard reads i/n counted from 1 and refuses what is not a slice', () => {
  assert.equal(parseShard('2/3'), { index: 1, count: 3 });
  assert.equal(parseShard('3/3'), { index: 2, count: 3 });
  for (const bad of ['4/3', '1', 'a/b', '-1/2', '0/0']) assert.throws(() => parseShard(bad), /--shard/, bad);
  // 0 was the first shard before shards counted from 1: the error shows the new form.
  assert.throws(() => parseShard('0/3'), /numbered from 1 to n: the first of 3 is 1\/3/);
});

test('the shards of a suite take every task exactly once, by index modulo n, after the limit', async () => {
  const suite = createProceduralSuite();
  const all = (await suite.tasks({ limit: 20 })).map((t) => t.program.id);
  const slices = await Promise.all([0, 1, 2].map((index) => shardSuite(suite, { index, count: 3 }).tasks({ limit: 20 })));
  assert.equal(slices[1]!.map((t) => t.program.id), all.filter((_, i) => i % 3 === 1));
  assert.equal(slices.flat().map((t) => t.program.id).sort(), [...all].sort());
  assert.is(shardSuite(suite, { index: 0, count: 3 }).id, 'procedural');
});

test('three shards merged: results.json equals the unsharded run; every episode is journaled once', async () => {
  const config = smallConfig({ limit: 17 });
  const whole = await runLocally(config);
  const shards: string[] = [];
  for (const index of [2, 0, 1]) shards.push(await runLocally(config, { shard: { index, count: 3 } }));
  const shard1 = JSON.parse(readFileSync(path.join(shards[2]!, 'results.json'), 'utf8')) as RunResults;
  assert.equal(shard1.suites.map((s) => s.id), ['procedural'], 'self-play runs in shard 0 only');
  assert.is(shard1.suites[0]!.environments.length, 6, 'shard 1 of 3 has tasks 1, 4, ..., 16');

  const merged = path.join(tempDir('spade-merge-'), 'merged');
  await mergeShardRuns(shards, merged, { renderReport });
  assert.equal(comparable(merged), comparable(whole));
  assert.equal(journaledEpisodes(merged), journaledEpisodes(whole));
  assert.ok(existsSync(path.join(merged, 'report.html')));
  assert.ok(readFileSync(path.join(shards[0]!, 'journal.jsonl'), 'utf8').includes('"type":"plays"'), 'the shards journal each environment\'s tally, which merge folds');
});

/** Shards 1/2 and 2/2 of a small procedural run. */
const twoShards = (): Promise<string[]> => Promise.all([0, 1].map((index) => runLocally(smallConfig({ suites: ['procedural'], limit: 4 }), { shard: { index, count: 2 } })));

/** `records` as journal lines, appended to a shard's journal. */
const appendRecords = (dir: string, ...records: JournalRecord[]): void => appendFileSync(path.join(dir, JOURNAL_FILE), records.map((r) => `${JSON.stringify(r)}\n`).join(''));

test('merged shards count every invocation\'s calls outside episodes, as a resume of the merged run reads them', async () => {
  const shards = await twoShards();
  const calls = (n: number): UsageMetrics => ({ calls: n, inputTokens: 10 * n, outputTokens: n, costUsd: n / 4, cachedCalls: 0 });
  // Shard 1/2 ran twice (stopped, then resumed): each invocation journals its own running total.
  appendRecords(shards[0]!, { type: 'usage', suite: 'procedural', usage: calls(3) }, { type: 'resume', at: 'later', journaled: 1 }, { type: 'usage', suite: 'procedural', usage: calls(2) });
  appendRecords(shards[1]!, { type: 'usage', suite: 'procedural', usage: calls(5) });
  assert.equal(shards.map((dir) => new PriorWork(journalRecords(dir)).usage('procedural')?.calls), [5, 5]);

  const merged = path.join(tempDir('spade-merge-'), 'merged');
  await mergeShardRuns(shards, merged);
  assert.equal(new PriorWork(journalRecords(merged)).usage('procedural'), calls(10));
});

test('a resume of merged shards takes the merged suite\'s wall time, not the last shard\'s', async () => {
  const shards = await twoShards();
  // Shard 1/2 was the slower one: 40 s, as its results say.
  const file = path.join(shards[0]!, 'results.json');
  const slow = JSON.parse(readFileSync(file, 'utf8')) as RunResults;
  slow.suites[0]!.metrics.throughput.wallSec = 40;
  writeFileSync(file, JSON.stringify(slow));
  const merged = path.join(tempDir('spade-merge-'), 'merged');
  const results = await mergeShardRuns(shards, merged);
  assert.is(results.suites[0]!.metrics.throughput.wallSec, 40, 'the suite took as long as its slowest shard');
  // The shards' own lines, copied as they were, would give the last shard's time.
  assert.is(new PriorWork(journalRecords(merged)).wallSec('procedural'), 40);
});

test('a shard resumed with --retry-errored: the errors it did again are not the merged run\'s', async () => {
  const shards = await twoShards();
  const error = (id: string): JournalRecord => ({ type: 'errored', suite: 'procedural', error: { id, round: 0, stage: 'hint', errorClass: 'provider:server', message: 'HTTP 503' } });
  // Shard 1/2: slot a errored, then a resume with --retry-errored did it again; slot b errored after that resume.
  appendRecords(shards[0]!, error('a'), { type: 'resume', at: 'later', journaled: 1, retryErrored: true }, error('b'));
  // Shard 2/2: slot c errored, and no resume retried it.
  appendRecords(shards[1]!, error('c'));
  const own = new PriorWork(journalRecords(shards[0]!));
  assert.equal([own.slotError('procedural', 'a'), own.slotError('procedural', 'b')?.id], [undefined, 'b']);

  const merged = path.join(tempDir('spade-merge-'), 'merged');
  await mergeShardRuns(shards, merged);
  const prior = new PriorWork(journalRecords(merged));
  assert.equal(['a', 'b', 'c'].map((id) => prior.slotError('procedural', id)?.id), [undefined, 'b', 'c']);
});

test('the merged run lists every shard\'s errored work, and why each shard that stopped early stopped', async () => {
  const shards = await twoShards();
  const timeout = (count: number, message: string) => ({ errorClass: 'provider:timeout', failure: true, count, byStage: { episode: count }, bySuite: { procedural: count }, messages: [message] });
  const edit = (dir: string, change: (results: RunResults) => void): void => {
    const file = path.join(dir, 'results.json');
    const results = JSON.parse(readFileSync(file, 'utf8')) as RunResults;
    change(results);
    writeFileSync(file, JSON.stringify(results));
  };
  edit(shards[0]!, (r) => {
    r.run.errors = { total: 2, failures: 2, classes: [timeout(2, 'timed out after 60 s')] };
  });
  edit(shards[1]!, (r) => {
    r.run.errors = { total: 4, failures: 3, classes: [timeout(3, 'timed out after 30 s'), { errorClass: 'sandbox:timeout', failure: false, count: 1, byStage: { episode: 1 }, bySuite: { procedural: 1 }, messages: ['step() ran past 1000 ms'] }] };
    r.run.complete = false;
    r.run.stopReason = 'interrupted (SIGINT)';
  });
  const merged = await mergeShardRuns(shards, path.join(tempDir('spade-merge-'), 'merged'));
  assert.equal(merged.run.errors, {
    total: 6,
    failures: 5,
    classes: [{ ...timeout(5, 'timed out after 60 s'), messages: ['timed out after 60 s', 'timed out after 30 s'] }, { errorClass: 'sandbox:timeout', failure: false, count: 1, byStage: { episode: 1 }, bySuite: { procedural: 1 }, messages: ['step() ran past 1000 ms'] }],
  });
  assert.equal([merged.run.complete, merged.run.stopReason], [false, 'shard 2/2: interrupted (SIGINT)']);
});

test('a shard resumed without --shard stays that shard; a --shard that differs is refused', async () => {
  const cwd = tempDir();
  const args = ['run', '--suites', 'procedural', '--limit', '9', '--attempts', '1', '--out', 's2'];
  let r = await runCli([...args, '--shard', '2/3'], { cwd });
  assert.is(r.code, 0, r.stderr);
  const played = (): number[] => (JSON.parse(readFileSync(path.join(cwd, 's2', 'results.json'), 'utf8')) as RunResults).suites.map((suite) => suite.metrics.validity.proposed);
  const shard = played();
  assert.equal(shard, [3]);
  r = await runCli([...args, '--resume'], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.equal(played(), shard, 'the resume played the whole run in the shard\'s folder');
  for (const [flag, message] of [['1/3', 'holds shard 2/3 of a run; resume it as that shard (leave --shard out)']]) {
    r = await runCli([...args, '--resume', '--shard', flag!], { cwd });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, message!);
  }
  // A whole run is not resumed as a shard of itself.
  r = await runCli(['run', '--suites', 'procedural', '--limit', '3', '--attempts', '1', '--out', 'whole'], { cwd });
  assert.is(r.code, 0, r.stderr);
  r = await runCli(['run', '--suites', 'procedural', '--limit', '3', '--attempts', '1', '--out', 'whole', '--resume', '--shard', '1/2'], { cwd });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, 'holds a whole run, not a shard; resume it without --shard');
});

test('merge refuses a missing shard and a folder that is not a shard', async () => {
  const config = smallConfig({ suites: ['procedural'], limit: 4 });
  const a = await runLocally(config, { shard: { index: 0, count: 2 } });
  const failure = (dirs: string[]): Promise<string> => mergeShardRuns(dirs, path.join(tempDir(), 'm')).then(() => 'merged', (e: Error) => e.message);
  assert.match(await failure([a]), /shards 1\/2 to 2\/2/);
  const whole = await runLocally(config);
  assert.match(await failure([a, whole]), /not a shard/);
  // A shard whose journal lacks an environment's tally: named, not merged.
  const b = await runLocally(config, { shard: { index: 1, count: 2 } });
  const lines = readFileSync(path.join(b, JOURNAL_FILE), 'utf8').split('\n').filter((l) => l && !l.includes('"type":"plays"'));
  writeFileSync(path.join(b, JOURNAL_FILE), `${lines.join('\n')}\n`);
  assert.match(await failure([a, b]), /journal\.jsonl: .*no plays line for procedural\//);
  // Shards of two different runs: the keys that differ, with both values.
  const other = await runLocally({ ...config, seed: config.seed + 1 }, { shard: { index: 1, count: 2 } });
  assert.match(await failure([a, other]), `was run with another config than ${a}: seed ${config.seed} there, ${config.seed + 1} here`);
});

test.run();
