/**
 * The import graph of the source tree, read from the files themselves: which module imports
 * which (static imports, re-exports and dynamic import()), and whether only for types.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers/cli.js';

export interface Edge {
  /** The imported module, as a path from the repository root (`core/run/run.ts`), or a package name. */
  to: string;
  /** `import type` / `export type`: erased when compiled. */
  typeOnly: boolean;
  dynamic: boolean;
}

/** Every .ts file under the given folders (paths from the repository root), fixtures left out. */
export function sourceFiles(...folders: string[]): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(repoRoot, dir)).flatMap((name) => {
      const file = path.join(dir, name);
      if (statSync(path.join(repoRoot, file)).isDirectory()) return name === 'fixtures' || name === 'node_modules' ? [] : walk(file);
      return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [file] : [];
    });
  return folders.flatMap((f) => (f.endsWith('.ts') ? [f] : walk(f)));
}

const STATIC = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g;
const DYNAMIC = /import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one file. */
export function importsOf(file: string): Edge[] {
  const text = readFileSync(path.join(repoRoot, file), 'utf8');
  const resolve = (specifier: string): string =>
    specifier.startsWith('.') ? path.normalize(path.join(path.dirname(file), specifier)).replace(/\.js$/, '.ts') : specifier;
  const edges: Edge[] = [];
  for (const m of text.matchAll(STATIC)) edges.push({ to: resolve(m[3]!), typeOnly: Boolean(m[2]), dynamic: false });
  for (const m of text.matchAll(DYNAMIC)) edges.push({ to: resolve(m[1]!), typeOnly: false, dynamic: true });
  return edges;
}

/** The modules `file` loads when it runs, directly or through others (type-only imports left out). */
export function reachable(file: string, options: { dynamic?: boolean } = {}): Set<string> {
  const seen = new Set<string>();
  const visit = (f: string): void => {
    for (const edge of importsOf(f)) {
      if (edge.typeOnly || (edge.dynamic && !options.dynamic) || !edge.to.endsWith('.ts') || seen.has(edge.to)) continue;
      seen.add(edge.to);
      visit(edge.to);
    }
  };
  visit(file);
  return seen;
}

/** A cycle among `files` (following value imports, and type-only ones too with `types`), or undefined. */
export function findCycle(files: readonly string[], options: { types?: boolean } = {}): string[] | undefined {
  const inside = new Set(files);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): string[] | undefined => {
    state.set(f, 'open');
    stack.push(f);
    for (const { to, typeOnly } of importsOf(f)) {
      if (!inside.has(to) || (typeOnly && !options.types)) continue;
      if (state.get(to) === 'open') return [...stack.slice(stack.indexOf(to)), to];
      if (!state.has(to)) {
        const cycle = visit(to);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(f, 'done');
    return undefined;
  };
  for (const f of files) {
    if (state.has(f)) continue;
    const cycle = visit(f);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * Every set of `files` that import each other in a circle (strongly connected components of more
 * than one file, or a file importing itself), following type-only and dynamic imports too.
 */
export function importCircles(files: readonly string[]): string[][] {
  const inside = new Set(files);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  let counter = 0;
  const visit = (f: string): void => {
    index.set(f, counter);
    low.set(f, counter++);
    stack.push(f);
    onStack.add(f);
    for (const { to } of importsOf(f)) {
      if (!inside.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(f, Math.min(low.get(f)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(f, Math.min(low.get(f)!, index.get(to)!));
    }
    if (low.get(f) !== index.get(f)) return;
    const component: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      component.push(top);
    } while (top !== f);
    if (component.length > 1 || importsOf(f).some((e) => e.to === f)) circles.push(component.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return circles;
}
