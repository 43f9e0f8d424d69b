/**
 * Reading a jailed process from the host through /proc: which process is the sandbox's first
 * (the one to kill to end them all), which host process an environment's is, and, when a call is
 * about to be killed for running past its time limit, whether it is at its memory limit (a
 * program that catches MemoryError and tries again) rather than looping.
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

/**
 * The host pid of the child of `parent` whose pid in its own PID namespace is `inner` (an
 * environment's process, as the zygote names it), or undefined. Children in `known` are not
 * looked at.
 */
export function childInNamespace(parent: number, inner: number, known: ReadonlySet<number | undefined> = new Set()): number | undefined {
  for (const pid of childrenOf(parent)) {
    if (known.has(pid)) continue;
    try {
      const nspid = /NSpid:\s+([\d\s]+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]?.trim().split(/\s+/);
      if (nspid && nspid.length > 1 && Number(nspid.at(-1)) === inner) return pid;
    } catch {
      // gone
    }
  }
  return undefined;
}

/** The address space of a process now, in bytes (VmSize), or undefined when it cannot be read. */
export function addressSpace(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmSize:'));
    const kib = Number.parseInt(line?.slice('VmSize:'.length) ?? '', 10);
    return Number.isFinite(kib) ? kib * 1024 : undefined;
  } catch {
    return undefined;
  }
}
