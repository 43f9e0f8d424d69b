/**
 * The interpreter thread: a worker thread inside the jailed child process that starts Pyodide
 * once, runs the Python loader shared with the cpython sandbox (python/loader.py), then serves
 * load / call / dispose requests one at a time.
 *
 * Limits enforced here: the WebAssembly heap may not grow past (heap after start-up + memoryMb)
 * during a call (Python sees MemoryError); printed output is counted and dropped (over
 * maxOutputBytes the call fails with `output-limit`); the returned JSON is size-checked before
 * it is posted. The parent thread owns the wall-time limit: it raises KeyboardInterrupt through
 * the shared interrupt buffer, and terminates this thread if that does not stop the call.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readFileSync, constants as fsConstants } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { CallLimits, Reply, Request } from './protocol.js';

interface InterpreterData {
  pyodideDir: string;
  /** The folder of the shared Python files (loader.py, math_verify.py). */
  pythonDir: string;
  interrupt: SharedArrayBuffer;
}

type FsOperation = (...args: any[]) => unknown;

interface PyFunction {
  (...args: unknown[]): unknown;
}

/** The parts of a WebAssembly.Memory used here (the WebAssembly types are not in this project's lib). */
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface PyodideApi {
  runPython(code: string): unknown;
  globals: { get(name: string): PyFunction };
  setInterruptBuffer(buffer: Int32Array): void;
  setStdout(options: { write(buffer: Uint8Array): number }): void;
  setStderr(options: { write(buffer: Uint8Array): number }): void;
  setStdin(options: { stdin(): string | undefined | null }): void;
  FS: {
    mkdirTree(dir: string): void;
    mkdir(dir: string): void;
    writeFile(file: string, data: string): void;
    rename(from: string, to: string): void;
    readdir(dir: string): string[];
    lstat(file: string): { mode: number; size: number };
    cwd(): string;
    lookupPath: FsOperation;
    isDir(mode: number): boolean;
    unlink(file: string): void;
    rmdir(dir: string): void;
    analyzePath(file: string): { exists: boolean };
    getPath(node: unknown): string;
    ErrnoError: new (errno: number) => Error;
    filesystems: { MEMFS: { ops_table: { dir: { node: Record<string, FsOperation> }; file: { node: Record<string, FsOperation>; stream: Record<string, FsOperation> } } } };
  };
  _module: { wasmMemory?: WasmMemory; memory?: WasmMemory };
}

const data = workerData as InterpreterData;
const port = parentPort!;
const MIB = 1024 * 1024;

// Node's permission model refuses process.binding, which Pyodide's start-up asks for fs constants.
const processWithBinding = process as unknown as { binding(name: string): unknown };
const originalBinding = processWithBinding.binding;
processWithBinding.binding = (name: string) =>
  name === 'constants' ? { fs: fsConstants, os: {} } : originalBinding.call(process, name);

const startedAt = performance.now();
const { loadPyodide } = (await import(pathToFileURL(path.join(data.pyodideDir, 'pyodide.mjs')).href)) as {
  loadPyodide(options: Record<string, unknown>): Promise<PyodideApi>;
};
const pyodide = await loadPyodide({
  indexURL: data.pyodideDir + path.sep,
  env: { HOME: '/home/pyodide', LANG: 'C.UTF-8' },
  fullStdLib: false,
});

// Output: counted and dropped. stdin: always at end of file (the child's stdin is the protocol).
let printedBytes = 0;
const countOutput = { write: (buffer: Uint8Array) => ((printedBytes += buffer.length), buffer.length) };
pyodide.setStdout(countOutput);
pyodide.setStderr(countOutput);
pyodide.setStdin({ stdin: () => null });
const interrupt = new Int32Array(data.interrupt);
pyodide.setInterruptBuffer(interrupt);

// Memory: cap the growth of the WebAssembly heap during a call.
const memory = pyodide._module.wasmMemory ?? pyodide._module.memory;
if (!memory) throw new Error('cannot find the WebAssembly memory of Pyodide');
const grow = memory.grow.bind(memory);
let memoryCap = Infinity;
let memoryExceeded = false;
memory.grow = (pages: number) => {
  if (memory.buffer.byteLength + pages * 65536 > memoryCap) {
    memoryExceeded = true;
    throw new RangeError('memory limit of the environment reached');
  }
  return grow(pages);
};

pyodide.FS.mkdirTree('/lib/spade');
// What programs may import besides the standard library: the math_verify stand-in and SPADE's tool-use base class.
for (const name of ['math_verify.py', 'tool_use_base_env.py']) {
  pyodide.FS.writeFile(`/lib/spade/${name}`, readFileSync(path.join(data.pythonDir, name), 'utf8'));
}
pyodide.runPython("import sys\nsys.path.insert(0, '/lib/spade')\nimport math_verify");
// The loader runs in its own namespace with its own copy of the builtins, so a program that
// pollutes the interpreter's builtins module cannot change the loader's behaviour. It is kept
// out of the import path (/lib/spade-loader), so a program cannot import a second copy of it.
pyodide.FS.mkdirTree('/lib/spade-loader');
pyodide.FS.writeFile('/lib/spade-loader/loader.py', readFileSync(path.join(data.pythonDir, 'loader.py'), 'utf8'));
const loader = pyodide.runPython(
  "import builtins\n_spade = {'__name__': 'spade_loader', '__builtins__': dict(builtins.__dict__), 'SPADE_RUNTIME': 'pyodide'}\n" +
    "exec(compile(open('/lib/spade-loader/loader.py').read(), 'loader.py', 'exec'), _spade)\n_spade",
) as { get(name: string): PyFunction };
// Python's way to JavaScript, closed now that the loader is set up: Pyodide's finder for `js`
// modules (which holds the proxy of JavaScript's global object), and the modules that make
// JavaScript objects (pyodide.ffi's to_js, whose objects lead to Function and so to the worker's
// own port). The loader also refuses importing them by name; this leaves no entry in sys.modules
// or sys.meta_path for a program to take them from. The runtime's calls from JavaScript into
// Python (the loader's functions below) do not go through them.
pyodide.runPython(
  "import sys\n" +
    "for _finder in [f for f in sys.meta_path if hasattr(f, 'jsproxies')]:\n" +
    "    _finder.jsproxies.clear()\n" +
    "    sys.meta_path.remove(_finder)\n" +
    "for _name in [n for n in sys.modules if n.split('.')[0] in ('js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'gc')]:\n" +
    "    del sys.modules[_name]\n" +
    "del _finder, _name",
);

// Files. Pyodide's in-memory file system is shared by every environment of this interpreter. As
// in the cpython sandbox, a program may write in /tmp only, and /tmp is each environment's own:
// renamed into place when its turn comes (a rename in the in-memory file system moves no data),
// deleted at its dispose; SPADE's validation and the brace repair get a fresh one each. No
// environment sees another's files, nor a later load of the same program its earlier load's
// (plays run on a fresh load). The cpython sandbox's tmpfs limits hold too: a write past 8 MiB
// in a file fails (EFBIG), past 16 MiB in /tmp or 1,024 files there with no space left (ENOSPC);
// anywhere else, with a read-only file system (EROFS). The folders kept for the other
// environments are out of a program's sight: any path into them is not found (ENOENT). Files
// deleted during a call free their space at the next call (/tmp is counted again then).
const FS = pyodide.FS;
const TMP = '/tmp';
const TMP_STORE = '/spade-tmp';
const TMP_BYTES = 16 * MIB;
const TMP_FILE_BYTES = 8 * MIB;
const TMP_INODES = 1024;
// Emscripten's errno values (WASI's numbering).
const EFBIG = 22;
const ENOSPC = 51;
const EROFS = 69;
const ENOENT = 44;
FS.mkdirTree(TMP_STORE);
if (!FS.analyzePath(TMP).exists) FS.mkdir(TMP);
/** The environment whose folder is at /tmp now; undefined: a fresh one nobody keeps. */
let tmpOwner: string | undefined;
/** What /tmp holds, as counted when its owner's turn came, plus what was written since. */
let tmpBytes = 0;
let tmpInodes = 0;
/** Program code is running: its writes are confined and counted. */
let confined = false;
const keptFolder = (env: string): string => `${TMP_STORE}/${encodeURIComponent(env)}`;
const inTmp = (file: string): boolean => file === TMP || file.startsWith(`${TMP}/`);

function removeTree(dir: string): void {
  for (const name of FS.readdir(dir)) {
    if (name === '.' || name === '..') continue;
    const file = `${dir}/${name}`;
    if (FS.isDir(FS.lstat(file).mode)) removeTree(file);
    else FS.unlink(file);
  }
  FS.rmdir(dir);
}

/** The bytes and files under /tmp (the count stops once past a limit). */
function tmpUsage(): { bytes: number; inodes: number } {
  let bytes = 0;
  let inodes = 0;
  const walk = (dir: string): void => {
    for (const name of FS.readdir(dir)) {
      if (name === '.' || name === '..' || bytes > TMP_BYTES || inodes > TMP_INODES) continue;
      const stat = FS.lstat(`${dir}/${name}`);
      bytes += stat.size;
      inodes++;
      if (FS.isDir(stat.mode)) walk(`${dir}/${name}`);
    }
  };
  walk(TMP);
  return { bytes, inodes };
}

/** Put `env`'s folder (or, for undefined, a fresh one) at /tmp, and count what it holds. */
function useTmp(env: string | undefined): void {
  if (env === undefined || env !== tmpOwner) {
    if (tmpOwner === undefined) removeTree(TMP);
    else FS.rename(TMP, keptFolder(tmpOwner));
    if (env !== undefined && FS.analyzePath(keptFolder(env)).exists) FS.rename(keptFolder(env), TMP);
    else FS.mkdir(TMP);
    tmpOwner = env;
  }
  ({ bytes: tmpBytes, inodes: tmpInodes } = tmpUsage());
}

function dropTmp(env: string): void {
  if (tmpOwner === env) {
    removeTree(TMP);
    FS.mkdir(TMP);
    tmpOwner = undefined;
  } else if (FS.analyzePath(keptFolder(env)).exists) {
    removeTree(keptFolder(env));
  }
}

/** `file` as an absolute path without `.` and `..` (from the working folder when relative). */
function absolute(file: string): string {
  const parts: string[] = [];
  for (const part of `${file.startsWith('/') ? '' : `${FS.cwd()}/`}${file}`.split('/')) {
    if (part === '..') parts.pop();
    else if (part && part !== '.') parts.push(part);
  }
  return `/${parts.join('/')}`;
}
// Every path the file system resolves (open, stat, listdir, chdir, a symlink's target) goes
// through lookupPath: while program code runs, the store of other environments' folders is not found.
const lookupPath = FS.lookupPath;
FS.lookupPath = function (this: unknown, file: string, ...rest: unknown[]) {
  if (confined && typeof file === 'string') {
    const at = absolute(file);
    if (at === TMP_STORE || at.startsWith(`${TMP_STORE}/`)) throw new FS.ErrnoError(ENOENT);
  }
  return lookupPath.call(this, file, ...rest);
};

const memfs = FS.filesystems.MEMFS.ops_table;
/** Wrap an operation of the in-memory file system so that, while program code runs, `check` may refuse it. */
function guard(table: Record<string, FsOperation>, name: string, check: (...args: any[]) => void): void {
  const original = table[name]!;
  table[name] = function (this: unknown, ...args: unknown[]) {
    if (confined) check(...args);
    return original.apply(this, args);
  };
}
const refuseOutsideTmp = (dir: unknown): void => {
  if (!inTmp(FS.getPath(dir))) throw new FS.ErrnoError(EROFS);
};
const newInode = (dir: unknown): void => {
  refuseOutsideTmp(dir);
  if (++tmpInodes > TMP_INODES) throw new FS.ErrnoError(ENOSPC);
};
guard(memfs.dir.node, 'mknod', newInode);
guard(memfs.dir.node, 'symlink', newInode);
guard(memfs.dir.node, 'unlink', refuseOutsideTmp);
guard(memfs.dir.node, 'rmdir', refuseOutsideTmp);
guard(memfs.dir.node, 'rename', (node: { parent: unknown }, newDir: unknown) => {
  refuseOutsideTmp(node.parent);
  refuseOutsideTmp(newDir);
});
guard(memfs.file.node, 'setattr', (node: unknown) => refuseOutsideTmp(node));
guard(memfs.file.stream, 'write', (stream: { path?: string; node: { usedBytes: number } }, _buffer: unknown, _offset: number, length: number, position: number) => {
  if (typeof stream.path !== 'string' || !inTmp(stream.path)) throw new FS.ErrnoError(EROFS);
  const growth = position + length - stream.node.usedBytes;
  if (growth <= 0) return;
  if (position + length > TMP_FILE_BYTES) throw new FS.ErrnoError(EFBIG);
  if (tmpBytes + growth > TMP_BYTES) throw new FS.ErrnoError(ENOSPC);
  tmpBytes += growth;
});

const baselineBytes = memory.buffer.byteLength;
const spadeLoad = loader.get('spade_load');
const spadeCall = loader.get('spade_call');
const spadeDispose = loader.get('spade_dispose');
const spadeHealth = loader.get('spade_health');
const spadeValidate = loader.get('spade_validate');
const spadeRepairBraces = loader.get('spade_repair_braces');

function run(request: Request): string {
  useTmp(request.op === 'load' || request.op === 'call' || request.op === 'dispose' ? request.env : undefined);
  confined = true;
  try {
    return runConfined(request);
  } finally {
    confined = false;
    if (request.op === 'dispose') dropTmp(request.env);
  }
}

function runConfined(request: Request): string {
  switch (request.op) {
    case 'load':
      return spadeLoad(request.env, request.source, request.maxTurns ?? null) as string;
    case 'spade-validate':
      return spadeValidate(request.source, request.resetGate ?? null) as string;
    case 'repair-braces':
      return spadeRepairBraces(request.source) as string;
    case 'call':
      return spadeCall(request.env, request.method, JSON.stringify(request.args)) as string;
    case 'dispose':
      return spadeDispose(request.env) as string;
  }
}

/** Turn the loader's JSON reply into a protocol reply, applying this thread's limits. */
function answer(request: Request, limits: CallLimits | undefined, text: string): Reply {
  if (memoryExceeded) return { id: request.id, ok: false, kind: 'memory', message: `the environment used more than ${limits?.memoryMb} MiB` };
  if (limits && printedBytes > limits.maxOutputBytes) {
    return { id: request.id, ok: false, kind: 'output-limit', message: `printed ${printedBytes} bytes, more than the limit of ${limits.maxOutputBytes}` };
  }
  if (limits && text.length > 4 * limits.maxOutputBytes + 4096) {
    return { id: request.id, ok: false, kind: 'output-limit', message: `returned about ${text.length} bytes, more than the limit of ${limits.maxOutputBytes}` };
  }
  const parsed = JSON.parse(text) as { ok: boolean; value?: unknown; kind?: string; message?: string };
  if (!parsed.ok) return { id: request.id, ok: false, kind: parsed.kind as never, message: parsed.message ?? '' };
  return { id: request.id, ok: true, json: JSON.stringify(parsed.value ?? null) };
}

function healthy(): boolean {
  try {
    return spadeHealth() === true;
  } catch {
    return false;
  }
}

port.on('message', (request: Request) => {
  const limits = request.op === 'dispose' ? undefined : request.limits;
  Atomics.store(interrupt, 0, 0);
  printedBytes = 0;
  memoryExceeded = false;
  memoryCap = limits ? baselineBytes + limits.memoryMb * MIB : Infinity;
  let reply: Reply;
  try {
    reply = answer(request, limits, run(request));
    if (!reply.ok && reply.kind === 'memory') {
      // Python recovers from MemoryError; keep this interpreter only if it still works.
      memoryCap = Infinity;
      if (!healthy()) {
        port.postMessage({ ...reply, fatal: true });
        return;
      }
    }
  } catch (error) {
    // A Python exception that escaped the loader (an interrupt landing in its own code), or a
    // fatal error of the runtime: the parent thread replaces this interpreter.
    const message = error instanceof Error ? error.message : String(error);
    const stackOverflow = /Maximum call stack size exceeded/.test(message);
    const kind = stackOverflow ? 'crash'
      : memoryExceeded ? 'memory'
      : Atomics.load(interrupt, 0) !== 0 || /KeyboardInterrupt/.test(message) ? 'timeout' : 'crash';
    port.postMessage({ id: request.id, ok: false, kind, message: message.slice(-2000), fatal: true });
    return;
  } finally {
    memoryCap = Infinity;
  }
  port.postMessage(reply);
});

port.postMessage({ ready: true, startMs: performance.now() - startedAt });
