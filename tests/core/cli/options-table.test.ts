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

test('old names still work: --validator and selfplay.validator set selfplay.reviewer', () => {
  const renamed: string[] = [];
  assert.equal(flagsToConfig({ validator: 'openai:j' }, (k) => renamed.push(`${k.from}>${k.to}`)), { selfplay: { reviewer: 'openai:j' } });
  assert.equal(resolveConfig(validateConfig({ selfplay: { validator: 'openai:j' } }, 'config', (k) => renamed.push(`${k.from}>${k.to}`))).selfplay.reviewer, 'openai:j');
  assert.equal(renamed, ['--validator>--reviewer', 'selfplay.validator>selfplay.reviewer']);
  assert.throws(() => validateConfig({ selfplay: { validator: 'a:b', reviewer: 'c:d' } }), /selfplay.validator is the old name of selfplay.reviewer/);
  assert.throws(() => validateConfig({ providers: { openai: { concurrency: 0 } } }), /providers\["openai"\].concurrency: expected a positive integer, got 0/);
});

test.run();
