// The command layer: argv parsed by yargs into a command and its args, checked strictly with
// the messages users see ("did you mean" included), and --help rendered from the declarations.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCommandLine, type Args, type CommandSpec, type ProgramSpec } from '../../../core/cli/commands.js';
import { PROGRAM } from '../../../core/cli/main.js';
import { flagsToConfig } from '../../../core/cli/run-options.js';
import { UsageError } from '../../../core/errors.js';
import { closest } from '../../../core/config/suggest.js';
import { flatten, INVOCATION_OPTIONS, RUN_OPTIONS } from '../../../core/config/options.js';
import { readdirSync } from 'node:fs';
import { repoRoot, runCli, startCli, tempDir } from '../../helpers/cli.js';

const usage = (command: string): string => `\nRun "spade-bench ${command} --help" for usage.`;

function parsed(argv: string[]): { command: CommandSpec; args: Args } {
  const invocation = parseCommandLine(PROGRAM, argv);
  if (invocation.kind !== 'command') throw new Error(`expected a command, got ${invocation.kind}`);
  return invocation;
}

/** The message of the usage error argv makes. */
function usageError(argv: string[]): string {
  try {
    parseCommandLine(PROGRAM, argv);
  } catch (error) {
    assert.instance(error, UsageError);
    assert.is((error as UsageError).exitCode, 2);
    return (error as Error).message;
  }
  throw new Error(`${argv.join(' ')}: no usage error`);
}

/** The text argv asks to print (help, the version). */
function printed(argv: string[], width = 100): string {
  const invocation = parseCommandLine(PROGRAM, argv, width);
  if (invocation.kind !== 'output') throw new Error(`${argv.join(' ')}: expected text to print, got ${invocation.kind}`);
  return invocation.text;
}

const helpFor = (command: string | undefined): RegExp => (command ? new RegExp(`^Usage: spade-bench ${command}\\b`) : /^Usage: spade-bench \[command\] \[options\]\n/);

test('run is the default command: no command word, or flags only, run it', () => {
  assert.is(parsed([]).command.name, 'run');
  const { command, args } = parsed(['--rounds', '2', '--out', 'x']);
  assert.is(command.name, 'run');
  assert.is(args.rounds, 2);
  assert.is(args.out, 'x');
  assert.is(parsed(['run', '--rounds', '2']).args.rounds, 2);
  assert.is(parsed(['validate', 'a.js']).command.name, 'validate');
  // Named, run is parsed as the default command is (yargs then renders no help), with the same args.
  assert.equal(parsed(['run', '--rounds', '2', '--out', 'x']), parsed(['--rounds', '2', '--out', 'x']));
  // A word after it is no command of its own, and run's help is run's.
  assert.is(usageError(['run', 'validate', 'a.js']), `Unknown arguments: validate, a.js.${usage('run')}`);
  assert.is(usageError(['run', 'run']), `Unknown argument: run.${usage('run')}`);
  assert.match(printed(['run', '-h']), helpFor('run'));
});

test('an unknown option, or several, is a usage error naming them as typed', () => {
  assert.is(usageError(['run', '--bogus']), `Unknown argument: bogus.${usage('run')}`);
  assert.is(usageError(['--bogus']), `Unknown argument: bogus.${usage('run')}`);
  assert.is(usageError(['run', '--a', '1', '--b', '2']), `Unknown arguments: a, b.${usage('run')}`);
  // A dashed name once (yargs also names its camelCase form), a negated one by its name.
  assert.is(usageError(['run', '--foo-bar', '1']), `Unknown argument: foo-bar.${usage('run')}`);
  assert.is(usageError(['run', '--no-bogus']), `Unknown argument: bogus.${usage('run')}`);
  assert.is(usageError(['list', '--json']), `Unknown argument: json.${usage('list')}`);
  // Words a command does not take.
  assert.is(usageError(['run', 'extra']), `Unknown argument: extra.${usage('run')}`);
  assert.is(usageError(['bench', 'a', 'b']), `Unknown argument: b.${usage('bench')}`);
});

test('did you mean: the nearest command for a mistyped command, the nearest flag for a mistyped flag', () => {
  assert.is(usageError(['valdiate', 'x.js']), `Unknown arguments: valdiate, x.js. Did you mean spade-bench validate?${usage('run')}`);
  assert.match(usageError(['reprot', 'runs/a']), 'Did you mean spade-bench report?');
  assert.is(usageError(['run', '--roundz', '3']), `Unknown argument: roundz. Did you mean --rounds?${usage('run')}`);
  assert.match(usageError(['--envs-per-rond', '3']), 'Did you mean --envs-per-round?');
  assert.match(usageError(['run', '--no-cahce']), 'Did you mean --cache?');
  assert.match(usageError(['report', 'a', '--fromat', 'markdown']), 'Did you mean --format?');
  // Nothing near: no guess.
  assert.not.match(usageError(['run', '--zzzzzz']), 'Did you mean');
  assert.not.match(usageError(['run', 'runs/a']), 'Did you mean');
  assert.is(closest('gsm8kk', ['gsm8k', 'humaneval', 'procedural']), 'gsm8k');
  assert.is(closest('xyz', ['gsm8k', 'humaneval']), undefined);
  // A name the word begins with, or that begins the word, when no name is near by edits.
  assert.is(closest('output', ['out', 'seed']), 'out');
  assert.is(closest('humaneval-plus', ['gsm8k', 'humaneval']), 'humaneval');
  assert.is(closest('out', ['output-dir', 'seed']), 'output-dir');
  assert.is(closest('ou', ['output']), undefined);
  assert.is(closest('runs/a', ['run', 'report']), undefined);
});

test('a missing positional and a missing required option are usage errors', () => {
  for (const command of ['validate', 'report', 'bench', 'export', 'merge']) {
    assert.is(usageError([command]), `Not enough non-option arguments: got 0, need at least 1${usage(command)}`, command);
  }
  assert.is(usageError(['merge', 'a', 'b']), `Missing required argument: out${usage('merge')}`);
  assert.is(usageError(['worker']), `Missing required argument: redis${usage('worker')}`);
  // A required flag mistyped is reported as the typo, not as missing; so is an unknown flag that took the positional as its value.
  assert.is(usageError(['validate', '--jsn', 'env.py']), `Unknown argument: jsn. Did you mean --json?${usage('validate')}`);
  assert.is(usageError(['export', 'runs/a', '--output', 'x.jsonl']), `Unknown argument: output. Did you mean --out?${usage('export')}`);
  assert.is(usageError(['merge', 'a', 'b', '--ot', 'c']), `Unknown argument: ot. Did you mean --out?${usage('merge')}`);
  assert.is(usageError(['worker', '--redis-ulr', 'redis://x']), `Unknown argument: redis-ulr. Did you mean --redis?${usage('worker')}`);
  // Known flags, short aliases and --no- forms are no typo: the missing flag is reported.
  assert.is(usageError(['worker', '--jobs-in-flight', '2', '--jobsInFlight=2', '--name', 'w']), `Missing required argument: redis${usage('worker')}`);
  // Given, even empty, is not missing: the command says what is wrong with it.
  assert.is(parsed(['merge', 'a', '-o']).args.out, '');
});

test('an option of one value given twice is a usage error; a repeatable one collects its values', () => {
  assert.is(usageError(['export', 'runs/a', '--out', 'a.jsonl', '-o', 'b.jsonl']), `--out or -o given 2 times ("a.jsonl", "b.jsonl"): give it once${usage('export')}`);
  assert.is(usageError(['run', '--rounds', '2', '--rounds', '3']), `--rounds given 2 times (2, 3): give it once${usage('run')}`);
  assert.equal(parsed(['run', '--field', 'question=q', '--field', 'answer=a']).args.field, ['question=q', 'answer=a']);
});

test('a value outside an option\'s choices is a usage error listing them', () => {
  assert.is(usageError(['report', 'a', '--format', 'pdf']), `Invalid values:\n  Argument: format, Given: "pdf", Choices: "html", "markdown", "json"${usage('report')}`);
  assert.is(parsed(['report', 'a', '--format', 'markdown']).args.format, 'markdown', 'the word table --format uses too');
  assert.is(parsed(['report', 'a']).args.format, 'html', 'the default');
});

test('a number flag reads its text, and a wrong one is reported naming the flag, as typed', () => {
  assert.is(usageError(['run', '--rounds', 'many']), `--rounds: expected a number, got "many"${usage('run')}`);
  assert.is(usageError(['run', '--rounds=many']), `--rounds: expected a number, got "many"${usage('run')}`);
  assert.is(usageError(['run', '--rounds']), `--rounds: expected a number, got ""${usage('run')}`);
  assert.is(usageError(['run', '--rounds', '1', '--rounds', '2']), `--rounds given 2 times (1, 2): give it once${usage('run')}`);
  assert.is(usageError(['bench', 'a', '--limit', 'zz']), `--limit: expected a number, got "zz"${usage('bench')}`);
  assert.is(usageError(['worker', '--redis', 'r', '--lock-duration', 'soon']), `--lock-duration: expected a number, got "soon"${usage('worker')}`);
  const { args } = parsed(['run', '--band-ramp', '0.5', '--seed', '-1', '--max-turns', '1e2']);
  assert.equal([args.bandRamp, args['band-ramp'], args.seed, args.maxTurns], [0.5, 0.5, -1, 100]);
  // Text options stay text, numbers included.
  assert.is(parsed(['run', '--out', '007']).args.out, '007');
});

test('--no-x, --x=value, aliases and camelCase names', () => {
  assert.is(parsed(['run', '--no-cache']).args.cache, false);
  assert.is(parsed(['run', '--cache']).args.cache, true);
  assert.is(parsed(['run', '--cache=false']).args.cache, false);
  assert.is(parsed(['run']).args.cache, undefined, 'a boolean not given stays unset: the config decides');
  let { args } = parsed(['run', '--python-sandbox=pyodide', '--validate-only', '--out=runs/a=b']);
  assert.equal([args.pythonSandbox, args['python-sandbox'], args.validateOnly, args.out], ['pyodide', 'pyodide', true, 'runs/a=b']);
  assert.is(parsed(['run', '--pythonSandbox', 'cpython']).args['python-sandbox'], 'cpython');
  ({ args } = parsed(['report', 'r1', 'r2', '-o', 'out.html']));
  assert.equal([args.runs, args.o, args.out], [['r1', 'r2'], 'out.html', 'out.html']);
  assert.is(parsed(['export', 'r', '-o', 'e.jsonl']).args.out, 'e.jsonl');
  assert.is(parsed(['export', 'r', '--out', 'e.jsonl']).args.out, 'e.jsonl', 'the same word as run, report and merge');
  ({ args } = parsed(['merge', 's1', 's2', '--out', 'all']));
  assert.equal([args.dirs, args.o], [['s1', 's2'], 'all']);
  assert.is(parsed(['bench', 'r']).args.run, 'r');
  // The flags become a config as before.
  assert.equal(flagsToConfig(parsed(['run', '--no-cache', '--suites=gsm8k,procedural', '--rounds', '2', '--band', '0.2,0.4']).args), {
    suites: ['gsm8k', 'procedural'], cache: false, selfplay: { rounds: 2, band: [0.2, 0.4] },
  });
});

test('words after -- are positionals, whatever they look like', () => {
  assert.equal(parsed(['validate', '--json', '--', '-odd.js', '--x.py']).args.files, ['-odd.js', '--x.py']);
  assert.is(usageError(['run', '--', '--foo']), `Unknown argument: --foo.${usage('run')}`);
});

test('an old flag name is refused, naming the new one', () => {
  assert.match(usageError(['run', '--validator', 'openai:j']), '--validator was renamed: use --reviewer');
  assert.match(usageError(['run', '--concurrency', '2']), '--concurrency was renamed: use --environments-in-flight');
  assert.match(usageError(['worker', '--redis', 'redis://x', '--concurrency', '2']), '--concurrency was renamed: use --jobs-in-flight');
});

test('--help, -h and help ask for help; --version for the version; before any check', () => {
  assert.match(printed(['--help']), helpFor(undefined));
  assert.match(printed(['-h']), helpFor(undefined));
  assert.match(printed(['help']), helpFor(undefined));
  assert.match(printed(['--out', 'x', '--help']), helpFor(undefined), 'the default command not named: the program\'s help');
  assert.match(printed(['run', '--help', '--bogus']), helpFor('run'));
  assert.match(printed(['--help', 'validate']), helpFor('validate'));
  assert.match(printed(['help', 'merge']), helpFor('merge'));
  assert.match(printed(['validate', '-h']), helpFor('validate'), 'no file needed');
  assert.match(printed(['report', 'help']), helpFor('report'));
  assert.is(printed(['--version']), `${PROGRAM.version()}\n`);
  assert.is(printed(['merge', '--version']), `${PROGRAM.version()}\n`);
});

/** A help text with its line breaks and padding made single spaces. */
const flat = (text: string): string => text.replace(/\s+/g, ' ');

test("run's help lists every flag of the table of options, its description and its default, by section", () => {
  const help = printed(['run', '--help']);
  assert.match(help, /^Usage: spade-bench run \[options\]\n/);
  for (const { option } of [...flatten(RUN_OPTIONS), ...flatten(INVOCATION_OPTIONS)]) {
    if (!option.flag) continue;
    assert.match(help, `--${option.flag} `, option.flag);
    assert.match(flat(help), flat(option.describe), option.flag);
  }
  for (const heading of ['Run:', 'Self-play:', "This invocation (not recorded in the run's config):", 'Options:']) assert.match(help, `\n${heading}\n`);
  assert.ok(help.indexOf('--rounds') > help.indexOf('Self-play:') && help.indexOf('--resume') > help.indexOf('This invocation'), 'each flag under its section');
  assert.match(flat(help), '--rounds Self-play rounds [default: 3] [number]');
  assert.match(flat(help), '--cache Cache model responses');
  assert.match(flat(help), '[default: on] [boolean]');
  assert.match(flat(help), 'Keys with no flag (cacheDir, verdictCacheDir, plugins, providers, limits, curriculum, prompts, sampling, suiteOptions) are set in the config file');
});

test("every command's help: usage, description, positionals and each option with type, default, choices and aliases", () => {
  for (const command of PROGRAM.commands) {
    const help = flat(printed([command.name, '--help']));
    assert.match(help, `Usage: spade-bench ${command.name}`);
    assert.match(help, flat(command.describe));
    for (const p of command.positionals ?? []) assert.match(help, `${p.name} ${flat(p.describe)}`);
    for (const [name, spec] of Object.entries(command.options)) {
      if (spec.hidden) continue;
      assert.match(help, name.length === 1 ? `-${name}` : `--${name}`, `${command.name} --${name}`);
      assert.match(help, flat(spec.describe), `${command.name} --${name}`);
      assert.match(help, `[${spec.type}]`);
      if (spec.choices) assert.match(help, `[choices: ${spec.choices.map((c) => `"${c}"`).join(', ')}]`);
      if (spec.default !== undefined) assert.match(help, `[default: ${JSON.stringify(spec.default)}]`);
    }
    assert.match(help, '--version Show version number');
    assert.match(help, '-h, --help Show help');
  }
  const report = flat(printed(['report', '--help']));
  assert.match(report, '-o, --out');
  assert.match(report, 'runs Run folders');
  assert.match(flat(printed(['worker', '--help'])), '[string] [required]');
});

test("the program's help: every command, the default command's options, examples", () => {
  const help = printed(['--help']);
  assert.match(help, helpFor(undefined));
  for (const command of PROGRAM.commands) assert.match(flat(help), flat(command.describe));
  for (const usage of ['spade-bench run ', 'spade-bench validate <files..>', 'spade-bench report <runs..>', 'spade-bench bench <run>', 'spade-bench merge <dirs..>']) assert.match(help, usage);
  assert.match(flat(help), '(the default command) [default]');
  assert.match(help, '--envs-per-round');
  assert.match(help, '\nExamples:\n  spade-bench ');
  assert.match(help, 'spade-bench --agent openai:gpt-4.1-mini ');
});

test('help is wrapped to the width given', () => {
  for (const width of [60, 80, 110]) {
    for (const command of [[], ...PROGRAM.commands.map((c) => [c.name])]) {
      const lines = printed([...command, '--help'], width).split('\n');
      // A line is longer only when one word is.
      for (const line of lines) if (line.length > width) assert.ok(!line.trim().includes(' '), `${width}: ${line}`);
    }
  }
});

test('a program of its own: required single and variadic positionals, hidden options, defaults', async () => {
  let ran: Args | undefined;
  const program: ProgramSpec = {
    name: 'tool',
    describe: 'A tool.',
    version: () => '1.2.3',
    commands: [
      {
        name: 'copy',
        isDefault: true,
        describe: 'Copy.',
        positionals: [{ name: 'from', describe: 'Source' }, { name: 'to', variadic: true, describe: 'Targets' }],
        options: {
          mode: { type: 'string', choices: ['fast', 'safe'], default: 'safe', describe: 'How' },
          'dry-run': { type: 'boolean', alias: 'n', describe: 'Say only' },
          old: { type: 'string', hidden: true, describe: 'Old name of --mode' },
        },
        run: async (args) => {
          ran = args;
          return 0;
        },
      },
    ],
  };
  const invocation = parseCommandLine(program, ['copy', 'a', 'b', 'c', '-n', '--old', 'x']);
  assert.is(invocation.kind, 'command');
  if (invocation.kind === 'command') await invocation.command.run(invocation.args);
  assert.equal([ran!.from, ran!.to, ran!.mode, ran!.dryRun, ran!.n, ran!.old], ['a', ['b', 'c'], 'safe', true, true, 'x']);
  assert.throws(() => parseCommandLine(program, ['copy', 'a']), /Not enough non-option arguments: got 1, need at least 2\nRun "tool copy --help" for usage\./);
  const help = parseCommandLine(program, ['copy', '--help']);
  assert.ok(help.kind === 'output' && !help.text.includes('--old'));
});

test('the command line: a usage error on stderr with the pointer to --help, exit 2, nothing on stdout', async () => {
  const r = await runCli(['merge', 'a']);
  assert.is(r.code, 2);
  assert.is(r.stderr, `spade-bench: Missing required argument: out${usage('merge')}\n`);
  assert.is(r.stdout, '');
  const help = await runCli(['validate', '--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /^Usage: spade-bench validate <files\.\.> \[options\]\n/);
});

test('did you mean: a mistyped suite, provider or sandbox id names the nearest, exit 2, nothing written', async () => {
  const cwd = tempDir();
  for (const [args, expected] of [
    [['--suites', 'gsm8kk'], 'unknown suite "gsm8kk". Did you mean gsm8k?'],
    [['--suites', 'procedural,jsonll:q.jsonl'], 'unknown suite "jsonll:q.jsonl". Did you mean jsonl:q.jsonl?'],
    [['--agent', 'opnai:gpt-4.1-mini'], 'Did you mean openai:gpt-4.1-mini?'],
    [['--sandbox', 'isolatedvm'], 'unknown sandbox "isolatedvm". Did you mean isolated-vm?'],
  ] as const) {
    const r = await runCli(['run', '--out', 'out', ...args], { cwd, env: { OPENAI_API_KEY: 'sk-test' } });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, expected);
    assert.equal(readdirSync(cwd), [], 'a usage error writes nothing');
  }
});

test('output into a pipe closed early (spade-bench list | head -1) ends quietly: exit 0, no stack trace', async () => {
  for (const args of [['list'], ['run', '--help']]) {
    const { child, done } = startCli(args);
    // The reader is gone before the command writes: its first write meets EPIPE.
    child.stdout!.destroy();
    const r = await done;
    assert.is(r.stderr, '', args.join(' '));
    assert.is(r.code, 0, args.join(' '));
  }
});

/** The flags of Node's command line in the process the bin ends up running in, started with `nodeFlags`. */
function startedWith(nodeFlags: string[]): string[] {
  // An --import runs again in the restarted process (it gets our flags): it prints them there.
  const probe = 'data:text/javascript,if (process.execArgv.includes("--no-node-snapshot")) console.error("FLAGS" + JSON.stringify(process.execArgv))';
  const child = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', '--import', probe, path.join(repoRoot, 'core/cli/bin.ts'), '--version'], { cwd: repoRoot, encoding: 'utf8' });
  assert.is(child.status, 0, child.stderr);
  const line = child.stderr.split('\n').find((l) => l.startsWith('FLAGS'));
  assert.ok(line, `no restarted process: ${child.stderr}`);
  return JSON.parse(line!.slice(5)) as string[];
}

test('started without --no-node-snapshot, the bin starts Node again with it, keeping the flags node was given', () => {
  const shebang = readFileSync(path.join(repoRoot, 'core/cli/bin.ts'), 'utf8').split('\n')[0]!;
  assert.is(shebang, '#!/usr/bin/env -S node --no-node-snapshot');
  assert.ok(startedWith([]).includes('--no-node-snapshot'));
  const given = startedWith(['--max-old-space-size=512']);
  assert.ok(given.includes('--no-node-snapshot') && given.includes('--max-old-space-size=512'), given.join(' '));
});

test.run();
