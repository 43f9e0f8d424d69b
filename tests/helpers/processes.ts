/**
 * Processes as /proc shows them, for tests that check a sandbox leaves nothing behind: the PID
 * namespaces a process's descendants live in (a jailed sandbox has its own), and every process
 * on the machine that is still in one of them.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The pids of every descendant of `pid`. */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const next = stack.pop()!;
    for (const task of (() => {
      try {
        return readdirSync(`/proc/${next}/task`);
      } catch {
        return [];
      }
    })()) {
      for (const child of (read(`/proc/${next}/task/${task}/children`) ?? '').trim().split(/\s+/).filter(Boolean).map(Number)) {
        found.push(child);
        stack.push(child);
      }
    }
  }
  return found;
}

/** The PID namespace of a process (`pid:[4026532…]`), if it still exists. */
export function pidNamespace(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

/**
 * The PID namespaces, other than this process's own, that descendants of `pid` live in, each
 * named with its first process (`pid:[4026532…] init 1234@5678`: host pid and start time). The
 * kernel reuses a namespace's number once it is gone, and another test's sandbox may then get
 * it: a namespace is the same one only while that first process lives (when it ends, the
 * kernel ends every process in its namespace).
 */
export function nestedNamespaces(pid = process.pid): Set<string> {
  const own = pidNamespace(process.pid);
  const found = new Set<string>();
  for (const child of descendants(pid)) {
    const ns = pidNamespace(child);
    if (!ns || ns === own) continue;
    const inner = /NSpid:\s+([\d\s]+)/.exec(read(`/proc/${child}/status`) ?? '')?.[1]?.trim().split(/\s+/).at(-1);
    if (inner === '1') found.add(`${ns} init ${child}@${startTime(child)}`);
  }
  return found;
}

/** The state letter of a process (R, S, Z...), or undefined if it is gone. */
function state(pid: number | string): string | undefined {
  const stat = read(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

/** When a process started (clock ticks since boot), or undefined if it is gone. */
function startTime(pid: number | string): string | undefined {
  const stat = read(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/**
 * Every live process on the machine still in one of `namespaces` (as nestedNamespaces() names
 * them), with its command line: none when the namespace's first process is gone. Zombies are
 * left out: they run nothing, and reaping them is their new parent's business (in a container
 * whose first process does not reap, they stay).
 */
export function processesIn(namespaces: ReadonlySet<string>): { pid: number; command: string }[] {
  const live = new Set<string>();
  for (const key of namespaces) {
    const [, ns, init, started] = /^(.*) init (\d+)@(\d+)$/.exec(key) ?? [];
    if (ns && state(init!) !== 'Z' && startTime(init!) === started) live.add(ns);
  }
  if (live.size === 0) return [];
  const left: { pid: number; command: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || state(name) === 'Z') continue;
    const ns = pidNamespace(Number(name));
    if (ns && live.has(ns)) left.push({ pid: Number(name), command: (read(`/proc/${name}/cmdline`) ?? '').replace(/\0/g, ' ').trim() });
  }
  return left;
}

/**
 * Processes inside a sandbox rooted at a descendant of `pid` that are not its init, its server or
 * an environment process (the server's children). The server is the namespace's pid 2 under
 * bwrap's init (pyodide), or its pid 1 (the cpython sandbox's zygote).
 */
export function strayProcesses(pid = process.pid): { pid: number; command: string }[] {
  const status = (p: number): Record<string, string> =>
    Object.fromEntries((read(`/proc/${p}/status`) ?? '').split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
  const inside = descendants(pid)
    .map((p) => ({ pid: p, status: status(p) }))
    .filter((p) => (p.status.NSpid ?? '').split(/\s+/).length > 1);
  const servers = new Set(inside.filter((p) => ['1', '2'].includes(p.status.NSpid!.split(/\s+/).at(-1)!)).map((p) => String(p.pid)));
  return inside
    .filter((p) => {
      const inner = p.status.NSpid!.split(/\s+/).at(-1);
      return inner !== '1' && inner !== '2' && !servers.has(p.status.PPid ?? '');
    })
    .map((p) => ({ pid: p.pid, command: (read(`/proc/${p.pid}/cmdline`) ?? '').replace(/\0/g, ' ').trim() }));
}

/**
 * The processes of the sandboxes below `pid` that live in a PID namespace of their own, read
 * from outside: host pid, pid inside, parent's host pid, their /proc status fields and limits.
 */
export function jailedProcesses(pid = process.pid): { pid: number; inner: number; parent: number; status: Record<string, string>; limits: string }[] {
  return descendants(pid)
    .map((p) => {
      const status = Object.fromEntries((read(`/proc/${p}/status`) ?? '').split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
      const ids = (status.NSpid ?? '').split(/\s+/);
      return { pid: p, inner: Number(ids.at(-1)), parent: Number(status.PPid), status, limits: read(`/proc/${p}/limits`) ?? '', nested: ids.length > 1 && status.State?.[0] !== 'Z' };
    })
    .filter((p) => p.nested)
    .map(({ nested: _nested, ...p }) => p);
}
