/**
 * The code the isolated-vm sandbox runs first in every fresh context. It fixes the clock,
 * seeds Math.random, silences console, removes shared memory and WebAssembly, defines SPADE's
 * ToolUseBaseEnv on the global object (tool-use programs extend it without an import), and
 * returns a maker of dispatchers. A dispatcher is the one function the host calls for one
 * environment: it keeps the environment instance and its Math.random state to itself (so
 * environments of spade-bench's own code can share a context, see isolated-vm.ts), and answers
 * with a tagged string, so nothing the program returns or throws ever reaches the host as a
 * live value:
 *   R<json>  the method's result, as JSON (create: [solution, hint, referenceAction, tools], which
 *            methods the instance has; `getTools` calls its get_tools(), else its getTools())
 *   F<json>  [json, index, text]: the result held a non-finite number at top level
 *            (index -1: the result itself), which JSON would turn into null
 *   E<json>  [name, message]: the program threw
 *   L<text>  the program defines no usable class (load)
 *   M        the method is absent
 *   P        the method returned a promise (methods must be synchronous)
 *   U        the method returned undefined or a function
 *   J<json>  [name, message]: the result could not be turned into JSON
 *   O<n>     the result's JSON is n characters long, too large to bring to the host
 * Everything here runs under the call's timeout, including reading a thrown value's message.
 */

import { TOOL_USE_BASE_ENV_SOURCE } from './tool-use-base-env.js';

/** What Date.now() and new Date() say inside the sandbox: 2025-01-01T00:00:00Z. */
export const FIXED_TIME_MS = Date.UTC(2025, 0, 1);

export const BOOTSTRAP_SOURCE = `(function () {
  'use strict';
  const G = globalThis;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const isArray = Array.isArray;
  const isFiniteNumber = Number.isFinite;
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const toText = String;
  const imul = Math.imul;
  const RealDate = Date;
  const FIXED_TIME = ${FIXED_TIME_MS};

  // mulberry32, as in core/run/random.ts; reseeded from reset(seed).
  let state = 0;
  const random = function random() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const seed = (value) => { state = (typeof value === 'number' ? value : 0) >>> 0; };
  Math.random = random;

  const FixedDate = function Date(...args) {
    if (new.target === undefined) return new RealDate(FIXED_TIME).toString();
    return construct(RealDate, args.length ? args : [FIXED_TIME], new.target);
  };
  Object.setPrototypeOf(FixedDate, RealDate);
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = function now() { return FIXED_TIME; };
  Object.defineProperty(RealDate.prototype, 'constructor', { value: FixedDate, writable: true, configurable: true });
  G.Date = FixedDate;

  const quiet = function () {};
  G.console = { log: quiet, info: quiet, warn: quiet, error: quiet, debug: quiet, trace: quiet, dir: quiet, table: quiet };
  delete G.SharedArrayBuffer;
  delete G.WebAssembly;
  if (typeof Atomics === 'object') { delete Atomics.wait; delete Atomics.waitAsync; }
${TOOL_USE_BASE_ENV_SOURCE}
  Object.defineProperty(G, 'ToolUseBaseEnv', { value: ToolUseBaseEnv, writable: true, configurable: true });

  const describe = (error) => {
    try {
      if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
        return stringify([toText(error.name), toText(error.message).slice(0, 2000)]);
      }
      return stringify(['thrown value', toText(error).slice(0, 2000)]);
    } catch {
      return '["thrown value","(could not be read)"]';
    }
  };

  return function newDispatcher() {
  let instance;
  // This environment's Math.random state, put in place for each of its calls.
  let own = 0;
  // data: the JSON array of the program's header values (see core/results/data-header.ts), or undefined.
  const create = (factory, data) => {
    const Environment = data === undefined ? factory() : factory(parse(data));
    if (typeof Environment !== 'function') return 'Lthe default export is not a class';
    seed(0);
    instance = construct(Environment, []);
    if (instance === null || typeof instance !== 'object') return 'Lthe constructor did not return an object';
    if (typeof instance.reset !== 'function') return 'Lthe environment class has no reset() method';
    if (typeof instance.step !== 'function') return 'Lthe environment class has no step() method';
    const has = (name) => typeof instance[name] === 'function';
    return 'R' + stringify([has('solution'), has('hint'), has('referenceAction'), has('get_tools') || has('getTools')]);
  };

  const run = (method, argument, maxChars, data) => {
    let value;
    try {
      if (method === 'create') return create(argument, data);
      const fn = method === 'getTools' ? (typeof instance.get_tools === 'function' ? instance.get_tools : instance.getTools) : instance[method];
      if (typeof fn !== 'function') return 'M';
      if (method === 'reset') seed(argument);
      value = apply(fn, instance, argument === undefined ? [] : [argument]);
    } catch (error) {
      return 'E' + describe(error);
    }
    try {
      if (value !== null && typeof value === 'object' && typeof value.then === 'function') return 'P';
      let bad = -2;
      if (typeof value === 'number' && !isFiniteNumber(value)) bad = -1;
      else if (isArray(value)) {
        const n = value.length < 8 ? value.length : 8;
        for (let i = 0; i < n; i++) {
          if (typeof value[i] === 'number' && !isFiniteNumber(value[i])) { bad = i; break; }
        }
      }
      const json = stringify(value);
      if (json === undefined) return 'U';
      if (json.length > maxChars) return 'O' + json.length;
      if (bad !== -2) return 'F' + stringify([json, bad, toText(bad === -1 ? value : value[bad])]);
      return 'R' + json;
    } catch (error) {
      return 'J' + describe(error);
    }
  };

  // The host passes a long string wrapped in an array (see isolated-vm.ts); nothing else it
  // passes is an array.
  return function dispatch(method, argument, maxChars, data) {
    if (isArray(argument)) argument = argument[0];
    if (isArray(data)) data = data[0];
    state = own;
    try {
      return run(method, argument, maxChars, data);
    } finally {
      own = state;
    }
  };
  };
})()`;
