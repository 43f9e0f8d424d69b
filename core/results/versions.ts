/**
 * Versions recorded in every run: spade-bench itself, Node.js, and the libraries that shape
 * the numbers.
 */
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { dir: string; version: string } | undefined;

/** The folder of spade-bench's package.json, from source or from dist/. */
export function packageRoot(): string {
  return findPackage().dir;
}

function findPackage(): { dir: string; version: string } {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'spade-bench') return (cached = { dir, version: pkg.version ?? '0.0.0' });
    }
    const parent = path.dirname(dir);
    if (parent === dir) return (cached = { dir: process.cwd(), version: '0.0.0' });
    dir = parent;
  }
}

export function packageVersion(): string {
  return findPackage().version;
}

/** Versions of spade-bench, Node.js and the given dependencies (those installed). */
export function versions(dependencies: readonly string[] = ['isolated-vm', 'openai', '@anthropic-ai/sdk', 'pyodide', 'vm2']): Record<string, string> {
  const out: Record<string, string> = { 'spade-bench': packageVersion(), node: process.versions.node };
  const require = createRequire(path.join(packageRoot(), 'package.json'));
  for (const name of dependencies) {
    try {
      const file = require.resolve(`${name}/package.json`);
      out[name] = (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    } catch {
      // not installed or no package.json export: leave it out
    }
  }
  return out;
}
