/**
 * The bubblewrap jail of the cpython sandbox: one per sandbox process, on every call path.
 *
 *   - hard resource limits set before bubblewrap starts (prlimit), so they bind every process
 *     of the jail, its first included: address space, file size, open files, no core dump, no
 *     locked memory;
 *   - no foreign-function interface in any process: the zygote's few system calls that Python
 *     lacks are a small C module's (confine.c, compiled once into the sandbox's files folder by
 *     the host's C compiler), not ctypes'; ctypes, cffi's backend, libffi and CPython's test
 *     modules are replaced by /dev/null in the jail (HIDDEN_NATIVE), also in extra folders;
 *   - a seccomp filter built by Debian's libseccomp (seccomp_filters.py, compiled once into the
 *     sandbox's files folder) that bubblewrap loads for every process before it starts: no
 *     ptrace, process_vm_*, kcmp, perf events, bpf, keyrings, userfaultfd, io_uring, new user or
 *     other namespaces (but a mount namespace), mounts other than a new tmpfs, ... and a call of
 *     another architecture kills the process;
 *   - every namespace unshared: user (uid 65534 inside, no nested user namespace), network (no
 *     interface but loopback), PID (the zygote is its pid 1: killing it kills every process in
 *     it), IPC, UTS, cgroup; no new privileges; dies with the host process;
 *   - no capability but CAP_SYS_ADMIN in the jail's own user namespace, for the zygote alone: it
 *     mounts each environment's own /tmp and drops it in each environment's process (server.py);
 *   - when the host runs as root, bwrap itself is started as uid/gid 65534, so the sandbox is
 *     unprivileged on the host too;
 *   - a read-only root holding only /usr, /etc/alternatives (where Debian's BLAS is found), the
 *     sandbox's own Python files and any extra read-only folder put on the Python path; no host
 *     home, working folder, dataset cache or /dev/shm; /dev read-only;
 *   - an empty environment but for LANG, PYTHONHASHSEED (fixed, for set iteration order) and
 *     single-thread settings for OpenBLAS.
 * What each environment's process adds (its own /tmp, its own seccomp filter, its limits) is in
 * server.py.
 *
 * Where the jail cannot be set up (no bwrap, user namespaces denied, no /usr/bin/python3, no
 * python3-seccomp, no C compiler), the sandbox refuses to start and says how to fix it: it never runs a program
 * unjailed.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, chmodSync, closeSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, type Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../../../core/results/fs.js';
import { PYTHON_DIR, PYTHON_PACKAGES } from '../python/files.js';

export const PYTHON = '/usr/bin/python3';
/** The unprivileged uid and gid a root host starts the jail as, and the ids inside it. */
export const SANDBOX_ID = 65534;
/** Size and inodes of each environment's own /tmp (made by server.py, which says the same). */
export const TMP_BYTES = 16 * 1024 * 1024;
export const TMP_INODES = 1024;
/** The jail's file descriptor of the seccomp program bubblewrap loads. */
const SECCOMP_FD = 3;
/** The zygote's native module (confine.c, compiled), in the sandbox's files folder. */
const NATIVE_MODULE = 'spade_confine.so';
/** Where the sandbox's own files are, inside the jail. */
const INSIDE = '/spade';
/** Where the extra read-only folders on the Python path are, inside the jail (`/python-path/0`, ...). */
const PYTHON_PATH_INSIDE = '/python-path';
const ENVIRONMENT: Record<string, string> = {
  LANG: 'C.UTF-8',
  // The sandbox's own /tmp (expanduser('~') would otherwise look the user up in /etc/passwd, which is not there).
  HOME: '/tmp',
  PYTHONHASHSEED: '0',
  PYTHONDONTWRITEBYTECODE: '1',
  OPENBLAS_NUM_THREADS: '1',
  OMP_NUM_THREADS: '1',
};
/** The environment variables a started sandbox may see (bwrap adds PWD). */
export const ALLOWED_VARIABLES = new Set([...Object.keys(ENVIRONMENT), 'PWD']);
const FIX_PACKAGES = 'apt-get install python3-numpy python3-networkx python3-sympy';
const FIX_SECCOMP = 'apt-get install python3-seccomp';
const OTHERWISE = 'or choose --python-sandbox pyodide';

export interface JailRequest {
  /** The most address space the interpreter may ever take on top of its own, in MiB (a hard limit). */
  hardMemoryMb: number;
  /** Host folders bound read-only into the jail and put on the Python path, in order. */
  pythonPath?: readonly string[];
  /**
   * Another interpreter than Debian's /usr/bin/python3, still run inside the jail: a virtual
   * environment's `bin/python` (its folder, holding pyvenv.cfg, is bound read-only at the same
   * path), or a Python installed under some prefix (`<prefix>/bin/python3`: the prefix is bound).
   */
  python?: string;
}

/** The folder an interpreter outside /usr needs inside the jail: its virtual environment, or its installation prefix. */
export function interpreterFolder(python: string): string | undefined {
  const absolute = path.resolve(python);
  if (absolute.startsWith('/usr/')) return undefined;
  return path.dirname(path.dirname(absolute));
}

export interface JailPlan {
  command: string;
  /** The command's arguments, the zygote's /tmp an empty read-only tmpfs (the jail's probe runs with these). */
  args: string[];
  /** The arguments that start the sandbox: the zygote's /tmp is `folder`, where it makes the environments' channels. */
  channelArgs(folder: string): string[];
  /** The compiled seccomp filter: open it and hand it to the child as its fd 3 (jailStdio). */
  seccompFile: string;
  /** Start bwrap as this uid/gid (when the host runs as root). */
  uid?: number;
  gid?: number;
  protections: string[];
}

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The sandbox's Python files (server.py, loader.py, lib/math_verify.py, lib/tool_use_base_env.py), copied once into a
 * world-readable folder keyed by their content: bwrap, started as uid 65534, must be able to
 * read them wherever the package is installed. A folder found there is used only if it is this
 * process's user's and holds exactly these files; otherwise a new one is made.
 */
export function serverFolder(): string {
  if (madeFolder && existsSync(path.join(madeFolder, 'server.py'))) return madeFolder;
  const files: [string, string][] = [
    ['lib/math_verify.py', path.join(PYTHON_DIR, 'math_verify.py')],
    ['lib/tool_use_base_env.py', path.join(PYTHON_DIR, 'tool_use_base_env.py')],
    ['loader.py', path.join(PYTHON_DIR, 'loader.py')],
    ['seccomp_filters.py', path.join(here, 'seccomp_filters.py')],
    ['confine.c', path.join(here, 'confine.c')],
    ['server.py', path.join(here, 'server.py')], // last: its presence means the folder is complete
  ];
  const contents = files.map(([, from]) => {
    try {
      return readFileSync(from, 'utf8');
    } catch (error) {
      // Not a problem of the temporary folder's (setupProblem's guess for ENOENT): this copy of spade-bench lacks a file.
      throw new JailSetupError(`the cpython sandbox's file ${from} cannot be read (${(error as NodeJS.ErrnoException).code ?? error}): this installation of spade-bench is incomplete; reinstall it, ${OTHERWISE}`);
    }
  });
  const hash = createHash('sha256').update(contents.join('\0')).update(process.arch).digest('hex').slice(0, 16);
  let dir = path.join(tmpdir(), `spade-bench-cpython-${hash}`);
  const trusted = (folder: string): boolean =>
    files.every(([name], i) => {
      try {
        const file = path.join(folder, name);
        return lstatSync(file).uid === process.getuid?.() && readFileSync(file, 'utf8') === contents[i];
      } catch {
        return false;
      }
    });
  if (existsSync(path.join(dir, 'server.py')) && trusted(dir)) return (madeFolder = dir);
  if (existsSync(dir)) dir = mkdtempSync(`${dir}-`);
  files.forEach(([name], i) => {
    const target = path.join(dir, name);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileAtomic(target, contents[i]!);
    chmodSync(target, 0o644);
  });
  chmodSync(dir, 0o755);
  chmodSync(path.join(dir, 'lib'), 0o755);
  return (madeFolder = dir);
}

let madeFolder: string | undefined;

/**
 * The jail's seccomp filter, compiled by libseccomp into the sandbox's files folder (once per
 * folder: its name holds the hash of seccomp_filters.py). Throws with the fix when it cannot be.
 */
export function seccompFile(serverDir: string): string {
  const file = path.join(serverDir, 'jail.bpf');
  if (existsSync(file) && lstatSync(file).uid === process.getuid?.()) return file;
  const made = spawnSync(PYTHON, ['-s', '-B', path.join(serverDir, 'seccomp_filters.py'), `${file}.${process.pid}`], { env: {}, encoding: 'utf8', timeout: 20_000 });
  if (made.status !== 0) {
    const detail = (made.stderr ?? made.error?.message ?? '').trim().split('\n').at(-1) ?? '';
    if (/No module named 'seccomp'/.test(detail)) throw new JailSetupError(`python3-seccomp is missing (libseccomp builds the jail's seccomp filter): ${FIX_SECCOMP}, ${OTHERWISE}`);
    throw new JailSetupError(`the jail's seccomp filter could not be built (${detail || `exit ${made.status}`}): ${OTHERWISE}`);
  }
  renameSync(`${file}.${process.pid}`, file);
  chmodSync(file, 0o644);
  return file;
}

/**
 * The zygote's native module (confine.c: mount, unshare, capset, prctl, which Python's standard
 * library lacks and which it would otherwise need ctypes for), compiled by the host's C compiler
 * into the sandbox's files folder (once per folder, like the filter). Throws with the fix when
 * it cannot be.
 */
export function confineModule(serverDir: string): string {
  const file = path.join(serverDir, NATIVE_MODULE);
  if (existsSync(file) && lstatSync(file).uid === process.getuid?.()) return file;
  const compiler = findExecutable('cc') ?? findExecutable('gcc');
  if (!compiler) throw new JailSetupError(`no C compiler (cc) to build the jail's set-up module (confine.c, once): apt-get install gcc, ${OTHERWISE}`);
  const made = spawnSync(compiler, ['-O2', '-shared', '-fPIC', '-o', `${file}.${process.pid}`, path.join(serverDir, 'confine.c')], { encoding: 'utf8', timeout: 60_000 });
  if (made.status !== 0) {
    const detail = (made.stderr ?? made.error?.message ?? '').trim().split('\n').slice(-3).join(' ');
    throw new JailSetupError(`the jail's set-up module (confine.c) could not be compiled with ${compiler} (${detail || `exit ${made.status}`}): ${OTHERWISE}`);
  }
  renameSync(`${file}.${process.pid}`, file);
  chmodSync(file, 0o755);
  return file;
}

/** The jail cannot be set up here; the message says why and how to fix it. */
export class JailSetupError extends Error {}

/** The stdio array that hands `plan`'s seccomp filter to bwrap; close the returned fd once spawned. */
export function jailStdio(plan: JailPlan, stdio: (number | 'pipe' | 'ignore')[]): { stdio: (number | 'pipe' | 'ignore')[]; fd: number } {
  const fd = openSync(plan.seccompFile, 'r');
  const padded = [...stdio];
  while (padded.length < SECCOMP_FD) padded.push('ignore');
  padded[SECCOMP_FD] = fd;
  return { stdio: padded, fd };
}

/**
 * The limits prlimit sets before bwrap starts (every process of the jail inherits them): address
 * space `addressSpaceMb`, 8 MiB per file, no core dump, no locked memory, no POSIX message queue,
 * and open files enough for the zygote's pipes to its environments (each of those sets 64).
 * Not the process count: before the jail's user namespace exists it counts every process of the
 * host user (server.py sets it to 1 in each environment, where the seccomp filter also refuses
 * new processes).
 */
function limitOptions(addressSpaceMb: number): string[] {
  return [`--as=${addressSpaceMb * 1024 * 1024}`, `--fsize=${8 * 1024 * 1024}`, '--core=0', '--memlock=0', '--msgqueue=0', '--nofile=4096'];
}

/** /usr read-only, and the merged-/usr symlinks (or the real folders) at /bin, /lib, /lib64, /sbin. */
function systemBinds(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) args.push('--symlink', path.relative('/', realpathSync(dir)), dir);
    else args.push('--ro-bind', dir, dir);
  }
  return args;
}

/**
 * Files that would give a program a foreign-function interface, or read and write memory for it:
 * ctypes and libffi (which every such interface is built on: cffi, GObject's), cffi's backend,
 * and CPython's test modules. They are replaced by /dev/null in the jail, so no process there can
 * load them (the zygote itself needs none: confine.c).
 */
const HIDDEN_NATIVE = /^(?:_ctypes|_ctypes_test|_cffi_backend|_testcapi|_testinternalcapi|_gi)\.[\w.-]*so$|^libffi[.-][\w.-]*so(?:\.[\d.]+)?$/;
/** At most this many entries are looked at in one extra folder (a folder on the Python path, a virtual environment). */
const MAX_SCANNED = 200_000;

/** The files under `dir` (to `depth` levels) whose names match HIDDEN_NATIVE; `budget` counts entries looked at. */
function hiddenNativeFiles(dir: string, depth: number, budget = { left: MAX_SCANNED }): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of entries) {
    if (--budget.left < 0) break;
    const file = path.join(dir, entry.name);
    if (entry.isFile() && HIDDEN_NATIVE.test(entry.name)) found.push(file);
    else if (entry.isDirectory() && depth > 0) found.push(...hiddenNativeFiles(file, depth - 1, budget));
  }
  return found;
}

/** Where Debian's Python and its packages keep their native modules, and libffi. */
function systemNativeFolders(): [string, number][] {
  const folders: [string, number][] = [];
  const under = (dir: string, pattern: RegExp): string[] => {
    try {
      return readdirSync(dir).filter((name) => pattern.test(name)).map((name) => path.join(dir, name));
    } catch {
      return [];
    }
  };
  for (const lib of ['/usr/lib', '/usr/local/lib']) {
    for (const python of under(lib, /^python3(\.\d+)?$/)) folders.push([python, 2]); // lib-dynload, dist-packages/gi
    for (const multiarch of under(lib, /-linux-gnu/)) folders.push([multiarch, 0]); // libffi
  }
  return folders;
}

let systemHidden: string[] | undefined;

/** bwrap options that replace the hidden native files by /dev/null: the system's, and those under the extra folders (`[host folder, path in the jail]`). */
function hideNativeFiles(extra: readonly (readonly [string, string])[]): string[] {
  systemHidden ??= systemNativeFolders().flatMap(([dir, depth]) => hiddenNativeFiles(dir, depth));
  const inside = extra.flatMap(([host, jailed]) => hiddenNativeFiles(host, 32).map((file) => path.join(jailed, path.relative(host, file))));
  return [...systemHidden, ...inside].flatMap((file) => ['--ro-bind', '/dev/null', file]);
}

/**
 * The bwrap options, up to and including the `--` before the command. The zygote's /tmp is
 * `channels` (read-write: it makes each environment's FIFOs there), or else an empty read-only
 * tmpfs; each environment's process mounts its own /tmp over it.
 */
function bwrapOptions(serverDir: string, pythonPath: readonly string[], interpreterDir: string | undefined, channels: string | undefined): string[] {
  const args = [
    '--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--as-pid-1',
    '--uid', String(SANDBOX_ID), '--gid', String(SANDBOX_ID), '--cap-drop', 'ALL', '--cap-add', 'CAP_SYS_ADMIN', '--hostname', 'sandbox',
    '--seccomp', String(SECCOMP_FD),
    '--clearenv', ...Object.entries(ENVIRONMENT).flatMap(([name, value]) => ['--setenv', name, value]),
    ...systemBinds(),
    '--ro-bind-try', '/etc/alternatives', '/etc/alternatives',
    '--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache',
    '--proc', '/proc', '--dev', '/dev', '--remount-ro', '/dev',
    ...(channels === undefined ? ['--size', '65536', '--tmpfs', '/tmp', '--remount-ro', '/tmp'] : ['--bind', channels, '/tmp']),
    '--ro-bind', serverDir, INSIDE,
  ];
  pythonPath.forEach((folder, i) => args.push('--ro-bind', folder, `${PYTHON_PATH_INSIDE}/${i}`));
  if (interpreterDir) args.push('--ro-bind', interpreterDir, interpreterDir);
  const extra: [string, string][] = pythonPath.map((folder, i) => [folder, `${PYTHON_PATH_INSIDE}/${i}`]);
  if (interpreterDir) extra.push([interpreterDir, interpreterDir]);
  args.push(...hideNativeFiles(extra));
  args.push('--remount-ro', '/', '--chdir', '/tmp', '--');
  return args;
}

/** The first executable `name` on the host's PATH (looked up here: the jail is started with an empty environment). */
export function findExecutable(name: string, fallbacks: readonly string[] = []): string | undefined {
  const folders = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const candidate of [...folders.map((folder) => path.join(folder, name)), ...fallbacks]) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not there
    }
  }
  return undefined;
}

const startAs = (): { uid?: number; gid?: number } =>
  process.getuid?.() === 0 ? { uid: SANDBOX_ID, gid: SANDBOX_ID } : {};

export const PROTECTIONS = [
  "Debian's CPython in a bubblewrap jail: a process of its own per environment, forked from a zygote per worker that imports numpy, networkx and sympy once a program names them and never runs program code",
  'a seccomp filter on every process of the jail, built by libseccomp: no ptrace, process_vm_*, kcmp, perf events, bpf, keyrings, userfaultfd, io_uring, new user namespace or mount but a new tmpfs; a call of another architecture kills the process',
  "each environment's process adds its own filter: no new process or thread, no program run, no signal sent, no socket, no System V IPC, no mount, no change to another process's limits or scheduling",
  'no foreign-function interface in any process of the jail: ctypes and cffi are never loaded (the zygote\'s set-up is a small C module compiled on the host), and their files, libffi and CPython\'s test modules are replaced by /dev/null in the jail, so no program can load one',
  'hard limits set before bubblewrap starts, so they bind its first process too: address space, 8 MiB per file, no core dump, no locked memory; each environment\'s process: no new process, 64 open files, address space of the interpreter + at most 1 GiB (more when memoryMb is larger), memoryMb on top of the interpreter per call',
  'unprivileged: uid 65534 in its own user namespace, no new privileges and no nested user namespace (bwrap is started as uid 65534 when the host runs as root); only the zygote holds CAP_SYS_ADMIN there, to mount each environment\'s /tmp, and each environment\'s process drops it before any program code',
  'no network: an empty network namespace (loopback only)',
  'own PID, IPC, UTS and cgroup namespaces: killing the sandbox kills every process in it; it dies with the host process',
  'read-only file system holding only /usr, /etc/alternatives and the sandbox\'s own files: no host home, working folder, dataset cache or /dev/shm; /dev read-only',
  `each environment its own /tmp (a ${TMP_BYTES / (1024 * 1024)} MiB tmpfs of ${TMP_INODES} inodes) in its own mount namespace, and no /proc: no other environment's files or memory`,
  'empty environment: no host variable is passed (only LANG, HOME=/tmp, a fixed PYTHONHASHSEED and single-thread BLAS settings are set)',
  'time limit per call enforced from outside the program, on the CPU time the call takes (an honest call that waits for a CPU on a busy machine is not cut short), with a wall-time ceiling of 10 times the limit (at least the limit + 5 s): its process is killed (a loop inside C code cannot escape it); the host kills the whole jail if the zygote stops answering, and the environments it held are replayed in a fresh one',
  'host and sandbox talk over pipes only (length-prefixed JSON): with the zygote over its stdio, with each environment\'s process over two FIFOs of its own, made by the zygote in a folder of the jail\'s that no environment sees and unlinked once the host opened them; an environment\'s process reaches only its own channel, and the host numbers its requests and checks every reply',
  'host modules refused and flagged as in pyodide (subprocess, ctypes and numpy\'s routes to it, socket, os.system, os.fork...)',
  'per-environment random and numpy random (seeded by reset), time and datetime (fixed clock)',
];

/**
 * Why uid 65534 could not read `folder` (a folder bound into the jail is opened by bwrap, which
 * a root host starts as uid 65534): each folder above it must be searchable by others, and the
 * folder itself readable and searchable. Undefined when it can.
 */
function unreadableForJail(folder: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const absolute = path.resolve(folder);
  const parts = absolute.split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const dir = path.sep + parts.slice(0, i).join(path.sep);
    let mode: number;
    try {
      mode = statSync(dir).mode;
    } catch {
      return `${absolute} does not exist`;
    }
    const needed = i === parts.length ? 0o005 : 0o001;
    if ((mode & needed) !== needed) return `${dir} is not ${i === parts.length ? 'readable' : 'searchable'} by other users (mode ${(mode & 0o777).toString(8)})`;
  }
  return undefined;
}

/**
 * The address space every process of the jail may have (prlimit, before bwrap): an environment's
 * hard limit is the interpreter's own (a few hundred MiB with numpy, networkx and sympy, most of
 * it never touched) + hardMemoryMb, which must fit under it.
 */
export const jailAddressSpaceMb = (hardMemoryMb: number): number => hardMemoryMb + 2048;

/** How to start one jailed interpreter. Throws if a folder to bind cannot be read from the jail. */
export function planJail(request: JailRequest): JailPlan {
  const extra = request.pythonPath ?? [];
  for (const folder of extra) {
    const problem = unreadableForJail(folder);
    if (problem) throw new JailSetupError(`cannot put ${folder} on the sandbox's Python path: ${problem}; the jail runs as uid ${SANDBOX_ID}, so it must be readable by other users`);
  }
  const inside = extra.map((_, i) => `${PYTHON_PATH_INSIDE}/${i}`);
  const python = request.python ? path.resolve(request.python) : PYTHON;
  const interpreterDir = request.python ? interpreterFolder(python) : undefined;
  if (request.python) {
    if (!existsSync(python)) throw new JailSetupError(`python: ${python} does not exist`);
    const problem = interpreterDir && unreadableForJail(interpreterDir);
    if (problem) throw new JailSetupError(`python: cannot run ${python} in the jail: ${problem}; the jail runs as uid ${SANDBOX_ID}, so its folder must be readable by other users`);
    // Each environment's process mounts its own empty /tmp, which would hide an interpreter kept there.
    if (interpreterDir && (interpreterDir === '/tmp' || interpreterDir.startsWith('/tmp/'))) {
      throw new JailSetupError(`python: ${python} is under /tmp, which the jail replaces with an empty folder for each environment: put the interpreter (its virtual environment) elsewhere, such as /var/tmp or your home folder`);
    }
  }
  const folder = serverFolder();
  confineModule(folder);
  const bwrap = findExecutable('bwrap') ?? 'bwrap';
  const argsWith = (channels: string | undefined): string[] =>
    [...limitOptions(jailAddressSpaceMb(request.hardMemoryMb)), '--', bwrap, ...bwrapOptions(folder, extra, interpreterDir, channels), python, '-s', '-B', `${INSIDE}/server.py`, String(request.hardMemoryMb), ...inside];
  return {
    command: findExecutable('prlimit', ['/usr/bin/prlimit']) ?? 'prlimit',
    args: argsWith(undefined),
    channelArgs: argsWith,
    seccompFile: seccompFile(folder),
    ...startAs(),
    protections: [
      ...PROTECTIONS,
      ...(extra.length ? [`read-only on the Python path: ${extra.join(', ')}`] : []),
      ...(request.python ? [`interpreter ${python}${interpreterDir ? ` (its folder ${interpreterDir} read-only)` : ''}`] : []),
    ],
  };
}

export interface JailCheck {
  /** Why the jail cannot be set up here, with the fix; undefined when it can. */
  problem?: string;
  /** Packages of numpy, networkx and sympy that /usr/bin/python3 lacks (programs using them are refused). */
  missingPackages: string[];
}

let checked: JailCheck | undefined;

/** Start the jail once with a probe instead of the server, and say what stops it (cached). */
export function checkJail(): JailCheck {
  if (checked) return checked;
  checked = probe();
  return checked;
}

const PROBE = `import importlib.machinery, importlib.util, json, os
native = None
try:
    path = '${INSIDE}/${NATIVE_MODULE}'
    loader = importlib.machinery.ExtensionFileLoader('spade_confine', path)
    loader.exec_module(importlib.util.module_from_spec(importlib.util.spec_from_file_location('spade_confine', path, loader=loader)))
except Exception as error:
    native = str(error)
print(json.dumps({'uid': os.getuid(), 'native': native, 'missing': [n for n in ${JSON.stringify(PYTHON_PACKAGES)} if importlib.util.find_spec(n) is None]}))`;

function probe(): JailCheck {
  if (process.platform !== 'linux') return { problem: `the cpython sandbox needs Linux and bubblewrap (this is ${process.platform}): ${OTHERWISE}`, missingPackages: [] };
  if (!existsSync(PYTHON)) return { problem: `${PYTHON} is missing: apt-get install python3 python3-numpy python3-networkx python3-sympy, ${OTHERWISE}`, missingPackages: [] };
  const bwrap = findExecutable('bwrap');
  if (!bwrap) return { problem: `bubblewrap (bwrap) is not installed: apt-get install bubblewrap, ${OTHERWISE}`, missingPackages: [] };
  if (!findExecutable('prlimit', ['/usr/bin/prlimit'])) return { problem: `prlimit is missing (it sets the jail's limits before bubblewrap starts): apt-get install util-linux, ${OTHERWISE}`, missingPackages: [] };
  let plan: JailPlan;
  try {
    plan = planJail({ hardMemoryMb: 1024 });
  } catch (error) {
    return { problem: setupProblem(error), missingPackages: [] };
  }
  const args = [...plan.args.slice(0, plan.args.indexOf(PYTHON)), PYTHON, '-s', '-c', PROBE];
  const { stdio, fd } = jailStdio(plan, ['ignore', 'pipe', 'pipe']);
  let result: ReturnType<typeof spawnSync>;
  try {
    result = spawnSync(plan.command, args, { env: {}, encoding: 'utf8', timeout: 20_000, stdio, ...startAs() });
  } finally {
    closeSync(fd);
  }
  const error = result.error as NodeJS.ErrnoException | undefined;
  if (error?.code === 'ENOENT') return { problem: `bubblewrap (bwrap) is not installed: apt-get install bubblewrap, ${OTHERWISE}`, missingPackages: [] };
  if (error) return { problem: `bubblewrap could not be started (${error.message}): ${OTHERWISE}`, missingPackages: [] };
  const stderr = String(result.stderr ?? '').trim().split('\n').slice(-3).join(' ');
  if (result.status !== 0) {
    if (/namespace|uid map|setgroups|Operation not permitted|Permission denied|No space left|setting up|mount/i.test(stderr)) {
      return {
        problem:
          `bubblewrap cannot create its namespaces here (${stderr || `exit ${result.status}`}): allow unprivileged user namespaces ` +
          '(sysctl -w kernel.unprivileged_userns_clone=1; on Ubuntu 23.10+ also sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; ' +
          `in a container, run it with --security-opt seccomp=unconfined --security-opt apparmor=unconfined), ${OTHERWISE}`,
        missingPackages: [],
      };
    }
    return { problem: `the jail failed to start /usr/bin/python3 (${stderr || `exit ${result.status}`}): ${OTHERWISE}`, missingPackages: [] };
  }
  try {
    const facts = JSON.parse(String(result.stdout).trim().split('\n').at(-1) ?? '') as { uid: number; native: string | null; missing: string[] };
    if (facts.uid !== SANDBOX_ID) return { problem: `the jail runs programs as uid ${facts.uid}, not ${SANDBOX_ID}: ${OTHERWISE}`, missingPackages: [] };
    if (facts.native) {
      return { problem: `the jail cannot load its set-up module from ${tmpdir()} (${facts.native}; a folder mounted noexec?): set TMPDIR to another folder, ${OTHERWISE}`, missingPackages: [] };
    }
    return { missingPackages: facts.missing };
  } catch {
    return { problem: `the jail's probe printed no answer (${stderr}): ${OTHERWISE}`, missingPackages: [] };
  }
}

/**
 * Why the sandbox's files could not be made (TMPDIR full or not writable, no python3-seccomp...),
 * with what to do.
 */
export function setupProblem(error: unknown): string {
  if (error instanceof JailSetupError) return error.message;
  const code = (error as NodeJS.ErrnoException)?.code;
  const where = tmpdir();
  if (code === 'ENOSPC' || code === 'EDQUOT') return `the temporary folder ${where} is full: the cpython sandbox writes its files there; free some space or set TMPDIR to another folder`;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOENT' || code === 'ENOTDIR') {
    return `the cpython sandbox cannot write its files to the temporary folder ${where} (${code}): set TMPDIR to a writable folder`;
  }
  return `the cpython sandbox's files could not be made in ${where}: ${(error as Error)?.message ?? String(error)}`;
}

/** What list and the README tell a user about missing packages. */
export function missingPackagesNote(missing: readonly string[]): string | undefined {
  return missing.length ? `${missing.join(', ')} missing for ${PYTHON}: programs that use them are refused (${FIX_PACKAGES})` : undefined;
}
