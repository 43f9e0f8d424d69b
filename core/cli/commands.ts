/**
 * The command layer of `spade-bench`: commands declared as data (names, description,
 * positionals, options, examples) and handed to yargs, which parses argv, checks it strictly,
 * and renders each command's --help. On top of yargs: "did you
 * mean" for a mistyped command or flag, old flag names refused with the new one, and a number
 * flag's wrong value reported as typed.
 */
import yargs, { type Argv } from 'yargs';
import { UsageError } from '../errors.js';
import { closest, didYouMean } from '../config/suggest.js';

/** One option of a command. */
export interface FlagSpec {
  /** `number` is read from the text as typed, and a wrong value is reported naming the flag. */
  type: 'string' | 'number' | 'boolean';
  describe: string;
  /** The placeholder of the value in the docs' tables: N, ID, FILE... */
  arg?: string;
  /** Set in the parsed args when the option is not given. */
  default?: unknown;
  alias?: string | readonly string[];
  choices?: readonly string[];
  demandOption?: boolean;
  /** Its heading in help; options without one are listed under "Options". */
  group?: string;
  /** Accepted, never listed in help. */
  hidden?: boolean;
  /** The flag may be given several times; its values are collected in a list. */
  repeatable?: boolean;
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

/** What the command line asks for: a command to run, or text to print (help, the version). */
export type Invocation = { kind: 'output'; text: string } | { kind: 'command'; command: CommandSpec; args: Args };

export const camelCase = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const kebabCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const aliasesOf = (spec: FlagSpec): string[] => (spec.alias === undefined ? [] : typeof spec.alias === 'string' ? [spec.alias] : [...spec.alias]);

/** The names of an option in the parsed args: its own, its aliases and their camelCase forms. */
export function namesOf(name: string, spec: FlagSpec): string[] {
  const names = [name, ...aliasesOf(spec)];
  return [...new Set([...names, ...names.map(camelCase)])];
}

const usageOf = (command: CommandSpec): string =>
  [command.name, ...(command.positionals ?? []).map((p) => `<${p.name}${p.variadic ? '..' : ''}>`)].join(' ');

/** Declares a command's positionals and options to yargs. */
function declare(y: Argv, command: CommandSpec): Argv {
  for (const p of command.positionals ?? []) y.positional(p.name, { describe: p.describe, type: 'string', ...(p.variadic ? { array: true } : {}) });
  const groups = new Map<string, string[]>();
  for (const [name, spec] of Object.entries(command.options)) {
    y.option(name, {
      type: spec.type,
      describe: spec.describe,
      ...(spec.default !== undefined ? { default: spec.default } : {}),
      ...(spec.alias !== undefined ? { alias: aliasesOf(spec) } : {}),
      ...(spec.choices ? { choices: [...spec.choices] } : {}),
      ...(spec.demandOption ? { demandOption: true } : {}),
      ...(spec.hidden ? { hidden: true } : {}),
      ...(spec.repeatable ? { array: true } : {}),
      // A text option keeps its text (`--out 007`); a number option is read below, naming the flag.
      ...(spec.type === 'string' ? { coerce: (v: unknown) => v } : {}),
    });
    if (spec.group) groups.set(spec.group, [...(groups.get(spec.group) ?? []), name]);
  }
  for (const [group, names] of groups) y.group(names, `${group}:`);
  if (command.epilogue) y.epilogue(command.epilogue);
  return y;
}

/** The text an option was given on the command line (the last time), for a message about it. */
function typedValue(argv: readonly string[], names: readonly string[]): unknown {
  const given: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') break;
    for (const name of names) {
      const flag = name.length === 1 ? `-${name}` : `--${name}`;
      if (token === flag) given.push(argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('-') ? argv[i + 1]! : '');
      else if (token.startsWith(`${flag}=`)) given.push(token.slice(flag.length + 1));
    }
  }
  return given.length > 1 ? given : given[0];
}

/** A number option's value, or the message that reports it as typed ("--rounds: expected a number, got \"many\""). */
function readNumbers(program: ProgramSpec, command: CommandSpec, args: Args, argv: readonly string[]): void {
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.type !== 'number') continue;
    const names = [...new Set(namesOf(name, spec).map(kebabCase))];
    const value = args[name];
    // A number flag given with no value: yargs leaves it unset.
    if (value === undefined && typedValue(argv, names) === undefined) continue;
    if (typeof value === 'number' && Number.isFinite(value)) continue;
    if (spec.repeatable && Array.isArray(value) && value.every((v) => typeof v === 'number' && Number.isFinite(v))) continue;
    const typed = typedValue(argv, names);
    throw new UsageError(`--${name}: expected a number, got ${JSON.stringify(typed ?? value)}\n${helpPointer(program, command)}`);
  }
}

const helpPointer = (program: ProgramSpec, command: CommandSpec | undefined): string =>
  `Run "${program.name}${command ? ` ${command.name}` : ''} --help" for usage.`;

/** The command argv names: its first word when that is a command's name, else the default one. */
function commandNamed(program: ProgramSpec, argv: readonly string[]): CommandSpec | undefined {
  const word = argv.find((t) => !t.startsWith('-'));
  return program.commands.find((c) => c.name === word) ?? program.commands.find((c) => c.isDefault);
}

/**
 * yargs' message made to help: an unknown flag under an old name names the new one; an unknown
 * flag or word gets the nearest flag or command ("Did you mean --rounds?"); the pointer to --help.
 */
function usageMessage(program: ProgramSpec, argv: readonly string[], message: string): string {
  const command = commandNamed(program, argv);
  // yargs reports a missing required option or positional before an unknown flag: a mistyped
  // required flag (`--output` for `--out`), or an unknown flag that took the file named after it
  // as its value (`validate --jsn env.py`), would be reported as missing, not as the typo it is.
  if (command && /^(Missing required argument|Not enough non-option arguments)/.test(message)) {
    const typos = unknownFlags(command, argv);
    if (typos.length) message = `Unknown argument${typos.length === 1 ? '' : 's'}: ${typos.join(', ')}`;
  }
  const unknown = /^Unknown arguments?: (.*)$/s.exec(message);
  if (unknown && command) {
    // yargs names a dashed flag twice (foo-bar, fooBar): once is enough.
    const names = unknown[1]!.split(', ');
    const shown = names.filter((n) => !(n !== kebabCase(n) && names.includes(kebabCase(n))));
    for (const name of shown) {
      const to = command.renamed?.[kebabCase(name)];
      if (to) return `--${kebabCase(name)} was renamed: use --${to}\nRun "${program.name} ${command.name} --help" for usage.`;
    }
    message = `Unknown argument${shown.length === 1 ? '' : 's'}: ${shown.join(', ')}.`;
    const first = shown[0]!;
    const typedAsFlag = argv.some((t) => t.replace(/^--(no-)?/, '').split('=')[0] === first && t.startsWith('-'));
    if (typedAsFlag) message += didYouMean(first, Object.keys(command.options).filter((n) => !command.options[n]!.hidden), '--');
    else {
      const near = closest(first, program.commands.map((c) => c.name));
      if (near) message += ` Did you mean ${program.name} ${near}?`;
    }
  }
  return `${message}\n${helpPointer(program, command)}`;
}

/** The flags typed in argv (before any `--`) that are no option of the command, as typed, without dashes. */
function unknownFlags(command: CommandSpec, argv: readonly string[]): string[] {
  const known = new Set(['help', 'h', 'version']);
  for (const [name, spec] of Object.entries(command.options)) for (const n of namesOf(name, spec)) known.add(n).add(kebabCase(n));
  const end = argv.indexOf('--');
  const flags = (end < 0 ? argv : argv.slice(0, end)).filter((t) => /^--?[^-\d]/.test(t)).map((t) => t.replace(/^--?/, '').split('=')[0]!);
  return [...new Set(flags.filter((name) => !known.has(name) && !(name.startsWith('no-') && known.has(name.slice(3)))))];
}

/** An option that takes one value given more than once (`--out a -o b`): yargs collects them in a list, which no command expects. */
function refuseRepeats(program: ProgramSpec, command: CommandSpec, args: Args): void {
  for (const [name, spec] of Object.entries(command.options)) {
    const value = args[name];
    if (spec.repeatable || !Array.isArray(value)) continue;
    const flags = [...new Set([name, ...aliasesOf(spec)].map((n) => (n.length === 1 ? `-${n}` : `--${kebabCase(n)}`)))].join(' or ');
    throw new UsageError(`${flags} given ${value.length} times (${value.map((v) => JSON.stringify(v)).join(', ')}): give it once\n${helpPointer(program, command)}`);
  }
}

/**
 * Parses argv (without node and the script) into the command to run and its args, or the text
 * to print (help, the version). Help is wrapped to `width` columns.
 */
export function parseCommandLine(program: ProgramSpec, argv: readonly string[], width = 100): Invocation {
  // `spade-bench help [command]` asks for help too.
  const given = argv[0] === 'help' ? [...argv.slice(1), '--help'] : [...argv];
  // Words after `--` are positionals whatever they look like: yargs leaves them out of a
  // command's positionals, so they go in under stand-ins and are put back after.
  const end = given.indexOf('--');
  const standIns = new Map<string, string>();
  const words = end < 0 ? given : [...given.slice(0, end), ...given.slice(end + 1).map((word) => {
    if (!word.startsWith('-')) return word;
    const standIn = `\u0001${standIns.size}`;
    standIns.set(standIn, word);
    return standIn;
  })];
  const putBack = (value: unknown): unknown =>
    typeof value === 'string' ? standIns.get(value) ?? value : Array.isArray(value) ? value.map(putBack) : value;
  const putBackText = (text: string): string => text.replace(/\u0001\d+/g, (m) => standIns.get(m) ?? m);
  // yargs renders a named command's whole help once it has parsed it (kept, should the command
  // fail later), never the default command's: for `run` that is ~70 ms and several MiB of Unicode
  // tables and regular expressions (cliui measures every word) that a run never shows. The
  // default command, named without a request for help (nor a word naming a command after it), is
  // therefore parsed as the default command.
  const names = program.commands.map((c) => c.name);
  const defaultNamed = words[0] === program.commands.find((c) => c.isDefault)?.name && !words.some((w, i) => ['--help', '-h', '--version'].includes(w) || (i > 0 && names.includes(w)));
  const parsedWords = defaultNamed ? words.slice(1) : words;
  let chosen: { command: CommandSpec; args: Args } | undefined;
  const parser = yargs()
    .scriptName(program.name)
    .usage(`Usage: $0 [command] [options]\n\n${program.describe}`)
    .parserConfiguration({ 'parse-positional-numbers': false })
    .strict()
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version(program.version())
    .exitProcess(false)
    .wrap(width)
    .fail((message: string | undefined, error: Error | undefined) => {
      if (error instanceof UsageError) throw error;
      throw new UsageError(putBackText(usageMessage(program, given, message ?? error?.message ?? 'invalid command line')));
    });
  for (const command of program.commands) {
    const usage = usageOf(command);
    parser.command(
      command.isDefault ? [usage, '$0'] : usage,
      command.describe,
      // The default command's usage line only when it is named: the program's help shows its options.
      (y: Argv) => declare(!command.isDefault || words.includes(command.name) ? y.usage(`Usage: $0 ${usage} [options]\n\n${command.describe}`) : y, command),
      (args: Record<string, unknown>) => {
        chosen = { command, args: args as Args };
      },
    );
  }
  for (const [example, meaning] of program.examples ?? []) parser.example(example, meaning);
  let output = '';
  parser.parse(parsedWords, {}, (_error: Error | null | undefined, _argv: unknown, text: string) => {
    output = text;
  });
  if (!chosen) return { kind: 'output', text: output.endsWith('\n') || !output ? output : `${output}\n` };
  const { command, args } = chosen;
  for (const key of Object.keys(args)) args[key] = putBack(args[key]);
  refuseRepeats(program, command, args);
  readNumbers(program, command, args, given);
  args._ = args._.map(String);
  if (args._[0] === command.name) args._.shift();
  delete args.$0;
  return { kind: 'command', command, args };
}
