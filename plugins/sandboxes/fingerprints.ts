/**
 * What decides how programs behave in each built-in sandbox, hashed (SandboxPlugin.fingerprint):
 * the sandbox's own files, and the version of the library or interpreter it runs programs with.
 * Curated datasets' gate verdicts are cached under it: change any of these, and they are
 * judged again.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { siblingFiles, sourceFingerprint } from '../../core/gate/verdict-cache.js';

const require = createRequire(import.meta.url);

const versionOf = (name: string): string => {
  try {
    return `${name} ${(require(`${name}/package.json`) as { version: string }).version}`;
  } catch {
    return `${name} (no version)`;
  }
};

/** The files shared by the Python sandboxes (the loader every program goes through). */
const PYTHON_FILES = ['./python/loader.py', './python/math_verify.py', './python/tool_use_base_env.py', './python/replies.js', './python/files.js', './python/environment.js'];

export function isolatedVmFingerprint(): string {
  return sourceFingerprint(siblingFiles(import.meta.url, ['./isolated-vm.js', './isolated-vm-bootstrap.js', './dispatch-reply.js', './program.js', './tool-use-base-env.js']), [versionOf('isolated-vm')]);
}

export function vm2Fingerprint(): string {
  return sourceFingerprint(siblingFiles(import.meta.url, ['./vm2.js', './isolated-vm-bootstrap.js', './dispatch-reply.js', './program.js', './tool-use-base-env.js']), [versionOf('vm2')]);
}

export function pyodideFingerprint(): string {
  const own = ['sandbox.js', 'environment.js', 'interpreter.js', 'interpreter-process.js', 'child.js', 'child-entry.js', 'jail.js', 'protocol.js'].map((f) => `./pyodide/${f}`);
  return sourceFingerprint(siblingFiles(import.meta.url, [...own, ...PYTHON_FILES]), [versionOf('pyodide')]);
}

/** Debian's CPython and its numpy, networkx and sympy: the interpreter's identity and the packages' install times. */
function debianPython(): string[] {
  const facts: string[] = [];
  for (const file of ['/usr/bin/python3', '/usr/lib/python3/dist-packages/numpy', '/usr/lib/python3/dist-packages/networkx', '/usr/lib/python3/dist-packages/sympy']) {
    if (!existsSync(file)) {
      facts.push(`${file} absent`);
      continue;
    }
    const real = realpathSync(file);
    const stat = statSync(real);
    facts.push(`${real} ${stat.size} ${stat.mtimeMs}`);
  }
  return facts;
}

export function cpythonFingerprint(): string {
  const own = ['sandbox.js', 'environment.js', 'jail.js', 'jailed-interpreter.js', 'channel.js', 'frames.js', 'pipes.js', 'process-tree.js', 'server.py', 'seccomp_filters.py', 'confine.c'].map((f) => `./cpython/${f}`);
  return sourceFingerprint(siblingFiles(import.meta.url, [...own, ...PYTHON_FILES]), debianPython());
}
