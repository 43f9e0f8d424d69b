"""
SPADE's base class for tool-use environments, as both Python sandboxes provide it: the loader
puts `ToolUseBaseEnv` in every program's globals and makes `import tool_use_base_env` give it,
as SPADE's loader does, so SPADE's tool-use games load unchanged. Each environment gets its own
copy of this module (a program that patches the class changes only itself).

Written for spade-bench from the behaviour of SPADE's class (spade/core/envs/tool_use_base_env.py
at 9b2b813), not copied from it:
  - the agent calls a simulated tool with `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`
    and submits with `<answer>...</answer>`; an answer tag wins over a tool call in the same reply;
  - a subclass writes reset() (setting self._tools, self._state and self._expected_answer),
    solution() (the tool calls and the answer that win) and one `tool_<name>(**arguments)`
    method per tool;
  - a right answer ends the episode with reward 1; a wrong one gives 0 and the episode goes on;
    a reply with neither tag, or a tool call that is not JSON, costs 0.1; an unknown tool gives 0;
  - the turn that reaches max_turns is truncated, and its observation shows solution();
  - answers are compared without case, or as numbers (ignoring `$` and `,`) within 0.01.
"""
import json as _json
import re as _re

_ANSWER = _re.compile(r'<answer>(.*?)</answer>', _re.DOTALL)
_TOOL_CALL = _re.compile(r'<tool_call>(.*?)</tool_call>', _re.DOTALL)


class ToolUseBaseEnv:
    """A tool-use environment: tools are `tool_<name>` methods, described in self._tools."""

    def __init__(self, max_turns=10, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._tools = {}
        self._state = {}
        self._call_history = []
        self._expected_answer = None
        self.reset()

    def reset(self, seed=None):
        raise NotImplementedError('a tool-use environment must define reset()')

    def solution(self):
        raise NotImplementedError('a tool-use environment must define solution()')

    def get_tools(self):
        """The tools in OpenAI's function-calling form, from self._tools."""
        described = []
        for name, spec in self._tools.items():
            described.append({
                'type': 'function',
                'function': {
                    'name': name,
                    'description': spec.get('description', ''),
                    'parameters': spec.get('parameters', {'type': 'object', 'properties': {}}),
                },
            })
        return described

    def execute_tool(self, name, arguments):
        """Run one tool call already parsed by the caller: {"output": text, "returncode": 0 or 1}."""
        tool = getattr(self, f'tool_{name}', None)
        if tool is None:
            return {'output': f"Unknown tool '{name}'", 'returncode': 1}
        try:
            output = str(tool(**arguments))
        except Exception as error:
            return {'output': f'Error calling {name}: {error}', 'returncode': 1}
        self._call_history.append({'name': name, 'arguments': arguments, 'result': output})
        return {'output': output, 'returncode': 0}

    def _time_up(self, prefix='Time up.'):
        return f'{prefix} Solution:\n{self.solution()}'

    def step(self, action):
        self.turn_count += 1
        last_turn = self.turn_count >= self.max_turns

        answered = _ANSWER.search(action)
        if answered:
            if self._check_answer(answered.group(1).strip()):
                return 'Correct!', 1.0, True, False, {}
            if last_turn:
                return self._time_up('Wrong answer.'), 0.0, False, True, {}
            return self._incorrect_answer_feedback(), 0.0, False, False, {}

        called = _TOOL_CALL.search(action)
        if not called:
            if last_turn:
                return self._time_up(), 0.0, False, True, {}
            return ('Format error: call a tool with <tool_call>{"name": ..., "arguments": {...}}</tool_call>, '
                    'or submit with <answer>result</answer>.'), -0.1, False, False, {}

        try:
            request = _json.loads(called.group(1))
            name = request.get('name', '')
            arguments = request.get('arguments', {})
            if not isinstance(arguments, dict):
                arguments = {}
        except (ValueError, AttributeError):
            if last_turn:
                return self._time_up(), 0.0, False, True, {}
            return 'Format error: the tool call is not valid JSON with a name and arguments.', -0.1, False, False, {}

        tool = getattr(self, f'tool_{name}', None)
        if tool is None:
            if last_turn:
                return self._time_up(), 0.0, False, True, {}
            return f"Unknown tool '{name}'. Available: {', '.join(self._tools)}", 0.0, False, False, {}

        try:
            result = tool(**arguments)
            self._call_history.append({'name': name, 'arguments': arguments, 'result': str(result)})
        except Exception as error:
            result = f'Error calling {name}: {error}'
        observation = f'Tool result:\n{result}'
        if last_turn:
            return f'{observation}\n\n{self._time_up()}', 0.0, False, True, {}
        return observation, 0.0, False, False, {}

    def _obs_suffix(self):
        """Kept for games written when tool descriptions were put in observations: now empty."""
        return ''

    def _incorrect_answer_feedback(self):
        """A wrong answer's feedback; a multi-step game (with _user_messages and _current_msg)
        is told which step is still open."""
        steps = getattr(self, '_user_messages', None)
        current = getattr(self, '_current_msg', None)
        if isinstance(steps, (list, tuple)) and isinstance(current, int) and 0 <= current < len(steps):
            return (f'Incorrect. Keep using tools. Not every step is done: you are on step {current + 1}/{len(steps)}: '
                    f'"{steps[current]}" Finish it with the tools before you submit <answer>done</answer>.')
        return 'Incorrect. Keep using tools.'

    def _check_answer(self, answer):
        given = str(answer).strip()
        expected = str(self._expected_answer).strip()
        if given.lower() == expected.lower():
            return True
        try:
            as_number = lambda text: float(text.replace('$', '').replace(',', '').strip())
            return abs(as_number(given) - as_number(expected)) < 0.01
        except (ValueError, TypeError):
            return False

    def close(self):
        pass
