import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../helpers/cli.js';
import { codeHash, episodeLines, exportEpisodes, exportPool, programFileName } from '../../../core/results/export.js';
import { parseChecksums, sha256Hex } from '../../../core/results/pool-layout.js';
import type { JournalRecord } from '../../../core/results/journal.js';
import type { EnvironmentSummary } from '../../../core/results/results.js';
import type { EpisodeResult } from '../../../core/types.js';

const summary = (id: string, extra: Partial<EnvironmentSummary> = {}): EnvironmentSummary => ({
  id, round: 0, language: 'python', gameType: 'single-turn', verdict: 'valid', checks: [], source: `class ${id.replace(/\W/g, '')}Env: pass`, solveRate: 0.5, hintSolveRate: 1, designerReward: 0.8, task: `task ${id}`, ...extra,
});
const episode = (environmentId: string, extra: Partial<EpisodeResult> = {}): EpisodeResult => ({
  suite: 'spade', environmentId, round: 0, attempt: 0, withHint: false, seed: 1, horizon: 3, outcome: 'won', turns: 2, totalReward: 1, wallMs: 1,
  rewards: [0, 1], terminated: true, truncated: false, messages: [{ role: 'user', content: 'obs' }], ...extra,
});

function journal(): JournalRecord[] {
  return [
    { type: 'start', runId: 'run-7', startedAt: 'now', config: {} },
    { type: 'environment', suite: 'spade', round: 0, environment: summary('r0-e0', { gameType: 'tool-use' }) },
    { type: 'environment', suite: 'spade', round: 0, environment: summary('r0-e1', { verdict: 'invalid', reason: 'syntax' }) },
    { type: 'environment', suite: 'spade', round: 0, environment: summary('r0-e2', { review: { accepted: false, reason: 'leaks', by: 'openai:j' } }) },
    { type: 'environment', suite: 'procedural', environment: summary('procedural/x', { language: 'javascript' }) },
    { type: 'episode', episode: episode('r0-e0', { toolCalls: 1 }) },
    { type: 'episode', episode: episode('r0-e0', { withHint: true, outcome: 'lost', rewards: [0, 0, 0], turns: 3, terminated: false, truncated: true }) },
    { type: 'episode', episode: episode('r0-e0', { toolCalls: 1 }) }, // written again by a resumed run: one line
  ];
}

test('one line per episode with the environment\'s code hash, rewards, end and designer reward', () => {
  const lines = episodeLines(journal());
  assert.is(lines.length, 2);
  const [plain, hinted] = lines;
  assert.is(plain!.run_id, 'run-7');
  assert.is(plain!.code_hash, codeHash('class r0e0Env: pass'));
  assert.match(plain!.code_hash!, /^sha256:[0-9a-f]{64}$/);
  assert.equal(plain!.rewards, [0, 1]);
  assert.equal([plain!.terminated, plain!.truncated, plain!.designer_reward, plain!.solve_rate], [true, false, 0.8, 0.5]);
  assert.equal(plain!.messages, [{ role: 'user', content: 'obs' }]);
  assert.equal([plain!.game_type, plain!.tool_calls], ['tool-use', 1]);
  assert.equal([hinted!.with_hint, hinted!.truncated, hinted!.outcome], [true, true, 'lost']);
});

test("pool: the self-play environments played (the review's rejections left out), in SPADE's layout", () => {
  const run = tempDir();
  const records = journal();
  records.push({ type: 'environment', suite: 'spade', round: 1, environment: summary('r1-e3', { round: 1, verdict: 'unproven', reason: 'unproven', skill: 'Spatial Reasoning' }) });
  writeFileSync(path.join(run, 'journal.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const out = path.join(run, 'pool');
  const manifest = exportPool(run, out);
  // game_{round:05d}_{index:03d}_{skill slug}.py; an environment with no skill is "general".
  assert.equal(manifest.map((e) => e.file_name), ['games/game_00000_000_general.py', 'games/game_00001_003_spatial_reasoning.py']);
  assert.equal(readdirSync(out).sort(), ['checksums.sha256', 'env_memory.json', 'games', 'manifest.jsonl']);
  // SPADE's header line, a blank line, the program.
  const text = readFileSync(path.join(out, 'games/game_00000_000_general.py'), 'utf8');
  assert.is(text, '"""SPADE self-play generated game"""\n\nclass r0e0Env: pass\n');
  // checksums.sha256 in sha256sum's format, and the manifest's digests match the files.
  const sums = parseChecksums(readFileSync(path.join(out, 'checksums.sha256'), 'utf8'));
  assert.equal(sums, [...manifest.map((e) => e.file_name), 'env_memory.json'].map((file) => ({ file, sha256: sha256Hex(readFileSync(path.join(out, file))) })));
  assert.match(readFileSync(path.join(out, 'checksums.sha256'), 'utf8'), /^[0-9a-f]{64}  games\/game_00000_000_general\.py\n/);
  const lines = readFileSync(path.join(out, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines, manifest);
  assert.equal([manifest[1]!.skill, manifest[1]!.round, manifest[1]!.index, manifest[1]!.id], ['Spatial Reasoning', 1, 3, 'r1-e3']);
  // The game type as the run recorded it.
  assert.equal(manifest.map((e) => e.game_type), ['tool-use', 'single-turn']);
  // A static suite's JavaScript environments are written too, as .js.
  assert.equal(exportPool(run, path.join(run, 'static'), ['procedural']).map((e) => e.file_name), ['games/game_00000_000_general.js']);
  assert.ok(existsSync(path.join(run, 'static', 'games', 'game_00000_000_general.js')));
  assert.is(exportEpisodes(run, path.join(run, 'e.jsonl')), 2);
  // A folder that holds something already is refused, and left as it was; so are suites the run has not.
  assert.throws(() => exportPool(run, out), (e: Error) => e.message === `${out} is not empty: a pool is exported into a new or empty folder (its games/ would mix with what is there)`);
  assert.equal(readdirSync(path.join(out, 'games')).length, 2);
  assert.throws(() => exportPool(run, path.join(run, 'x'), ['procedurl']), (e: Error) => e.message === `${run} has no environments of "procedurl" (its suites: spade, procedural): name those to export with --suites. Did you mean procedural?`);
  assert.not.ok(existsSync(path.join(run, 'x')));
});

test('file names are safe, and a folder with no journal is a usage error', () => {
  assert.is(programFileName('../../etc/passwd', 'python'), '__.._etc_passwd.py');
  assert.is(programFileName('spade-pool/game_1', 'javascript'), 'spade-pool_game_1.js');
  assert.throws(() => exportEpisodes(tempDir(), 'x.jsonl'), /no run: journal.jsonl not found/);
});

test.run();
