// One table of options: the config's schema, the run flags, --help and docs/cli.md's option
// table all come from core/config/options.ts, so an option added there appears everywhere.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { flatten, INVOCATION_OPTIONS, RUN_OPTIONS, defaultValue } from '../../../core/config/options.js';
import { DEFAULT_CONFIG, resolveConfig, validateConfig } from '../../../core/config/config.js';
import { flagsToConfig, optionsMarkdown } from '../../../core/cli/run-options.js';
import { repoRoot, runCli } from '../../helpers/cli.js';

const DOC = path.join(repoRoot, 'docs', 'cli.md');
const START = '<!-- options-table:start -->';
const END = '<!-- options-table:end -->';

test("docs/cli.md's option table is the table of options", () => {
  const text = readFileSync(DOC, 'utf8');
  const [before, rest] = text.split(START);
  assert.ok(rest?.includes(END), `docs/cli.md has ${START} ... ${END}`);
  const [current, after] = rest!.split(END);
  const expected = `\n${optionsMarkdown()}\n`;
  if (process.env.UPDATE_DOCS === '1' && current !== expected) writeFileSync(DOC, `${before}${START}${expected}${END}${after}`);
  else assert.fixture(current!, expected, "docs/cli.md's table is out of date: UPDATE_DOCS=1 node tests/run.mjs options-table");
});

test('every flag of the table is in --help, with its default', async () => {
  const help = await runCli(['run', '--help']);
  assert.is(help.code, 0, help.stderr);
  for (const { option } of [...flatten(RUN_OPTIONS), ...flatten(INVOCATION_OPTIONS)]) {
    if (!option.flag) continue;
    assert.match(help.stdout, `--${option.flag}`);
    const value = defaultValue(option);
    if (typeof value === 'number' || typeof value === 'string') assert.match(help.stdout.replace(/\s+/g, ' '), `[default: ${option.shown?.replace(/`/g, '') ?? value}]`);
  }
});

test('every key of the table is a config key: its default validates, and a flag sets it', () => {
  for (const { path: key, option } of flatten(RUN_OPTIONS)) {
    const keys = key.split('.');
    const at = (value: unknown): Record<string, unknown> => keys.reduceRight<unknown>((inner, k) => ({ [k]: inner }), value) as Record<string, unknown>;
    const value = defaultValue(option);
    if (value !== undefined) validateConfig(at(value));
    if (option.defaultKind === 'kept') assert.equal(keys.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], DEFAULT_CONFIG) !== undefined, true, key);
    if (option.flag && value !== undefined && option.parse !== 'list') {
      const flag = option.flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      assert.equal(flagsToConfig({ [flag]: value }), at(value), `--${option.flag} sets ${key}`);
    }
  }
});

test('an old key is refused with the name that replaced it, never read as the new one', () => {
  const refused = (config: unknown): string => {
    try {
      validateConfig(config, 'spade.config.json');
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('accepted');
  };
  assert.is(refused({ selfplay: { validator: 'openai:j' } }), 'spade.config.json: selfplay.validator was renamed: use selfplay.reviewer');
  assert.is(refused({ selfplay: { attempts: 2 } }), 'spade.config.json: selfplay.attempts was renamed: use attempts (a top-level key)');
  assert.is(refused({ concurrency: 2 }), 'spade.config.json: concurrency was renamed: use environmentsInFlight');
  assert.is(refused({ providers: { openai: { concurrency: 2 } } }), 'spade.config.json: providers["openai"].concurrency was renamed: use requestsInFlight');
  // The new names hold: attempts is one top-level key for every pool.
  assert.is(resolveConfig(validateConfig({ attempts: 2 })).attempts, 2);
});

test.run();
