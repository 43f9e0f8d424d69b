// Faults mid-run: a provider that fails a share of its calls, a provider that is down
// (past --max-errors the run fails cleanly, results kept, resumable), and a disk that fills up
// while the journal is written (ENOSPC).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { runCli, tempDir } from '../../helpers/cli.js';
import { startWireServer } from '../../helpers/wire-servers.js';
import { readJournal } from '../../../core/results/journal.js';
import type { RunResults } from '../../../core/results/results.js';

const KEY = 'sk-faults-test-0b8d';

async function modelRun(cwd: string, out: string, extra: string[], baseURL: string, maxRetries = 4) {
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ cache: false, providers: { openai: { timeoutMs: 3000, maxRetries, retry: { baseDelayMs: 1, maxDelayMs: 2 } } } }));
  return runCli(['run', '--out', out, '--agent', 'openai:m', '--suites', 'procedural', '--limit', '12', '--attempts', '1', '--environments-in-flight', '2', ...extra], {
    cwd,
    env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: baseURL },
  });
}

test('a provider failing a share of its calls: retries carry the run through', async () => {
  const server = await startWireServer('openai');
  // One call in five fails (500, 429, dropped connection, in turn): each is retried.
  const failures = [{ kind: 'error', status: 500 }, { kind: 'error', status: 429, headers: { 'retry-after': '0' } }, { kind: 'drop' }] as const;
  const steps = Array.from({ length: 80 }, (_, i) => (i % 5 === 4 ? failures[(i / 5) % 3 | 0]! : { kind: 'reply' as const, text: '\\boxed{1}' }));
  server.script(...steps);
  server.setDefault({ kind: 'reply', text: '\\boxed{1}' });
  try {
    const cwd = tempDir();
    // The failures are served by request order, and episodes are played at once: a call's
    // retries may land on failing turns again (with 4 retries, about 1 run in 40 had one call
    // fail 5 times in a row). With 8, that takes 9 of the 16 failures: the share never exhausts them.
    const r = await modelRun(cwd, 'out', [], server.baseURL, 8);
    assert.is(r.code, 0, r.stderr);
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    assert.is(results.suites[0]!.metrics.success.errored, 0, String(readFileSync(path.join(cwd, 'out/journal.jsonl'), 'utf8').match(/"error":"[^"]*"/g)));
    assert.is(results.suites[0]!.metrics.success.episodes, 12);
    assert.ok(server.requests.length > results.suites[0]!.metrics.usage.calls, 'failed calls were retried');
  } finally {
    await server.close();
  }
});

test('a provider that is down: episodes are errored (never losses), past --max-errors the run fails with exit 4, and --retry-errored resumes it', async () => {
  const server = await startWireServer('openai');
  server.setDefault({ kind: 'error', status: 503, message: 'overloaded' });
  const cwd = tempDir();
  try {
    const r = await modelRun(cwd, 'out', ['--max-errors', '3'], server.baseURL);
    assert.is(r.code, 4, r.stderr);
    assert.match(r.stderr, '--max-errors 3');
    assert.match(r.stderr, 'overloaded');
    const results = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    assert.is(results.run.complete, false);
    assert.match(results.run.stopReason!, 'provider:server');
    const success = results.suites[0]!.metrics.success;
    assert.ok(success.errored > 3, `errored episodes counted (${success.errored})`);
    assert.is(success.lost, 0, 'an errored episode is not a loss');
    assert.not.ok(readFileSync(path.join(cwd, 'out/journal.jsonl'), 'utf8').includes(KEY), 'no key in the journal');
    // The provider is back: the run resumes and completes.
    server.setDefault({ kind: 'reply', text: '\\boxed{1}' });
    // A plain --resume keeps the errored episodes, more than allowed: it refuses, and says how to continue.
    const kept = await runCli(['run', '--out', 'out', '--resume'], { cwd, env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.baseURL } });
    assert.is(kept.code, 4, kept.stderr);
    assert.match(kept.stderr, '--retry-errored');
    const resumed = await runCli(['run', '--out', 'out', '--resume', '--retry-errored'], { cwd, env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.baseURL } });
    assert.is(resumed.code, 0, resumed.stderr);
    const done = JSON.parse(readFileSync(path.join(cwd, 'out/results.json'), 'utf8')) as RunResults;
    assert.is(done.run.complete, true);
    assert.is(done.suites[0]!.metrics.success.episodes, 12);
    assert.is(done.suites[0]!.metrics.success.errored, 0, 'the errored episodes were played again');
  } finally {
    await server.close();
  }
});

test('a password in the provider\'s base URL reaches no output: console, journal, results, report', async () => {
  const server = await startWireServer('openai');
  const cwd = tempDir();
  try {
    // fetch refuses a URL with credentials, so every call fails, and its error names the URL.
    const url = new URL(server.baseURL);
    url.username = 'proxyuser';
    url.password = 'pr0xy-secret-0a7e';
    const r = await modelRun(cwd, 'out', [], url.toString());
    assert.is(r.code, 4, r.stderr);
    assert.match(r.stderr, `cannot send a request to http://proxyuser:[redacted]@${url.host}`, 'the error still says which address');
    assert.is(server.requests.length, 0);
    assert.match(r.stderr, 'after 1 attempt', 'a request that cannot be made is not retried');
    const outputs = { stdout: r.stdout, stderr: r.stderr, ...Object.fromEntries(['journal.jsonl', 'results.json', 'report.html'].map((f) => [f, readFileSync(path.join(cwd, 'out', f), 'utf8')])) };
    for (const [where, text] of Object.entries(outputs)) assert.not.ok(text.includes('pr0xy-secret-0a7e'), `no password in ${where}`);
  } finally {
    await server.close();
  }
});

const canMount = (() => {
  if (process.getuid?.() !== 0) return false;
  try {
    const probe = tempDir();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

(canMount ? test : test.skip)('a full disk (ENOSPC) while journaling: a clear message, exit 3, the journal kept, and the run resumes elsewhere', async () => {
  const disk = tempDir();
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96k', 'tmpfs', disk]);
  try {
    const out = path.join(disk, 'run');
    const r = await runCli(['run', '--out', out, '--suites', 'procedural', '--attempts', '4']);
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, 'ENOSPC');
    assert.match(r.stderr, '--resume');
    const records = readJournal(out);
    assert.ok(records.filter((x) => x.type === 'episode').length > 10, 'episodes before the disk filled are in the journal');
    // Free space (move the run to a roomy disk) and continue.
    const moved = path.join(tempDir(), 'run');
    cpSync(out, moved, { recursive: true });
    const resumed = await runCli(['run', '--out', moved, '--resume']);
    assert.is(resumed.code, 0, resumed.stderr);
    assert.ok(existsSync(path.join(moved, 'results.json')));
    assert.is((JSON.parse(readFileSync(path.join(moved, 'results.json'), 'utf8')) as RunResults).run.complete, true);
  } finally {
    execFileSync('umount', [disk]);
  }
});
if (!canMount) console.log('skipped: ENOSPC test needs root and tmpfs mounts');

test.run();
