/**
 * Whole-process measurements for the benchmarks that compare command lines: the wall time of a
 * command, from spawn to exit, and the peak memory of its whole process tree (the command and
 * every process it starts: a re-exec with other Node flags, a sandbox's interpreters, a
 * yardstick's helpers), read from Linux's /proc; and the CPU time of this process's own
 * descendants (a sandbox's processes).
 *
 * Memory: every SAMPLE_MS the resident set sizes of the tree's processes (found through
 * /proc/PID/task/TID/children) are summed; the peak of that sum is `peakMb`. A process that
 * lives less than a sample may be missed, so `hwmSumMb`, the sum of each process's own peak
 * (VmHWM, as last read), is given too: an upper bound of the tree's peak.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const SAMPLE_MS = 20;

export interface ProcessFigures {
  /** Spawn to exit, in seconds. */
  wallSec: number;
  /** Peak of the tree's summed resident memory (MiB), sampled every SAMPLE_MS. */
  peakMb: number;
  /** Sum over the tree's processes of each one's peak resident memory (MiB): an upper bound of peakMb. */
  hwmSumMb: number;
  /** Processes seen in the tree. */
  processes: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) if (child.trim()) out.push(Number(child));
    } catch {
      // the thread or process is gone
    }
  }
  return out;
}

/**
 * The CPU time, in ms, of every process below `pid` (user and system, with that of the children
 * each reaped), as /proc shows it now: a process that ended and was not reaped yet is missed.
 */
export function descendantsCpuMs(pid = process.pid): number {
  const stack = childrenOf(pid);
  let ticks = 0;
  while (stack.length) {
    const child = stack.pop()!;
    stack.push(...childrenOf(child));
    try {
      const stat = readFileSync(`/proc/${child}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // gone
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

/** VmRSS and VmHWM of a process in MiB, or undefined when it is gone. */
function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/** True when this machine exposes what measureProcess reads (Linux with /proc/PID/task/TID/children). */
export function canMeasureProcessTrees(): boolean {
  try {
    readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8');
    return true;
  } catch {
    return false;
  }
}

/** Run a command to its end, measuring its wall time and the peak memory of its process tree. */
export async function measureProcess(command: string, args: readonly string[], options: SpawnOptions = {}): Promise<ProcessFigures> {
  const started = performance.now();
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const hwm = new Map<number, number>();
  let peak = 0;
  const sample = (): void => {
    if (child.pid === undefined) return;
    let sum = 0;
    const stack = [child.pid];
    while (stack.length) {
      const pid = stack.pop()!;
      const memory = memoryOf(pid);
      if (!memory) continue;
      sum += memory.rss;
      hwm.set(pid, Math.max(hwm.get(pid) ?? 0, memory.hwm));
      stack.push(...childrenOf(pid));
    }
    peak = Math.max(peak, sum);
  };
  const timer = setInterval(sample, SAMPLE_MS);
  sample();
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearInterval(timer);
  const wallSec = (performance.now() - started) / 1000;
  const hwmSumMb = [...hwm.values()].reduce((a, b) => a + b, 0);
  return { wallSec, peakMb: peak, hwmSumMb, processes: hwm.size, code, stdout, stderr };
}

export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
