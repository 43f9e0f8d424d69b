"""
How both Python sandboxes load and run environment programs: the `pyodide` sandbox (Python in
WebAssembly) and the `cpython` sandbox (Debian's CPython in a bubblewrap jail) run this same
file, so a program loads, is seeded, sees the same injected names and is judged the same way in
either. It is executed once per interpreter, in its own namespace, before any environment, with
SPADE_RUNTIME set to 'pyodide' or 'cpython' in that namespace.

It loads SPADE-format environment programs unchanged (a class with reset(seed) and step(action),
optional solution(), hint(), reference_action(obs)) and calls their methods for the host.

What differs between the two sandboxes is kept to the RUNTIME section below, and is only this:
  - third-party packages: the cpython sandbox has numpy, networkx and sympy, and injects numpy
    as `np` and `numpy` into every program's globals, as SPADE does; Pyodide has no third-party
    package offline, so a program that imports one of them, or uses `np`/`numpy` without
    importing it, is refused at load with a reason that names the package and the sandbox
    that has it;
  - the message that says how to get a missing package.

Isolation between environments in the same interpreter (both sandboxes hold several in one):
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
    'asyncio.subprocess', '_posixsubprocess', 'emscripten', 'gc',
})
HOST_PATHS = ('/etc', '/proc', '/sys', '/root', '/home', '/dev', '/work', '/usr', '/var', '/bin', '/boot', '/run', '/srv', '/opt', '/mnt', '/media')
HARMLESS_PATHS = ('/dev/null', '/dev/urandom', '/dev/random')

# Names SPADE puts in an environment's globals, for programs that forget to import them.
INJECTED_MODULES = ('random', 'math', 're', 'json', 'itertools', 'collections', 'string',
                    'functools', 'heapq', 'copy', 'statistics', 'fractions', 'decimal', 'time',
                    'bisect', 'operator', 'textwrap', 'typing', 'dataclasses', 'enum', 'os')
INJECTED_NAMES = {
    'typing': ('List', 'Dict', 'Tuple', 'Optional', 'Any', 'Union', 'Set', 'Callable',
               'Iterable', 'Sequence', 'Mapping', 'FrozenSet', 'Deque', 'DefaultDict'),
    'collections': ('Counter', 'defaultdict', 'deque', 'namedtuple', 'OrderedDict'),
    'fractions': ('Fraction',),
    'decimal': ('Decimal',),
    'dataclasses': ('dataclass', 'field'),
    'functools': ('lru_cache', 'reduce', 'cache'),
    'itertools': ('product', 'permutations', 'combinations'),
    'copy': ('deepcopy',),
}


# ---------------------------------------------------------------------------------------------
# RUNTIME: everything that differs between the pyodide and the cpython sandbox.
# ---------------------------------------------------------------------------------------------
RUNTIME = globals().get('SPADE_RUNTIME', 'pyodide')
# Third-party packages SPADE's and RLVE's programs use; which of them this interpreter has.
PACKAGES = ('numpy', 'networkx', 'sympy')
AVAILABLE_PACKAGES = frozenset(name for name in PACKAGES if _find_spec(name) is not None)
# numpy is imported at start-up, as SPADE puts it in every program's globals; the others once,
# when the first program that names them is loaded (sympy takes longer to import than all the
# rest of start-up). Either way outside any program's call: their imports use modules that
# programs may not (subprocess, signal, gc).
IMPORTED_AT_START = ('numpy',)


def _import_packages(names):
    """The packages of `names` this interpreter has, imported now (before the guards below,
    which would refuse what numpy's start-up does: it sets environment variables)."""
    found = {}
    for name in names:
        try:
            if name in AVAILABLE_PACKAGES:
                found[name] = importlib.import_module(name)
        except Exception:  # installed but broken: a program that imports it gets the error
            pass
    return found


_PACKAGE_MODULES = _import_packages(IMPORTED_AT_START)
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
    """Refuses host modules for importlib.import_module and friends (which skip __import__)."""

    def find_spec(self, name, path=None, target=None):
        if _is_blocked(name):
            _flag_escape(f'import {name}')
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

for _module in (_os, _posix):
    for _name in ('system', 'popen', '_exit', 'fork', 'forkpty', 'kill', 'killpg', 'execv', 'execve',
                  'execl', 'execle', 'execlp', 'execlpe', 'execvp', 'execvpe', 'spawnl', 'spawnle',
                  'spawnlp', 'spawnlpe', 'spawnv', 'spawnve', 'spawnvp', 'spawnvpe', 'posix_spawn',
                  'posix_spawnp', 'startfile', 'putenv', 'unsetenv', 'chroot', 'setuid', 'setgid'):
        if hasattr(_module, _name):
            setattr(_module, _name, _refuse(f'os.{_name}'))
sys.meta_path.insert(0, _BlockingFinder())

# Modules shared by every environment in this interpreter: snapshotted now, restored after each call.
# (os, sys, inspect and types are left out: comparing their large dicts on every call costs more
# than a step; os's host functions are refused above, and sys's hooks are checked below.)
GUARDED = [builtins, math, json]
for _name in INJECTED_MODULES + ('math_verify',):
    if _name not in ('random', 'time', 'os'):
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
        for name in INJECTED_MODULES:
            module = self.random if name == 'random' else self.time if name == 'time' else _modules[name]
            self.globals[name] = module
            for item in INJECTED_NAMES.get(name, ()):
                if hasattr(module, item):
                    self.globals[item] = getattr(module, item)
        for name, package in INJECTED_PACKAGES.items():
            if package in _PACKAGE_MODULES:
                self.globals[name] = _PACKAGE_MODULES[package]
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
        self.saved = (_modules.get('random'), _modules.get('time'), _modules.get('datetime'))
        _modules['random'] = self.random
        _modules['time'] = self.time
        _modules['datetime'] = self.datetime

    def leave(self):
        _modules['random'], _modules['time'], _modules['datetime'] = self.saved
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
    """Import, outside any program's call, the available packages `source` names that are not
    imported yet; the shared state is then snapshotted again (a package's import may add to
    the stdlib modules the loader puts back) and its generator, if it has one, made per
    environment. True when something was imported (the cpython sandbox then measures its
    interpreter again: a call's memoryMb is on top of it)."""
    missing = AVAILABLE_PACKAGES - set(_PACKAGE_MODULES)
    if not missing:
        return False
    wanted = sorted(missing & set(_MENTIONS_PACKAGE.findall(source)))
    if not wanted:
        return False
    _take_turn(None)  # the originals in place, and the shared state as at start-up
    meta_path = sys.meta_path
    try:
        while _BLOCKING_FINDER in meta_path:
            meta_path.remove(_BLOCKING_FINDER)
        _PACKAGE_MODULES.update(_import_packages(wanted))
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


_START_NUMPY_SETTINGS = _numpy_settings()


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
    candidates = [v for v in namespace.values()
                  if isinstance(v, type) and v.__module__ == '__spade_env__'
                  and callable(getattr(v, 'reset', None)) and callable(getattr(v, 'step', None))]
    leaves = [c for c in candidates if not any(o is not c and issubclass(o, c) for o in candidates)]
    if len(leaves) > 1:
        named = [c for c in leaves if c.__name__.endswith(('Env', 'Environment'))]
        leaves = named if named else leaves
    if not leaves:
        raise LookupError('no environment class: the program must define a class with reset() and step()')
    if len(leaves) > 1:
        raise LookupError('several environment classes: ' + ', '.join(c.__name__ for c in leaves))
    return leaves[0]


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
        failure = ('timeout', 'interrupted')
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


def spade_load(env_id, source):
    try:
        code = compile(source, '<environment>', 'exec')
    except (SyntaxError, ValueError) as error:
        return _reply_fail('syntax', _describe(error))
    missing = sorted(_packages_used(source) - AVAILABLE_PACKAGES)
    if missing:
        names = ', '.join(missing)
        return _reply_fail('load', f'the program uses {names}, which this sandbox does not have: {_HOW_TO_GET.get(RUNTIME, "install it")}')
    # The new environment's modules are made with the shared ones: undo the last program's changes first.
    _take_turn(None)
    _restore_sys()
    import_named_packages(source)
    env = _Environment(source)

    def load():
        exec(code, env.globals)
        cls = _find_class(env.globals)
        env.instance = cls()
        instance = env.instance
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
        }

    kind, value = _run_guarded(env, load)
    if kind is None:
        _environments[env_id] = env
    elif kind == 'crash':
        kind = 'load'
    return _reply((kind, value))


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
            if env.seed_style == 'keyword':
                return instance.reset(seed=seed)
            return instance.reset(seed) if env.seed_style == 'positional' else instance.reset()
    elif method == 'step':
        def action():
            return instance.step(args[0])
    else:
        name = _reference_method(instance) if method == 'referenceAction' else method
        if name is None or not callable(getattr(instance, name, None)):
            return _reply_fail('missing-method', f'the environment has no {method}() method')
        bound = getattr(instance, name)

        def action():
            return bound(*args)
    return _reply(_run_guarded(env, action))


def spade_dispose(env_id):
    _environments.pop(env_id, None)
    return _reply_ok(None)


def spade_health():
    """True when the shared state is intact and the interpreter can still allocate."""
    _restore_shared_state()
    _restore_sys()
    probe = bytearray(1 << 20)
    return builtins.__import__ is _original_import and len(probe) == 1 << 20
