/**
 * The command layer of `spade-bench`: commands declared as data (names, description,
 * positionals, options, examples), argv parsed with yargs-parser (the parser yargs is built on:
 * types, `--no-x`, aliases, `--flag=value`, `--`), then checked strictly, with the messages
 * yargs gave. Help is rendered by ./help.ts, imported only when it is asked for: a run never
 * builds it.
 */
import parser from 'yargs-parser';
import { UsageError } from '../errors.js';

/** One option of a command. */
export interface FlagSpec {
  /** `number` is read from the text as typed, and a wrong value is reported naming the flag. */
  type: 'string' | 'number' | 'boolean';
  describe: string;
  /** The placeholder of the value in help: N, ID, FILE... */
  arg?: string;
  /** Set in the parsed args when the option is not given. */
  default?: unknown;
  alias?: string | readonly string[];
  choices?: readonly string[];
  demandOption?: boolean;
  /** Its heading in help; options without one are listed under "Options". */
  group?: string;
  /** Accepted, never listed in help (an option's old name). */
  hidden?: boolean;
  /** Said in help beside the option. */
  deprecated?: string;
}

/** A positional argument: `<name>` (one, required) or `<name..>` (one or more). */
export interface PositionalSpec {
  name: string;
  describe: string;
  variadic?: boolean;
}

export type Args = Record<string, unknown> & { _: string[] };

export interface CommandSpec {
  name: string;
  describe: string;
  /** The command run when the command line names none. */
  isDefault?: boolean;
  positionals?: readonly PositionalSpec[];
  options: Readonly<Record<string, FlagSpec>>;
  /** A paragraph after the options in help. */
  epilogue?: string;
  /** Old flag names, refused with the flag that replaced each. */
  renamed?: Readonly<Record<string, string>>;
  run(args: Args): Promise<number>;
}

export interface ProgramSpec {
  name: string;
  describe: string;
  version: () => string;
  commands: readonly CommandSpec[];
  examples?: readonly (readonly [command: string, meaning: string])[];
}

/** What the command line asks for. */
export type Invocation =
  | { kind: 'help'; command?: CommandSpec }
  | { kind: 'version' }
  | { kind: 'command'; command: CommandSpec; args: Args };

/** Options every command has. */
export const GLOBAL_OPTIONS: Readonly<Record<string, FlagSpec>> = {
  version: { type: 'boolean', describe: 'Show the version number' },
  help: { type: 'boolean', alias: 'h', describe: 'Show help' },
};

export const camelCase = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The names of an option in the parsed args: its own, its aliases and its camelCase form. */
export function namesOf(name: string, spec: FlagSpec): string[] {
  const names = [name, ...(spec.alias === undefined ? [] : typeof spec.alias === 'string' ? [spec.alias] : spec.alias)];
  return [...new Set([...names, ...names.map(camelCase)])];
}

/** A number option's text as a number, or the message that reports it as typed ("--rounds: expected a number, got \"many\""). */
function readNumber(flag: string, value: unknown): number | { error: string } {
  const n = Number(value);
  if (typeof value === 'boolean' || String(value).trim() === '' || !Number.isFinite(n)) return { error: `--${flag}: expected a number, got ${JSON.stringify(value)}` };
  return n;
}

const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many);

/**
 * Which command the command line names and the tokens left for it: the first word when it
 * names a command (after any --help, -h or --version), `help [command]` for help, otherwise the
 * default command with every token.
 */
function pickCommand(program: ProgramSpec, argv: readonly string[]): { command?: CommandSpec; named: boolean; tokens: string[]; help: boolean } {
  const byName = (word: string | undefined): CommandSpec | undefined => program.commands.find((c) => c.name === word);
  let at = 0;
  while (at < argv.length && ['--help', '-h', '--version'].includes(argv[at]!)) at++;
  const tokens = [...argv.slice(0, at)];
  const word = argv[at];
  if (word === 'help') {
    const command = byName(argv[at + 1]);
    return { command, named: command !== undefined, tokens: [], help: true };
  }
  const named = byName(word);
  if (named) return { command: named, named: true, tokens: [...tokens, ...argv.slice(at + 1)], help: false };
  return { command: program.commands.find((c) => c.isDefault), named: false, tokens: [...argv], help: false };
}

const fail = (program: ProgramSpec, message: string): never => {
  throw new UsageError(`${message}\nRun "${program.name} --help" for usage.`);
};

/** Parses argv (without node and the script) into the command to run and its args, or a request for help or the version. */
export function parseCommandLine(program: ProgramSpec, argv: readonly string[]): Invocation {
  const picked = pickCommand(program, argv);
  if (picked.help) return { kind: 'help', command: picked.command };
  const command = picked.command;
  if (!command) return { kind: 'help' };
  const options = { ...command.options, ...GLOBAL_OPTIONS };
  const string: string[] = [];
  const boolean: string[] = [];
  const alias: Record<string, string[]> = {};
  const known = new Set(['_', '--']);
  for (const [name, spec] of Object.entries(options)) {
    const names = namesOf(name, spec);
    for (const n of names) known.add(n);
    (spec.type === 'boolean' ? boolean : string).push(name);
    if (names.length > 1) alias[name] = names.slice(1);
  }
  const parsed = parser.detailed([...picked.tokens], {
    string,
    boolean,
    alias,
    // camelCase forms are declared as aliases of known options only, so an unknown option is
    // reported once, as typed; numbers are read by readNumber, which names the flag.
    configuration: { 'camel-case-expansion': false, 'parse-positional-numbers': false, 'populate--': true },
  });
  if (parsed.error) fail(program, parsed.error.message);
  const argvOut = parsed.argv;
  const plain = argvOut._.map(String);
  // Words after `--` are positionals whatever they look like.
  const words = [...plain, ...(argvOut['--'] ?? []).map(String)];
  delete argvOut['--'];
  // Help and the version come before any check: `run --help --bogus` shows run's help. As with
  // yargs, `help` as the last word asks for it too (`spade-bench validate help`). The default
  // command not named gets the program's help.
  if (argvOut.help === true || plain.at(-1) === 'help') return { kind: 'help', command: picked.named ? command : undefined };
  if (argvOut.version === true) return { kind: 'version' };

  const args: Args = { _: [] };
  for (const [key, value] of Object.entries(argvOut)) if (key !== '_') args[key] = value;
  // A number option's wrong value is reported first, with the value as typed (an empty one, or
  // the flag given twice, included).
  for (const [name, spec] of Object.entries(options)) {
    if (spec.type !== 'number' || args[name] === undefined) continue;
    const value = readNumber(name, args[name]);
    if (typeof value !== 'number') fail(program, value.error);
    for (const n of namesOf(name, spec)) args[n] = value;
  }
  const positionals = command.positionals ?? [];
  if (words.length < positionals.length) {
    fail(program, `Not enough non-option arguments: got ${words.length}, need at least ${positionals.length}`);
  }
  const missing = Object.entries(options).filter(([name, spec]) => spec.demandOption && args[name] === undefined).map(([name]) => name);
  if (missing.length) fail(program, `${plural(missing.length, 'Missing required argument', 'Missing required arguments')}: ${missing.join(', ')}`);
  const takesRest = positionals.at(-1)?.variadic === true;
  for (const [from, to] of Object.entries(command.renamed ?? {})) if (args[from] !== undefined) fail(program, `--${from} was renamed: use --${to}`);
  const unknown = [...Object.keys(args).filter((key) => !known.has(key)), ...(takesRest ? [] : words.slice(positionals.length))];
  if (unknown.length) {
    fail(program, `${plural(unknown.length, 'Unknown argument', 'Unknown arguments')}: ${unknown.map((s) => (s.trim() ? s : `"${s}"`)).join(', ')}`);
  }
  const invalid = Object.entries(options).flatMap(([name, spec]) => {
    if (!spec.choices || args[name] === undefined) return [];
    const given = [args[name]].flat().filter((v) => !spec.choices!.includes(v as string));
    return given.length ? [`\n  Argument: ${name}, Given: ${given.map((v) => JSON.stringify(v)).join(', ')}, Choices: ${spec.choices.map((c) => JSON.stringify(c)).join(', ')}`] : [];
  });
  if (invalid.length) fail(program, `Invalid values:${invalid.join('')}`);

  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.default !== undefined && args[name] === undefined) for (const n of namesOf(name, spec)) args[n] = spec.default;
  }
  positionals.forEach((p, i) => {
    args[p.name] = p.variadic ? words.slice(i) : words[i];
  });
  args._ = takesRest ? [] : words.slice(positionals.length);
  return { kind: 'command', command, args };
}
