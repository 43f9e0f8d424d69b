/**
 * `spade-bench validate FILE...`: the validation gate on environment programs, all in one
 * process: both readings (spade: exactly SPADE's own checks; strict: SPADE's and ours) and a
 * verdict per check. `--gate` names the reading whose verdict counts. Exit 0 when no file is
 * invalid under it, 1 when one is, 2 for a usage error or an unreadable file.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { resolveConfig, validateConfig } from '../config/config.js';
import { RUN_OPTIONS, turnBudget } from '../config/options.js';
import { flagOption } from './run-options.js';
import type { FlagSpec, PositionalSpec } from './commands.js';
import { EXIT, UsageError } from '../errors.js';
import { validateEnvironment } from '../gate/gate.js';
import { chooseSandbox, createRegistry, createSandboxSet } from '../setup/setup.js';
import type { Language } from '../types.js';
import type { GateVerdict } from '../results/results.js';
import { terminalLine } from './progress.js';

export const validatePositionals: PositionalSpec[] = [
  { name: 'files', variadic: true, describe: 'Environment programs: .js/.mjs (JavaScript) or .py (Python, SPADE format)' },
];

export const validateOptions: Record<string, FlagSpec> = {
  sandbox: flagOption(RUN_OPTIONS.sandbox),
  'python-sandbox': flagOption(RUN_OPTIONS.pythonSandbox),
  gate: flagOption(RUN_OPTIONS.gate),
  // validate plays no agent protocol: its default is the plain one.
  'max-turns': { ...flagOption(RUN_OPTIONS.maxTurns), describe: `${RUN_OPTIONS.maxTurns.describe} [default: ${turnBudget({})}]` },
  seed: { type: 'number', arg: 'N', describe: 'Seed passed to reset() [default: 1]' },
  json: { type: 'boolean', describe: 'Print a JSON array, one object per file' },
};

export interface ValidateArgs {
  files?: string[];
  sandbox?: string;
  pythonSandbox?: string;
  gate?: string;
  maxTurns?: number;
  seed?: number;
  json?: boolean;
}

const LANGUAGES: Record<string, Language> = { '.js': 'javascript', '.mjs': 'javascript', '.py': 'python' };

export interface FileVerdict {
  file: string;
  language: Language;
  /** The verdict under `gate`. */
  verdict: GateVerdict['verdict'];
  reason: string | null;
  /** single-turn, multi-turn or tool-use. */
  gameType: GateVerdict['gameType'] | null;
  gate: string;
  readings: GateVerdict['readings'];
  checks: GateVerdict['checks'];
}

const readingLine = (name: string, r: NonNullable<GateVerdict['readings']>['spade']): string =>
  `  ${name}: ${r.verdict}${r.reason && r.verdict !== 'valid' ? ` (${r.reason})` : ''}${r.detail && r.verdict === 'invalid' ? `: ${terminalLine(r.detail)}` : ''}\n`;

/**
 * A program file's text: UTF-8, as Python reads a source without a coding line, and without the
 * byte order mark some editors put first (Python and Node skip it; a program's text may not).
 */
function readSourceText(file: string): string {
  const bytes = readFileSync(file);
  try {
    // The decoder drops a leading byte order mark.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${file}: not UTF-8 text: save it as UTF-8`);
  }
}

export async function validateCommand(args: ValidateArgs): Promise<number> {
  const files = args.files ?? [];
  if (!files.length) throw new UsageError('validate: name at least one environment program (.js, .mjs or .py)');
  if (args.seed !== undefined && !(Number.isInteger(args.seed) && args.seed >= 0)) throw new UsageError(`--seed: expected a non-negative integer, got ${args.seed}`);
  // Read every file first: an unreadable one stops before any sandbox starts.
  const programs = files.map((file) => {
    if (!existsSync(file)) throw new UsageError(`${file}: no such file${/[*?[]/.test(file) ? ' (a pattern your shell did not expand: no file matches it)' : ''}`);
    if (statSync(file).isDirectory()) throw new UsageError(`${file}: is a folder: name the programs in it (${path.join(file, '*.py')}, ${path.join(file, '*.js')})`);
    const language = LANGUAGES[path.extname(file).toLowerCase()];
    if (!language) throw new UsageError(`${file}: unknown file type (expected .js, .mjs or .py)`);
    let source: string;
    try {
      source = readSourceText(file);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    return { file, program: { id: path.basename(file), language, source, meta: { origin: file } } };
  });
  const config = resolveConfig(validateConfig({ sandbox: args.sandbox, pythonSandbox: args.pythonSandbox, gate: args.gate, maxTurns: args.maxTurns }, 'command line'));
  const registry = createRegistry();
  // The sandboxes are checked before any program runs (a chosen one that cannot run here exits 2).
  config.sandbox = (await chooseSandbox(registry, config, 'javascript')).id;
  if (programs.some((p) => p.program.language === 'python')) config.pythonSandbox = (await chooseSandbox(registry, config, 'python')).id;
  const sandboxes = createSandboxSet(registry, config);
  const out: FileVerdict[] = [];
  try {
    for (const { file, program } of programs) {
      const sandbox = await sandboxes.get(program.language);
      const v = await validateEnvironment(sandbox, program, { seed: args.seed ?? 1, gate: config.gate, maxTurns: turnBudget(config) });
      const result: FileVerdict = { file, language: program.language, verdict: v.verdict, reason: v.reason ?? null, gameType: v.gameType ?? null, gate: config.gate, readings: v.readings, checks: v.checks };
      out.push(result);
      if (!args.json) {
        process.stdout.write(`${file}: ${v.verdict.toUpperCase()}${v.reason && v.verdict !== 'valid' ? ` (${v.reason})` : ''} [${program.language}${v.gameType ? `, ${v.gameType}` : ''}, ${sandbox.id}] under --gate ${config.gate}\n`);
        if (v.readings) process.stdout.write(readingLine('spade ', v.readings.spade) + readingLine('strict', v.readings.strict));
        for (const c of v.checks) process.stdout.write(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.detail ? `: ${terminalLine(c.detail)}` : ''}\n`);
      }
    }
  } finally {
    await sandboxes.close();
  }
  if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  return out.some((r) => r.verdict === 'invalid') ? EXIT.invalid : EXIT.ok;
}
