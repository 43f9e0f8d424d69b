// The journal reads runs written by earlier versions: an errored episode journaled with its
// failure only in words gets its typed kind back, so a resumed run rewards it the same way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, readJournal, verdictJson, type JournalRecord } from '../../core/journal.js';
import type { GateVerdict } from '../../core/results.js';
import { tempDir } from '../helpers/cli.js';

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

test.run();
