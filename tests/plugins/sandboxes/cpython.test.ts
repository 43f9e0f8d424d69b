// The cpython sandbox: the tests every Python sandbox passes (python-sandbox-tests.ts), then what
// is its own: numpy as SPADE injects it, the jail seen from inside, its hard limits, environments
// kept apart in one interpreter (numpy's state too), the whole sandbox killed for a call past its
// wall time with the neighbours replayed, and replies checked on the host.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCpythonSandbox } from '../../../plugins/sandboxes/cpython/sandbox.js';
import { checkJail } from '../../../plugins/sandboxes/cpython/jail.js';
import { createPyodideSandbox } from '../../../plugins/sandboxes/pyodide/sandbox.js';
import { validateEnvironment } from '../../../core/gate/gate.js';
import type { EnvironmentProgram, LoadedEnvironment, Sandbox } from '../../../core/types.js';
import { hostileSource } from '../../fixtures/python/hostile.js';
import { descendants, jailedProcesses, nestedNamespaces } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/cli.js';
import { HOST_FOLDERS, SECRET, definePythonSandboxTests, failureOf, source } from './python-sandbox-tests.js';

// Where the jail cannot be set up (no bwrap, user namespaces denied) the sandbox refuses to start
// (validate-python-sandbox.test.ts checks how): its tests are skipped, with the reason.
const jailProblem = checkJail().problem;
if (jailProblem) {
  console.log(`skipped: the cpython sandbox cannot start here: ${jailProblem}`);
  test.skip('the cpython sandbox', () => {});
} else {
  defineTests();
}

function defineTests(): void {
  const suite = definePythonSandboxTests(test, 'cpython', (limits) => createCpythonSandbox({ limits }));
  const sandbox = (): Sandbox => suite.sandbox();
  const python = (id: string, text: string): EnvironmentProgram => ({ id, language: 'python', source: text });
  const load = (id: string, text: string): Promise<LoadedEnvironment> => sandbox().load(python(id, text));
  const probe = (body: string): string => `import os, sys\nclass ProbeEnv:\n  def reset(self, seed=None):\n${body.split('\n').map((l) => `    ${l}`).join('\n')}\n  def step(self, a): return "o", 0.0, True, False, {}\n`;

  test('states its protections: bubblewrap, no network, unprivileged, hard limits, wall time from outside', () => {
    const text = sandbox().protections.join('\n');
    for (const words of ['bubblewrap', 'seccomp filter', 'libseccomp', 'no ptrace', 'no network', 'uid 65534', 'drops it', 'hard limits set before bubblewrap starts', 'no new process or thread', 'address space', 'killed', 'pipes only', 'a process of its own per environment', 'its own /tmp', '1024 inodes']) {
      assert.ok(text.includes(words), `protections mention "${words}"`);
    }
    assert.not.ok(sandbox().insecure);
  });

  test('a SPADE program that uses np without importing it passes the gate, with numpy seeded by reset', async () => {
    const program = python('numpy_matrix.py', source('packages/numpy_matrix.py'));
    const verdict = await validateEnvironment(sandbox(), program, { seed: 1 });
    assert.is(verdict.verdict, 'valid', JSON.stringify(verdict.checks.filter((c) => !c.ok)));
    const seeded = await load('np', probe('return f"{np.random.randint(0, 10**9)} {numpy.random.rand():.6f}", {"array": np.arange(3), "scalar": np.int64(7), "flag": np.bool_(True)}'));
    const first = await seeded.reset(5);
    assert.equal(first.info, { array: [0, 1, 2], scalar: 7, flag: true }, 'numpy values come back as the Python values they hold');
    assert.equal((await seeded.reset(5)).observation, first.observation, "numpy's global generator is seeded from reset(seed)");
    assert.is.not((await seeded.reset(6)).observation, first.observation);
    await seeded.dispose();
  });

  test('numpy is imported once a program names it: not before, and then for every later program', async () => {
    const own = createCpythonSandbox({ workers: 1 });
    // The word is split so that this program's code does not name the package.
    const loaded = probe('return str("num" + "py" in sys.modules), {}');
    const observe = async (id: string, text: string): Promise<unknown> => {
      const env = await own.load(python(id, text));
      try {
        return (await env.reset(1)).observation;
      } finally {
        await env.dispose();
      }
    };
    try {
      assert.is(await observe('before', loaded), 'False', 'no program has named numpy yet');
      const computed = await own.load(python('computed', probe('return str(__import__("num" + "py").arange(3)), {}')));
      const refused = await failureOf(computed.reset(1));
      await computed.dispose();
      assert.is(refused?.kind, 'crash', 'an ImportError of the program, not an escape attempt');
      assert.match(refused?.message ?? '', /numpy is imported for programs whose code names it/);
      assert.is(await observe('injected', probe('return str(np.arange(3)), {}')), '[0 1 2]', 'SPADE\'s injected np names numpy');
      assert.is(await observe('after', loaded), 'True');
    } finally {
      await own.close();
    }
  });

  test('closing the sandbox while processes are being disposed of leaves no promise rejected unheard', async () => {
    const unheard: unknown[] = [];
    const listen = (reason: unknown): void => void unheard.push(reason);
    process.on('unhandledRejection', listen);
    try {
      const own = createCpythonSandbox({ workers: 1 });
      const program = python('validated.py', probe('return "o", {}'));
      // Each validation's process is disposed of once it answers; the close comes while those disposals wait their turn.
      const validations = Array.from({ length: 6 }, () => own.spadeValidate!(program).then(() => 'answered', (error: Error) => error.message));
      await validations[0];
      await own.close();
      const outcomes = await Promise.all(validations);
      assert.is(outcomes[0], 'answered');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(unheard.map(String), []);
    } finally {
      process.off('unhandledRejection', listen);
    }
  });

  test('networkx and sympy are there', async () => {
    const env = await load('graph', 'import networkx as nx\nimport sympy\nclass GraphEnv:\n  def reset(self, seed=None):\n    g = nx.cycle_graph(5)\n    return f"{nx.diameter(g)} {sympy.factorint(360)}", {}\n  def step(self, a): return "o", 0.0, True, False, {}\n');
    assert.is((await env.reset(1)).observation, '2 {2: 3, 3: 2, 5: 1}');
    await env.dispose();
  });

  test('the same programs give the same episodes as in the pyodide sandbox', async () => {
    const pyodide = createPyodideSandbox();
    try {
      for (const name of ['guess_number.py', 'fraction_sum.py', 'word_sort.py']) {
        const transcript = async (box: Sandbox): Promise<unknown[]> => {
          const env = await box.load(python(name, source(name)));
          const seen: unknown[] = [await env.reset(9), await env.step('\\boxed{50}'), await env.step('\\boxed{12}')];
          await env.dispose();
          return seen;
        };
        assert.equal(await transcript(sandbox()), await transcript(pyodide), name);
      }
    } finally {
      await pyodide.close();
    }
  });

  test('inside the jail: uid 65534, no /proc, no host variable, read-only root, /dev/null for stdio and its own pipes', async () => {
    const direct = await load('inside-2', probe([
      'import stat',
      'try:',
      '  os.open("/usr/spade-probe", os.O_WRONLY | os.O_CREAT)',
      '  root = "writable"',
      'except OSError as error:',
      '  root = error.strerror',
      'kinds = ["pipe" if stat.S_ISFIFO(os.fstat(fd).st_mode) else "socket" if stat.S_ISSOCK(os.fstat(fd).st_mode) else "device" if stat.S_ISCHR(os.fstat(fd).st_mode) else "other" for fd in (0, 1, 2, 3, 4)]',
      'return f"{os.getuid()} {os.listdir(\'/proc\')} {sorted(os.environ)} {root} {kinds}", {}',
    ].join('\n')));
    assert.is(
      (await direct.reset(1)).observation,
      "65534 [] ['HOME', 'LANG', 'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'PWD', 'PYTHONDONTWRITEBYTECODE', 'PYTHONHASHSEED'] Read-only file system ['device', 'device', 'device', 'pipe', 'pipe']",
      'uid, no process to look at, environment, root; stdio is /dev/null, and it talks to the zygote over two pipes of its own',
    );
    await direct.dispose();
  });

  test("from outside: the zygote is the jail's pid 1 with CAP_SYS_ADMIN alone; each environment's process has no capability, two seccomp filters and its limits", async () => {
    const env = await load('outside', probe('return "here", {}'));
    await env.reset(1);
    const found = jailedProcesses();
    const zygote = found.find((p) => p.inner === 1);
    const environment = found.find((p) => p.inner !== 1 && p.parent === zygote?.pid);
    assert.ok(zygote && environment, `a zygote and an environment's process (${JSON.stringify(found)})`);
    assert.is(zygote!.status.CapEff, '0000000000200000');
    assert.is(zygote!.status.Seccomp, '2');
    assert.is(zygote!.status.NoNewPrivs, '1');
    assert.is(environment!.status.CapEff, '0000000000000000');
    assert.is(environment!.status.CapPrm, '0000000000000000');
    assert.is(environment!.status.CapAmb, '0000000000000000');
    assert.is(environment!.status.Seccomp, '2');
    assert.is(environment!.status.Seccomp_filters, '2', 'the jail\'s filter and its own');
    assert.is(environment!.status.NoNewPrivs, '1');
    assert.match(environment!.limits, /Max processes\s+1\s+1/);
    assert.match(environment!.limits, /Max open files\s+64\s+64/);
    assert.match(zygote!.limits, /Max address space\s+(\d+)\s+\1 +bytes/, 'the jail\'s own limit binds its first process');
    await env.dispose();
  });

  test('hard limits: an environment cannot raise them, start a thread or a process, or outgrow its memory', async () => {
    const env = await load('limits', probe([
      'import resource, threading',
      'out = []',
      'for name in ("RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_FSIZE"):',
      '  limit = getattr(resource, name)',
      '  soft, hard = resource.getrlimit(limit)',
      '  try:',
      '    resource.setrlimit(limit, (hard + 1, hard + 1))',
      '    out.append(name + " raised")',
      '  except ValueError:',
      '    out.append(name + " held")',
      'try:',
      '  threading.Thread(target=lambda: None).start()',
      '  out.append("thread started")',
      'except RuntimeError:',
      '  out.append("no thread")',
      'self.kept = bytearray(24 * 1024 * 1024)',
      'return " ".join(out), {}',
    ].join('\n')));
    assert.is((await env.reset(1)).observation, 'RLIMIT_AS held RLIMIT_NPROC held RLIMIT_NOFILE held RLIMIT_FSIZE held no thread');
    await env.dispose();
    // memoryMb is per call, on top of the interpreter: 24 MiB fits in 48, 80 MiB does not.
    const big = await load('big', probe('self.kept = bytearray(80 * 1024 * 1024)\nreturn "kept", {}'));
    assert.is((await failureOf(big.reset(1)))?.kind, 'memory');
    await big.dispose();
  });

  test('hostile programs that only the jail stops are contained as expected', async () => {
    const targets = { listenerPort: suite.listenerPort(), hostFolders: HOST_FOLDERS };
    const run = async (file: string): Promise<string> => {
      const env = await load(file, hostileSource(file, targets));
      try {
        return (await env.reset(1)).observation;
      } finally {
        await env.dispose();
      }
    };
    assert.match(await run('fork_bomb_past_guard.py'), /^forked 0 children; stopped by PermissionError/);
    assert.is(await run('write_host_folders.py'), 'wrote: /tmp');
    assert.match(await run('fill_tmp.py'), /^wrote 1[0-6] MiB to \/tmp, then: No space left on device$/);
    const secrets = await run('read_secrets.py');
    assert.not.ok(secrets.includes(SECRET));
    assert.match(secrets, /self: No such file or directory/, 'no process can be read: /proc is empty');
    assert.not.match(secrets, /\d=/, 'not the environment of any other process');
  });

  test('environments in one interpreter are kept apart: numpy settings, patched modules, and each one its own generators', async () => {
    const first = await load('first', probe('np.set_printoptions(precision=1)\nnp.seterr(all="raise")\nimport json\njson.dumps = None\nreturn "changed", {}'));
    const second = await load('second', probe('return f"{np.array([1/3])} {json.dumps([1])} {np.geterr()[\'divide\']}", {}'));
    await first.reset(1);
    assert.is((await second.reset(1)).observation, '[0.33333333] [1] warn');
    await first.dispose();
    await second.dispose();
    // Interleaved, two environments draw from numpy's, random's and sympy's global generators as each would alone.
    const draws = 'import sympy.core.random as sr\nclass ProbeEnv:\n  def reset(self, seed=None): return "", {}\n  def step(self, a):\n    import random as shared\n    return f"{np.random.randint(10**6)} {shared.random():.6f} {sr.randint(0, 10**6)}", 0.0, False, False, {}\n';
    const alone = await load('alone', draws);
    await alone.reset(4);
    const expected = [(await alone.step('x')).observation, (await alone.step('x')).observation, (await alone.step('x')).observation];
    await alone.dispose();
    const [a, b] = [await load('a', draws), await load('b', draws)];
    await a.reset(4);
    await b.reset(9);
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push((await a.step('x')).observation);
      await b.step('x');
    }
    assert.equal(seen, expected);
    await a.dispose();
    await b.dispose();
  });

  test('many environments at once in one interpreter', async () => {
    const envs = await Promise.all(Array.from({ length: 20 }, (_, i) => load(`many-${i}`, source('word_sort.py'))));
    for (const [i, env] of envs.entries()) {
      await env.reset(i);
      assert.is((await env.step(await env.solution())).reward, 1);
    }
    await Promise.all(envs.map((env) => env.dispose()));
  });

  /** The jail's processes, once two looks 50 ms apart agree (a process killed a moment ago may still be dying). */
  const settledProcesses = async (): Promise<number[]> => {
    let last = jailedProcesses().map((p) => p.pid);
    for (let look = 0; look < 200; look++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const now = jailedProcesses().map((p) => p.pid);
      if (now.join() === last.join()) return now;
      last = now;
    }
    return last;
  };

  // The host pid of the environment's process whose pid in the jail is `inner`.
  const hostPid = (inner: number): number => {
    const found = descendants(process.pid).filter((pid) => {
      try {
        const nspid = /NSpid:\s+([\d\s]+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]?.trim().split(/\s+/) ?? [];
        return nspid.length > 1 && Number(nspid.at(-1)) === inner;
      } catch {
        return false;
      }
    });
    assert.is(found.length, 1, `one process is pid ${inner} in a jail`);
    return found[0]!;
  };

  test("a call past its time limit kills that environment's process only; a neighbour mid-episode goes on untouched", async () => {
    const play = async (env: LoadedEnvironment, interrupt?: () => Promise<void>): Promise<string[]> => {
      const seen = [(await env.reset(3)).observation];
      seen.push((await env.step('\\boxed{50}')).observation);
      await interrupt?.();
      seen.push((await env.step('\\boxed{25}')).observation, (await env.step('\\boxed{75}')).observation);
      return seen;
    };
    const control = await load('control', source('guess_number.py'));
    const expected = await play(control);
    await control.dispose();
    const neighbour = await load('neighbour', source('guess_number.py'));
    const seen = await play(neighbour, async () => {
      const loop = await load('loop', hostileSource('catastrophic_regex.py'));
      const before = nestedNamespaces();
      // Processes killed just before (the control's, disposed) take a moment to die on a busy machine: wait until none is dying.
      const processes = await settledProcesses();
      const failure = await failureOf(loop.reset(1));
      assert.is(failure?.kind, 'timeout', 'stopped at its limit, from outside the program');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(nestedNamespaces(), before, 'the sandbox goes on');
      const gone = processes.filter((pid) => !jailedProcesses().some((p) => p.pid === pid));
      assert.is(gone.length, 1, "the loop's process alone was killed");
      // Its next call gets a new process: the program is loaded again and its episode replayed.
      assert.is((await failureOf(loop.reset(1)))?.kind, 'timeout');
      await loop.dispose();
    });
    assert.equal(seen, expected);
    await neighbour.dispose();
  });

  test("a call's limit is on its CPU time: one that waits for a CPU past its limit in wall time goes on; one that waits forever is stopped", async () => {
    // A busy machine, made certain: the environment's process is stopped (SIGSTOP) while its call
    // waits, for several times the call's limit, then let go. It took no CPU time meanwhile.
    const limits = { callTimeoutMs: 300 };
    const own = createCpythonSandbox({ limits, workers: 1 });
    try {
      const program = `import os\nclass WaitEnv:\n  def reset(self, seed=None):\n    return str(os.getpid()), {}\n  def step(self, action):\n    if action == 'block':\n      os.set_blocking(3, True)\n      os.read(3, 1)\n    return 'stepped', 0.0, False, False, {}\n`;
      const env = await own.load({ id: 'wait', language: 'python', source: program });
      const pid = hostPid(Number((await env.reset(1)).observation));
      process.kill(pid, 'SIGSTOP');
      const step = env.step('go');
      void step.catch(() => undefined); // awaited below
      await new Promise((resolve) => setTimeout(resolve, 4 * limits.callTimeoutMs));
      process.kill(pid, 'SIGCONT');
      assert.is((await step).observation, 'stepped', 'not cut short: it used none of its CPU time');
      // Blocked on its own request pipe: no CPU time, no reply; stopped at the wall-time ceiling.
      const failure = await failureOf(env.step('block'));
      assert.is(failure?.kind, 'timeout', failure?.message);
      assert.match(failure!.message, /little CPU time/);
      await env.dispose();
    } finally {
      await own.close();
    }
  });

  test("environments' calls run side by side: one waiting in its call holds up no neighbour in its sandbox", async () => {
    // One worker: every environment in one jail, one zygote. Each process talks to the host over
    // its own channel, so a neighbour's calls are answered while one environment's call waits
    // (here, blocked on its own request pipe until its wall-time ceiling, 5.3 s).
    const own = createCpythonSandbox({ limits: { callTimeoutMs: 300 }, workers: 1 });
    try {
      const waiting = await own.load({ id: 'wait', language: 'python', source: `import os\nclass WaitEnv:\n  def reset(self, seed=None):\n    return 'ready', {}\n  def step(self, action):\n    os.set_blocking(3, True)\n    os.read(3, 1)\n    return 'read', 0.0, False, False, {}\n` });
      const neighbour = await own.load({ id: 'neighbour', language: 'python', source: source('guess_number.py') });
      await waiting.reset(1);
      const expected = ['reset', '\\boxed{50}', '\\boxed{25}', '\\boxed{75}'];
      let settled = false;
      const blocked = failureOf(waiting.step('block')).finally(() => (settled = true));
      const seen = [(await neighbour.reset(3)).observation];
      for (const action of expected.slice(1)) seen.push((await neighbour.step(action)).observation);
      assert.not.ok(settled, "the neighbour's episode was played while the other call waited");
      assert.is((await blocked)?.kind, 'timeout', 'and that call is still stopped at its ceiling');
      const control = await own.load({ id: 'control', language: 'python', source: source('guess_number.py') });
      const alone = [(await control.reset(3)).observation];
      for (const action of expected.slice(1)) alone.push((await control.step(action)).observation);
      assert.equal(seen, alone, 'the same episode as alone');
    } finally {
      await own.close();
    }
  });

  test('a program that catches MemoryError and keeps allocating is reported as memory, not timeout', async () => {
    const env = await load('memory_bytearray.py', source('hostile/memory_bytearray.py'));
    await env.reset(1);
    const failure = await failureOf(env.step('x'));
    assert.is(failure?.kind, 'memory');
    assert.match(failure!.message, /memory limit of 48 MiB/);
    await env.dispose();
  });

  test('extra folders go on the Python path read-only (a suite\'s own packages)', async () => {
    const folder = tempDir('spade-python-path-');
    chmodSync(folder, 0o755);
    writeFileSync(path.join(folder, 'spade_extra_probe.py'), 'VALUE = 7\n');
    chmodSync(path.join(folder, 'spade_extra_probe.py'), 0o644);
    const withPath = createCpythonSandbox({ pythonPath: [folder] });
    try {
      const env = await withPath.load(python('extra', probe([
        'import spade_extra_probe',
        'try:',
        '  os.open(os.path.join(os.path.dirname(spade_extra_probe.__file__), "written"), os.O_WRONLY | os.O_CREAT)',
        '  wrote = "writable"',
        'except OSError as error:',
        '  wrote = error.strerror',
        'return f"{spade_extra_probe.VALUE} {wrote}", {}',
      ].join('\n'))));
      assert.is((await env.reset(1)).observation, '7 Read-only file system');
      await env.dispose();
    } finally {
      await withPath.close();
    }
    if (process.getuid?.() === 0) {
      const hidden = tempDir('spade-python-path-');
      assert.throws(() => createCpythonSandbox({ pythonPath: [hidden] }), /readable by other users/);
    }
  });

  test("garbage written on the pipes fails that environment's call alone, and the next environment works", async () => {
    const neighbour = await load('neighbour', source('word_sort.py'));
    await neighbour.reset(1);
    const env = await load('garbage', probe([
      'for fd in range(0, 64):',
      '  try: os.write(fd, b"\\xff" * 64)',
      '  except OSError: pass',
      'return "wrote garbage", {}',
    ].join('\n')));
    const failure = await failureOf(env.reset(1));
    assert.is(failure?.kind, 'crash');
    assert.match(failure!.message, /reply pipe|not JSON|ended during the call/);
    await env.dispose();
    assert.is((await neighbour.step(await neighbour.solution())).reward, 1, 'the neighbour mid-episode is untouched');
    await neighbour.dispose();
    const next = await load('next', source('word_sort.py'));
    await next.reset(1);
    assert.is((await next.step(await next.solution())).reward, 1);
    await next.dispose();
  });

  suite.finish();
}

test.run();
