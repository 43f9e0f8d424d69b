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
 * each is refused as an escape attempt, like `import ctypes`.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
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
  const args = [...plan.args.slice(0, plan.args.indexOf(jail.PYTHON)), jail.PYTHON, '-s', '/python-path/0/attacks.py'];
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

maybe("numpy's routes to ctypes are refused like import ctypes", async () => {
  const sandbox = createCpythonSandbox();
  try {
    for (const route of NUMPY_ROUTES) {
      const source = `class ProbeEnv:\n  def reset(self, seed=None):\n    got = ${route}\n    return f"reached {got!r}", {}\n  def step(self, a):\n    return "o", 0.0, True, False, {}\n`;
      const env = await sandbox.load({ id: route, language: 'python', source });
      let failure: unknown;
      try {
        await env.reset(1);
      } catch (error) {
        failure = error;
      }
      await env.dispose();
      assert.ok(failure instanceof SandboxError, `${route} was reached`);
      assert.is((failure as SandboxError).kind, 'escape-attempt', `${route}: ${(failure as SandboxError).message}`);
    }
  } finally {
    await sandbox.close();
  }
});

test.run();
