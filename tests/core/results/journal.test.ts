// The journal reads runs written by earlier versions: an errored episode journaled with its
// failure only in words gets its typed kind back, so a resumed run rewards it the same way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, readJournal, verdictJson, type JournalRecord } from '../../../core/results/journal.js';
import type { GateVerdict } from '../../../core/results/results.js';
import { tempDir } from '../../helpers/cli.js';

const episode = (error: string | undefined, extra: Record<string, unknown> = {}) => ({
  type: 'episode',
  episode: { suite: 'spade', environmentId: 'r0-e1', attempt: 0, withHint: false, seed: 1, horizon: 1, outcome: error ? 'errored' : 'lost', turns: 0, totalReward: 0, wallMs: 1, ...(error ? { error } : {}), ...extra },
});

test('episodes journaled before errorKind existed get it from their message', () => {
  const dir = tempDir();
  const lines = [
    episode('sandbox timeout in step(): the call ran past 1000 ms'),
    episode('sandbox memory: the isolate ran out of memory'),
    episode('ProviderError: HTTP 500 after 3 retries'),
    episode('sandbox crash in step(): boom', { errorKind: 'crash' }),
    episode(undefined),
  ];
  writeFileSync(path.join(dir, 'journal.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const kinds = readJournal(dir).map((r) => (r as Extract<JournalRecord, { type: 'episode' }>).episode.errorKind);
  assert.equal(kinds, ['timeout', 'memory', 'agent', 'crash', undefined]);
});

test('a verdict line is the JSON of its record, its verdict written once for the journal and the verdict cache', () => {
  const dir = tempDir();
  const journal = new Journal(dir);
  const verdict: GateVerdict = {
    verdict: 'valid',
    checks: [{ name: 'load', ok: true, detail: 'has "solution", \\boxed{} \u2028 ’' }],
    gate: 'strict',
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

test.run();
