// The journal reads runs written by earlier versions: an errored episode journaled with its
// failure only in words gets its typed kind back, so a resumed run rewards it the same way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readJournal, type JournalRecord } from '../../core/journal.js';
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

test.run();
