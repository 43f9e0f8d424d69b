// The journal: its lines, its checkpoints and segments, and how it is read back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { episodeRecord, hasJournal, Journal, journalRecords, readJournal, verdictJson, type JournalRecord } from '../../../core/results/journal.js';
import type { EpisodeResult } from '../../../core/types.js';
import type { GateVerdict } from '../../../core/results/results.js';
import { tempDir } from '../../helpers/cli.js';

test('a verdict line is the JSON of its record, its verdict written once for the journal and the verdict cache', () => {
  const dir = tempDir();
  const journal = new Journal(dir);
  const verdict: GateVerdict = {
    verdict: 'valid',
    checks: [{ name: 'load', ok: true, detail: 'has "solution", \\boxed{} \u2028 ’' }],
    gate: 'strict',
    gameType: 'single-turn',
    wallMs: 1.5,
    firstObservation: 'Tom has 3 apples.\n\nSolve the problem.',
  };
  journal.appendVerdict('gsm8k', 'gsm8k/test/"0"', verdict);
  journal.close();
  const line = readFileSync(path.join(dir, 'journal.jsonl'), 'utf8');
  assert.is(line, `${JSON.stringify({ type: 'verdict', suite: 'gsm8k', id: 'gsm8k/test/"0"', verdict })}\n`);
  assert.is(verdictJson(verdict), JSON.stringify(verdict));
  assert.is(verdictJson(verdict), verdictJson(verdict));
});

/** The files this process has open, by path. */
const openFiles = (): string[] => readdirSync('/proc/self/fd').flatMap((fd) => {
  try {
    return [readlinkSync(`/proc/self/fd/${fd}`)];
  } catch {
    return [];
  }
});

test('a checkpoint syncs in the background; closing meanwhile keeps every line, and the file is closed once the sync is done', async () => {
  const dir = tempDir();
  const journal = new Journal(dir);
  const file = path.join(dir, 'journal.jsonl');
  const lines = Array.from({ length: 2000 }, (_, i) => ({ type: 'suite-end' as const, suite: `s${i}`, wallSec: i }));
  for (const record of lines.slice(0, 1000)) journal.append(record);
  journal.checkpoint();
  // Written at once (a reader sees the lines), synced by a thread of the pool.
  assert.is(readFileSync(file, 'utf8').split('\n').length - 1, 1000);
  for (const record of lines.slice(1000)) journal.append(record);
  journal.checkpoint();
  journal.close();
  assert.throws(() => journal.append(lines[0]!), /closed/);
  assert.equal(readJournal(dir), lines);
  if (existsSync('/proc/self/fd')) assert.ok(openFiles().includes(file), 'not closed under the pending syncs');
  await journal.settled();
  if (existsSync('/proc/self/fd')) assert.not.ok(openFiles().includes(file), 'closed once they are done');
  assert.is(journal.failure, undefined);
  // Closed with nothing pending: at once.
  const other = new Journal(tempDir());
  other.append(lines[0]!);
  other.close();
  await other.settled();
  if (existsSync('/proc/self/fd')) assert.not.ok(openFiles().includes(other.file));
});

const ends = (from: number, count: number): JournalRecord[] => Array.from({ length: count }, (_, i) => ({ type: 'suite-end', suite: `suite-${from + i}-${'x'.repeat(200)}`, wallSec: from + i }));
const segmentFiles = (dir: string): string[] => (existsSync(path.join(dir, 'journal')) ? readdirSync(path.join(dir, 'journal')).sort() : []);

test('the journal closes its segment past its size and gzips it; the records read back in order, across invocations', async () => {
  const dir = tempDir();
  const first = new Journal(dir, undefined, { segmentBytes: 4096 });
  const records = ends(0, 100);
  for (const [i, r] of records.entries()) {
    first.append(r);
    if (i % 7 === 0) first.flush();
  }
  first.close();
  await first.settled();
  const closed = segmentFiles(dir);
  assert.ok(closed.length >= 3, `segments closed: ${closed.join(' ')}`);
  assert.ok(closed.every((f) => /^\d{6}\.jsonl\.gz$/.test(f)), `every closed segment gzipped: ${closed.join(' ')}`);
  assert.equal(readJournal(dir), records);
  // A resumed run appends after them, in new segments.
  const second = new Journal(dir, undefined, { segmentBytes: 4096 });
  const more = ends(100, 40);
  for (const r of more) {
    second.append(r);
    second.flush();
  }
  second.close();
  await second.settled();
  assert.equal(readJournal(dir), [...records, ...more]);
  assert.ok(segmentFiles(dir).length > closed.length);
  assert.ok(hasJournal(dir));
  assert.not.ok(hasJournal(tempDir()));
});

test('a close killed at any step leaves a journal that reads whole, once, and the next journal finishes the close', async () => {
  const records = ends(0, 30);
  const lines = (rs: JournalRecord[]): string => rs.map((r) => `${JSON.stringify(r)}\n`).join('');
  const layouts: Record<string, (dir: string) => void> = {
    // Linked into the segments folder, the open segment not yet replaced: one file under two names.
    'after the link': (dir) => {
      writeFileSync(path.join(dir, 'journal.jsonl'), lines(records));
      mkdirSync(path.join(dir, 'journal'));
      linkSync(path.join(dir, 'journal.jsonl'), path.join(dir, 'journal', '000000.jsonl'));
    },
    // Gzip under way: a partial temporary file beside the plain segment.
    'during the gzip': (dir) => {
      mkdirSync(path.join(dir, 'journal'));
      writeFileSync(path.join(dir, 'journal', '000000.jsonl'), lines(records.slice(0, 20)));
      writeFileSync(path.join(dir, 'journal', '000000.jsonl.gz.tmp'), gzipSync(lines(records.slice(0, 20))).subarray(0, 10));
      writeFileSync(path.join(dir, 'journal.jsonl'), lines(records.slice(20)));
    },
    // Renamed, its plain copy not yet removed.
    'before the plain copy is removed': (dir) => {
      mkdirSync(path.join(dir, 'journal'));
      writeFileSync(path.join(dir, 'journal', '000000.jsonl'), lines(records.slice(0, 20)));
      writeFileSync(path.join(dir, 'journal', '000000.jsonl.gz'), gzipSync(lines(records.slice(0, 20))));
      writeFileSync(path.join(dir, 'journal.jsonl'), lines(records.slice(20)));
    },
  };
  for (const [when, make] of Object.entries(layouts)) {
    const dir = tempDir();
    make(dir);
    assert.equal(readJournal(dir), records, `read whole once, killed ${when}`);
    const journal = new Journal(dir);
    journal.append(ends(30, 1)[0]!);
    journal.close();
    await journal.settled();
    assert.equal(readJournal(dir), [...records, ...ends(30, 1)], `continued after a kill ${when}`);
    assert.ok(segmentFiles(dir).every((f) => /^\d{6}\.jsonl\.gz$/.test(f)), `${when}: ${segmentFiles(dir).join(' ')}`);
  }
});

test('a torn last line of the open segment is passed over; a corrupt line elsewhere names its file and line', () => {
  const dir = tempDir();
  const [a, b] = ends(0, 2);
  mkdirSync(path.join(dir, 'journal'));
  writeFileSync(path.join(dir, 'journal', '000000.jsonl.gz'), gzipSync(`${JSON.stringify(a)}\n`));
  writeFileSync(path.join(dir, 'journal.jsonl'), `${JSON.stringify(b)}\n{"type":"suite-e`);
  assert.equal(readJournal(dir), [a, b]);
  writeFileSync(path.join(dir, 'journal', '000000.jsonl.gz'), gzipSync(`${JSON.stringify(a)}\n{oops\n${JSON.stringify(a)}\n`));
  assert.throws(() => [...journalRecords(dir)], /000000\.jsonl\.gz:2: corrupt journal line/);
});

test('--transcripts keeps the whole conversation, its last exchange, or none, and leaves the episode as it was', () => {
  const episode: EpisodeResult = {
    suite: 's', environmentId: 'e', attempt: 0, withHint: false, seed: 1, horizon: 2, outcome: 'won', turns: 2, totalReward: 1, wallMs: 1,
    messages: [{ role: 'system', content: 'rules' }, { role: 'user', content: 'o1' }, { role: 'assistant', content: 'a1' }, { role: 'user', content: 'o2' }, { role: 'assistant', content: 'a2' }],
  };
  const kept = (keep: 'full' | 'last' | 'none') => (episodeRecord(episode, keep) as Extract<JournalRecord, { type: 'episode' }>).episode.messages;
  assert.is(kept('full'), episode.messages);
  assert.equal(kept('last'), [{ role: 'user', content: 'o2' }, { role: 'assistant', content: 'a2' }]);
  assert.is(kept('none'), undefined);
  assert.is(episode.messages!.length, 5);
});

test.run();
