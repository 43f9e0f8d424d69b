"""
How both Python sandboxes load and run environment programs: the `pyodide` sandbox (Python in
WebAssembly) and the `cpython` sandbox (Debian's CPython in a bubblewrap jail) run this same
file, so a program loads, is seeded, sees the same injected names and is judged the same way in
either. It is executed once per interpreter, in its own namespace, before any environment, with
SPADE_RUNTIME set to 'pyodide' or 'cpython' in that namespace.

It loads SPADE-format environment programs unchanged (a class with reset(seed) and step(action),
optional solution(), hint(), reference_action(obs)) the way SPADE's own loader does
(spade/core/envs/synthetic_game_env.py at 9b2b813), and calls their methods for the host:
  - the program runs with exactly the names SPADE injects (INJECTED, numpy as np and numpy
    where the sandbox has it) and SPADE's ToolUseBaseEnv, also importable as tool_use_base_env;
  - the game class is the first name, in the program's order, ending in `Env` (SPADE's base
    names `Env` and `ToolUseBaseEnv` excepted);
  - it is built with the turn budget the host gives, as SPADE builds a game it plays: its own
    max_turns capped at the budget, or max_turns= the budget when its constructor needs one;
  - a game with get_tools() is a tool-use game, as SPADE plays one: the host reads its tools after
    reset(); a ToolUseBaseEnv game starts every episode as a fresh instance would (turn_count and
    _call_history zeroed) and its reset() info gains max_turns, its horizon (unless it gives one);
  - spade_validate() replays SPADE's validate_game step by step: the gate's `spade` reading.

What differs between the two sandboxes is kept to the RUNTIME section below, and is only this:
  - third-party packages: the cpython sandbox has numpy, networkx and sympy, and injects numpy
    as `np` and `numpy` into every program's globals, as SPADE does; Pyodide has no third-party
    package offline, so a program that imports one of them, or uses `np`/`numpy` without
    importing it, is refused at load with a reason that names the package and the sandbox
    that has it;
  - the message that says how to get a missing package.

Isolation between environments in the same interpreter (the pyodide sandbox holds several in
one; the cpython sandbox gives each environment a process of its own, forked from a zygote that
made its environment ahead with prepare_process_environment(), so nothing below is needed there
to keep environments apart, only to give each the same view as in pyodide):
  - each program runs in a fresh globals dict with its own copy of the builtins (also what
    `import builtins` gives it), its own
    `random` module (seeded from reset(seed)), its own `time` module (time() is fixed) and its
    own `datetime` module (now(), today() and utcnow() give that fixed moment, in UTC);
  - when another environment's turn comes, the real builtins module and the shared stdlib
    modules listed in GUARDED are compared with a snapshot taken at start-up and restored;
    after every call, sys's hooks, import path and recursion limit are restored;
  - the generators a program reaches without its own `random` (the random module's hidden
    instance, which packages such as networkx use; numpy's global RandomState; sympy's) are
    each environment's own instances, swapped in when its turn comes and seeded from
    reset(seed); numpy's print and error settings go back to their start-up values;
  - NOT isolated: other mutable state inside shared modules (e.g. a cache in functools, a
    registered codec, objects reachable through gc), and the interpreter itself. A program
    that gets past these guards can reach the environments loaded beside it, but only what its
    sandbox's jail lets it reach of the machine (a jailed child process); the host never
    trusts it.

Attempts to reach the host (import js / pyodide / subprocess / ctypes, os.system, os._exit,
reading host paths) are refused and flagged: the call then fails as an escape attempt even if
the program catches the exception.

The functions the host calls return JSON text: {"ok": true, "value": ...} or
{"ok": false, "kind": ..., "message": ...}. They never raise for anything the program does.
"""
import ast
import builtins
import datetime as _real_datetime
import importlib
import importlib.abc
import importlib.util
import inspect
import json
import math
import operator
import random as _shared_random
import re
import sys
import time as _real_time
import traceback
import types

# Private references: a program that patches a shared module must not change what the loader does.
# (The loader also runs with its own copy of the builtins: see pyodide/interpreter.ts and cpython/server.py.)
_dumps, _loads = json.dumps, json.loads
_isfinite, _isnan = math.isfinite, math.isnan
_format_exception_only = traceback.format_exception_only
_signature = inspect.signature
_find_spec, _module_from_spec = importlib.util.find_spec, importlib.util.module_from_spec
_ModuleType = types.ModuleType
_parse, _walk = ast.parse, ast.walk
_Import, _ImportFrom, _Name, _Load, _arg = ast.Import, ast.ImportFrom, ast.Name, ast.Load, ast.arg
_Definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_getrecursionlimit, _setrecursionlimit = sys.getrecursionlimit, sys.setrecursionlimit
_modules = sys.modules

FIXED_TIME = 1_700_000_000.0
MAX_DEPTH = 64

BLOCKED_MODULES = frozenset({
    'js', 'pyodide', 'pyodide_js', '_pyodide', '_pyodide_core', 'pyodide_http', 'micropip',
    'subprocess', 'multiprocessing', 'ctypes', '_ctypes', 'socket', '_socket', 'select',
    'signal', '_signal', 'pty', 'pwd', 'webbrowser', 'urllib.request', 'http.client', 'ssl',
    'asyncio.subprocess', '_posixsubprocess', 'emscripten', 'gc', 'numpy.ctypeslib', 'numpy.core._dtype_ctypes',
    'seccomp', '_cffi_backend', 'cffi', '_testcapi', '_testinternalcapi', '_ctypes_test', '_xxsubinterpreters',
})
HOST_PATHS = ('/etc', '/proc', '/sys', '/root', '/home', '/dev', '/work', '/usr', '/var', '/bin', '/boot', '/run', '/srv', '/opt', '/mnt', '/media')
HARMLESS_PATHS = ('/dev/null', '/dev/urandom', '/dev/random')

# The names SPADE's loader puts in every program's globals before running it (its
# _COMMON_STDLIB_INJECTIONS in spade/core/envs/synthetic_game_env.py at 9b2b813), so a program
# that uses them without importing them loads here as it does there, and one that uses any other
# name unimported fails here as it does there. In SPADE's order: (name, module, attribute or None).
# `random` is each environment's own module; numpy's two names are in INJECTED_PACKAGES.
INJECTED = (
    ('itertools', 'itertools', None), ('math', 'math', None), ('random', 'random', None), ('re', 're', None),
    ('json', 'json', None), ('collections', 'collections', None), ('functools', 'functools', None),
    ('string', 'string', None), ('copy', 'copy', None), ('heapq', 'heapq', None), ('operator', 'operator', None),
    ('statistics', 'statistics', None),
    ('deque', 'collections', 'deque'), ('defaultdict', 'collections', 'defaultdict'), ('Counter', 'collections', 'Counter'),
    ('OrderedDict', 'collections', 'OrderedDict'), ('namedtuple', 'collections', 'namedtuple'),
    ('combinations', 'itertools', 'combinations'), ('permutations', 'itertools', 'permutations'),
    ('product', 'itertools', 'product'), ('chain', 'itertools', 'chain'), ('accumulate', 'itertools', 'accumulate'),
    ('reduce', 'functools', 'reduce'), ('lru_cache', 'functools', 'lru_cache'),
    ('deepcopy', 'copy', 'deepcopy'), ('heappush', 'heapq', 'heappush'), ('heappop', 'heapq', 'heappop'),
    ('Tuple', 'typing', 'Tuple'), ('Dict', 'typing', 'Dict'), ('List', 'typing', 'List'), ('Optional', 'typing', 'Optional'),
    ('Union', 'typing', 'Union'), ('Any', 'typing', 'Any'), ('Set', 'typing', 'Set'), ('FrozenSet', 'typing', 'FrozenSet'),
    ('Callable', 'typing', 'Callable'), ('Iterable', 'typing', 'Iterable'), ('Sequence', 'typing', 'Sequence'),
    ('Mapping', 'typing', 'Mapping'),
)
# Standard-library modules every environment shares (snapshotted at start-up and put back when
# another environment's turn comes: see GUARDED below). random and time are each environment's own.
SHARED_MODULES = ('math', 're', 'json', 'itertools', 'collections', 'string', 'functools', 'heapq', 'copy',
                  'statistics', 'fractions', 'decimal', 'bisect', 'operator', 'textwrap', 'typing', 'dataclasses', 'enum')
# SPADE's base class of tool-use games: injected by name, and what `import tool_use_base_env` gives.
TOOL_USE_MODULE, TOOL_USE_CLASS = 'tool_use_base_env', 'ToolUseBaseEnv'
# Names SPADE's loader never takes for the game class (its base classes).
BASE_CLASS_NAMES = frozenset({'Env', TOOL_USE_CLASS})
# The turn budget a program is built with when the host gives none (SPADE's validate_game's).
DEFAULT_MAX_TURNS = 1000


# ---------------------------------------------------------------------------------------------
# RUNTIME: everything that differs between the pyodide and the cpython sandbox.
# ---------------------------------------------------------------------------------------------
RUNTIME = globals().get('SPADE_RUNTIME', 'pyodide')
# Third-party packages SPADE's and RLVE's programs use; which of them this interpreter has.
PACKAGES = ('numpy', 'networkx', 'sympy')
AVAILABLE_PACKAGES = frozenset(name for name in PACKAGES if _find_spec(name) is not None)
# Each is imported once, when the first program that names it is loaded (SPADE puts `np` in
# every program's globals: a program that uses it names it), outside any program's call: their
# imports do what programs may not (set environment variables, import subprocess or gc). numpy
# comes with the others, which call it from inside their functions. Until then an interpreter
# (and each process the cpython sandbox forks) is smaller and quicker to copy.
PACKAGES_NEEDED = {'networkx': ('numpy',), 'sympy': ('numpy',)}


def _import_packages(names):
    """The packages of `names` this interpreter has (and those they need), imported now, with
    the host functions that the guards below refuse put back for the while (numpy's start-up
    sets environment variables)."""
    names = sorted(set(names).union(*(PACKAGES_NEEDED.get(name, ()) for name in names)) - set(_PACKAGE_MODULES))
    refusals = {(module, name): getattr(module, name) for module, name in _HOST_FUNCTIONS}
    for (module, name), original in _HOST_FUNCTIONS.items():
        setattr(module, name, original)
    found = {}
    try:
        for name in names:
            try:
                if name in AVAILABLE_PACKAGES:
                    found[name] = importlib.import_module(name)
            except Exception:  # installed but broken: a program that imports it gets the error
                pass
    finally:
        for (module, name), refusal in refusals.items():
            setattr(module, name, refusal)
    if 'numpy' in found:
        _refuse_numpy_ctypes(found['numpy'])
    return found


class _RefusedModule(types.ModuleType):
    """Stands for a module that hands programs the host (numpy's ctypes): touching it is an escape attempt."""

    def __getattr__(self, name):
        _flag_escape(f'{self.__name__}.{name}')


def _refuse_numpy_ctypes(numpy):
    """numpy imports ctypes and hands it out (np.ctypeslib, its ctypes, an array's .ctypes):
    each of those routes is refused like `import ctypes`."""
    refused = _RefusedModule('numpy.ctypeslib')
    numpy.ctypeslib = refused
    _modules['numpy.ctypeslib'] = refused
    for name in ('numpy.core._internal', 'numpy.core._dtype_ctypes'):
        module = _modules.get(name)
        if module is None:
            continue
        for attribute in ('ctypes', '_ctypes'):
            if attribute in module.__dict__ and isinstance(module.__dict__[attribute], types.ModuleType):
                module.__dict__[attribute] = _RefusedModule(attribute)
    internal = _modules.get('numpy.core._internal')
    if internal is not None and '_ctypes' in internal.__dict__:
        def array_ctypes(*_args, **_kwargs):  # what an array's .ctypes calls
            _flag_escape('ndarray.ctypes')
        internal._ctypes = array_ctypes
    dtype_ctypes = _modules.get('numpy.core._dtype_ctypes')
    if dtype_ctypes is not None:
        _modules['numpy.core._dtype_ctypes'] = _RefusedModule('numpy.core._dtype_ctypes')
        numpy.core._dtype_ctypes = _modules['numpy.core._dtype_ctypes']


_PACKAGE_MODULES = {}
# Names SPADE puts in every program's globals for a package (its _COMMON_STDLIB_INJECTIONS).
INJECTED_PACKAGES = {'np': 'numpy', 'numpy': 'numpy'}
# How to get a package this interpreter lacks, said in the reason a program is refused with.
_HOW_TO_GET = {
    'pyodide': 'the pyodide sandbox has no third-party package offline; run it with '
               '--python-sandbox cpython (Debian\'s CPython with numpy, networkx and sympy)',
    'cpython': 'install it for /usr/bin/python3 (apt-get install python3-numpy python3-networkx python3-sympy)',
}
_MENTIONS_PACKAGE = re.compile(r'\b(?:' + '|'.join(sorted(set(PACKAGES) | set(INJECTED_PACKAGES))) + r')\b')


class SandboxEscape(BaseException):
    """Raised where a program reaches for the host. BaseException, so a bare `except Exception` won't hide it."""


class _CallState:
    escape = None  # the first escape attempt of the current call, in words
    last = None  # the environment that ran last (shared state is restored when another's turn comes)


def _flag_escape(what):
    if _CallState.escape is None:
        _CallState.escape = what
    raise SandboxEscape(f'{what} is not available in the sandbox')


def _refuse(what):
    def refused(*_args, **_kwargs):
        _flag_escape(what)
    refused.__name__ = what.rsplit('.', 1)[-1]
    return refused


def _is_blocked(name):
    top = name.split('.', 1)[0]
    return top in BLOCKED_MODULES or name in BLOCKED_MODULES


class _BlockingFinder(importlib.abc.MetaPathFinder):
    """Refuses host modules for importlib.import_module and friends (which skip __import__), and
    a package not imported yet: only a program whose code names it gets it, imported before the
    program runs (import_named_packages)."""

    def find_spec(self, name, path=None, target=None):
        if _is_blocked(name):
            _flag_escape(f'import {name}')
        if name in AVAILABLE_PACKAGES:
            raise ImportError(f'{name} is imported for programs whose code names it (import {name}'
                              f'{", or np" if name == "numpy" else ""}); this one imports it under a name it computes', name=name)
        return None


def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and _is_blocked(name):
        _flag_escape(f'import {name}')
    if fromlist and level == 0:
        for item in fromlist:
            if _is_blocked(f'{name}.{item}'):
                _flag_escape(f'from {name} import {item}')
    return _original_import(name, globals, locals, fromlist, level)


def _guarded_open(file, *args, **kwargs):
    if isinstance(file, (str, bytes)):
        path = file.decode(errors='replace') if isinstance(file, bytes) else file
        if path.startswith(HOST_PATHS) and not path.startswith(HARMLESS_PATHS):
            _flag_escape(f'open({path!r})')
    elif isinstance(file, int):
        _flag_escape('open() of a file descriptor')
    return _original_open(file, *args, **kwargs)


_original_import = builtins.__import__
_original_open = builtins.open

# Refuse what hands Python the host, in os and in posix (os re-exports posix's functions).
import os as _os
import posix as _posix

_HOST_FUNCTIONS = {}  # (module, name): the function, which a package's import may need (see _import_packages)
for _module in (_os, _posix):
    for _name in ('system', 'popen', '_exit', 'fork', 'forkpty', 'kill', 'killpg', 'execv', 'execve',
                  'execl', 'execle', 'execlp', 'execlpe', 'execvp', 'execvpe', 'spawnl', 'spawnle',
                  'spawnlp', 'spawnlpe', 'spawnv', 'spawnve', 'spawnvp', 'spawnvpe', 'posix_spawn',
                  'posix_spawnp', 'startfile', 'putenv', 'unsetenv', 'chroot', 'setuid', 'setgid'):
        if hasattr(_module, _name):
            _HOST_FUNCTIONS[(_module, _name)] = getattr(_module, _name)
            setattr(_module, _name, _refuse(f'os.{_name}'))
sys.meta_path.insert(0, _BlockingFinder())

# Modules shared by every environment in this interpreter: snapshotted now, restored after each call.
# (os, sys, inspect and types are left out: comparing their large dicts on every call costs more
# than a step; os's host functions are refused above, and sys's hooks are checked below.)
GUARDED = [builtins, math, json]
for _name in SHARED_MODULES + ('math_verify',):
    GUARDED.append(importlib.import_module(_name))
GUARDED = list({id(m): m for m in GUARDED}.values())


def _snapshot_shared_state():
    return [(m.__dict__, len(m.__dict__), tuple(m.__dict__), tuple(m.__dict__.values()), dict(m.__dict__)) for m in GUARDED]


_SNAPSHOTS = _snapshot_shared_state()
_RECURSION_LIMIT = _getrecursionlimit()
_BLOCKING_FINDER = sys.meta_path[0]



def _capped_recursion_limit(limit):
    """Programs may lower the recursion limit, not raise it: past it the JavaScript stack overflows,
    which Pyodide cannot recover from (the interpreter would have to be replaced), and CPython's C
    stack overflows, which kills the process. Both sandboxes cap it, so both judge deep recursion alike."""
    _setrecursionlimit(max(50, min(int(limit), _RECURSION_LIMIT)))


sys.setrecursionlimit = _capped_recursion_limit
_SYS_HOOKS = {name: getattr(sys, name) for name in ('meta_path', 'path_hooks', 'excepthook', 'displayhook', 'stdout', 'stderr', 'stdin', 'setrecursionlimit')}
_SYS_PATH = list(sys.path)
_ORIGINAL_BUILTINS = dict(builtins.__dict__)
_STASHED_MODULES = {}


# Default arguments bind the real builtins now, so a polluted builtins module cannot fool these.
def _restore_shared_state(_snapshots=_SNAPSHOTS, _len=len, _all=all, _map=map, _is=operator.is_, _list=list):
    """Undo any change a program made to the shared modules' globals (run when another environment's turn comes)."""
    for current, size, keys, values, snapshot in _snapshots:
        if _len(current) != size or not _all(_map(_is, _map(current.get, keys), values)):
            for key in [k for k in _list(current) if k not in snapshot]:
                del current[key]
            current.update(snapshot)
    for module in GUARDED:
        if _modules.get(module.__name__) is not module:
            _modules[module.__name__] = module


def _restore_sys(_hooks=tuple(_SYS_HOOKS.items()), _getattr=getattr, _setattr=setattr):
    """Undo changes to sys's hooks, import path and recursion limit (after every call)."""
    for name, value in _hooks:
        if _getattr(sys, name) is not value:
            _setattr(sys, name, value)
    if not sys.meta_path or sys.meta_path[0] is not _BLOCKING_FINDER:
        sys.meta_path.insert(0, _BLOCKING_FINDER)
    if sys.path != _SYS_PATH:
        sys.path[:] = _SYS_PATH
    if _getrecursionlimit() != _RECURSION_LIMIT:
        _setrecursionlimit(_RECURSION_LIMIT)


_MODULE_CODE = {}


def _fresh_module(name):
    """A private instance of a pure-Python stdlib module (its code object is read once)."""
    if name not in _MODULE_CODE:
        spec = _find_spec(name)
        _MODULE_CODE[name] = (spec, spec.loader.get_code(name))
    spec, code = _MODULE_CODE[name]
    module = _module_from_spec(spec)
    exec(code, module.__dict__)
    return module


def _fixed_time_module():
    module = _ModuleType('time')
    module.__dict__.update({k: v for k, v in _real_time.__dict__.items() if not k.startswith('__')})
    module.time = lambda: FIXED_TIME
    module.time_ns = lambda: int(FIXED_TIME * 1e9)
    module.sleep = lambda _seconds=0: None
    return module


def _fixed_datetime_module():
    """datetime whose clock reads FIXED_TIME (UTC): now(), today(), utcnow() and date.today()."""
    module = _ModuleType('datetime')
    module.__dict__.update({k: v for k, v in _real_datetime.__dict__.items() if not k.startswith('__')})
    base_date, base_datetime, utc = _real_datetime.date, _real_datetime.datetime, _real_datetime.timezone.utc
    moment = base_datetime.fromtimestamp(FIXED_TIME, utc)

    class date(base_date):
        __slots__ = ()

        @classmethod
        def today(cls):
            return cls(moment.year, moment.month, moment.day)

    class datetime(base_datetime):
        __slots__ = ()

        @classmethod
        def now(cls, tz=None):
            at = moment if tz is None else moment.astimezone(tz)
            return cls(at.year, at.month, at.day, at.hour, at.minute, at.second, at.microsecond, tzinfo=None if tz is None else at.tzinfo)

        @classmethod
        def today(cls):
            return cls.now()

        @classmethod
        def utcnow(cls):
            return cls.now()

    for cls in (date, datetime):
        cls.__module__ = 'datetime'
    module.date, module.datetime = date, datetime
    return module


_HOST_MODULE_NAMES = []


def _host_module_names():
    """The loaded modules a program must not find in _modules (recomputed when more load)."""
    if len(_HOST_MODULE_NAMES) == 0 or _HOST_MODULE_NAMES[0] != len(_modules):
        names = [n for n in _modules if _is_blocked(n)]
        _HOST_MODULE_NAMES[:] = [len(_modules) + 0] + names
    return _HOST_MODULE_NAMES[1:]


class _Environment:
    def __init__(self, source):
        self.random = _fresh_module('random')
        self.time = _fixed_time_module()
        self.datetime = _fixed_datetime_module()
        # `import builtins` in the program gives it this copy, not the interpreter's module.
        self.builtins = _ModuleType('builtins')
        own_builtins = self.builtins.__dict__
        own_builtins.update(_ORIGINAL_BUILTINS)
        own_builtins['__import__'] = self.import_module
        own_builtins['open'] = _guarded_open
        own_builtins['input'] = _REFUSED_INPUT
        own_builtins['breakpoint'] = _REFUSED_BREAKPOINT
        self.globals = {'__name__': '__spade_env__', '__builtins__': own_builtins}
        for name, module_name, attribute in INJECTED:
            module = self.random if module_name == 'random' else _modules[module_name]
            self.globals[name] = module if attribute is None else getattr(module, attribute)
        for name, package in INJECTED_PACKAGES.items():
            if package in _PACKAGE_MODULES:
                self.globals[name] = _PACKAGE_MODULES[package]
        # Its own copy of SPADE's tool-use base class, by name and as `import tool_use_base_env`.
        self.tool_use = _fresh_module(TOOL_USE_MODULE)
        # Kept before the program runs: the class its tool-use games extend, whatever it rebinds.
        self.tool_base = self.tool_use.ToolUseBaseEnv
        self.globals[TOOL_USE_CLASS] = self.tool_base
        self.source = source
        self.instance = None
        self.generators = None  # its own shared generators, made on its first turn

    def import_module(self, name, globals=None, locals=None, fromlist=(), level=0):
        if name == 'builtins' and level == 0:
            return self.builtins
        return _guarded_import(name, globals, locals, fromlist, level)

    def enter(self):
        _CallState.escape = None
        if _CallState.last is not self:
            _take_turn(self)
        modules = _modules
        for name in _host_module_names():
            module = modules.pop(name, None)
            if module is not None:
                _STASHED_MODULES[name] = module
        self.saved = (_modules.get('random'), _modules.get('time'), _modules.get('datetime'), _modules.get(TOOL_USE_MODULE))
        _modules['random'] = self.random
        _modules['time'] = self.time
        _modules['datetime'] = self.datetime
        _modules[TOOL_USE_MODULE] = self.tool_use

    def leave(self):
        _modules['random'], _modules['time'], _modules['datetime'], tool_use = self.saved
        if tool_use is None:
            _modules.pop(TOOL_USE_MODULE, None)
        else:
            _modules[TOOL_USE_MODULE] = tool_use
        _modules.update(_STASHED_MODULES)
        _STASHED_MODULES.clear()
        _restore_sys()


_environments = {}
_REFUSED_INPUT, _REFUSED_BREAKPOINT = _refuse('input'), _refuse('breakpoint')


def _packages_used(source):
    """The third-party packages a program imports, or uses through SPADE's injected names
    (`np` loaded but bound nowhere in the program)."""
    if not _MENTIONS_PACKAGE.search(source):
        return set()
    used, loaded, bound = set(), set(), set()
    try:
        nodes = list(_walk(_parse(source)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    for node in nodes:
        if isinstance(node, _Import):
            for alias in node.names:
                top = alias.name.split('.', 1)[0]
                bound.add(alias.asname or top)
                if top in PACKAGES:
                    used.add(top)
        elif isinstance(node, _ImportFrom):
            top = (node.module or '').split('.', 1)[0]
            if node.level == 0 and top in PACKAGES:
                used.add(top)
            bound.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, _Name):
            (loaded if isinstance(node.ctx, _Load) else bound).add(node.id)
        elif isinstance(node, _Definitions):
            bound.add(node.name)
        elif isinstance(node, _arg):
            bound.add(node.arg)
    used.update(INJECTED_PACKAGES[name] for name in loaded - bound if name in INJECTED_PACKAGES)
    return used


def _generator_slots(known=()):
    """The generators shared by the whole interpreter that a program reaches without its own
    `random`, other than those in `known`: the random module's hidden instance, numpy's global
    RandomState, sympy's (once imported). Each as (the original instance, the attribute holding
    it, a maker of new ones, and per module whose functions are its bound methods: the module's
    dict and those functions' names), read while the originals are in place."""
    candidates = [((_shared_random,), '_inst', lambda: _shared_random.Random(0))]
    numpy = _PACKAGE_MODULES.get('numpy')
    if numpy is not None:
        mtrand = numpy.random.mtrand
        candidates.append(((mtrand, numpy.random), '_rand', lambda: mtrand.RandomState(0)))
    sympy_random = _modules.get('sympy.core.random')
    if sympy_random is not None:
        candidates.append(((sympy_random,), 'rng', lambda: _shared_random.Random(0)))
    slots = []
    for modules, attribute, create in candidates:
        original = getattr(modules[0], attribute)
        if any(slot[0] is original for slot in known):
            continue
        bound = [(module.__dict__, [name for name, value in vars(module).items() if getattr(value, '__self__', None) is original])
                 for module in modules]
        slots.append((original, attribute, create, bound))
    return slots


def _bindings(slot, instance):
    """What to write into the slot's modules so that their functions are `instance`'s methods."""
    _original, attribute, _create, bound = slot
    return [(namespace, {attribute: instance, **{name: getattr(instance, name) for name in names}}) for namespace, names in bound]


_GENERATOR_SLOTS = _generator_slots()


def _generators_of(env):
    """The bindings that make `env`'s instances (None: the originals) the shared generators,
    one list per slot; an environment's are made on its first turn (seeded as at start-up), and
    for a slot added since (a package imported later) on its first turn after that."""
    if env is None:
        return [_bindings(slot, slot[0]) for slot in _GENERATOR_SLOTS]
    if env.generators is None:
        env.generators = []
    for slot in _GENERATOR_SLOTS[len(env.generators):]:
        env.generators.append(_bindings(slot, slot[2]()))
    return env.generators


def _numpy_settings():
    numpy = _PACKAGE_MODULES.get('numpy')
    return (numpy.get_printoptions(), numpy.geterr()) if numpy is not None else None


def _take_turn(env):
    """Make `env` (None: a new one, being made) the environment whose turn it is: the shared
    modules are put back as they were at start-up; the generators a program reaches without its
    own `random` (the random module's, numpy's global one, sympy's) are the environment's own
    instances, so its draws do not depend on what the others drew; numpy's print and error
    settings go back to their start-up values."""
    _restore_shared_state()
    for slot in _generators_of(env):
        for namespace, binding in slot:
            namespace.update(binding)
    if _START_NUMPY_SETTINGS is not None and _numpy_settings() != _START_NUMPY_SETTINGS:
        numpy = _PACKAGE_MODULES['numpy']
        numpy.set_printoptions(**_START_NUMPY_SETTINGS[0])
        numpy.seterr(**_START_NUMPY_SETTINGS[1])
    _CallState.last = env


def import_named_packages(source):
    """Import, outside any program's call, the available packages `source` names (`np` names
    numpy) that are not imported yet; the shared state is then snapshotted again (a package's
    import may add to the stdlib modules the loader puts back) and its generator, if it has one,
    made per environment. True when something was imported (the cpython sandbox then measures its
    interpreter again: a call's memoryMb is on top of it)."""
    missing = AVAILABLE_PACKAGES - set(_PACKAGE_MODULES)
    if not missing:
        return False
    wanted = sorted(missing & {INJECTED_PACKAGES.get(name, name) for name in _MENTIONS_PACKAGE.findall(source)})
    if not wanted:
        return False
    global _START_NUMPY_SETTINGS
    _take_turn(None)  # the originals in place, and the shared state as at start-up
    meta_path = sys.meta_path
    try:
        while _BLOCKING_FINDER in meta_path:
            meta_path.remove(_BLOCKING_FINDER)
        _PACKAGE_MODULES.update(_import_packages(wanted))
        if _START_NUMPY_SETTINGS is None:
            _START_NUMPY_SETTINGS = _numpy_settings()
    finally:
        meta_path.insert(0, _BLOCKING_FINDER)
        _CallState.escape = None
    _SNAPSHOTS[:] = _snapshot_shared_state()
    _GENERATOR_SLOTS.extend(_generator_slots(known=_GENERATOR_SLOTS))
    return True


def _seed_shared_generators(seed):
    """The generators a program reaches without its own `random` (this environment's instances,
    see _take_turn) are seeded from reset(seed) too."""
    for _original, attribute, _create, bound in _GENERATOR_SLOTS:
        generator = bound[0][0][attribute]
        generator.seed(seed % 4294967296 if isinstance(seed, int) and hasattr(generator, 'get_state') else seed)


# numpy's print and error settings as it was imported (import_named_packages), which _take_turn puts back.
_START_NUMPY_SETTINGS = None


def _reply_ok(plain):
    return _dumps({'ok': True, 'value': plain}, allow_nan=False)


def _reply_fail(kind, message):
    return _dumps({'ok': False, 'kind': kind, 'message': str(message)[:2000]})


def _plain(value, depth):
    """The JSON-ready form of a returned value: tuples and sets become lists, non-finite floats markers."""
    if depth > MAX_DEPTH:
        raise ValueError('the returned value is nested too deeply')
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if _isfinite(value):
            return value
        return {'$float': 'nan' if _isnan(value) else 'inf' if value > 0 else '-inf'}
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return [_plain(v, depth + 1) for v in sorted(value, key=repr)]
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if hasattr(value, '__float__') and type(value).__module__ in ('fractions', 'decimal', 'numbers'):
        return _plain(float(value), depth)
    if type(value).__module__ == 'numpy' and hasattr(value, 'tolist'):
        # numpy scalars and arrays (the cpython sandbox has numpy): as the Python values they hold.
        return _plain(value.tolist(), depth + 1)
    return {'$object': type(value).__name__}


def _describe(error):
    lines = _format_exception_only(type(error), error)
    return ''.join(lines).strip()


def _find_class(namespace):
    """SPADE's choice of the game class: the first name of the program's namespace, in order, that
    ends in `Env` (other than SPADE's base class names) and is callable."""
    for name, value in namespace.items():
        if name.endswith('Env') and name not in BASE_CLASS_NAMES and callable(value) and hasattr(value, '__init__'):
            return value
    raise LookupError("No valid game class found in code (expected class ending with 'Env')")


def _build(cls, max_turns, forced):
    """An instance built as SPADE builds one. `forced` (SPADE's validate_game): max_turns= the
    budget, else no argument and the attribute set. Otherwise (SPADE's plays): the game's own
    max_turns, capped at the budget, and max_turns= the budget only when the class needs it."""
    if forced:
        try:
            instance = cls(max_turns=max_turns)
        except TypeError:
            instance = cls()
            if hasattr(instance, 'max_turns'):
                instance.max_turns = max_turns
        return instance
    try:
        instance = cls()
    except TypeError:
        instance = cls(max_turns=max_turns)
    designed = getattr(instance, 'max_turns', None)
    if isinstance(designed, int) and designed > 0:
        instance.max_turns = min(designed, max_turns)
    elif hasattr(instance, 'max_turns'):
        instance.max_turns = max_turns
    return instance


def _reference_method(instance):
    for name in ('reference_action', 'referenceAction', 'reference_policy'):
        if callable(getattr(instance, name, None)):
            return name
    return None


def _run_guarded(env, action):
    """Run action() inside env's view of the interpreter: (None, value) or (kind, message)."""
    env.enter()
    try:
        # Copied out while still inside: a returned object's own __str__ or __float__ is program code.
        value = _plain(action(), 0)
        failure = None
    except SandboxEscape as error:
        failure = ('escape-attempt', str(error))
    except MemoryError as error:
        # Pyodide reports a JavaScript stack overflow (deep recursion) as MemoryError too.
        text = _describe(error) or 'MemoryError'
        failure = ('crash' if 'call stack' in text else 'memory', text)
    except KeyboardInterrupt:
        # Pyodide's wall-time limit interrupts a call this way (its host tells that from a
        # program's own raise); the cpython sandbox's host kills the process instead, so there a
        # KeyboardInterrupt is the program's own: a crash.
        failure = ('timeout', 'interrupted') if RUNTIME == 'pyodide' else ('crash', 'KeyboardInterrupt raised by the program')
    except BaseException as error:  # SystemExit and every exception the program raised
        failure = ('crash', _describe(error))
    finally:
        env.leave()
    if _CallState.escape is not None:
        return 'escape-attempt', f'{_CallState.escape} is not available in the sandbox'
    return failure if failure is not None else (None, value)


def _reply(outcome):
    kind, value = outcome
    if kind is not None:
        return _reply_fail(kind, value)
    return _reply_ok(value)


def _prepare(source):
    """The compiled program and a fresh environment for it, or the reply that refuses it."""
    try:
        code = compile(source, '<environment>', 'exec')
    except (SyntaxError, ValueError) as error:
        return None, None, _reply_fail('syntax', _describe(error))
    missing = sorted(_packages_used(source) - AVAILABLE_PACKAGES)
    if missing:
        names = ', '.join(missing)
        return None, None, _reply_fail('load', f'the program uses {names}, which this sandbox does not have: {_HOW_TO_GET.get(RUNTIME, "install it")}')
    template = _PROCESS['template']
    if template is not None:
        # A process of its own (cpython): the environment its zygote made before forking it.
        _PROCESS['template'] = None
        template.source = source
        return code, template, None
    # The new environment's modules are made with the shared ones: undo the last program's changes first.
    _take_turn(None)
    _restore_sys()
    import_named_packages(source)
    return code, _Environment(source), None


# The environment the cpython sandbox's zygote made for the next process it forks.
_PROCESS = {'template': None}


def prepare_process_environment():
    """For the cpython sandbox's zygote, which forks a process per environment: make the next
    environment now (its globals, builtins, random, time, datetime and generators, its turn
    taken), so each forked process only compiles and runs its program. Called again after a
    package is imported."""
    _take_turn(None)
    _restore_sys()
    env = _Environment(None)
    _take_turn(env)
    _PROCESS['template'] = env
    _host_module_names()  # read once here rather than in every process (whose pages it would copy)


def _turn_budget(max_turns):
    return max_turns if isinstance(max_turns, int) and not isinstance(max_turns, bool) and max_turns > 0 else DEFAULT_MAX_TURNS


def spade_load(env_id, source, max_turns=None):
    """Load a program as SPADE's loader does for a play: its namespace with SPADE's names, its
    game class chosen and built SPADE's way with `max_turns` as the turn budget."""
    code, env, refused = _prepare(source)
    if refused is not None:
        return refused
    budget = _turn_budget(max_turns)

    def load():
        exec(code, env.globals)
        cls = _find_class(env.globals)
        env.instance = _build(cls, budget, forced=False)
        instance = env.instance
        for method in ('reset', 'step'):
            if not hasattr(instance, method):
                raise LookupError(f'Game class missing required method: {method}')
        try:
            parameters = _signature(instance.reset).parameters
            env.seed_style = 'keyword' if 'seed' in parameters or any(
                p.kind is p.VAR_KEYWORD for p in parameters.values()) else 'positional' if parameters else 'none'
        except (TypeError, ValueError):
            env.seed_style = 'keyword'
        return {
            'className': cls.__name__,
            'solution': callable(getattr(instance, 'solution', None)),
            'hint': callable(getattr(instance, 'hint', None)),
            'referenceAction': _reference_method(instance) is not None,
            # SPADE plays a game as a tool-use game when it has get_tools() (and it lists tools).
            'tools': callable(getattr(instance, 'get_tools', None)),
            'maxTurns': _turn_budget(getattr(instance, 'max_turns', None)) if isinstance(getattr(instance, 'max_turns', None), int) else None,
        }

    kind, value = _run_guarded(env, load)
    if kind is None:
        _environments[env_id] = env
    elif kind == 'crash':
        kind = 'load'
    return _reply((kind, value))


# ---------------------------------------------------------------------------------------------
# SPADE's own validation: what `validate_game(path)` of spade/core/utils/game_files.py (9b2b813)
# decides about a program, with the messages it logs when it rejects one. Reproduced step by step
# from what it does (the `spade` reading of the gate), in a fresh environment of its own:
#   - load: run the code with SPADE's names; the first class ending in Env; build it with
#     max_turns=1000 (else no argument); it must have reset and step;
#   - _validate_game_execution: reset(seed=42) gives a non-empty str observation (or a bare str)
#     and a dict; \boxed{1}, \boxed{test}, \boxed{42} each give a 5-tuple of str, int or float
#     reward within [-10, 10], bool, bool, dict, until one ends the episode; reset(seed=123) works;
#   - then through SPADE's wrapper, which swallows the game's exceptions: reset() (seed None) and
#     the actions 1, 2, test until one ends the episode; then close().
# Only a hang, running out of memory, or reaching for the host fails the wrapper's part here;
# those are the sandbox's verdicts (timeout, memory, escape-attempt), which the host reads.
# ---------------------------------------------------------------------------------------------
SPADE_CHECK_ACTIONS = ('\\boxed{1}', '\\boxed{test}', '\\boxed{42}')
SPADE_SMOKE_ACTIONS = ('1', '2', 'test')


class _SpadeRejection(Exception):
    """SPADE's validate_game returned False: `message` is what it logs, `kind` the gate's reason code."""

    def __init__(self, message, kind):
        super().__init__(message)
        self.kind = kind


class _ShapeError(ValueError):
    """A check of SPADE's on what a method returned (not an exception of the program)."""


def _kind_of(error, program_kind):
    if isinstance(error, MemoryError):
        return 'memory'
    return 'contract' if isinstance(error, _ShapeError) else program_kind


def _seeded(env, seed):
    """Seed the environment's own generators (its `random`, numpy's global one) before a reset, as
    spade_call does, so SPADE's checks give the same verdict every time (SPADE's own process
    leaves an unseeded `random` unseeded)."""
    env.random.seed(0 if seed is None else seed)
    _seed_shared_generators(0 if seed is None else seed)


def _spade_reset_check(env, instance):
    try:
        _seeded(env, 42)
        result = instance.reset(seed=42)
        if isinstance(result, tuple) and len(result) == 2:
            observation, info = result
        elif isinstance(result, str):
            observation, info = result, {}
        else:
            raise _ShapeError(f'reset() returned invalid type: {type(result)}')
        if not isinstance(observation, str) or len(observation) == 0:
            raise _ShapeError('reset() returned empty or non-string observation')
        if not isinstance(info, dict):
            raise _ShapeError(f'reset() info must be dict, got {type(info)}')
    except Exception as error:
        raise _SpadeRejection(f'Game reset() failed: {error}', _kind_of(error, 'crash'))


def _spade_step_check(instance, number, action):
    try:
        result = instance.step(action)
        if not isinstance(result, tuple) or len(result) != 5:
            size = len(result) if isinstance(result, tuple) else 'N/A'
            raise _ShapeError(f'step() must return 5-tuple, got {type(result)} with length {size}')
        observation, reward, terminated, truncated, info = result
        if not isinstance(observation, str):
            raise _ShapeError(f'step() observation must be string, got {type(observation)}')
        if not isinstance(reward, (int, float)):
            raise _ShapeError(f'step() reward must be numeric, got {type(reward)}')
        if not isinstance(terminated, bool):
            raise _ShapeError(f'step() terminated must be bool, got {type(terminated)}')
        if not isinstance(truncated, bool):
            raise _ShapeError(f'step() truncated must be bool, got {type(truncated)}')
        if not isinstance(info, dict):
            raise _ShapeError(f'step() info must be dict, got {type(info)}')
        if reward < -10 or reward > 10:
            raise _ShapeError(f'step() reward {reward} outside expected range [-10, 10]')
        return terminated or truncated
    except Exception as error:
        raise _SpadeRejection(f"Game step() failed on action {number} '{action}': {error}", _kind_of(error, 'smoke-test'))


def _wrapped_info(info):
    """What SPADE's wrapper does to info (its conversions run program code: __float__)."""
    if not isinstance(info, dict):
        return {}
    kept = {}
    for key, value in info.items():
        if isinstance(value, (int, float, bool, type(None))):
            kept[key] = value
        elif not isinstance(value, str):
            try:
                kept[key] = float(value)
            except (ValueError, TypeError):
                pass
    return kept


def _wrapped_reset(env, instance):
    """SPADE's wrapper's reset() (seed None): the game's exceptions are swallowed."""
    try:
        _seeded(env, None)
        result = instance.reset(seed=None)
        if isinstance(result, tuple) and len(result) == 2:
            _observation, info = result
        elif isinstance(result, str):
            info = {}
        else:
            str(result)
            info = {}
        _wrapped_info(info)
    except Exception:
        pass


def _wrapped_step(instance, action):
    """SPADE's wrapper's step: the game's exceptions become an episode that ended."""
    try:
        result = instance.step(action)
        if not (isinstance(result, tuple) and len(result) == 5):
            return True
        observation, reward, terminated, truncated, info = result
        str(observation) if observation is not None else None
        float(reward) if reward is not None else 0.0
        ended = (bool(terminated) if terminated is not None else False) or (bool(truncated) if truncated is not None else False)
        _wrapped_info(info if isinstance(info, dict) else {})
        return ended
    except Exception:
        return True


def _spade_validation(code, env):
    """validate_game's verdict on the program compiled as `code`, run in `env`."""
    try:
        exec(code, env.globals)
    except Exception as error:
        raise _SpadeRejection(f'Failed to execute game code: {error}', _kind_of(error, 'load'))
    try:
        cls = _find_class(env.globals)
    except LookupError as error:
        raise _SpadeRejection(str(error), 'load')
    try:
        instance = _build(cls, DEFAULT_MAX_TURNS, forced=True)
    except Exception as error:
        raise _SpadeRejection(f'Failed to instantiate game class: {error}', _kind_of(error, 'load'))
    for method in ('reset', 'step'):
        if not hasattr(instance, method):
            raise _SpadeRejection(f'Game class missing required method: {method}', 'load')
    _spade_reset_check(env, instance)
    for number, action in enumerate(SPADE_CHECK_ACTIONS, 1):
        if _spade_step_check(instance, number, action):
            break
    try:
        _seeded(env, 123)
        instance.reset(seed=123)
    except Exception as error:
        raise _SpadeRejection(f'Game reset() failed on second call: {error}', _kind_of(error, 'crash'))
    _wrapped_reset(env, instance)
    for action in SPADE_SMOKE_ACTIONS:
        if _wrapped_step(instance, action):
            break
    if hasattr(instance, 'close'):
        try:
            instance.close()
        except Exception as error:
            raise _SpadeRejection(str(error), _kind_of(error, 'crash'))
    return {'accepted': True, 'className': getattr(cls, '__name__', str(cls))}


RESET_GATE_SEEDS = (0, 1, 2)


def _criteria_throw_at_reset(cls, env, max_turns):
    """SPADE's reset gate (criteria_throw_at_reset of spade/core/envs/synthetic_game_env.py at
    9b2b813), on the validated program's class: for each of the seeds 0, 1 and 2, a new instance
    built as SPADE's gate builds it (max_turns= the budget) is reset (an exception of reset is
    swallowed, as SPADE's wrapper does; one of the constructor skips the seed), and each of its
    `_message_criteria` is called on its `_state`. A game without criteria or state is never
    rejected. True (reject) when a criterion raised at every seed that could be checked. (SPADE
    loads the file afresh for each seed; here the class of the one load is reused.)"""
    checked = 0
    threw = 0
    try:
        for seed in RESET_GATE_SEEDS:
            try:
                instance = _build(cls, max_turns, forced=True)
            except Exception:
                continue
            try:
                _seeded(env, seed)
                instance.reset(seed=seed)
            except Exception:
                pass
            criteria = getattr(instance, '_message_criteria', None)
            state = getattr(instance, '_state', None)
            if not criteria or state is None:
                return False
            checked += 1
            for criterion in criteria:
                try:
                    criterion(state)
                except Exception:
                    threw += 1
                    break
        return checked > 0 and threw == checked
    except Exception:
        return False


RESET_GATE_MESSAGE = ('Reset-solvability gate: a success criterion raises on the initial state at '
                      'every tested seed (unsolvable step).')


def spade_validate(source, reset_gate_turns=None):
    """SPADE's verdict on a program: {"accepted": true} or {"accepted": false, "message": SPADE's
    message, "kind": the reason code}; a failure of the sandbox's own (timeout, memory,
    escape-attempt, output-limit) is the reply's failure instead, as for any call. With
    `reset_gate_turns` (SPADE's tool-use runs), an accepted program also goes through SPADE's
    reset gate, its games built with that turn budget (kind `reset-gate` when it rejects)."""
    code, env, refused = _prepare(source)
    if code is None:
        try:
            # Compiled again only to word the error as SPADE does: it runs the code as a string, so its messages name <string>.
            compile(source, '<string>', 'exec')
        except (SyntaxError, ValueError) as error:
            return _reply_ok({'accepted': False, 'message': f'Syntax error in generated game code: {error}', 'kind': 'syntax'})
        return refused

    def validate():
        try:
            verdict = _spade_validation(code, env)
        except _SpadeRejection as rejection:
            return {'accepted': False, 'message': str(rejection), 'kind': rejection.kind}
        if reset_gate_turns and _criteria_throw_at_reset(_find_class(env.globals), env, reset_gate_turns):
            return {'accepted': False, 'message': RESET_GATE_MESSAGE, 'kind': 'reset-gate'}
        return verdict

    return _reply(_run_guarded(env, validate))


# ---------------------------------------------------------------------------------------------
# SPADE's repair of a designer's code (repair_fstring_braces of spade/core/utils/parsing.py at
# 9b2b813), applied to the code its extraction took from a reply: while the code does not parse,
# the line the parser blames has each {...} field without nested braces whose inside is not a
# Python expression (an empty one included) written with doubled braces; it stops when the code
# parses, when that changes nothing, when the parser names no line, or after 20 rounds. It only
# parses (ast), never runs the code. A parser failure other than a syntax error leaves the code
# as it is.
# ---------------------------------------------------------------------------------------------
_BRACE_FIELD = re.compile(r'\{([^{}]*)\}')


def _is_expression(text):
    try:
        ast.parse(text, mode='eval')
        return True
    except SyntaxError:
        return False


def _double_non_expressions(line):
    return _BRACE_FIELD.sub(lambda m: m.group(0) if _is_expression(m.group(1)) else '{{' + m.group(1) + '}}', line)


def spade_repair_braces(source):
    """SPADE's brace repair of `source`: {"ok": true, "value": the code it gives}."""
    code = source
    try:
        for _round in range(20):
            try:
                ast.parse(code)
                break
            except SyntaxError as error:
                lines = code.split('\n')
                if not error.lineno or error.lineno - 1 >= len(lines):
                    break
                fixed = _double_non_expressions(lines[error.lineno - 1])
                if fixed == lines[error.lineno - 1]:
                    break
                lines[error.lineno - 1] = fixed
                code = '\n'.join(lines)
    except (ValueError, RecursionError, MemoryError):
        pass
    return _reply_ok(code)


def spade_call(env_id, method, args_json):
    """Call a method of a loaded environment; args_json is the JSON text of its arguments, or the list itself."""
    env = _environments.get(env_id)
    if env is None or env.instance is None:
        return _reply_fail('crash', f'environment {env_id} is not loaded')
    instance = env.instance
    args = _loads(args_json) if isinstance(args_json, str) else args_json
    if method == 'reset':
        seed = args[0]

        def action():
            env.random.seed(seed)
            _seed_shared_generators(seed)
            # SPADE builds a fresh game for every play; here one instance plays episode after
            # episode, so a tool-use game starts each one as its construction would.
            tool_use = isinstance(instance, env.tool_base)
            if tool_use:
                instance.turn_count = 0
                instance._call_history = []
            if env.seed_style == 'keyword':
                result = instance.reset(seed=seed)
            else:
                result = instance.reset(seed) if env.seed_style == 'positional' else instance.reset()
            return _with_max_turns(result, instance) if tool_use else result
    elif method == 'step':
        def action():
            return instance.step(args[0])
    else:
        name = _reference_method(instance) if method == 'referenceAction' else 'get_tools' if method == 'getTools' else method
        if name is None or not callable(getattr(instance, name, None)):
            return _reply_fail('missing-method', f'the environment has no {method}() method')
        bound = getattr(instance, name)

        def action():
            return bound(*args)
    return _reply(_run_guarded(env, action))


def _with_max_turns(result, instance):
    """A tool-use game's reset() result with its max_turns in the info (unless the info gives a
    horizon): the episode's horizon is the game's own, as SPADE plays it (its own max_turns,
    capped at the turn budget). Called inside the environment's guarded call."""
    if isinstance(result, str):
        observation, info = result, {}
    elif isinstance(result, (tuple, list)) and len(result) == 2:
        observation, info = result
    else:
        return result
    if info is None:
        info = {}
    turns = getattr(instance, 'max_turns', None)
    if not isinstance(info, dict) or 'horizon' in info or 'max_turns' in info:
        return result
    if not isinstance(turns, int) or isinstance(turns, bool) or turns <= 0:
        return result
    return observation, {**info, 'max_turns': turns}


def spade_dispose(env_id):
    _environments.pop(env_id, None)
    return _reply_ok(None)


def spade_health():
    """True when the shared state is intact and the interpreter can still allocate."""
    _restore_shared_state()
    _restore_sys()
    probe = bytearray(1 << 20)
    return builtins.__import__ is _original_import and len(probe) == 1 << 20
