/**
 * Reading a jailed process from the host through /proc: which process is the sandbox's first
 * (the one to kill to end them all), and, when a call is about to be killed for running past its
 * wall time, whether it had reached its memory limit (a program that catches MemoryError and
 * tries again) rather than looping.
 */
import { readFileSync } from 'node:fs';

/** The pid of the parent of `pid`, or undefined if it is gone. */
export function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function status(pid: number): Record<string, string> {
  try {
    return Object.fromEntries(
      readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').map((line) => {
        const at = line.indexOf(':');
        return [line.slice(0, at), line.slice(at + 1).trim()];
      }),
    );
  } catch {
    return {};
  }
}

const kib = (value: string | undefined): number => Number.parseInt(value ?? '', 10) * 1024;

/**
 * How far past its parent's size a process inside the sandbox rooted at `rootPid` grew at its
 * peak, in bytes: the process whose pid in its own PID namespace is `namespacePid`, against the
 * process that forked it (the sandbox's server). Undefined when it cannot be read.
 */
export function peakGrowth(rootPid: number, namespacePid: number): number | undefined {
  const seen = new Set<number>();
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid) || seen.size > 10_000) continue;
    seen.add(pid);
    const kids = childrenOf(pid);
    for (const kid of kids) {
      const own = status(kid);
      const inner = own.NSpid?.split(/\s+/).at(-1);
      if (inner === String(namespacePid) && own.NSpid!.split(/\s+/).length > 1) {
        const parent = status(pid);
        const peak = kib(own.VmPeak);
        const base = kib(parent.VmSize);
        return Number.isFinite(peak) && Number.isFinite(base) ? peak - base : undefined;
      }
      stack.push(kid);
    }
  }
  return undefined;
}
