import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packagesLoadedBy, runCli, startCli, tempDir } from '../../helpers/cli.js';
import type { RunResults } from '../../../core/results/results.js';
import { DEFAULTS } from '../../../core/config/options.js';

const small = ['--rounds', '2', '--envs-per-round', '6', '--attempts', '2', '--limit', '14', '--environments-in-flight', '2'];

test('the offline default writes results.json, report.html and the journal', async () => {
  const out = path.join(tempDir(), 'run');
  const r = await runCli(['run', '--out', out, '--workers', '2', ...small]);
  assert.is(r.code, 0, r.stderr);
  for (const f of ['results.json', 'report.html', 'journal.jsonl']) assert.ok(existsSync(path.join(out, f)), `${f} written`);
  const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults;
  assert.is(results.schemaVersion, 2);
  assert.is(results.run.complete, true);
  assert.is(results.run.designer, 'reference');
  assert.match(results.run.designerLabel, 'reference policy');
  assert.equal(results.suites.map((s) => [s.id, s.kind]), [['spade', 'selfplay'], ['procedural', 'static']]);
  const [selfplay, procedural] = results.suites;
  assert.is(selfplay!.rounds.length, 2);
  assert.is(selfplay!.metrics.validity.proposed, 12);
  assert.ok(selfplay!.metrics.validity.valid > 0, 'some designed environments are valid');
  // Tool-use games are designed and played beside the others, and counted as their own game type.
  const toolUse = selfplay!.metrics.byGameType?.['tool-use'];
  assert.ok(toolUse && toolUse.valid > 0 && toolUse.episodes > 0 && toolUse.toolCallsPerEpisode! > 0, JSON.stringify(selfplay!.metrics.byGameType));
  assert.is(procedural!.metrics.validity.proposed, 14);
  assert.is(procedural!.metrics.validity.valid, 14, JSON.stringify(procedural!.metrics.validity.reasons));
  // 14 tasks x 2 attempts
  assert.is(procedural!.metrics.success.episodes, 28);
  assert.ok(procedural!.metrics.success.byHorizon.length >= 2, 'several horizons');
  const journal = readFileSync(path.join(out, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string });
  assert.is(journal[0]!.type, 'start');
  assert.is(journal.at(-1)!.type, 'end');
  assert.is(journal.filter((r) => r.type === 'episode').length, selfplay!.metrics.throughput.episodes + 28);
  assert.match(r.stdout, 'results');
  // The offline default meets no Python: its sandbox is not chosen (nor its jail tried).
  assert.match(r.stdout + r.stderr, /sandbox isolated-vm \(2 worker threads\)/, 'says which sandboxes, and where environments are evaluated');
  assert.is(results.run.config.pythonSandbox, undefined);
});

test('--game-type tool-use offline: the reference designer writes tool-use games only, valid, and the reference agent plays them with tools', async () => {
  const out = path.join(tempDir(), 'run');
  const r = await runCli(['run', '--out', out, '--suites', 'spade', '--game-type', 'tool-use', '--rounds', '1', '--envs-per-round', '3', '--attempts', '1', '--workers', '1']);
  assert.is(r.code, 0, r.stderr);
  const [selfplay] = (JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as RunResults).suites;
  assert.equal(selfplay!.environments.map((e) => [e.gameType, e.verdict]), [['tool-use', 'valid'], ['tool-use', 'valid'], ['tool-use', 'valid']]);
  assert.equal(selfplay!.environments.map((e) => e.skill).sort(), ['API Orchestration', 'Data Retrieval', 'State Modification']);
  assert.ok(selfplay!.metrics.byGameType!['tool-use']!.toolCallsPerEpisode! > 0);
});

test('a wrong config value exits 2 with the key path, and writes nothing', async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ selfplay: { rounds: 'many' } }));
  const r = await runCli(['run', '--out', 'x'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'spade.config.json: selfplay.rounds: expected a positive integer, got "many"');
  assert.equal(readdirSync(cwd), ['spade.config.json']);
});

test('a wrong flag, an unknown plugin and a taken --out exit 2 with a clear message', async () => {
  const cwd = tempDir();
  let r = await runCli(['run', '--rounds', 'many'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, '--rounds: expected a number, got "many"');
  r = await runCli(['run', '--rounds', '0'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'selfplay.rounds: expected a positive integer, got 0');
  r = await runCli(['run', '--out', 'x', '--suites', 'spade,nosuch'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'unknown suite "nosuch"');
  assert.match(r.stderr, 'procedural');
  r = await runCli(['run', '--out', 'x', '--sandbox', 'docker'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'unknown sandbox "docker"');
  r = await runCli(['run', '--out', 'x', '--agent', 'nosuchvendor:model'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'nosuchvendor:model');
  r = await runCli(['run', '--frobnicate'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'frobnicate');
  assert.equal(readdirSync(cwd), [], 'nothing written');
  writeFileSync(path.join(cwd, 'journal.jsonl'), '');
  r = await runCli(['run', '--out', '.'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'already holds a run');
  // An output that is a file: said so, before any work.
  r = await runCli(['run', '--out', 'journal.jsonl'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, /spade-bench: --out \S*journal\.jsonl is a file: a run is written into a folder/);
  // An output folder that cannot be made (a file stands in its path): before any work.
  r = await runCli(['run', '--out', path.join(cwd, 'journal.jsonl', 'run')], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'cannot create output folder');
});

test('--python-sandbox names the Python sandbox; a wrong one stops the run before anything is written', async () => {
  const cwd = tempDir();
  let r = await runCli(['run', '--out', 'x', '--python-sandbox', 'nosuch'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'unknown sandbox "nosuch"');
  r = await runCli(['run', '--out', 'x', '--python-sandbox', 'isolated-vm'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'pythonSandbox: sandbox "isolated-vm" runs javascript, not python');
  assert.equal(readdirSync(cwd), [], 'nothing written');
});

test('a run folder in use by a run is refused to a second one; a lock its killed run left is taken over', async () => {
  const cwd = tempDir();
  const lock = path.join(cwd, 'busy', 'run.lock');
  const first = startCli(['run', '--out', 'busy', '--rounds', '400', '--suites', 'spade'], { cwd });
  for (let waited = 0; !existsSync(lock) && waited < 60_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(existsSync(lock), 'the run took no lock');
  const second = await runCli(['run', '--out', 'busy', '--resume'], { cwd });
  assert.is(second.code, 2, second.stderr);
  assert.match(second.stderr, `is in use by another spade-bench run (pid ${first.child.pid}`);
  first.child.kill('SIGINT');
  assert.is((await first.done).code, 130);
  assert.not.ok(existsSync(lock), 'the lock outlived its run');
  // A lock whose process is gone (a run killed with SIGKILL) holds nothing.
  const small = ['run', '--out', 'small', '--rounds', '2', '--suites', 'spade'];
  assert.is((await runCli(small, { cwd })).code, 0);
  const stale = path.join(cwd, 'small', 'run.lock');
  writeFileSync(stale, JSON.stringify({ pid: 2 ** 22 + 1, host: os.hostname(), since: 'earlier' }));
  const resumed = await runCli([...small, '--resume'], { cwd });
  assert.is(resumed.code, 0, resumed.stderr);
  assert.not.ok(existsSync(stale));
});

test('--skip-bad: a static suite reports the malformed records it skipped, in the results and as a notice', async () => {
  const cwd = tempDir();
  const lines = [{ question: 'What is 6 times 7?', answer: '42' }, { question: 'no answer' }, { question: 'Spell cat backwards.', answer: 'tac' }];
  writeFileSync(path.join(cwd, 'data.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const r = await runCli(['run', '--out', 'out', '--suites', 'jsonl:data.jsonl', '--skip-bad', '--validate-only', '--workers', '1'], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, 'jsonl:data.jsonl: skipped 1 malformed record(s) (--skip-bad); first: ');
  const results = JSON.parse(readFileSync(path.join(cwd, 'out', 'results.json'), 'utf8')) as RunResults;
  assert.equal(results.suites.map((s) => [s.id, s.metrics.validity.proposed, s.skippedRecords]), [['jsonl:data.jsonl', 2, 1]]);
  // --validate-only plays no episode: the closing line counts what it judged.
  assert.match(r.stdout, /^done in [\d.]+ s: 2 environments judged \([\d.]+\/s\)$/m);
});

test('--field maps the fields of a jsonl: file; without it the error names its fields and the flag, and nothing is written', async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'q.jsonl'), '{"problem": "2 + 2?", "solution": "4"}\n{"problem": "3 + 3?", "solution": 6}\n');
  const base = ['run', '--suites', 'jsonl:q.jsonl', '--attempts', '1', '--workers', '1'];
  let r = await runCli([...base, '--out', 'a'], { cwd });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, 'q.jsonl:1: missing field "question" (its fields: problem, solution; map one with --field question=FIELD)');
  assert.equal(readdirSync(cwd), ['q.jsonl'], 'a data error before any work leaves no run folder');
  // ...and says so, rather than pointing at a folder that is gone.
  assert.match(r.stderr, '; nothing was written');
  assert.not.match(r.stderr, 'what finished is kept');
  // Skipping every record is no way out: it says so, rather than a run of 0 environments.
  r = await runCli([...base, '--out', 'a', '--skip-bad'], { cwd });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, 'every record (2) was malformed; the first: ');
  assert.equal(readdirSync(cwd), ['q.jsonl']);
  for (const [field, message] of [['quesiton=problem', 'quesiton: unknown key (expected one of question, answer'], ['question', '--field: expected KEY=VALUE, got "question"']]) {
    r = await runCli([...base, '--out', 'a', '--field', field!], { cwd });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, message!);
  }
  r = await runCli(['run', '--suites', 'procedural', '--out', 'a', '--field', 'question=problem'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, '--field (fields) maps the fields of jsonl:, parquet: and hf: suites, and --suites names none');
  assert.equal(readdirSync(cwd), ['q.jsonl']);

  r = await runCli([...base, '--out', 'a', '--field', 'question=problem', '--field', 'answer=solution', '--field', 'checker=numeric'], { cwd });
  assert.is(r.code, 0, r.stderr);
  const results = JSON.parse(readFileSync(path.join(cwd, 'a', 'results.json'), 'utf8')) as RunResults;
  assert.equal(results.run.config.fields, { question: 'problem', answer: 'solution', checker: 'numeric' }, 'recorded in the config');
  assert.is(results.suites[0]!.metrics.validity.proposed, 2);
});

test('--resume with changed settings: harmless ones apply and are said, others refuse listing each difference', async () => {
  const cwd = tempDir();
  const start = ['run', '--out', 'r', '--suites', 'procedural', '--limit', '3', '--attempts', '1', '--workers', '1'];
  let r = await runCli([...start, '--rounds', '2'], { cwd });
  assert.is(r.code, 0, r.stderr);
  const journal = readFileSync(path.join(cwd, 'r', 'journal.jsonl'), 'utf8');
  r = await runCli(['run', '--out', 'r', '--resume', '--rounds', '3', '--seed', '9', '--data-dir', 'elsewhere'], { cwd });
  assert.is(r.code, 2);
  assert.match(r.stderr, '--resume continues r with the settings it started with, and these differ:\n  --seed 9 (the run\'s: 1)\n  --rounds 3 (the run\'s: 2)\n');
  assert.is(readFileSync(path.join(cwd, 'r', 'journal.jsonl'), 'utf8'), journal, 'a refused resume touches nothing');
  // The same settings again are no difference; the data folder and environments in flight apply.
  r = await runCli(['run', '--out', 'r', '--resume', '--rounds', '2', '--data-dir', 'elsewhere', '--environments-in-flight', '3'], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, 'spade-bench: --resume: --data-dir "elsewhere" applied (the run started with none)');
  assert.match(r.stderr, `spade-bench: --resume: --environments-in-flight 3 applied (the run started with ${DEFAULTS.environmentsInFlight})`);
  const results = JSON.parse(readFileSync(path.join(cwd, 'r', 'results.json'), 'utf8')) as RunResults;
  assert.is(results.run.config.dataDir, 'elsewhere');
  assert.is(results.run.config.environmentsInFlight, 3);
});

test("a plugin and a config outside the clone, with no spade-bench installed beside them, import 'spade-bench'", async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'package.json'), '{ "type": "module" }');
  writeFileSync(path.join(cwd, 'twice-suite.mjs'), `
import { definePlugin, defineStaticSuite, answerProgram } from 'spade-bench';
import { DEFAULT_CONFIG } from 'spade-bench/config';
export default definePlugin({
  kind: 'suite', id: 'twice', description: 'Doubling, seeded ' + DEFAULT_CONFIG.seed,
  create: () => defineStaticSuite({
    id: 'twice', description: 'Doubling', language: 'javascript',
    async load() {
      return { tasks: [2, 3].map((n, i) => ({ program: answerProgram({ id: 'twice/' + i, question: 'Twice ' + n + '?', answer: String(2 * n), checker: 'numeric', family: 'twice', origin: 'twice#' + i }), seed: i })), skipped: 0 };
    },
  }),
});
`);
  writeFileSync(path.join(cwd, 'spade.config.ts'), "import { defineConfig } from 'spade-bench';\nexport default defineConfig({ plugins: ['./twice-suite.mjs'], suites: ['twice'], attempts: 1 });\n");
  const listed = await runCli(['list'], { cwd });
  assert.is(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, `Doubling, seeded ${DEFAULTS.seed} (loaded plugin)`);
  const r = await runCli(['run', '--out', 'o', '--workers', '1'], { cwd });
  assert.is(r.code, 0, r.stderr);
  const results = JSON.parse(readFileSync(path.join(cwd, 'o', 'results.json'), 'utf8')) as RunResults;
  assert.equal(results.suites.map((s) => [s.id, s.metrics.validity.proposed]), [['twice', 2]]);
});

test('a suite plugin that throws: in create() before anything is written, in load() after a suite with what finished kept', async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'package.json'), '{ "type": "module" }');
  writeFileSync(path.join(cwd, 'broken.mjs'), `
import { definePlugin, defineStaticSuite } from 'spade-bench';
export default definePlugin({ kind: 'suite', id: 'broken', description: 'create throws', create() { throw new TypeError('create blew up'); } });
`);
  writeFileSync(path.join(cwd, 'late.mjs'), `
import { definePlugin, defineStaticSuite } from 'spade-bench';
export default definePlugin({ kind: 'suite', id: 'late', description: 'load throws', create: () => defineStaticSuite({ id: 'late', description: 'x', language: 'javascript', async load() { throw new Error('load failed hard'); } }) });
`);
  writeFileSync(path.join(cwd, 'spade.config.json'), JSON.stringify({ plugins: ['./broken.mjs', './late.mjs'] }));
  let r = await runCli(['run', '--out', 'a', '--suites', 'procedural,broken'], { cwd });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /plugin "broken": create\(\) threw TypeError: create blew up \(at .*broken\.mjs:\d+:\d+\)/);
  assert.not.match(r.stderr, '    at ', 'no stack trace');
  assert.not.ok(existsSync(path.join(cwd, 'a')), 'nothing written');
  r = await runCli(['run', '--out', 'b', '--suites', 'procedural,late', '--limit', '3', '--workers', '1'], { cwd });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /plugin "late": tasks\(\) threw Error: load failed hard .*; what finished is kept in .*b\b/);
  assert.not.match(r.stderr, '    at ', 'no stack trace');
  const results = JSON.parse(readFileSync(path.join(cwd, 'b', 'results.json'), 'utf8')) as RunResults;
  assert.equal(results.suites.map((s) => s.id), ['procedural']);
  assert.is(results.run.complete, false);
  assert.match(results.run.stopReason ?? '', /^late: plugin "late": tasks\(\) threw Error: load failed hard/);
  const report = readFileSync(path.join(cwd, 'b', 'report.html'), 'utf8');
  assert.match(report, 'stopped early (late: plugin &quot;late&quot;: tasks() threw Error: load failed hard');
  assert.not.match(report, 'was interrupted');
});

test('a .ts config in a folder that is not an ES module package is told how to load it, without a require stack', async () => {
  const cwd = tempDir();
  writeFileSync(path.join(cwd, 'spade.config.ts'), "import { defineConfig } from 'spade-bench';\nexport default defineConfig({ suites: ['procedural'] });\n");
  const r = await runCli(['run', '--out', 'o', '--limit', '1'], { cwd });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, `spade-bench: cannot load config spade.config.ts: Cannot find module 'spade-bench': a .ts config imports spade-bench as an ES module; say "type": "module" in its folder's package.json (npm pkg set type=module), or name it spade.config.mts`);
  assert.not.match(r.stderr, 'Require stack');
  assert.not.ok(existsSync(path.join(cwd, 'o')));
});

test('list, --help and --version', async () => {
  const list = await runCli(['list']);
  assert.is(list.code, 0, list.stderr);
  for (const id of ['reference', 'isolated-vm', 'procedural', 'spade']) assert.match(list.stdout, id);
  const help = await runCli(['run', '--help']);
  assert.is(help.code, 0);
  for (const flag of ['--out', '--seed', '--rounds', '--envs-per-round', '--attempts', '--suites', '--designer', '--agent', '--sandbox', '--environments-in-flight', '--limit', '--resume']) {
    assert.match(help.stdout, flag);
  }
  const version = await runCli(['--version']);
  assert.match(version.stdout, /^\d+\.\d+\.\d+/);
});

test('the command line does not load BullMQ until a run or worker uses --redis', () => {
  // Every command imports this; BullMQ (217 modules) is for run --redis and worker only.
  const cli = packagesLoadedBy('./core/cli/main.ts');
  assert.not.ok(cli.includes('bullmq') || cli.includes('ioredis'), cli.join(', '));
});

test.run();
