/**
 * Pipes (not sockets) between the host and a child process. Node's `stdio: 'pipe'` makes UNIX
 * socket pairs; these are real pipes: each is a FIFO made in a private folder (mode 0700),
 * opened at both ends, and unlinked before the child starts, which leaves an anonymous pipe.
 * The child's ends are handed over as inherited file descriptors (spawn's stdio array); the
 * host's ends become non-blocking streams.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Which way a pipe carries data. */
export type Direction = 'to-child' | 'from-child';

export interface PipeSet {
  /** The child's end of each pipe, in the order asked for: pass as spawn's `stdio`. */
  childFds: number[];
  /** The host's end of each pipe: writable for `to-child`, readable for `from-child`. */
  streams: Socket[];
  /** Close the child's ends in this process (call once the child has started, or failed to). */
  closeChildEnds(): void;
}

const { O_RDONLY, O_WRONLY, O_NONBLOCK } = constants;
/** coreutils' mkfifo (Node has no mkfifo of its own). */
const MKFIFO = ['/usr/bin/mkfifo', '/bin/mkfifo'].find((file) => existsSync(file)) ?? 'mkfifo';

export function makePipes(directions: readonly Direction[]): PipeSet {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spade-bench-pipes-'));
  const childFds: number[] = [];
  const hostFds: number[] = [];
  try {
    const names = directions.map((_, i) => path.join(dir, `p${i}`));
    const made = spawnSync(MKFIFO, ['-m', '600', ...names], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`mkfifo failed: ${made.error?.message ?? made.stderr}`);
    directions.forEach((direction, i) => {
      // The read end first (opening a FIFO's write end needs a reader); non-blocking so neither waits.
      if (direction === 'to-child') {
        childFds.push(openSync(names[i]!, O_RDONLY | O_NONBLOCK));
        hostFds.push(openSync(names[i]!, O_WRONLY | O_NONBLOCK));
      } else {
        hostFds.push(openSync(names[i]!, O_RDONLY | O_NONBLOCK));
        childFds.push(openSync(names[i]!, O_WRONLY | O_NONBLOCK));
      }
    });
  } catch (error) {
    for (const fd of [...childFds, ...hostFds]) closeSync(fd);
    throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const streams = directions.map((direction, i) =>
    new Socket({ fd: hostFds[i]!, readable: direction === 'from-child', writable: direction === 'to-child' }),
  );
  let closed = false;
  return {
    childFds,
    streams,
    closeChildEnds() {
      if (closed) return;
      closed = true;
      for (const fd of childFds) closeSync(fd);
    },
  };
}
