/**
 * The flags of `spade-bench run`, their --help and the README's option table, all produced from
 * the table of options (core/config/options.ts); and the flags given, turned into a partial config
 * that is validated like a config file.
 */
import { UsageError } from '../errors.js';
import { bool } from '../config/schema.js';
import { validateConfig, type UserConfig } from '../config/config.js';
import { defaultValue, flatten, INVOCATION_OPTIONS, RUN_OPTIONS, type Option } from '../config/options.js';
import type { FlagSpec } from './commands.js';

/** The flags `spade-bench run` reads itself (the others become config keys). */
export interface RunArgs {
  [flag: string]: unknown;
  config?: string;
  out?: string;
  resume?: boolean;
  retryErrored?: boolean;
  validateOnly?: boolean;
  workers?: number;
  shard?: string;
  redis?: string;
  reporter?: string;
  failUnder?: unknown;
}

/** One documented option: its config key (none for an invocation's option) and its group. */
interface Row {
  key?: string;
  option: Option<unknown>;
  group: string;
}

const RUN_GROUP = 'Run';
const INVOCATION_GROUP = 'This invocation (not recorded in the run\'s config)';

/** Every option in the order help and README show them: the run's keys, each section's, then the invocation's. */
function rows(): Row[] {
  const run = flatten(RUN_OPTIONS).map(({ path, option, section }) => ({ key: path, option, group: section || RUN_GROUP }));
  const groups = [...new Set(run.map((r) => r.group))];
  const invocation = flatten(INVOCATION_OPTIONS).map(({ option }) => ({ option, group: INVOCATION_GROUP }));
  return [...groups.flatMap((g) => run.filter((r) => r.group === g)), ...invocation];
}

const camel = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const isBoolean = (option: Option<unknown>): boolean => option.schema === bool;

/** The default as help and README show it (backticks mark literal values; help drops them). */
export function shownDefault(option: Option<unknown>): string | undefined {
  if (option.shown) return option.shown;
  const value = defaultValue(option);
  if (value === undefined) return undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (Array.isArray(value)) return value.length ? `\`${value.join(',')}\`` : 'none';
  if (typeof value === 'object') return Object.keys(value as object).length ? `\`${JSON.stringify(value)}\`` : 'none';
  return `\`${String(value)}\``;
}

/** The command-line option of one table entry (a `number` one reports a wrong value naming the flag). */
export function flagOption(option: Option<unknown>): FlagSpec {
  const shown = shownDefault(option);
  const describe = `${option.describe}${shown ? ` [default: ${shown.replace(/`/g, '')}]` : ''}`;
  const type = isBoolean(option) ? 'boolean' : option.parse === 'number' ? 'number' : 'string';
  return { type, describe, ...(option.arg && type !== 'boolean' ? { arg: option.arg } : {}), ...(option.parse === 'pairs' ? { repeatable: true } : {}) };
}

/** Every flag of `spade-bench run`, grouped in --help as in the README (an old name is refused, naming the new: RENAMED_FLAGS). */
export function runOptions(): Record<string, FlagSpec> {
  const options: Record<string, FlagSpec> = {};
  for (const { option, group } of rows()) {
    if (!option.flag) continue;
    options[option.flag] = { ...flagOption(option), group };
  }
  return options;
}

/** The paragraph after run's options in --help: where the keys with no flag are set. */
export function runEpilogue(): string {
  const fileOnly = [...new Set(flatten(RUN_OPTIONS).filter((r) => !r.option.flag).map((r) => r.path.split('.')[0]!))];
  return `Keys with no flag (${fileOnly.join(', ')}) are set in the config file; docs/cli.md lists every key with its default.`;
}

/** `KEY=VALUE` texts (a flag given once or repeated) as an object; a text without `=` is refused naming the flag. */
export function parsePairs(flag: string, value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const text of [value].flat().map(String)) {
    const at = text.indexOf('=');
    if (at <= 0) throw new UsageError(`--${flag}: expected KEY=VALUE, got ${JSON.stringify(text)}`);
    out[text.slice(0, at).trim()] = text.slice(at + 1).trim();
  }
  return out;
}

function parseFlag(option: Option<unknown>, value: unknown): unknown {
  if (option.parse === 'pairs') return parsePairs(option.flag!, value);
  if (option.parse === 'list' && typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
  if (option.parse === 'numbers' && typeof value === 'string') return value.split(',').map((s) => (s.trim() === '' ? NaN : Number(s)));
  if (option.parse === 'count-or-share' && typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return value;
}

/** CLI flags as a partial config, validated with the same schema as the file (the message names the key path). */
export function flagsToConfig(args: RunArgs): UserConfig {
  const config: Record<string, unknown> = {};
  for (const { path, option } of flatten(RUN_OPTIONS)) {
    if (!option.flag) continue;
    const value = args[camel(option.flag)];
    if (value === undefined) continue;
    const keys = path.split('.');
    let at = config;
    for (const key of keys.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[keys.at(-1)!] = parseFlag(option, value);
  }
  // NaN from a non-numeric flag fails validation with the flag's key path.
  return validateConfig(config, 'command line');
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** The README's table of run options: every flag and config key, what it does, and its default. */
export function optionsMarkdown(): string {
  const lines = ['| flag | config key | meaning | default |', '|---|---|---|---|'];
  for (const { key, option } of rows()) {
    const flag = !option.flag ? '' : isBoolean(option) && defaultValue(option) === true
      ? `\`--${option.flag}\`, \`--no-${option.flag}\``
      : `\`--${option.flag}${option.arg ? ` ${option.arg}` : ''}\``;
    lines.push(`| ${flag} | ${key ? `\`${key}\`` : ''} | ${cell(option.describe)} | ${cell(shownDefault(option) ?? '')} |`);
  }
  return lines.join('\n');
}
