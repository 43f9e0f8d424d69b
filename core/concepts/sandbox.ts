/**
 * Sandboxes: load an environment program and run its methods under limits. A failure is a
 * classified result (SandboxFailureKind, thrown as core/errors.ts's SandboxError), never a
 * crash of the run. Types only; the default limits are in core/config/options.ts.
 */
import type { EnvironmentProgram, Language, ResetResult, StepResult } from './environment.js';
import type { FunctionToolSchema } from './tools.js';

/** How a sandboxed call can fail. A failure is a classified result, never a crash of the run. */
export type SandboxFailureKind =
  | 'syntax' // the program does not parse
  | 'load' // it parses but defines no usable environment class, or its constructor throws
  | 'timeout' // a call ran past its wall-time limit
  | 'memory' // the environment exceeded its memory limit
  | 'output-limit' // a returned observation/info/output was larger than allowed
  | 'call-limit' // more calls than allowed for one environment
  | 'crash' // the method threw
  | 'contract' // the method returned something that breaks SPADE's interface
  | 'escape-attempt' // the program tried to reach the host (process, require, files, network)
  | 'missing-method'; // an optional method (solution, hint, referenceAction) was called but is absent

export interface SandboxLimits {
  /** Wall time per method call, in milliseconds. */
  callTimeoutMs: number;
  /** Memory per environment (per isolate / interpreter), in MiB. */
  memoryMb: number;
  /** Largest observation, info or printed output of one call, in bytes (UTF-8 of its JSON). */
  maxOutputBytes: number;
  /** Most method calls on one loaded environment. */
  maxCalls: number;
}

export interface EnvironmentCapabilities {
  solution: boolean;
  hint: boolean;
  referenceAction: boolean;
  /**
   * The environment exposes tools (a ToolUseBaseEnv, or a class with its own get_tools()):
   * getTools() reads them. Left unset by a sandbox that cannot tell; core then reads the
   * program's source for a ToolUseBaseEnv subclass.
   */
  tools?: boolean;
  /**
   * The game's own max_turns, as the instance was built (SPADE's loader: its own, capped at the
   * run's turn budget): its horizon when reset() names none. Left unset by a sandbox that cannot tell.
   */
  maxTurns?: number;
}

/** An environment program loaded in a sandbox. Every method may reject with a SandboxError. */
export interface LoadedEnvironment {
  readonly capabilities: EnvironmentCapabilities;
  reset(seed: number): Promise<ResetResult>;
  step(action: string): Promise<StepResult>;
  solution(): Promise<string>;
  hint(): Promise<string>;
  referenceAction(observation: string): Promise<string>;
  /**
   * The environment's tools after the last reset(), as OpenAI function schemas (SPADE's
   * get_tools()), checked by the contract (core/gate/contract.ts: toToolSchemas). Present on
   * sandboxes that run tool-use programs; call it only when `capabilities.tools` is true.
   */
  getTools?(): Promise<FunctionToolSchema[]>;
  /** Free the environment's context. Safe to call twice. */
  dispose(): Promise<void>;
}

/** How to load a program, besides its limits. */
export interface LoadOptions {
  /**
   * The turn budget of an episode: SPADE's loader builds a Python game with it (the game's own
   * max_turns, capped at it, or max_turns= it when the class needs one). Sandboxes that do not
   * build classes with arguments (JavaScript) ignore it.
   */
  maxTurns?: number;
}

/**
 * SPADE's own verdict on a program: what its `validate_game` decides, from a sandbox that runs
 * SPADE's loader (the Python sandboxes). The gate's `spade` reading.
 */
export interface SpadeValidation {
  accepted: boolean;
  /** What SPADE logs when it rejects the program (its exception's message). */
  message?: string;
  /** The reason code of a rejection, as the gate names it. */
  kind?: SandboxFailureKind | 'smoke-test' | 'reset-gate';
}

/** How SPADE's validation is run, besides its limits. */
export interface SpadeValidateOptions {
  /** Wall time of the whole validation, in ms (SPADE allows 60 s). Default: the call limit for each call it makes. */
  timeoutMs?: number;
  /**
   * SPADE's reset gate after its validation (its tool-use runs): games built with this turn
   * budget, reset at seeds 0, 1 and 2; rejected (kind `reset-gate`) when one of their success
   * criteria raises on the initial state at every seed. Default: no reset gate.
   */
  resetGateTurns?: number;
}

export interface Sandbox {
  readonly id: string;
  readonly languages: readonly Language[];
  /** Protections actually in force, in words (shown by `spade-bench list` and in reports). */
  readonly protections: readonly string[];
  /** True when the sandbox is NOT a security boundary (vm2). Reports say so. */
  readonly insecure?: boolean;
  /** Third-party Python packages its programs can import (numpy, networkx, sympy...); none when absent. */
  readonly packages?: readonly string[];
  load(program: EnvironmentProgram, limits?: Partial<SandboxLimits>, options?: LoadOptions): Promise<LoadedEnvironment>;
  /**
   * Optional: SPADE's own validation of the program (its loader and validate_game, replayed
   * exactly), in a fresh environment that is not kept. A failure of the sandbox's own (a
   * timeout, memory, an escape attempt) rejects with a SandboxError, as a call does. Without
   * it, the gate applies SPADE's checks through LoadedEnvironment (see core/gate/spade-reading.ts).
   */
  spadeValidate?(program: EnvironmentProgram, limits?: Partial<SandboxLimits>, options?: SpadeValidateOptions): Promise<SpadeValidation>;
  /**
   * Optional (Python sandboxes): SPADE's f-string brace repair of a designer's code, the last
   * step of its extraction (core/roles/code-extraction.ts): the code it gives. It only parses
   * the code (Python's own parser decides), never runs it.
   */
  spadeRepairBraces?(source: string, limits?: Partial<SandboxLimits>): Promise<string>;
  /** Release workers, isolates and interpreters. */
  close(): Promise<void>;
}
