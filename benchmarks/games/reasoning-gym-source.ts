/**
 * reasoning-gym (open-thought/reasoning-gym at 49b07130) for the Python sandbox: GitHub's
 * archive of that commit, downloaded once into `<dataDir>/reasoning-gym/` (so `--data-dir
 * ../shared/datasets` reads the shared copy), every file of `reasoning_gym/` checked by its git
 * blob id (reasoning-gym-files.json; `data/anagrams.jsonl`, missing from the shared copy, is
 * taken unchecked when present), and extracted into a world-readable folder of its own under the
 * system's temporary folder (the cpython jail runs as another user), which the tasks put on the
 * jail's Python path.
 *
 * `import reasoning_gym` imports every task module, so one missing dependency (cellpylib) breaks
 * them all: the tasks import their own module only, and each dataset's module is found here by
 * reading (never running) the sources for `register_dataset(...)`.
 */
import { chmodSync, lstatSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DataError, UsageError } from '../../core/errors.js';
import { PYTHON_PACKAGES } from '../../plugins/sandboxes/python/files.js';
import { placeFolder, type DataOptions } from '../download.js';
import { blobId, ensureArchive, readArchive, type PinnedArchive } from './pinned-source.js';
import { REASONING_GYM_FILES } from './reasoning-gym-files.js';
import { makeFolder } from '../../core/results/fs.js';

export const REASONING_GYM_ARCHIVE: PinnedArchive = {
  repository: 'open-thought/reasoning-gym',
  commit: '49b07130b3fcd12f2d064bba7c43869543a0e7e7',
  folder: 'reasoning-gym',
  fileName: 'reasoning-gym-49b07130.tar.gz',
};

/** Files of the package the pinned commit has that the check takes without an id (data missing from the shared copy). */
const UNCHECKED = new Set(['reasoning_gym/data/anagrams.jsonl']);
const MANIFEST = REASONING_GYM_FILES;
const MARKER = '.spade-bench-reasoning-gym';

export interface ReasoningGym {
  /** The folder holding `reasoning_gym/`, for the Python path. */
  folder: string;
  /** Each registered dataset's module, e.g. `ab` -> `reasoning_gym.algorithmic.ab`. */
  modules: Map<string, string>;
  /** The Python sandboxes' packages (numpy, networkx, sympy) each module imports, itself or through reasoning_gym's modules it imports. */
  packages: Map<string, string[]>;
}

/** The packages of PYTHON_PACKAGES a module imports, following its imports of reasoning_gym's own modules. */
export function packagesOf(module: string, files: ReadonlyMap<string, Buffer>): string[] {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    const file = files.get(`${name.split('.').join('/')}.py`) ?? files.get(`${name.split('.').join('/')}/__init__.py`);
    if (!file) return;
    const text = file.toString('utf8');
    for (const pkg of PYTHON_PACKAGES) if (new RegExp(`^\\s*(?:import|from)\\s+${pkg}\\b`, 'm').test(text)) found.add(pkg);
    const base = name.split('.');
    for (const m of text.matchAll(/^\s*from\s+(\.*)([\w.]*)\s+import\s+([\w, ]+)/gm)) {
      const dots = m[1]!.length;
      const target = dots === 0 ? m[2]! : [...base.slice(0, base.length - dots), ...(m[2] ? [m[2]] : [])].join('.');
      if (!target.startsWith('reasoning_gym')) continue;
      visit(target);
      for (const item of m[3]!.split(',').map((s) => s.trim()).filter(Boolean)) visit(`${target}.${item}`);
    }
    for (const m of text.matchAll(/^\s*import\s+(reasoning_gym[\w.]*)/gm)) visit(m[1]!);
  };
  visit(module);
  return [...found].sort();
}

/** The module that registers each dataset, read from the sources. */
export function datasetModules(files: ReadonlyMap<string, Buffer>): Map<string, string> {
  const modules = new Map<string, string>();
  for (const [file, data] of files) {
    if (!file.endsWith('.py')) continue;
    const text = data.toString('utf8');
    const call = /register_dataset\(\s*(?:["'](\w+)["']|(DATASET_NAME))/.exec(text);
    if (!call) continue;
    const name = call[1] ?? /^DATASET_NAME\s*=\s*["'](\w+)["']/m.exec(text)?.[1];
    if (name) modules.set(name, file.replace(/\.py$/, '').split('/').join('.'));
  }
  return modules;
}

function markerText(): string {
  return `${REASONING_GYM_ARCHIVE.commit}\n`;
}

function trusted(folder: string): boolean {
  try {
    const info = lstatSync(folder);
    return info.isDirectory() && info.uid === process.getuid?.() && (info.mode & 0o022) === 0 && readFileSync(path.join(folder, MARKER), 'utf8') === markerText();
  } catch {
    return false;
  }
}

function writeCopy(folder: string, files: ReadonlyMap<string, Buffer>): void {
  for (const [file, data] of files) {
    const target = path.join(folder, file);
    makeFolder(path.dirname(target), 0o755);
    writeFileSync(target, data, { mode: 0o644 });
  }
  writeFileSync(path.join(folder, MARKER), markerText(), { mode: 0o644 });
  const open = (dir: string): void => {
    chmodSync(dir, 0o755);
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) open(path.join(dir, entry.name));
  };
  open(folder);
}

/** Why the jail's user (uid 65534, when the host runs as root) could not read `folder`. */
function unreadable(folder: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const parts = path.resolve(folder).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const dir = path.sep + parts.slice(0, i).join(path.sep);
    const mode = statSync(dir).mode;
    const needed = i === parts.length ? 0o005 : 0o001;
    if ((mode & needed) !== needed) return `${dir} is not ${i === parts.length ? 'readable' : 'searchable'} by other users`;
  }
  return undefined;
}

function extract(files: ReadonlyMap<string, Buffer>, base: string): string {
  const folder = path.join(base, `spade-bench-reasoning-gym-${REASONING_GYM_ARCHIVE.commit.slice(0, 8)}`);
  return placeFolder(folder, (staging) => writeCopy(staging, files), trusted);
}

const loaded = new Map<string, Promise<ReasoningGym>>();

/** reasoning-gym, checked and extracted for the sandbox (once per process and data folder). */
export function loadReasoningGym(options: DataOptions & { extractDir?: string } = {}): Promise<ReasoningGym> {
  const key = `${options.dataDir ?? ''}\0${options.extractDir ?? ''}`;
  let found = loaded.get(key);
  if (!found) {
    found = (async () => {
      const local = await ensureArchive(REASONING_GYM_ARCHIVE, options);
      const files = await readArchive(local, (p) => p.startsWith('reasoning_gym/'));
      const advice = `delete ${local} to download it again`;
      for (const [file, id] of Object.entries(MANIFEST)) {
        const data = files.get(file);
        if (!data) throw new DataError(local, undefined, `${file} is missing from reasoning-gym at 49b07130; ${advice}`);
        if (blobId(data) !== id) throw new DataError(local, undefined, `${file} is not reasoning-gym's at 49b07130 (git blob ${blobId(data)}, expected ${id}); ${advice}`);
      }
      for (const file of files.keys()) {
        if (!(file in MANIFEST) && !UNCHECKED.has(file)) throw new DataError(local, undefined, `${file} is not in reasoning-gym at 49b07130; ${advice}`);
      }
      const base = options.extractDir ?? tmpdir();
      const folder = extract(files, base);
      const problem = unreadable(folder);
      if (problem) throw new UsageError(`reasoning-gym: the Python sandbox cannot read ${folder} (${problem}): set TMPDIR, or suiteOptions["reasoning-gym"].extractDir, to a folder every user can read`);
      const modules = datasetModules(files);
      const packages = new Map([...modules.values()].map((m) => [m, packagesOf(m, files)]));
      return { folder, modules, packages };
    })();
    loaded.set(key, found);
    found.catch(() => loaded.delete(key));
  }
  return found;
}
