/**
 * One LiveCodeBench problem as a single-turn Python environment program, run in the Python
 * sandbox (the cpython jail). reset() gives SPADE's prompt; step(reply) takes the code of the
 * reply's last python fence (SPADE's `\x60\x60\x60python\s*\n(.*?)\n\x60\x60\x60`, else the whole reply)
 * and grades it as LiveCodeBench's official runner (lcb_runner/evaluation/testing_util.py at
 * 28fef95) does, in spade-bench's own code:
 *
 *   - the tests are the public ones then the private ones; the private ones come as JSON or as
 *     base64 of zlib of a pickle of JSON, decoded here, inside the jail, never on the host;
 *   - a problem with `func_name` is call-based: the code runs after the runner's import lines,
 *     `Solution()` is made when the code has `class Solution`, each test's input lines are JSON
 *     arguments, a tuple result counts as a list, and the result must equal the JSON output;
 *   - any other is standard input/output: a last `if __name__ == '__main__':` block is unwrapped,
 *     the statements (imports apart) become one function, each test's input is what stdin,
 *     input() and open() read, and the printed text must equal the output line by line (both
 *     stripped; a line that differs may still be equal as Decimal numbers, split on spaces);
 *   - 6 seconds per test; the first failing test ends the grading with its code: -2 wrong answer
 *     (recorded as False for a call-based test, as the runner records it), -3 time limit exceeded,
 *     -4 runtime error (a compile error or an exception: -4 for the whole problem). The reward
 *     is 1 when every test passed.
 *
 * The time limit is kept by a tick at the top of every loop body and function (inserted in the
 * syntax tree, as HumanEval's program does): past 6 s a tick raises, and every later tick raises
 * again, so catching it does not help. The sandbox refuses the signals the runner's alarm uses;
 * the tick is an itertools iterator's __next__ (a C call) that reads the clock every 1024th
 * time, so the tightest loop runs at about half its speed and a loop doing real work loses less
 * (docs/suites.md gives the figures). A loop inside native code is stopped by the sandbox's
 * wall-time limit instead (the episode then errors, which LiveCodeBench's score counts as a
 * failure, as the runner's global timeout does). Output past 64 MiB in one test stops it as the
 * runner's alarm would: time limit exceeded.
 */
import type { EnvironmentProgram } from '../../core/concepts/environment.js';

export interface LiveCodeBenchProblem {
  questionId: string;
  /** The user message, exactly as sent (SPADE's prompt). */
  prompt: string;
  /** Public tests, as the release's JSON text. */
  publicTests: string;
  /** Private tests, as the release has them (JSON text, or base64 of zlib of a pickle). */
  privateTests: string;
  /** The method of a call-based problem (metadata's func_name), else null. */
  fnName: string | null;
  difficulty?: string;
  origin: string;
}

/** Seconds per test (the official runner's default, which SPADE's evaluation keeps). */
export const LCB_TEST_TIMEOUT_S = 6;

const PROGRAM = String.raw`
import ast as _ast
import base64 as _base64
import io as _io
import json as _json
import pickle as _pickle
import re as _re
import sys as _sys
import time as _time
import zlib as _zlib
from decimal import Decimal as _Decimal
from itertools import chain as _chain, repeat as _repeat, starmap as _starmap

_FENCE = _re.compile('\x60\x60\x60python\\s*\n(.*?)\n\x60\x60\x60', _re.S)
# The runner's import lines, put before every solution.
_IMPORTS = '\n'.join([
    'from string import *', 'from re import *', 'from datetime import *', 'from collections import *', 'from heapq import *',
    'from bisect import *', 'from copy import *', 'from math import *', 'from random import *', 'from statistics import *',
    'from itertools import *', 'from functools import *', 'from operator import *', 'from io import *', 'from sys import *',
    'from json import *', 'from builtins import *', 'from typing import *', 'import string', 'import re', 'import datetime',
    'import collections', 'import heapq', 'import bisect', 'import copy', 'import math', 'import random', 'import statistics',
    'import itertools', 'import functools', 'import operator', 'import io', 'import sys', 'import json', 'sys.setrecursionlimit(50000)',
]) + '\n'
_MAX_OUTPUT = 64 * 1024 * 1024
_WA, _TLE, _RE = -2, -3, -4


class _TimeUp(BaseException):
    pass


class _Clock:
    """The solution's clock. The tick inserted in its loops and functions is the __next__ of an
    iterator made of itertools' C parts, so a tick costs about a C call (a tick that is a Python
    function makes tight loops several times slower, failing solutions the runner's alarm lets
    finish).
    Every 1024th tick calls _check, which reads the time; past the deadline it raises, and from
    then on every tick raises (the namespace's tick is swapped for _expired)."""
    deadline = float('inf')
    namespace = {}

    @classmethod
    def _check(cls):
        if _time.perf_counter() > cls.deadline:
            cls.namespace['_lcb_tick'] = cls._expired
            raise _TimeUp()
        return _repeat(None, 1024)

    @staticmethod
    def _expired():
        raise _TimeUp()

    @classmethod
    def start(cls, namespace):
        cls.namespace = namespace
        cls.deadline = _time.perf_counter() + TIMEOUT
        namespace['_lcb_tick'] = _chain.from_iterable(_starmap(cls._check, _repeat(()))).__next__

    @classmethod
    def stop(cls):
        cls.deadline = float('inf')


class _AddTicks(_ast.NodeTransformer):
    def _tick(self, node):
        self.generic_visit(node)
        call = _ast.Expr(_ast.Call(_ast.Name('_lcb_tick', _ast.Load()), [], []))
        node.body = [call] + node.body
        return node

    visit_For = visit_AsyncFor = visit_While = visit_FunctionDef = visit_AsyncFunctionDef = _tick


def _compile(source):
    tree = _AddTicks().visit(_ast.parse(source))
    _ast.fix_missing_locations(tree)
    return compile(tree, '<solution>', 'exec')


def _code_of(reply):
    found = _FENCE.findall(str(reply))
    return found[-1] if found else str(reply)


def _tests():
    public = _json.loads(PUBLIC_TESTS)
    try:
        private = _json.loads(PRIVATE_TESTS)
    except ValueError:
        private = _json.loads(_pickle.loads(_zlib.decompress(_base64.b64decode(PRIVATE_TESTS.encode('utf-8')))))
    tests = public + private
    return [t['input'] for t in tests], [t['output'] for t in tests]


def _unwrap_main(code):
    try:
        tree = _ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, _ast.If) and _ast.unparse(last.test).strip() == "__name__ == '__main__'":
            return _ast.unparse(tree.body[:-1]) + '\n' + _ast.unparse(last.body)
    except Exception:
        pass
    return code


def _as_function(code):
    try:
        tree = _ast.parse(code)
        imports = [s for s in tree.body if isinstance(s, (_ast.Import, _ast.ImportFrom))]
        rest = [s for s in tree.body if not isinstance(s, (_ast.Import, _ast.ImportFrom))]
        function = _ast.FunctionDef(name='wrapped_function', args=_ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=rest, decorator_list=[], lineno=-1)
        return _IMPORTS + '\n' + _ast.unparse(imports) + '\n' + _ast.unparse(function)
    except Exception:
        return code


class _Stdin(_io.StringIO):
    """stdin of one test: read(), readline(), readlines() and .buffer, as the runner's mock gives them."""

    def __init__(self, text):
        super().__init__(text)
        self.text = text
        self.buffer = _io.BytesIO(text.encode('utf-8'))

    def read(self, *args):
        return self.text

    def readlines(self, *args):
        return self.text.split('\n')


class _Stdout(_io.TextIOBase):
    def __init__(self):
        self.parts = []
        self.size = 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        self.size += len(text)
        if self.size > _MAX_OUTPUT:
            raise _TimeUp()
        self.parts.append(text)
        return len(text)

    def flush(self):
        pass

    def value(self):
        return ''.join(self.parts)


def _namespace():
    own = dict(__builtins__ if isinstance(__builtins__, dict) else vars(__builtins__))
    return {'__name__': 'tmp_sol', '__builtins__': own}


def _lines(text):
    return [line.strip() for line in text.strip().split('\n')]


def _decimals(line):
    try:
        return [_Decimal(part) for part in line.split()]
    except Exception:
        return None


def _same_output(printed, expected):
    got, want = _lines(printed), _lines(expected)
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if a == b:
            continue
        da, db = _decimals(a), _decimals(b)
        if da is None or db is None or da != db:
            return False
    return True


def _load(source, stdin_text=''):
    """The solution's module namespace, run once (its top level counts against the first test's time)."""
    namespace = _namespace()
    saved = _sys.stdin
    _sys.stdin = _Stdin(stdin_text)
    try:
        _Clock.start(namespace)
        exec(_compile(source), namespace)
    finally:
        _Clock.stop()
        _sys.stdin = saved
    return namespace


def _call_based(code, inputs, outputs):
    source = _IMPORTS + '\n\n' + code
    namespace = _load(source)
    target = namespace['Solution']() if 'class Solution' in code else None
    method = getattr(target, FN_NAME) if target is not None else namespace.get(FN_NAME)
    if method is None:
        return [_RE], 'Runtime Error: no ' + FN_NAME
    results = []
    for raw_in, raw_out in zip(inputs, outputs):
        args = [_json.loads(line) for line in raw_in.split('\n')]
        expected = _json.loads(raw_out)
        try:
            _Clock.start(namespace)
            got = method(*args)
        except _TimeUp:
            return results + [_TLE], 'Time Limit Exceeded'
        except BaseException as error:
            return results + [_RE], 'Runtime Error: ' + type(error).__name__
        finally:
            _Clock.stop()
        if isinstance(got, tuple):
            got = list(got)
        if got != expected:
            # The runner records a call-based wrong answer as False (its code is -2).
            return results + [False], 'Wrong Answer'
        results.append(True)
    return results, 'Accepted'


def _standard_io(code, inputs, outputs):
    namespace = _load(_as_function(_unwrap_main(code)))
    method = namespace.get('wrapped_function')
    if method is None:
        return [_RE], 'Runtime Error'
    results = []
    for raw_in, raw_out in zip(inputs, outputs):
        text = '\n'.join(raw_in) if isinstance(raw_in, list) else raw_in
        stdin, stdout = _Stdin(text), _Stdout()
        lines = iter(text.split('\n'))
        # input(), open() and stdin read the test's input, whether the solution reaches them as
        # builtins or through the runner's star imports (names of the solution's module).
        # input() reads as under the runner, whose stdin.readline gives the input's lines without
        # their ends: an empty line is the end of the input (EOFError, as Python's input() says
        # of an empty read), and past the last line the iterator's StopIteration comes through.
        def reader(*prompt):
            line = next(lines)
            if line == '':
                raise EOFError('EOF when reading a line')
            return line

        opener = lambda *args, **kwargs: _io.StringIO(text)
        for scope in (namespace['__builtins__'], method.__globals__):
            scope['input'], scope['open'] = reader, opener
        method.__globals__['stdin'] = stdin
        saved = (_sys.stdin, _sys.stdout)
        _sys.stdin, _sys.stdout = stdin, stdout
        try:
            _Clock.start(namespace)
            method()
        except SystemExit:
            pass
        except _TimeUp:
            return results + [_TLE], 'Time Limit Exceeded'
        except BaseException as error:
            return results + [_RE], 'Runtime Error: ' + type(error).__name__
        finally:
            _Clock.stop()
            _sys.stdin, _sys.stdout = saved
        if not _same_output(stdout.value(), raw_out):
            return results + [_WA], 'Wrong Answer'
        results.append(True)
    return results, 'Accepted'


def _grade(reply):
    inputs, outputs = _tests()
    code = _code_of(reply)
    try:
        if FN_NAME is not None:
            return _call_based(code, inputs, outputs)
        return _standard_io(code, inputs, outputs)
    except _TimeUp:
        return [_TLE], 'Time Limit Exceeded'
    except BaseException as error:
        return [_RE], 'Error during testing: ' + type(error).__name__


class LiveCodeBenchEnv:
    def __init__(self):
        self.done = False

    def reset(self, seed=None):
        self.done = False
        return PROMPT, {'horizon': 1, 'question_id': QUESTION_ID}

    def step(self, action):
        if self.done:
            return 'The episode is over.', 0, True, False, {'over': True}
        self.done = True
        results, verdict = _grade(action)
        passed = len(results) > 0 and all(r is True for r in results)
        failed = next((r for r in results if r is not True), None)
        code = None if passed else (_WA if failed is False else failed)
        return verdict, 1 if passed else 0, True, False, {'passed': passed, 'results': results, 'error_code': code}
`;

/** The environment program of one problem. */
export function liveCodeBenchProgram(problem: LiveCodeBenchProblem): EnvironmentProgram {
  const literal = (value: unknown): string => JSON.stringify(value);
  const source = `QUESTION_ID = ${literal(problem.questionId)}
PROMPT = ${literal(problem.prompt)}
FN_NAME = ${problem.fnName === null ? 'None' : literal(problem.fnName)}
TIMEOUT = ${LCB_TEST_TIMEOUT_S}
PUBLIC_TESTS = ${literal(problem.publicTests)}
PRIVATE_TESTS = ${literal(problem.privateTests)}
${PROGRAM}`;
  return {
    id: `livecodebench/${problem.questionId}`,
    language: 'python',
    source,
    meta: {
      family: 'livecodebench',
      horizon: 1,
      origin: problem.origin,
      params: { questionId: problem.questionId, ...(problem.difficulty && { difficulty: problem.difficulty }), kind: problem.fnName === null ? 'stdin' : 'functional' },
      curated: true,
    },
  };
}
