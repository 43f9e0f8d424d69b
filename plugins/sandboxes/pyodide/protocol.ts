/**
 * Messages between the host, the jailed child process and the interpreter thread inside it.
 * Host <-> child: one JSON object per line over the child's stdin/stdout, with request ids.
 * Child <-> interpreter thread: the same objects, by postMessage.
 *
 * The child process imports only this file's types (erased when it is transpiled), so the one
 * runtime import below, the shared reply reader, never reaches it.
 */
import type { PythonMethod } from '../python/environment.js';
import type { LoaderFailureKind } from '../python/replies.js';

/** The per-call limits the child enforces (call counts and result shape are checked by the host). */
export interface CallLimits {
  callTimeoutMs: number;
  memoryMb: number;
  maxOutputBytes: number;
}

export type EnvironmentMethod = PythonMethod;

export type Request =
  | { id: number; op: 'load'; env: string; source: string; limits: CallLimits; maxTurns?: number }
  | { id: number; op: 'call'; env: string; method: EnvironmentMethod; args: unknown[]; limits: CallLimits }
  | { id: number; op: 'dispose'; env: string }
  /** SPADE's own validation of a program: nothing is kept. */
  | { id: number; op: 'spade-validate'; source: string; limits: CallLimits; resetGate?: number }
  /** SPADE's f-string brace repair of a designer's code (parsed, never run). */
  | { id: number; op: 'repair-braces'; source: string; limits: CallLimits };

/** How a request failed, in the child's words (the shared loader's kinds); the host maps it to a SandboxError kind. */
export type FailureKind = LoaderFailureKind;

export type Reply =
  | {
      id: number;
      ok: true;
      /** JSON of the returned value (load: the capabilities). Non-finite floats are {"$float": "nan" | "inf" | "-inf"}. */
      json: string;
      /** Set when the interpreter thread was replaced while this request ran: every environment in it is gone. */
      replaced?: boolean;
    }
  | { id: number; ok: false; kind: FailureKind; message: string; replaced?: boolean };

/** What the child reports once its interpreter is ready: facts checked from inside. */
export interface ReadyMessage {
  ready: true;
  /** Names of the environment variables the child sees (bwrap sets PWD, to the jail's /tmp). */
  environmentVariables: string[];
  /** Network interfaces other than loopback that the child sees. */
  networkInterfaces: string[];
  /** Node's permission model: may the child write files / start processes? (undefined: model off) */
  canWriteFiles: boolean | undefined;
  canStartProcesses: boolean | undefined;
  /** Whether a write to the interpreter's own folder on the host succeeded (it must not). */
  hostFolderWritable: boolean;
  /** Milliseconds the interpreter took to start. */
  startMs: number;
}

export type ChildMessage = Reply | ReadyMessage | { fatal: string };

export { reviveFloats } from '../python/replies.js';
