/**
 * Reads the tagged string replies of the JavaScript dispatcher (BOOTSTRAP_SOURCE in
 * isolated-vm-bootstrap.ts, which documents the tags) into a raw value or a SandboxError.
 * Shared by the JavaScript sandboxes that run that dispatcher.
 */
import { SandboxError } from '../../core/errors.js';
import { toResetResult, toToolSchemas, toStepResult, toText } from '../../core/gate/contract.js';
import type { EnvironmentCapabilities, LoadedEnvironment, SandboxFailureKind, SandboxLimits } from '../../core/concepts/sandbox.js';
import type { FunctionToolSchema } from '../../core/concepts/tools.js';
import type { ResetResult, StepResult } from '../../core/concepts/environment.js';

/** A ReferenceError naming one of these means the program looked for the host. */
const HOST_GLOBALS = /^(process|require|module|exports|__dirname|__filename|global|Buffer|fetch|XMLHttpRequest|WebSocket|importScripts|Deno|Bun) is not defined/;

type ReplyLimits = Pick<SandboxLimits, 'maxOutputBytes'> & Partial<Pick<SandboxLimits, 'callTimeoutMs'>>;

/** The SandboxError of a reply that is not a plain result. */
export function replyFailure(reply: string, method: string, limits: ReplyLimits): SandboxError {
  const tag = reply[0];
  const body = reply.slice(1);
  const thrown = (): [string, string] => JSON.parse(body) as [string, string];
  switch (tag) {
    case 'E': {
      const [name, message] = thrown();
      const kind: SandboxFailureKind = name === 'ReferenceError' && HOST_GLOBALS.test(message)
        ? 'escape-attempt'
        : method === 'create' ? 'load' : 'crash';
      return new SandboxError(kind, `${name}: ${message}`, method === 'create' ? undefined : method);
    }
    case 'L':
      return new SandboxError('load', body);
    case 'M':
      return new SandboxError('missing-method', `the environment has no ${method}() method`, method);
    case 'P':
      return new SandboxError('contract', `${method}() returned a promise; environment methods must be synchronous`, method);
    case 'J': {
      const [name, message] = thrown();
      return new SandboxError('contract', `${method}() returned a value that is not JSON (${name}: ${message})`, method);
    }
    case 'O':
      return new SandboxError('output-limit', `${method}() returned ${body} characters, more than the limit of ${limits.maxOutputBytes} bytes`, method);
    case 'T':
      return new SandboxError('timeout', `${method}() ran longer than ${limits.callTimeoutMs} ms`, method);
    default:
      return new SandboxError('contract', `unexpected reply from the sandbox: ${reply.slice(0, 80)}`, method);
  }
}

/** The raw value of a reply: R<json>, U, or F<[json, index, text]> (a non-finite number put back). */
export function replyValue(reply: string): { ok: true; value: unknown } | { ok: false } {
  const tag = reply[0];
  if (tag === 'R') return { ok: true, value: JSON.parse(reply.slice(1)) };
  if (tag === 'U') return { ok: true, value: undefined };
  if (tag === 'F') {
    const [json, index, text] = JSON.parse(reply.slice(1)) as [string, number, string];
    const number = Number(text);
    if (index === -1) return { ok: true, value: number };
    const value = JSON.parse(json) as unknown[];
    value[index] = number;
    return { ok: true, value };
  }
  return { ok: false };
}

/** The raw value of a reply, or throws its SandboxError. */
export function readReply(reply: unknown, method: string, limits: ReplyLimits): unknown {
  if (typeof reply !== 'string') throw new SandboxError('contract', 'the sandbox returned no reply', method);
  const raw = replyValue(reply);
  if (!raw.ok) throw replyFailure(reply, method, limits);
  return raw.value;
}

/**
 * An environment behind the JavaScript dispatcher: SPADE's methods are one `call` each, whose
 * raw value the shared contract checks turn into results. A sandbox supplies `call` and `dispose`.
 */
export abstract class DispatchedEnvironment implements LoadedEnvironment {
  constructor(
    readonly capabilities: EnvironmentCapabilities,
    protected readonly limits: SandboxLimits,
  ) {}

  /** Call a method of the environment instance; returns its raw value (a host copy) or throws a SandboxError. */
  protected abstract call(method: string, argument?: string | number): unknown;

  /** The length of the JSON reply the last call's value was read from, when the sandbox says (the contract then measures less). */
  protected replyChars: number | undefined;

  abstract dispose(): Promise<void>;

  /** The raw value of a call, from the sandbox. */
  private answer(method: string, argument?: string | number): unknown {
    this.replyChars = undefined;
    return this.call(method, argument);
  }

  async reset(seed: number): Promise<ResetResult> {
    const raw = this.answer('reset', seed);
    return toResetResult(raw, this.limits, this.replyChars);
  }

  async step(action: string): Promise<StepResult> {
    const raw = this.answer('step', action);
    return toStepResult(raw, this.limits, this.replyChars);
  }

  async solution(): Promise<string> {
    return toText(this.answer('solution'), 'solution', this.limits);
  }

  async hint(): Promise<string> {
    return toText(this.answer('hint'), 'hint', this.limits);
  }

  async referenceAction(observation: string): Promise<string> {
    return toText(this.answer('referenceAction', observation), 'referenceAction', this.limits);
  }

  async getTools(): Promise<FunctionToolSchema[]> {
    return toToolSchemas(this.answer('getTools'), this.limits);
  }
}

/** The capabilities in the dispatcher's reply to `create`: [solution, hint, referenceAction, tools]. */
export function capabilitiesOf(flags: readonly unknown[]): EnvironmentCapabilities {
  const [solution, hint, referenceAction, tools] = flags;
  return { solution: !!solution, hint: !!hint, referenceAction: !!referenceAction, tools: !!tools };
}
