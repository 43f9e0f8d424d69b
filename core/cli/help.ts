/**
 * `--help` of the program and of each command, from the commands' declarations (./commands.ts):
 * usage, description, positionals, options by group with their type, whether required, choices,
 * default and aliases, examples. Lines are wrapped to the width given; every text here is plain
 * ASCII, so a string's length is its width. Imported only when help is asked for.
 */
import { GLOBAL_OPTIONS, type CommandSpec, type FlagSpec, type ProgramSpec } from './commands.js';

/** Words of `text` in lines of at most `width` characters (a longer word has a line of its own). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ').filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines;
}

/**
 * Rows of a two-column table: the left column as wide as its widest cell (at most 40% of the
 * width: a wider cell puts its text on the next lines), the text wrapped beside it, and the
 * hints ([string] [default: 1]) at the right end of its last line, or of a line of their own.
 */
function table(rows: readonly { left: string; text: string; hints?: string }[], width: number): string[] {
  const leftWidth = Math.min(Math.max(...rows.map((r) => r.left.length)), Math.floor(width * 0.4));
  const indent = leftWidth + 2;
  const textWidth = Math.max(20, width - indent);
  const out: string[] = [];
  for (const { left, text, hints } of rows) {
    const lines = text ? wrap(text, textWidth) : [];
    if (hints) {
      const last = lines.at(-1) ?? '';
      if (lines.length && last.length + 2 + hints.length <= textWidth) lines[lines.length - 1] = last + hints.padStart(textWidth - last.length);
      else if (hints.length <= textWidth) lines.push(hints.padStart(textWidth));
      else lines.push(...wrap(hints, textWidth));
    }
    if (left.length > leftWidth) out.push(left);
    else out.push(`${left.padEnd(indent)}${lines.shift() ?? ''}`.trimEnd());
    for (const line of lines) out.push(`${' '.repeat(indent)}${line}`.trimEnd());
  }
  return out;
}

const usageOf = (program: ProgramSpec, command: CommandSpec): string =>
  [program.name, command.name, ...(command.positionals ?? []).map((p) => `<${p.name}${p.variadic ? '..' : ''}>`)].join(' ');

/** `-o, --out DIR`: short names first, the other long names after (camelCase forms are not shown). */
function optionLeft(name: string, spec: FlagSpec): string {
  const names = [name, ...(spec.alias === undefined ? [] : typeof spec.alias === 'string' ? [spec.alias] : spec.alias)];
  const short = names.filter((n) => n.length === 1).map((n) => `-${n}`);
  const long = names.filter((n) => n.length > 1).map((n) => `--${n}`);
  const arg = spec.arg && spec.type !== 'boolean' ? ` ${spec.arg}` : '';
  const shown = [...short, ...long].join(', ');
  return `  ${short.length ? '' : '    '}${shown}${arg}`;
}

function optionHints(spec: FlagSpec): string {
  const hints = [`[${spec.type}]`];
  if (spec.demandOption) hints.push('[required]');
  if (spec.choices) hints.push(`[choices: ${spec.choices.map((c) => JSON.stringify(c)).join(', ')}]`);
  if (spec.default !== undefined) hints.push(`[default: ${JSON.stringify(spec.default)}]`);
  if (spec.deprecated) hints.push(`[deprecated: ${spec.deprecated}]`);
  return hints.join(' ');
}

/** The options of a command by group, in the order of their first option; ungrouped ones (and --help, --version) under "Options". */
function optionSections(options: Readonly<Record<string, FlagSpec>>, width: number): string[] {
  const groups = new Map<string, [string, FlagSpec][]>();
  for (const [name, spec] of Object.entries({ ...options, ...GLOBAL_OPTIONS })) {
    if (spec.hidden) continue;
    const group = spec.group ?? 'Options';
    groups.set(group, [...(groups.get(group) ?? []), [name, spec]]);
  }
  const ungrouped = groups.get('Options');
  groups.delete('Options');
  if (ungrouped) groups.set('Options', ungrouped);
  return [...groups].flatMap(([group, entries]) => [
    '',
    `${group}:`,
    ...table(entries.map(([name, spec]) => ({ left: optionLeft(name, spec), text: spec.describe, hints: optionHints(spec) })), width),
  ]);
}

/** The help of one command, or of the program (`command` undefined): its commands, the default command's options, examples. */
export function renderHelp(program: ProgramSpec, command: CommandSpec | undefined, width: number): string {
  const lines: string[] = [];
  const shown = command ?? program.commands.find((c) => c.isDefault);
  if (!command) {
    lines.push(`Usage: ${program.name} [command] [options]`, '', ...wrap(program.describe, width), '', 'Commands:');
    lines.push(...table(program.commands.map((c) => ({ left: `  ${usageOf(program, c)}`, text: c.describe, hints: c.isDefault ? '[default]' : undefined })), width));
    if (shown) lines.push('', ...wrap(`Options of ${program.name} ${shown.name}, the default command (${program.name} COMMAND --help shows a command's own):`, width));
  } else {
    lines.push(`Usage: ${usageOf(program, command)} [options]`, '', ...wrap(command.describe, width));
    if (command.positionals?.length) {
      lines.push('', 'Positionals:');
      lines.push(...table(command.positionals.map((p) => ({ left: `  ${p.name}`, text: p.describe, hints: `[${p.variadic ? 'array' : 'string'}] [required]` })), width));
    }
  }
  lines.push(...optionSections(shown?.options ?? {}, width));
  if (!command && program.examples?.length) {
    lines.push('', 'Examples:');
    lines.push(...table(program.examples.map(([example, meaning]) => ({ left: `  ${example.replace(/^\$0/, program.name)}`, text: meaning })), width));
  }
  if (shown?.epilogue) lines.push('', ...wrap(shown.epilogue, width));
  return `${lines.join('\n')}\n`;
}
