/**
 * One HumanEval problem as a single-answer Python environment program (run by the Python
 * sandbox, cpython or pyodide). reset() shows the prompt; step(reply) reduces the reply to code — the whole reply
 * in \boxed{...}, else the last fenced block (preferring one that defines the entry point),
 * else the reply itself — completes a bare function body with the prompt, and runs the
 * problem's check(candidate) on it: reward 1 when every assertion holds, else 0.
 *
 * Guards on the agent's code: it runs with its own copy of the builtins (print silenced, so it
 * cannot poison later episodes), and every loop iteration and function call of it spends one
 * tick of a fixed budget (inserted by rewriting its syntax tree; for-loops over range() are
 * left out, being finite and hot), so an endless Python loop loses instead of hanging. Loops
 * in native code or over a huge range (`sum(range(10**12))`) are stopped by the sandbox's
 * wall-time limit instead, which makes that episode `errored`.
 * solution() is the prompt plus the canonical solution; the empty reply (the prompt's bare
 * docstring body) must lose, and the gate's wrong answers cover that. step() is a pure
 * function of (seed, reply), so a repeated reply reuses its recent result.
 */
import type { EnvironmentProgram } from '../core/concepts/environment.js';

export interface HumanEvalProblem {
  task_id: string;
  prompt: string;
  canonical_solution: string;
  test: string;
  entry_point: string;
}

/** Loop iterations plus function calls the agent's code may spend in one step. */
export const TICK_BUDGET = 2_000_000;

const INSTRUCTIONS =
  'Complete the Python function below. Reply with the complete function, including its signature and any imports it needs, ' +
  'in a ```python code block (a bare function body is also accepted). It is run against hidden tests.';

const PROGRAM = String.raw`
import ast as _ast
import re as _re
import textwrap as _textwrap

FENCE = '\x60' * 3
_FENCED = _re.compile(FENCE + r'[^\n\x60]*\n(.*?)' + FENCE, _re.S)
_DEFINES_ENTRY = _re.compile(r'^def\s+' + _re.escape(ENTRY_POINT) + r'\s*\(', _re.M)
TEST_CODE = compile(TEST, '<tests>', 'exec')


def _is_range(node):
    return isinstance(node, _ast.Call) and isinstance(node.func, _ast.Name) and node.func.id == 'range'


class _AddTicks(_ast.NodeTransformer):
    """Puts a tick at the top of every while-loop, function and for-loop body, except for-loops
    over range(...), which end by themselves (and are the hot loops of most solutions)."""

    def _tick(self, node):
        self.generic_visit(node)
        call = _ast.Expr(_ast.Call(_ast.Name('_spade_tick', _ast.Load()), [], []))
        node.body = [call] + node.body
        return node

    visit_AsyncFor = visit_While = visit_FunctionDef = visit_AsyncFunctionDef = _tick

    def visit_For(self, node):
        return self.generic_visit(node) if _is_range(node.iter) else self._tick(node)


_OVER_BUDGET = 'Your code ran past its step budget (an endless loop?).'


def _code_of(reply):
    text = str(reply)
    stripped = text.strip()
    if stripped.startswith('\\boxed{') and stripped.endswith('}'):
        text = stripped[len('\\boxed{'):-1]
    blocks = _FENCED.findall(text)
    if blocks:
        defines = [b for b in blocks if _DEFINES_ENTRY.search(b)]
        return (defines or blocks)[-1]
    return text


def _compiled(program):
    """The program with its ticks, compiled; raises SyntaxError and friends."""
    tree = _AddTicks().visit(_ast.parse(program, '<answer>'))
    _ast.fix_missing_locations(tree)
    return compile(tree, '<answer>', 'exec')


def _compile_answer(code):
    """The prompt completed by the code, compiled: a whole function is appended after the prompt;
    a body is indented under it (or, failing that, read as an upstream-style completion whose
    first line lost its indentation)."""
    if _DEFINES_ENTRY.search(code):
        return _compiled(PROMPT + '\n' + code + '\n')
    text = code.strip('\n')
    if not text.strip():
        return _compiled(PROMPT)
    try:
        return _compiled(PROMPT + _textwrap.indent(_textwrap.dedent(text), '    ') + '\n')
    except SyntaxError:
        return _compiled(PROMPT + '    ' + text + '\n')


def _run(reply):
    """(passed, what happened) for one reply."""
    try:
        code = _compile_answer(_code_of(reply))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return False, 'Your code does not parse: ' + type(error).__name__ + ': ' + str(error)[:300]
    own_builtins = dict(__builtins__ if isinstance(__builtins__, dict) else vars(__builtins__))
    own_builtins['print'] = lambda *args, **kwargs: None
    budget = iter(range(TICK_BUDGET))
    # A tick is one C-level call: StopIteration once the budget is spent (checked below, so
    # catching it does not help: every later tick raises again).
    namespace = {'__name__': '__answer__', '__builtins__': own_builtins, '_spade_tick': budget.__next__}
    try:
        exec(code, namespace)
        candidate = namespace.get(ENTRY_POINT)
        if not callable(candidate):
            return False, 'Your code does not define the function ' + ENTRY_POINT + '().'
        exec(TEST_CODE, namespace)
        namespace['check'](candidate)
    except (Exception, SystemExit) as error:
        if budget.__length_hint__() == 0:
            return False, _OVER_BUDGET
        if isinstance(error, AssertionError):
            return False, 'Your function failed a test.'
        return False, 'Your code raised ' + type(error).__name__ + ': ' + str(error)[:300]
    if budget.__length_hint__() == 0:
        return False, _OVER_BUDGET
    return True, 'All tests passed.'


class HumanEvalTaskEnv:
    """step() is a pure function of (seed, reply): the tests' own randomness is seeded by reset().
    So recent results are remembered, and a repeated reply (the gate's smoke test and random
    play, the reference played twice) is not run again."""

    def __init__(self):
        self.done = False
        self.seed = None
        self.results = {}

    def reset(self, seed=None):
        self.done = False
        self.seed = seed
        return INSTRUCTIONS + '\n\n' + FENCE + 'python\n' + PROMPT + FENCE, {'horizon': 1, 'task_id': TASK_ID}

    def step(self, action):
        if self.done:
            return 'The episode is over.', 0, True, False, {'over': True}
        self.done = True
        key = (self.seed, str(action))
        if key not in self.results:
            if len(self.results) >= 16:
                self.results.pop(next(iter(self.results)))
            self.results[key] = _run(action)
        passed, what = self.results[key]
        return what, 1 if passed else 0, True, False, {'passed': passed}

    def solution(self):
        return PROMPT + CANONICAL

    def hint(self):
        return HINT
`;

/** The environment program for one HumanEval problem. */
export function humanEvalProgram(problem: HumanEvalProblem): EnvironmentProgram {
  const literal = (value: string): string => JSON.stringify(value);
  const firstLine = problem.canonical_solution.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  const source = `TASK_ID = ${literal(problem.task_id)}
PROMPT = ${literal(problem.prompt)}
CANONICAL = ${literal(problem.canonical_solution)}
ENTRY_POINT = ${literal(problem.entry_point)}
INSTRUCTIONS = ${literal(INSTRUCTIONS)}
HINT = ${literal(`The reference solution starts with: ${firstLine}`)}
TICK_BUDGET = ${TICK_BUDGET}
TEST = ${literal(problem.test)}
${PROGRAM}`;
  return {
    id: problem.task_id,
    language: 'python',
    source,
    meta: {
      family: 'humaneval',
      horizon: 1,
      origin: `humaneval/HumanEval.jsonl.gz#${problem.task_id}`,
      params: { entryPoint: problem.entry_point },
      curated: true,
    },
  };
}
