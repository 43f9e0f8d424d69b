/**
 * Where the child process's JavaScript lives. In a build (dist/) it is the compiled child.js
 * and interpreter.js next to this file. Run from TypeScript sources, the child cannot use tsx
 * (tsx starts esbuild as a process, which the permission model forbids), so the two entry files
 * are transpiled once with TypeScript into a cache folder keyed by their content, as .mjs.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../../../core/results/fs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** child last: its presence means the folder is complete. */
const ENTRY_FILES = ['interpreter', 'child'];

export interface ChildEntry {
  /** The script node runs. */
  entry: string;
  /** Folder holding the entry scripts (readable by the child). */
  dir: string;
}

export function resolveChildEntry(): ChildEntry {
  // The path, not the URL: loaded through tsx's tsImport (as worker threads do), the URL carries a query.
  if (!fileURLToPath(import.meta.url).endsWith('.ts')) return { entry: path.join(here, 'child.js'), dir: here };
  const sources = ENTRY_FILES.map((name) => readFileSync(path.join(here, `${name}.ts`), 'utf8'));
  const hash = createHash('sha256').update(sources.join('\0')).digest('hex').slice(0, 16);
  const dir = path.join(tmpdir(), `spade-bench-pyodide-${hash}`);
  const entry = path.join(dir, 'child.mjs');
  if (existsSync(entry)) return { entry, dir };
  const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript');
  ENTRY_FILES.forEach((name, i) => {
    const output = ts.transpileModule(sources[i]!, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: `${name}.ts`,
    }).outputText;
    writeFileAtomic(path.join(dir, `${name}.mjs`), output);
  });
  return { entry, dir };
}
