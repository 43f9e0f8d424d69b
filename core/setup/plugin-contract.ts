/**
 * The contract of the plugins a run loads, checked where their answers enter the harness: what
 * create() makes, what a provider's chat() and a suite's tasks() return. A plugin that breaks it
 * gets a PluginContractError naming the plugin, the method and the field (exit 2), rather than a
 * failure far away (a report that cannot be drawn, a loss scored for a reply that never was).
 */
import { PluginContractError, UsageError } from '../errors.js';
import type { ChatResponse, Provider, Suite, SuiteTask } from '../types.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? `a string (${JSON.stringify(v.slice(0, 40))})` : typeof v);

/** A member of the plugin's own object, its methods bound to it (they may use private fields). */
function ownMember(target: object, name: string | symbol): unknown {
  const value = Reflect.get(target, name, target);
  return typeof value === 'function' ? value.bind(target) : value;
}

/**
 * What a plugin's method gives, or, when it throws, a UsageError naming the plugin, the method, the
 * error and where it was thrown (exit 2: the plugin is to be fixed), rather than a stack trace
 * out of the harness. A UsageError of its own (a malformed dataset, a missing file) passes as it is.
 */
export async function fromPlugin<T>(plugin: string, method: string, call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const e = error instanceof Error ? error : new Error(String(error));
    // The first frame's place (file:line:column), without the function's name around it.
    const frame = /^\s+at (.*)$/m.exec(e.stack ?? '')?.[1];
    const at = frame && (/\(([^()]+)\)$/.exec(frame)?.[1] ?? frame);
    throw new UsageError(`plugin "${plugin}": ${method} threw ${e.name}: ${e.message}${at ? ` (at ${at})` : ''}`);
  }
}

/** The provider a provider plugin's create() made, its chat() answers checked. */
export function checkedProvider(plugin: string, provider: unknown): Provider {
  if (!isObject(provider)) throw new PluginContractError(plugin, 'create()', '', `must return a provider object, got ${describe(provider)}`);
  if (typeof provider.id !== 'string' || provider.id === '') throw new PluginContractError(plugin, 'create()', 'id', `must be a non-empty string, got ${describe(provider.id)}`);
  if (typeof provider.chat !== 'function') throw new PluginContractError(plugin, 'create()', 'chat', `must be a function, got ${describe(provider.chat)}`);
  const p = provider as unknown as Provider;
  const chat = p.chat.bind(p);
  // The provider's own object keeps its other members (stats, limits, close), read through.
  return new Proxy(p, {
    get(target, name) {
      if (name === 'chat') return async (...args: Parameters<Provider['chat']>) => checkChatResponse(plugin, await chat(...args));
      return ownMember(target, name);
    },
  });
}

function checkChatResponse(plugin: string, response: unknown): ChatResponse {
  const method = 'chat()';
  if (!isObject(response)) throw new PluginContractError(plugin, method, '', `must resolve to { text, usage? }, got ${describe(response)}`);
  if (typeof response.text !== 'string') throw new PluginContractError(plugin, method, 'text', `must be a string (the model's reply), got ${describe(response.text)}`);
  if (response.usage !== undefined) {
    if (!isObject(response.usage)) throw new PluginContractError(plugin, method, 'usage', `must be { inputTokens, outputTokens }, got ${describe(response.usage)}`);
    for (const field of ['inputTokens', 'outputTokens'] as const) {
      const n = response.usage[field];
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw new PluginContractError(plugin, method, `usage.${field}`, `must be a number of tokens, got ${describe(n)}`);
    }
  }
  if (response.toolCalls !== undefined && !Array.isArray(response.toolCalls)) throw new PluginContractError(plugin, method, 'toolCalls', `must be a list, got ${describe(response.toolCalls)}`);
  // Usage is optional for a plugin: a reply without it counted no tokens.
  if (response.usage === undefined) return { ...response, usage: { inputTokens: 0, outputTokens: 0 } } as unknown as ChatResponse;
  return response as unknown as ChatResponse;
}

/** The suite a suite plugin's create() made, its tasks() checked. */
export function checkedSuite(plugin: string, suite: unknown): Suite {
  if (!isObject(suite)) throw new PluginContractError(plugin, 'create()', '', `must return a suite object, got ${describe(suite)}`);
  if (typeof suite.id !== 'string' || suite.id === '') throw new PluginContractError(plugin, 'create()', 'id', `must be a non-empty string, got ${describe(suite.id)}`);
  if (suite.curriculum === undefined && typeof suite.tasks !== 'function') throw new PluginContractError(plugin, 'create()', 'tasks', `must be a function, got ${describe(suite.tasks)}`);
  const s = suite as unknown as Suite;
  const tasks = s.tasks?.bind(s);
  return new Proxy(s, {
    get(target, name) {
      if (name === 'tasks' && tasks) return async (...args: Parameters<Suite['tasks']>) => checkTasks(plugin, await fromPlugin(plugin, 'tasks()', () => tasks(...args)));
      return ownMember(target, name);
    },
  });
}

function checkTasks(plugin: string, tasks: unknown): SuiteTask[] {
  const method = 'tasks()';
  if (!Array.isArray(tasks)) throw new PluginContractError(plugin, method, '', `must resolve to a list of { program, seed }, got ${describe(tasks)}`);
  tasks.forEach((task: unknown, i) => {
    const at = `[${i}]`;
    if (!isObject(task)) throw new PluginContractError(plugin, method, at, `must be { program, seed }, got ${describe(task)}`);
    if (typeof task.seed !== 'number' || !Number.isInteger(task.seed)) throw new PluginContractError(plugin, method, `${at}.seed`, `must be an integer, got ${describe(task.seed)}`);
    const program = task.program;
    if (!isObject(program)) throw new PluginContractError(plugin, method, `${at}.program`, `must be { id, language, source }, got ${describe(program)}`);
    if (typeof program.id !== 'string' || program.id === '') throw new PluginContractError(plugin, method, `${at}.program.id`, `must be a non-empty string, got ${describe(program.id)}`);
    if (program.language !== 'javascript' && program.language !== 'python') throw new PluginContractError(plugin, method, `${at}.program.language`, `must be "javascript" or "python", got ${describe(program.language)}`);
    // A program may make its source when read (a dataset's task): a getter is left unread.
    const own = Object.getOwnPropertyDescriptor(program, 'source');
    if (!('source' in program) || (own && !own.get && typeof own.value !== 'string')) throw new PluginContractError(plugin, method, `${at}.program.source`, `must be a string, got ${describe(program.source)}`);
  });
  return tasks as SuiteTask[];
}
