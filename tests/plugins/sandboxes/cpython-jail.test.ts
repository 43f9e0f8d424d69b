/**
 * The cpython sandbox's jail against native code. A program that got past the loader's guards
 * (with ctypes) is what tests/fixtures/python/jail/attacks.py plays: it runs in the jail as the
 * sandbox starts its zygote, confines a process as the zygote confines an environment's, and
 * attacks from there: ptrace the jail's first process and make it map memory past the limits
 * and fork, read or write another process's memory, make namespaces, use the kernel's
 * machinery (perf events, bpf, keyrings, userfaultfd), mount, fork, signal, outgrow its
 * memory, and fill /tmp with 400,000 inodes. Each must fail.
 *
 * And the routes to ctypes a program has without native code (numpy's), through the sandbox:
 * each is refused as an escape attempt, like `import ctypes`. No environment's process holds a
 * foreign-function interface at all (the zygote never loads one), and none can load one.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as jail from '../../../plugins/sandboxes/cpython/jail.js';
import { createCpythonSandbox } from '../../../plugins/sandboxes/cpython/sandbox.js';
import { SandboxError } from '../../../core/errors.js';
import { repoRoot } from '../../helpers/cli.js';

const jailProblem = jail.checkJail().problem;
const maybe = jailProblem ? test.skip : test;
const attacks = path.join(repoRoot, 'tests/fixtures/python/jail');

/** attacks.py's findings, run in the jail exactly as the sandbox runs its zygote. */
function attack(): Record<string, string> {
  const plan = jail.planJail({ hardMemoryMb: 1024, pythonPath: [attacks] });
  // The attacks run native code through ctypes, which the jail hides (a program has no way to
  // it): here it is left in, standing for native code a program got some other way.
  const jailArgs = plan.args.filter((_, i, all) => !(all[i] === '--ro-bind' && all[i + 1] === '/dev/null') && !(all[i - 1] === '--ro-bind' && all[i] === '/dev/null') && !(all[i - 2] === '--ro-bind' && all[i - 1] === '/dev/null'));
  const args = [...jailArgs.slice(0, jailArgs.indexOf(jail.PYTHON)), jail.PYTHON, '-s', '/python-path/0/attacks.py'];
  const seccompFile = (plan as { seccompFile?: string }).seccompFile;
  const fd = seccompFile ? openSync(seccompFile, 'r') : undefined;
  try {
    const result = spawnSync(plan.command, args, {
      env: {},
      encoding: 'utf8',
      timeout: 300_000,
      stdio: ['ignore', 'pipe', 'pipe', ...(fd === undefined ? [] : [fd])],
      uid: plan.uid,
      gid: plan.gid,
    });
    const line = result.stdout.trim().split('\n').at(-1) ?? '';
    assert.ok(line.startsWith('{'), `attacks.py answered (${result.status}): ${result.stderr.slice(-2000)}`);
    return JSON.parse(line) as Record<string, string>;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

let found: Record<string, string> | undefined;
const findings = (): Record<string, string> => (found ??= attack());

maybe("ptrace-attaching to the jail's first process (to make it map memory past the limits and fork) fails", () => {
  assert.is(findings().ptrace, 'EPERM', JSON.stringify(findings()));
  assert.is(findings()['pid1 mmap 2 GiB'], undefined);
  assert.is(findings()['pid1 fork'], undefined);
});

maybe("another process's memory, namespaces and the kernel's machinery are out of reach", () => {
  const f = findings();
  for (const name of ['process_vm_readv pid 1', 'process_vm_writev pid 1', 'unshare user namespace', 'clone user namespace', 'setns', 'kcmp', 'perf_event_open', 'bpf', 'keyctl', 'add_key', 'userfaultfd', 'mount bind', 'mount tmpfs', 'kill pid 1']) {
    assert.is(f[name], 'EPERM', `${name}: ${f[name]}`);
  }
});

maybe('no new process, and no memory past the limits', () => {
  assert.is(findings().fork, 'EPERM');
  assert.is(findings()['mmap 2 GiB'], 'OSError');
});

maybe('400,000 inodes in /tmp: stopped at its inode cap', () => {
  const made = /^(\d+) made, then ENOSPC$/.exec(findings()['inodes in /tmp'] ?? '');
  assert.ok(made, findings()['inodes in /tmp']);
  assert.ok(Number(made![1]) < 1024, findings()['inodes in /tmp']);
});

maybe("the jail's seccomp filter checks the architecture before anything else", () => {
  const plan = jail.planJail({ hardMemoryMb: 1024 });
  const bpf = readFileSync((plan as { seccompFile?: string }).seccompFile ?? '/nonexistent');
  // struct sock_filter: u16 code, u8 jt, u8 jf, u32 k. First: load seccomp_data.arch (offset 4);
  // then: jump if it equals AUDIT_ARCH_X86_64 (or the machine's), else kill.
  assert.is(bpf.readUInt16LE(0), 0x20, 'BPF_LD | BPF_W | BPF_ABS');
  assert.is(bpf.readUInt32LE(4), 4, 'seccomp_data.arch');
  assert.is(bpf.readUInt16LE(8), 0x15, 'BPF_JMP | BPF_JEQ | BPF_K');
  const arch = bpf.readUInt32LE(12);
  assert.ok(arch === 0xc000003e || arch === 0xc00000b7, `a 64-bit architecture (${arch.toString(16)})`);
});

const NUMPY_ROUTES = [
  'np.ctypeslib.ctypes',
  '__import__("numpy.ctypeslib").ctypeslib.ctypes',
  'np.zeros(1).ctypes._ctypes.CDLL',
  'np.core._internal.ctypes.CDLL',
  'np.core._dtype_ctypes._ctypes.CFuncPtr',
  '__import__("numpy.core._dtype_ctypes", fromlist=["x"])._ctypes',
];

/** What reset() of a program that evaluates `route` in an environment's process gives: its observation, or its failure. */
async function evaluate(sandbox: ReturnType<typeof createCpythonSandbox>, route: string): Promise<{ observation?: string; failure?: unknown }> {
  const source = `import sys\nclass ProbeEnv:\n  def reset(self, seed=None):\n    got = ${route}\n    return f"reached {got!r}" if got else "nothing", {}\n  def step(self, a):\n    return "o", 0.0, True, False, {}\n`;
  const env = await sandbox.load({ id: route, language: 'python', source });
  try {
    const { observation } = await env.reset(1);
    return { observation: String(observation) };
  } catch (failure) {
    return { failure };
  } finally {
    await env.dispose();
  }
}

maybe("numpy's routes to ctypes are refused like import ctypes, or lead nowhere", async () => {
  const sandbox = createCpythonSandbox();
  try {
    for (const route of NUMPY_ROUTES) {
      const { failure } = await evaluate(sandbox, route);
      assert.ok(failure instanceof SandboxError, `${route} was reached`);
      // Refused where numpy hands ctypes out; where numpy did without it (the zygote never loads
      // it), the attribute numpy would have kept it in is None.
      const { kind, message } = failure as SandboxError;
      assert.ok(kind === 'escape-attempt' || /'NoneType' object has no attribute/.test(message), `${route}: ${kind}: ${message}`);
    }
  } finally {
    await sandbox.close();
  }
});

// Routes to a foreign-function interface (or to a module that reads and writes memory) that need
// no import statement the loader sees: the classes every process holds, the frames of the code
// that called the program (the zygote's globals), the modules loaded, and loading the extension
// module's file directly.
const NATIVE_ROUTES = [
  "[c for c in object.__subclasses__() if 'ctypes' in c.__module__ or 'cffi' in c.__module__]",
  "[c for c in type.__subclasses__(type) if 'ctypes' in c.__module__]",
  "[k for k, m in sys.modules.items() if m is not None and k.split('.')[-1] in ('ctypes', '_ctypes', '_cffi_backend')]",
  "[v for i in range(1, 12) for f in [sys._getframe(i) if i <= len(__import__('traceback').extract_stack()) - 1 else None] if f for v in f.f_globals.values() if type(v).__module__ in ('ctypes', '_ctypes') or getattr(v, '__name__', '') in ('ctypes', '_ctypes')]",
  "__import__('importlib.util').util.module_from_spec(__import__('importlib.util').util.spec_from_file_location('_ctypes', __import__('glob').glob('/usr/lib/python3*/lib-dynload/_ctypes.*.so')[0]))",
  "__import__('importlib.util').util.module_from_spec(__import__('importlib.util').util.spec_from_file_location('_testcapi', __import__('glob').glob('/usr/lib/python3*/lib-dynload/_testcapi.*.so')[0]))",
  "__import__('_cffi_backend')",
  "__import__('_testcapi')",
];

maybe("no foreign-function interface in an environment's process: none loaded, none reachable, none loadable", async () => {
  const sandbox = createCpythonSandbox();
  try {
    for (const route of NATIVE_ROUTES) {
      const { observation, failure } = await evaluate(sandbox, route);
      assert.ok(observation === 'nothing' || failure instanceof SandboxError, `${route}: ${observation}`);
    }
    // A copy of a hidden module in a folder bound into the jail (a suite's packages) is hidden
    // too: CPython's _testcapi, which needs no libffi.
    const folder = mkdtempSync(path.join(tmpdir(), 'spade-ffi-copy-'));
    chmodSync(folder, 0o755);
    try {
      const copied = readdirSync(path.join(path.dirname(realpathSync(jail.PYTHON)), '../lib', path.basename(realpathSync(jail.PYTHON)), 'lib-dynload')).find((name) => name.startsWith('_testcapi.'));
      assert.ok(copied, "CPython's _testcapi on the host");
      copyFileSync(path.join(path.dirname(realpathSync(jail.PYTHON)), '../lib', path.basename(realpathSync(jail.PYTHON)), 'lib-dynload', copied!), path.join(folder, copied!));
      chmodSync(path.join(folder, copied!), 0o644);
      const withCopy = createCpythonSandbox({ pythonPath: [folder] });
      try {
        const route = `__import__('importlib.util').util.module_from_spec(__import__('importlib.util').util.spec_from_file_location('_testcapi', '/python-path/0/${copied}'))`;
        const { observation, failure } = await evaluate(withCopy, route);
        assert.ok(observation === 'nothing' || failure instanceof SandboxError, `${route}: ${observation}`);
      } finally {
        await withCopy.close();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    // What honest programs load still loads.
    for (const route of ["__import__('decimal').Decimal(1) / 3", "__import__('sqlite3').connect(':memory:').execute('select 1').fetchall()", 'np.linalg.inv(np.eye(2)).tolist()', "__import__('hashlib').sha256(b'x').hexdigest()", "'x'.encode('shift_jis')"]) {
      const { observation, failure } = await evaluate(sandbox, route);
      assert.ok(observation?.startsWith('reached'), `${route}: ${(failure as Error | undefined)?.message ?? observation}`);
    }
  } finally {
    await sandbox.close();
  }
});

test('without a C compiler, the jail says how to get one (its set-up module is compiled once)', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'spade-no-cc-'));
  copyFileSync(path.join(repoRoot, 'plugins/sandboxes/cpython/confine.c'), path.join(folder, 'confine.c'));
  const saved = process.env.PATH;
  process.env.PATH = folder; // no cc, no gcc
  try {
    assert.throws(() => jail.confineModule(folder), (error: Error) => error instanceof jail.JailSetupError && /apt-get install gcc/.test(error.message));
  } finally {
    process.env.PATH = saved;
    rmSync(folder, { recursive: true, force: true });
  }
});

test.run();
