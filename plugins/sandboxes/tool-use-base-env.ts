/**
 * SPADE's ToolUseBaseEnv for JavaScript environment programs, as plain ES2022 source that the
 * JavaScript sandboxes run before a program (isolated-vm-bootstrap.ts puts it on the global
 * object), so a program writes `class InventoryEnv extends ToolUseBaseEnv { ... }` with no import.
 *
 * The same semantics as SPADE's Python base (spade/core/envs/tool_use_base_env.py), with its
 * names, so a design written for one ports to the other:
 *   reset(seed)            the subclass's: sets this._tools (name -> { description, parameters }),
 *                          this._state and this._expected_answer; returns [observation, info];
 *   tool_<name>(args)      one method per simulated tool. JavaScript has no keyword arguments:
 *                          the arguments come as one object (`tool_get_stock({ item, warehouse })`);
 *   solution()             the subclass's: the tool calls and the answer, shown on truncation;
 *   get_tools()            this._tools as OpenAI function schemas;
 *   step(action)           `<answer>...</answer>` first: a correct answer is "Correct!", reward
 *                          1.0, terminated; a wrong one gets _incorrect_answer_feedback() (or,
 *                          on the last turn, the solution). Then `<tool_call>{"name", "arguments"}
 *                          </tool_call>`: the tool's result as "Tool result:\n...", reward 0; an
 *                          unknown tool lists the available ones; no tag, or a call that is not
 *                          a JSON object, is a format error with reward -0.1. The turn that
 *                          reaches max_turns (10 by default) truncates the episode and reveals
 *                          solution();
 *   _check_answer(answer)  case-insensitive equality with _expected_answer, or numbers within
 *                          0.01 once `$` and `,` are removed (Python's float() syntax);
 *   _incorrect_answer_feedback()  SPADE's multi-turn variant: when the subclass keeps
 *                          _user_messages and _current_msg, it names the step still pending.
 * For the multi-turn variant the base also has SPADE's _advance_if_done() helper: with
 * _user_messages, _message_criteria (state -> boolean) and _current_msg set in reset(), a tool
 * ends its result with `+ this._advance_if_done()` to reveal the next instruction.
 *
 * Where JavaScript differs, it follows Python: an argument the tool's schema does not declare
 * is Python's "unexpected keyword argument" error; a tool returning undefined or null reads
 * "None"; an object result is shown as JSON. Two things are added for the harness, which
 * plays several episodes on one loaded environment where SPADE builds a fresh one for each:
 * reset(seed) first zeroes turn_count and _call_history, as construction does, and adds
 * `max_turns` to the info it returns (unless the info gives a horizon), so the episode's
 * horizon is the environment's own. The constructor does not call reset() as Python's does: a
 * subclass's fields are set only after the base constructor returns.
 */
export const TOOL_USE_BASE_ENV_SOURCE = String.raw`
const ToolUseBaseEnv = (() => {
  const ANSWER = /<answer>([\s\S]*?)<\/answer>/;
  const TOOL_CALL = /<tool_call>([\s\S]*?)<\/tool_call>/;
  const FLOAT = /^[+-]?(?:(?:\d+(?:_\d+)*)(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/;
  const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;
  const own = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
  const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

  /** Python's str() of a scalar: None, True, False. */
  function pyStr(value) {
    if (value === null || value === undefined) return 'None';
    if (value === true) return 'True';
    if (value === false) return 'False';
    return String(value);
  }
  /** Python's float() of a text, or null when Python would raise ValueError. */
  function pyFloat(text) {
    const t = text.trim();
    const special = SPECIAL.exec(t);
    if (special) return special[2].toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
    return FLOAT.test(t) ? Number(t.replace(/_/g, '')) : null;
  }
  /** How a tool's return value reads in its result. */
  function resultText(value) {
    if (typeof value === 'string') return value;
    if (value === null || value === undefined || typeof value !== 'object') return pyStr(value);
    try { return JSON.stringify(value); } catch (error) { return String(value); }
  }
  function errorText(error) {
    try { return error !== null && typeof error === 'object' && 'message' in error ? String(error.message) : String(error); } catch (e) { return 'error'; }
  }

  class ToolUseBaseEnv {
    constructor(max_turns = 10) {
      this.max_turns = isPlainObject(max_turns) ? (max_turns.max_turns ?? 10) : max_turns;
      this.turn_count = 0;
      this._tools = {};
      this._state = {};
      this._call_history = [];
      this._expected_answer = null;
      const subclassReset = this.reset;
      if (typeof subclassReset === 'function' && subclassReset !== ToolUseBaseEnv.prototype.reset) {
        Object.defineProperty(this, 'reset', {
          configurable: true,
          writable: true,
          value: function reset(seed) {
            this.turn_count = 0;
            this._call_history = [];
            const result = subclassReset.call(this, seed);
            if (!Array.isArray(result) || result.length !== 2) return result;
            const info = result[1] === null || result[1] === undefined ? {} : result[1];
            if (!isPlainObject(info) || info.horizon !== undefined || info.max_turns !== undefined) return result;
            return [result[0], { ...info, max_turns: this.max_turns }];
          },
        });
      }
    }

    reset(seed) {
      throw new Error('Subclass must implement reset()');
    }

    solution() {
      throw new Error('Subclass must implement solution()');
    }

    get_tools() {
      const tools = [];
      for (const name of Object.keys(this._tools || {})) {
        const info = isPlainObject(this._tools[name]) ? this._tools[name] : {};
        tools.push({
          type: 'function',
          function: {
            name,
            description: info.description ?? '',
            parameters: info.parameters ?? { type: 'object', properties: {} },
          },
        });
      }
      return tools;
    }

    /** Run one tool outside step(): { output, returncode } with returncode 0 on success. */
    execute_tool(name, args) {
      const method = this['tool_' + name];
      if (typeof method !== 'function') return { output: "Unknown tool '" + name + "'", returncode: 1 };
      try {
        const output = resultText(method.call(this, isPlainObject(args) ? args : {}));
        this._call_history.push({ name, arguments: args, result: output });
        return { output, returncode: 0 };
      } catch (error) {
        return { output: 'Error calling ' + name + ': ' + errorText(error), returncode: 1 };
      }
    }

    step(action) {
      this.turn_count += 1;
      const truncated = this.turn_count >= this.max_turns;
      const text = typeof action === 'string' ? action : String(action);

      const answer = ANSWER.exec(text);
      if (answer) {
        if (this._check_answer(answer[1].trim())) return ['Correct!', 1.0, true, false, {}];
        if (truncated) return ['Wrong answer. Solution:\n' + this.solution(), 0.0, false, true, {}];
        return [this._incorrect_answer_feedback(), 0.0, false, false, {}];
      }

      const call = TOOL_CALL.exec(text);
      if (!call) {
        if (truncated) return ['Time up. Solution:\n' + this.solution(), 0.0, false, true, {}];
        return ['Format error: use tools to call a function, or <answer>result</answer> to submit.', -0.1, false, false, {}];
      }
      let name;
      let args;
      try {
        const parsed = JSON.parse(call[1]);
        if (!isPlainObject(parsed)) throw new TypeError('not an object');
        name = parsed.name === undefined || parsed.name === null ? '' : String(parsed.name);
        args = isPlainObject(parsed.arguments) ? parsed.arguments : {};
      } catch (error) {
        if (truncated) return ['Time up. Solution:\n' + this.solution(), 0.0, false, true, {}];
        return ['Format error: invalid tool call arguments.', -0.1, false, false, {}];
      }

      const method = this['tool_' + name];
      if (typeof method !== 'function') {
        if (truncated) return ['Time up. Solution:\n' + this.solution(), 0.0, false, true, {}];
        return ["Unknown tool '" + name + "'. Available: " + Object.keys(this._tools || {}).join(', '), 0.0, false, false, {}];
      }

      let result;
      const spec = this._tools && own(this._tools, name) && isPlainObject(this._tools[name]) ? this._tools[name].parameters : undefined;
      const declared = isPlainObject(spec) && isPlainObject(spec.properties) && spec.additionalProperties !== true ? spec.properties : null;
      const unexpected = declared ? Object.keys(args).find((key) => !own(declared, key)) : undefined;
      if (unexpected !== undefined) {
        result = 'Error calling ' + name + ': tool_' + name + "() got an unexpected keyword argument '" + unexpected + "'";
      } else {
        try {
          result = resultText(method.call(this, args));
          this._call_history.push({ name, arguments: args, result });
        } catch (error) {
          result = 'Error calling ' + name + ': ' + errorText(error);
        }
      }

      let observation = 'Tool result:\n' + result;
      if (truncated) {
        observation += '\n\nTime up. Solution:\n' + this.solution();
        return [observation, 0.0, false, true, {}];
      }
      return [observation, 0.0, false, false, {}];
    }

    /** Deprecated in SPADE (tools are passed natively now); kept for programs that still call it. */
    _obs_suffix() {
      return '';
    }

    _incorrect_answer_feedback() {
      const base = 'Incorrect. Keep using tools.';
      const messages = this._user_messages;
      const index = this._current_msg;
      if (Array.isArray(messages) && Number.isInteger(index) && index >= 0 && index < messages.length) {
        return base + ' Not all steps are complete \u2014 you are still on step ' + (index + 1) + '/' + messages.length + ': "' + messages[index]
          + '" Complete this step with the tools before submitting <answer>done</answer>.';
      }
      return base;
    }

    /** The multi-turn variant's progress: advance past the current instruction once its criterion holds. */
    _advance_if_done() {
      const messages = this._user_messages;
      const criteria = this._message_criteria;
      if (!Array.isArray(messages) || !Array.isArray(criteria) || !(this._current_msg < messages.length)) return '';
      if (!criteria[this._current_msg](this._state)) return '';
      this._current_msg += 1;
      if (this._current_msg >= messages.length) return '\n\n[ALL STEPS COMPLETE] Submit <answer>done</answer>.';
      return '\n\n[STEP ' + this._current_msg + ' COMPLETE \u2014 NEW INSTRUCTION] ' + messages[this._current_msg];
    }

    _check_answer(answer) {
      const a = pyStr(answer).trim();
      const e = pyStr(this._expected_answer).trim();
      if (a.toLowerCase() === e.toLowerCase()) return true;
      const x = pyFloat(a.split('$').join('').split(',').join(''));
      const y = pyFloat(e.split('$').join('').split(',').join(''));
      return x !== null && y !== null && Math.abs(x - y) < 0.01;
    }

    close() {}
  }
  return ToolUseBaseEnv;
})();
`;
