/**
 * SPADE's interface contract, shared by every sandbox: turns the raw values a program's
 * methods returned (already copied to the host) into ResetResult / StepResult / text, or
 * throws SandboxError('contract' | 'output-limit').
 *
 * The JavaScript form mirrors the Python one with arrays for tuples:
 *   reset(seed)   -> [observation, info], or the observation alone (SPADE's loader reads a bare
 *                    string as (observation, {}))
 *   step(action)  -> [observation, reward, terminated, truncated, info]
 * - observation: a string, and only a string (SPADE observations are text; a number or an
 *   object is a contract break, not something to stringify silently);
 * - reward: a finite number (NaN and ±Infinity break the contract);
 * - terminated, truncated: booleans;
 * - info: a plain object; null or undefined stand for {}.
 * solution(), hint() and referenceAction() return text; a finite number is accepted there and
 * written in decimal, since it is an answer the agent types as text anyway. solution() may also
 * return a list of actions (an interactive game's winning moves): one action per line, each
 * boxed unless it already holds a \boxed{} or a tool call. A tool-use environment's get_tools()
 * returns OpenAI function schemas (toToolSchemas).
 * Sizes are the UTF-8 bytes of the observation / text, and of the JSON of info.
 */
import { SandboxError } from '../errors.js';
import type { FunctionToolSchema, Info, ResetResult, SandboxLimits, StepResult } from '../types.js';

type OutputLimits = Pick<SandboxLimits, 'maxOutputBytes'>;

/** A short, safe description of a value for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  if (typeof value === 'number') return `the number ${String(value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value === 'undefined' ? '' : 'a '}${typeof value}${typeof value === 'boolean' ? ` (${String(value)})` : ''}`;
}

function checkSize(bytes: number, what: string, method: string, limits: OutputLimits): void {
  if (bytes > limits.maxOutputBytes) {
    throw new SandboxError('output-limit', `${what} is ${bytes} bytes, more than the limit of ${limits.maxOutputBytes}`, method);
  }
}

/** Byte size of a string in UTF-8; skips the exact count when it cannot matter. */
function utf8Bytes(text: string, limit: number): number {
  return text.length * 3 <= limit ? text.length : Buffer.byteLength(text, 'utf8');
}

function observationOf(value: unknown, method: string, limits: OutputLimits): string {
  if (typeof value !== 'string') {
    throw new SandboxError('contract', `${method}() must return a string observation, got ${describeValue(value)}`, method);
  }
  checkSize(utf8Bytes(value, limits.maxOutputBytes), 'the observation', method, limits);
  return value;
}

/**
 * `jsonChars`: the length of the JSON text the raw value was read from, when known. No part of
 * the value is longer as JSON, nor more than 3 bytes per character in UTF-8, so when that fits
 * the limit the info is not turned into JSON again to be measured (it is JSON already).
 */
function infoOf(value: unknown, method: string, limits: OutputLimits, jsonChars?: number): Info {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new SandboxError('contract', `${method}() must return info as a plain object, got ${describeValue(value)}`, method);
  }
  if (jsonChars !== undefined && jsonChars * 3 <= limits.maxOutputBytes) return value as Info;
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new SandboxError('contract', `${method}() returned info that is not JSON: ${(error as Error).message}`, method);
  }
  checkSize(utf8Bytes(json, limits.maxOutputBytes), 'info', method, limits);
  return value as Info;
}

function tupleOf(raw: unknown, length: number, shape: string, method: string): unknown[] {
  if (!Array.isArray(raw) || raw.length !== length) {
    throw new SandboxError('contract', `${method}() must return ${shape}, got ${describeValue(raw)}`, method);
  }
  return raw;
}

/** `jsonChars`: the length of the JSON text `raw` was read from, when known (see infoOf). */
export function toResetResult(raw: unknown, limits: OutputLimits, jsonChars?: number): ResetResult {
  if (typeof raw === 'string') return { observation: observationOf(raw, 'reset', limits), info: {} };
  const [observation, info] = tupleOf(raw, 2, '[observation, info]', 'reset');
  return { observation: observationOf(observation, 'reset', limits), info: infoOf(info, 'reset', limits, jsonChars) };
}

/** `jsonChars`: the length of the JSON text `raw` was read from, when known (see infoOf). */
export function toStepResult(raw: unknown, limits: OutputLimits, jsonChars?: number): StepResult {
  const [observation, reward, terminated, truncated, info] = tupleOf(
    raw,
    5,
    '[observation, reward, terminated, truncated, info]',
    'step',
  );
  if (typeof reward !== 'number' || !Number.isFinite(reward)) {
    throw new SandboxError('contract', `step() must return a finite number as reward, got ${describeValue(reward)}`, 'step');
  }
  if (typeof terminated !== 'boolean' || typeof truncated !== 'boolean') {
    const bad = typeof terminated !== 'boolean' ? ['terminated', terminated] : ['truncated', truncated];
    throw new SandboxError('contract', `step() must return a boolean as ${bad[0] as string}, got ${describeValue(bad[1])}`, 'step');
  }
  return {
    observation: observationOf(observation, 'step', limits),
    reward,
    terminated,
    truncated,
    info: infoOf(info, 'step', limits, jsonChars),
  };
}

/** An action of a solution() list, as one line: boxed unless it is already an action. */
function actionLine(action: string): string {
  const line = action.trim().replace(/\s*\n\s*/g, ' ');
  return /\\boxed\{|<tool_call>|<answer>/.test(line) ? line : `\\boxed{${line}}`;
}

/** The text returned by solution(), hint() or referenceAction(). */
export function toText(raw: unknown, method: string, limits: OutputLimits): string {
  let text: string;
  if (typeof raw === 'string') text = raw;
  else if (typeof raw === 'number' && Number.isFinite(raw)) text = String(raw);
  else if (method === 'solution' && Array.isArray(raw) && raw.length > 0 && raw.every((a) => typeof a === 'string' || (typeof a === 'number' && Number.isFinite(a)))) {
    text = raw.map((a) => actionLine(String(a))).join('\n');
  } else throw new SandboxError('contract', `${method}() must return a string${method === 'solution' ? ' or a list of actions' : ''}, got ${describeValue(raw)}`, method);
  checkSize(utf8Bytes(text, limits.maxOutputBytes), `the text of ${method}()`, method, limits);
  return text;
}

/** Tool names both OpenAI and Anthropic accept. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The tools returned by getTools() (SPADE's get_tools()): an array of OpenAI function schemas
 * `{ type: 'function', function: { name, description, parameters } }` with unique names that
 * both vendors accept. A missing description is '' and missing parameters an empty object
 * schema, as SPADE's own get_tools() fills them in; anything else malformed breaks the contract.
 */
export function toToolSchemas(raw: unknown, limits: OutputLimits): FunctionToolSchema[] {
  const method = 'get_tools';
  if (!Array.isArray(raw)) throw new SandboxError('contract', `${method}() must return an array of tool schemas, got ${describeValue(raw)}`, method);
  const seen = new Set<string>();
  const tools = raw.map((entry, i): FunctionToolSchema => {
    const where = `${method}()[${i}]`;
    const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
    if (!isObject(entry) || entry.type !== 'function' || !isObject(entry.function)) {
      throw new SandboxError('contract', `${where} must be {type: "function", function: {...}}, got ${describeValue(entry)}`, method);
    }
    const { name, description, parameters } = entry.function;
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      throw new SandboxError('contract', `${where}: the tool name must be 1-64 letters, digits, _ or -, got ${describeValue(name)}`, method);
    }
    if (seen.has(name)) throw new SandboxError('contract', `${where}: the tool "${name}" is declared twice`, method);
    seen.add(name);
    if (description !== undefined && description !== null && typeof description !== 'string') {
      throw new SandboxError('contract', `${where}: the description of "${name}" must be a string, got ${describeValue(description)}`, method);
    }
    const schema = parameters === undefined || parameters === null ? { type: 'object', properties: {} } : parameters;
    if (!isObject(schema) || (schema.type !== undefined && schema.type !== 'object')) {
      throw new SandboxError('contract', `${where}: the parameters of "${name}" must be a JSON Schema of type "object", got ${describeValue(parameters)}`, method);
    }
    return { type: 'function', function: { name, description: description ?? '', parameters: { type: 'object', ...schema } } };
  });
  checkSize(utf8Bytes(JSON.stringify(tools), limits.maxOutputBytes), 'the tool schemas', method, limits);
  return tools;
}
