import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_CONFIG, jsonErrorOffset, loadConfigFile, resolveConfig, validateConfig } from '../../../core/config/config.js';
import { readdirSync } from 'node:fs';
import { runCli } from '../../helpers/cli.js';
import { flagsToConfig } from '../../../core/cli/run-command.js';
import { UsageError } from '../../../core/errors.js';
import { DEFAULTS, hintedAttemptsOf, plainAttemptsOf } from '../../../core/config/options.js';
import { repoRoot, tempDir } from '../../helpers/cli.js';
import { findsSpadeBench } from '../../../core/config/plugin.js';

const dir = (): string => tempDir('spade-config-');

const message = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    assert.instance(error, UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
};

test('reserved names are no keys, wherever they are written; inherited names are unknown keys', () => {
  for (const [config, expected] of [
    [JSON.parse('{"__proto__": {"seed": 3}}'), 'config: __proto__: "__proto__" is a reserved name, not a key of the config'],
    [JSON.parse('{"selfplay": {"__proto__": {"rounds": 2}}}'), 'selfplay.__proto__: "__proto__" is a reserved name'],
    [{ constructor: 1 }, 'constructor: "constructor" is a reserved name'],
    [JSON.parse('{"providers": {"__proto__": {"baseURL": "http://x"}}}'), 'providers["__proto__"]: "__proto__" is a reserved name'],
    [JSON.parse('{"providers": {"vllm": {"constructor": 2}}}'), 'providers["vllm"].constructor: "constructor" is a reserved name'],
  ] as [Record<string, unknown>, string][]) {
    const m = message(() => validateConfig(config));
    assert.match(m, expected, m);
    assert.not.match(m, 'renamed');
  }
  assert.match(message(() => validateConfig({ toString: 'x' })), 'toString: unknown key');
});

test('a wrong value names its key path and what was expected', () => {
  assert.is(message(() => validateConfig({ selfplay: { rounds: 'many' } })), 'config: selfplay.rounds: expected a positive integer, got "many"');
  assert.match(message(() => validateConfig({ seed: -1 })), 'seed: expected a non-negative integer, got -1');
  assert.match(message(() => validateConfig({ suites: [] })), 'suites: expected a non-empty list');
  assert.match(message(() => validateConfig({ selfplay: { reward: 'vibes' } })), 'selfplay.reward: expected one of "spade", "regret", "solve-rate"');
  assert.match(message(() => validateConfig({ providers: { openai: { requestsInFlight: 0 } } })), 'providers["openai"].requestsInFlight: expected a positive integer, got 0');
  assert.match(message(() => validateConfig({ providers: { openai: { tools: 'off' } } })), 'providers["openai"].tools: expected true or false, got "off"');
  assert.equal(validateConfig({ providers: { 'openai:gpt-4.1-mini': { tools: false } } }).providers, { 'openai:gpt-4.1-mini': { tools: false } });
});

test('an unknown key is named with the keys that exist, and the nearest', () => {
  const m = message(() => validateConfig({ selfplay: { roundz: 2 } }));
  assert.match(m, 'selfplay.roundz: unknown key');
  assert.match(m, 'rounds, envsPerRound, reward');
  assert.match(m, /\. Did you mean rounds\?$/);
  assert.match(message(() => validateConfig({ sed: 3 })), /sed: unknown key .*\. Did you mean seed\?$/);
  assert.not.match(message(() => validateConfig({ colour: 'red' })), 'Did you mean', 'no suggestion when nothing is near');
  // A provider's options pass other keys on to its plugin, but not a known key spelt another way.
  assert.is(message(() => validateConfig({ providers: { vllm: { baseUrl: 'http://x' } } })), 'config: providers["vllm"].baseUrl: unknown key: did you mean baseURL? (the key is read with that spelling only)');
  assert.match(message(() => validateConfig({ providers: { 'openai:m': { max_retries: 2 } } })), 'did you mean maxRetries?');
  validateConfig({ providers: { acme: { region: 'eu', baseURL: 'http://x' } } });
});

test('finds spade.config.ts, with TypeScript syntax, and validates it', async () => {
  const d = dir();
  writeFileSync(path.join(d, 'spade.config.ts'), 'const rounds: number = 5;\nexport default { seed: 7, selfplay: { rounds } };\n');
  const { config, filepath } = await loadConfigFile(d);
  assert.equal(config, { seed: 7, selfplay: { rounds: 5 } });
  assert.is(filepath, path.join(d, 'spade.config.ts'));
  writeFileSync(path.join(d, 'spade.config.ts'), 'export default { selfplay: { rounds: "many" } };\n');
  try {
    await loadConfigFile(d);
    assert.unreachable('should have failed');
  } catch (error) {
    assert.is((error as Error).message, 'spade.config.ts: selfplay.rounds: expected a positive integer, got "many"');
  }
});

test('finds .mjs, .json and the "spade" key of package.json', async () => {
  const a = dir();
  writeFileSync(path.join(a, 'spade.config.mjs'), 'export default { agent: "reference", seed: 3 };\n');
  assert.equal((await loadConfigFile(a)).config, { agent: 'reference', seed: 3 });
  const b = dir();
  writeFileSync(path.join(b, 'spade.config.json'), '{ "environmentsInFlight": 2 }');
  assert.equal((await loadConfigFile(b)).config, { environmentsInFlight: 2 });
  const c = dir();
  writeFileSync(path.join(c, 'package.json'), '{ "name": "x", "spade": { "limit": 9 } }');
  assert.equal((await loadConfigFile(c)).config, { limit: 9 });
  assert.equal((await loadConfigFile(dir())).config, {});
});

test('a plugin or config file finds spade-bench itself where Node would: no resolve hook (and its thread) is needed then', () => {
  const outside = dir();
  assert.not.ok(findsSpadeBench(outside), 'a folder with nothing installed');
  // A copy installed in a node_modules folder above the file (here a link, as npm link makes).
  const project = dir();
  mkdirSync(path.join(project, 'node_modules'));
  symlinkSync(repoRoot, path.join(project, 'node_modules', 'spade-bench'), 'dir');
  mkdirSync(path.join(project, 'plugins', 'deep'), { recursive: true });
  assert.ok(findsSpadeBench(path.join(project, 'plugins', 'deep')));
  // Inside spade-bench's own package, which imports itself by name through its exports.
  assert.ok(findsSpadeBench(path.join(repoRoot, 'perf')));
  // A package of another name, or one named so without exports, does not.
  const other = dir();
  writeFileSync(path.join(other, 'package.json'), '{ "name": "other", "exports": "./index.js" }');
  assert.not.ok(findsSpadeBench(other));
  writeFileSync(path.join(other, 'package.json'), '{ "name": "spade-bench" }');
  assert.not.ok(findsSpadeBench(other));
});

test('a JSON config is read without cosmiconfig, which still reads $import, null and other kinds', async () => {
  // A fresh process: whether cosmiconfig was loaded is read from the CommonJS module cache.
  const d = dir();
  writeFileSync(path.join(d, 'spade.config.json'), '{ "environmentsInFlight": 3 }');
  const configModule = new URL('../../../core/config/config.ts', import.meta.url).href;
  const probe = `
    import { createRequire } from 'node:module';
    const { loadConfigFile } = await import(${JSON.stringify(configModule)});
    const loaded = await loadConfigFile(${JSON.stringify(d)});
    const cache = createRequire(import.meta.url).cache;
    console.log(JSON.stringify({ config: loaded.config, filepath: loaded.filepath, cosmiconfig: Object.keys(cache).some((f) => f.includes('/cosmiconfig/')) }));
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], { encoding: 'utf8' });
  assert.is(child.status, 0, child.stderr);
  assert.equal(JSON.parse(child.stdout), { config: { environmentsInFlight: 3 }, filepath: path.join(d, 'spade.config.json'), cosmiconfig: false });

  const a = dir();
  writeFileSync(path.join(a, 'base.json'), '{ "seed": 5, "environmentsInFlight": 1 }');
  writeFileSync(path.join(a, 'spade.config.json'), '{ "$import": "./base.json", "environmentsInFlight": 2 }');
  assert.equal((await loadConfigFile(a)).config, { seed: 5, environmentsInFlight: 2 });
  const b = dir();
  writeFileSync(path.join(b, 'spade.config.json'), ' \n');
  assert.equal(await loadConfigFile(b), { config: {}, filepath: path.join(b, 'spade.config.json') });
  const c = dir();
  writeFileSync(path.join(c, 'spade.config.json'), 'null');
  writeFileSync(path.join(c, 'package.json'), '{ "spade": { "limit": 4 } }');
  assert.equal((await loadConfigFile(c)).config, { limit: 4 });
  writeFileSync(path.join(c, 'other.json'), '{ "seed": 8 }');
  assert.equal(await loadConfigFile(c, 'other.json'), { config: { seed: 8 }, filepath: path.join(c, 'other.json') });
  writeFileSync(path.join(c, 'bad.json'), '{ "seed": "x" }');
  await loadConfigFile(c, 'bad.json').then(
    () => assert.unreachable('should fail'),
    (e: Error) => assert.is(e.message, 'bad.json: seed: expected a non-negative integer, got "x"'),
  );
});

test('a missing or broken config file is a usage error naming the file', async () => {
  const d = dir();
  await loadConfigFile(d, 'nope.config.ts').then(
    () => assert.unreachable('should fail'),
    (e: Error) => assert.match(e.message, 'config file not found'),
  );
  writeFileSync(path.join(d, 'spade.config.json'), '{ "seed": ');
  await loadConfigFile(d).then(
    () => assert.unreachable('should fail'),
    (e: Error) => {
      assert.instance(e, UsageError);
      assert.match(e.message, 'spade.config.json');
    },
  );
});

test('CLI flags override the file, which overrides the defaults', () => {
  const flags = flagsToConfig({ rounds: 6, suites: 'spade, procedural', seed: 9 });
  const config = resolveConfig({ seed: 4, environmentsInFlight: 3, attempts: 5, selfplay: { rounds: 2 } }, flags);
  assert.is(config.seed, 9);
  assert.is(config.environmentsInFlight, 3);
  assert.is(config.attempts, 5);
  assert.equal(config.suites, ['spade', 'procedural']);
  assert.equal(config.selfplay, { ...DEFAULT_CONFIG.selfplay, rounds: 6 });
  assert.match(message(() => flagsToConfig({ rounds: Number('x') })), 'command line: selfplay.rounds: expected a positive integer, got null');
});

test('--designer-protocol spade plays 8 plain and 16 hinted with SPADE\'s memory, unless the user said otherwise', () => {
  const spade = resolveConfig({}, flagsToConfig({ designerProtocol: 'spade' }));
  // Static suites keep --attempts; self-play plays 8 plain and 16 hinted.
  assert.equal([spade.attempts, spade.selfplay.plainAttempts, spade.selfplay.hintedAttempts, spade.selfplay.memory], [4, 8, 16, 'spade']);
  assert.equal([plainAttemptsOf(spade), hintedAttemptsOf(spade)], [8, 16]);
  const chosen = resolveConfig({ selfplay: { plainAttempts: 3 } }, flagsToConfig({ designerProtocol: 'spade', memory: 'off', hintedAttempts: 5 }));
  assert.equal([chosen.selfplay.plainAttempts, chosen.selfplay.hintedAttempts, chosen.selfplay.memory], [3, 5, 'off']);
  // --attempts given: self-play plays that many, with and without the hint.
  const attempts = resolveConfig({}, flagsToConfig({ designerProtocol: 'spade', attempts: 2 }));
  assert.equal([plainAttemptsOf(attempts), hintedAttemptsOf(attempts)], [2, 2]);
  // The default protocol keeps its defaults: as many hinted plays as plain ones, its own memory.
  assert.equal([DEFAULT_CONFIG.designerProtocol, plainAttemptsOf(DEFAULT_CONFIG), hintedAttemptsOf(DEFAULT_CONFIG), DEFAULT_CONFIG.selfplay.memory ?? DEFAULTS.selfplay.memory], ['default', 4, 4, 'own']);
  // A resolved config resolves to itself (a resumed run keeps what it started with).
  assert.equal(resolveConfig(chosen as never), chosen);
  assert.match(message(() => flagsToConfig({ memory: 'all' })), 'selfplay.memory');
});

/** The message of the UsageError loading the config of `folder` rejects with. */
async function loadError(folder: string): Promise<string> {
  try {
    await loadConfigFile(folder);
  } catch (error) {
    assert.instance(error, UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

test('a config that does not parse or run: file:line:column and the parser\'s whole message', async () => {
  const cases: [string, string, string][] = [
    ['spade.config.ts', "export default {\n  seed: 1,\n  suites: ['procedural'\n};\n", 'cannot load config spade.config.ts:4:1: Expected "]" but found "}"'],
    ['spade.config.json', '{\n  "seed": 1,\n  "suites": ["procedural",]\n}\n', 'cannot load config spade.config.json:3:27: '],
    ['spade.config.mjs', 'export default {\n  seed: 1\n  suites: 2,\n};\n', "cannot load config spade.config.mjs:3:3: Unexpected identifier 'suites'"],
    ['spade.config.mjs', 'export default {\n  seed: nope,\n};\n', 'cannot load config spade.config.mjs:2:9: nope is not defined'],
  ];
  for (const [name, text, expected] of cases) {
    const folder = dir();
    writeFileSync(path.join(folder, name), text);
    const m = await loadError(folder);
    assert.ok(m.startsWith(expected), `${name}: ${m}`);
  }
  // JSON's message is JSON.parse's own, whole.
  const folder = dir();
  writeFileSync(path.join(folder, 'spade.config.json'), '{ "seed": 1, }');
  let parseMessage = '';
  try {
    JSON.parse('{ "seed": 1, }');
  } catch (error) {
    parseMessage = (error as Error).message;
  }
  assert.is(await loadError(folder), `cannot load config spade.config.json:1:14: ${parseMessage}`);
  // On the command line: exit 2, the same message, nothing written.
  writeFileSync(path.join(folder, 'spade.config.json'), '{\n  "seed": 1\n  "limit": 2\n}');
  const r = await runCli(['run', '--out', 'o'], { cwd: folder });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'spade-bench: cannot load config spade.config.json:3:3: ');
  assert.equal(readdirSync(folder), ['spade.config.json']);
});

test('the offset where JSON text stops being JSON', () => {
  for (const good of ['{}', '[1, 2.5e3, -0, "a\\u00e9", true, false, null]', ' {"a": {"b": []}} ']) assert.is(jsonErrorOffset(good), -1, good);
  assert.is(jsonErrorOffset('[1,]'), 3);
  assert.is(jsonErrorOffset('{"a" 1}'), 5);
  assert.is(jsonErrorOffset("{'a': 1}"), 1);
  assert.is(jsonErrorOffset('[01]'), 2);
  assert.is(jsonErrorOffset('{} x'), 3);
  assert.is(jsonErrorOffset('[tru]'), 4);
});

test.run();
