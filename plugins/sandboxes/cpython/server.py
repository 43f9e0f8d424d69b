"""
The Python side of the cpython sandbox: one long-lived interpreter inside the bubblewrap jail.

    bwrap ... -- /usr/bin/python3 -s -B /spade/server.py HARD_MEMORY_MB [EXTRA_PYTHON_PATH...]

It runs the loader shared with the pyodide sandbox (/spade/loader.py), which imports numpy once
now and networkx and sympy once, when the first program that names them is loaded, then serves
load / call / dispose requests one at a time. Each
environment gets a fresh interpreter state from the loader (its own globals, builtins, random,
time and datetime; numpy's and random's generators kept per environment), exactly as in the
pyodide sandbox; the jail and the limits below are what hold a program that gets past the loader.

File descriptors, all pipes set up by the host (never sockets):
    0  requests from the host    1  replies to the host    2  diagnostics (start-up errors)
Every message is a frame: a 4-byte little-endian length, then that many bytes of UTF-8 JSON.
    {"id", "op": "load", "env", "source", "limits": {"memoryMb", "maxOutputBytes"}}
    {"id", "op": "call", "env", "method", "args", "limits": {...}}
    {"id", "op": "dispose", "env"}
    {"id", "op": "spade-validate", "source", "limits": {...}}   (SPADE's own validation; keeps nothing)
Replies are the loader's, with the request's id: {"id", "ok": true, "value"} or
{"id", "ok": false, "kind", "message"}. Before the first request it sends {"ready": true, ...facts}.

Limits, set before any program runs and lowered only:
  - hard: no new process or thread (the process limit is already reached), 64 open files,
    8 MiB per file, no core dump, address space at most the interpreter + HARD_MEMORY_MB;
  - per call: address space at most the interpreter + the call's memoryMb (a soft limit, like
    the pyodide sandbox's per-call heap cap); printed output counted against maxOutputBytes.
Wall time is not enforced here: the host kills the whole sandbox (its PID namespace) when a call
runs past its limit, which also stops a loop inside C code that never checks for signals.
"""
import os
import sys

_SERVER_DIR = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or '.') == _SERVER_DIR:
    del sys.path[0]  # server.py and loader.py are not importable by programs
HARD_MEMORY_MB = int(sys.argv[1])
sys.path[:0] = [os.path.join(_SERVER_DIR, 'lib')] + sys.argv[2:]  # math_verify, then extra folders

import builtins
import ctypes
import gc
import io
import json
import resource
import select
import signal
import struct
import time

_started = time.perf_counter()

# Private references: the loader refuses some of these to programs, and a program may replace
# builtins in the interpreter's builtins module, which would otherwise corrupt the replies.
_read, _write, _closerange, _exit = os.read, os.write, os.closerange, os._exit
_dumps, _loads = json.dumps, json.loads
_LENGTH = struct.Struct('<I')
_len, _isinstance, _str, _bytes, _memoryview = len, isinstance, str, bytes, memoryview
_setrlimit, _RLIMIT_AS = resource.setrlimit, resource.RLIMIT_AS

MIB = 1024 * 1024
MAX_REQUEST_BYTES = 64 * MIB
# After a reply, how long to keep looking for the next request before sleeping until it comes:
# the next call of an episode usually follows within this, and waking a sleeping process costs
# as much again as the pipe itself on a virtual machine.
SPIN_SECONDS = 0.0002
# Address space a call may use on top of the interpreter's own, besides its memoryMb (the
# loader's per-environment modules, compiling a program).
SLACK_MB = 16


class _Output(io.TextIOBase):
    """sys.stdout and sys.stderr: printed text is counted and dropped (the host's limit is
    maxOutputBytes per call); before the first request, stderr goes to fd 2 (start-up errors)."""

    counting = False
    count = 0

    def __init__(self, forward=False):
        self._forward = forward
        self.buffer = self

    @property
    def encoding(self):
        return 'utf-8'

    def writable(self):
        return True

    def write(self, text):
        if _Output.counting:
            _Output.count += _len(text.encode('utf-8', 'replace')) if _isinstance(text, _str) else _len(text)
        elif self._forward:
            try:
                _write(2, text.encode('utf-8', 'replace') if _isinstance(text, _str) else _bytes(text))
            except OSError:
                pass
        return _len(text)

    def flush(self):
        pass


sys.stdout = _Output()
sys.stderr = _Output(forward=True)
sys.stdin = io.StringIO('')

# No other process of the sandbox may ptrace this one or read its memory (there is none: the
# process limit below forbids starting one; this is the second lock).
ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 0

# The shared loader, in its own namespace with its own copy of the builtins (it imports numpy now).
_loader = {'__name__': 'spade_loader', '__builtins__': dict(builtins.__dict__), 'SPADE_RUNTIME': 'cpython'}
with open(os.path.join(_SERVER_DIR, 'loader.py'), encoding='utf-8') as _file:
    exec(compile(_file.read(), os.path.join(_SERVER_DIR, 'loader.py'), 'exec'), _loader)
_spade_load, _spade_call, _spade_dispose = _loader['spade_load'], _loader['spade_call'], _loader['spade_dispose']
_spade_validate = _loader['spade_validate']
_import_named_packages = _loader['import_named_packages']
_loader['_fresh_module']('random')  # read random.py's code once


def _address_space():
    with open('/proc/self/statm', 'rb') as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def _write_all(fd, data):
    view = _memoryview(data)
    while view:
        view = view[_write(fd, view):]


def _send(data):
    _write_all(1, _LENGTH.pack(_len(data)) + data)


class _Requests:
    """Length-prefixed frames from fd 0 (non-blocking: polled for SPIN_SECONDS, then waited for)."""

    def __init__(self):
        self.buffer = b''
        os.set_blocking(0, False)
        self._poller = select.poll()
        self._poller.register(0, select.POLLIN)
        self._clock = time.perf_counter

    def next(self):
        """The next frame; None at end of file."""
        while True:
            if _len(self.buffer) >= 4:
                (size,) = _LENGTH.unpack_from(self.buffer)
                if size > MAX_REQUEST_BYTES:
                    return None
                if _len(self.buffer) >= 4 + size:
                    frame, self.buffer = self.buffer[4:4 + size], self.buffer[4 + size:]
                    return frame
            chunk = self._read()
            if not chunk:
                return None
            self.buffer += chunk

    def _read(self):
        deadline = self._clock() + SPIN_SECONDS
        while True:
            try:
                return _read(0, 1 << 16)
            except BlockingIOError:
                if self._clock() > deadline:
                    self._poller.poll()


def _facts(baseline):
    """What the host checks before it trusts this sandbox with a program."""
    status = dict(line.split(':', 1) for line in open('/proc/self/status').read().splitlines() if ':' in line)
    with open('/proc/net/dev') as net:
        interfaces = [line.split(':', 1)[0].strip() for line in net.read().splitlines()[2:]]
    try:
        with open(os.path.join(_SERVER_DIR, '.write-probe'), 'w') as probe:
            probe.write('probe')
        writable = True
    except OSError:
        writable = False
    return {
        'ready': True,
        'environmentVariables': sorted(os.environ),
        'networkInterfaces': [name for name in interfaces if name != 'lo'],
        'uid': os.getuid(),
        'capabilities': status.get('CapEff', '').strip(),
        'noNewPrivileges': status.get('NoNewPrivs', '').strip() == '1',
        'serverFolderWritable': writable,
        'limits': {name: resource.getrlimit(getattr(resource, name))[1] for name in ('RLIMIT_AS', 'RLIMIT_NPROC', 'RLIMIT_NOFILE', 'RLIMIT_FSIZE')},
        'baselineBytes': baseline,
        'packages': sorted(_loader['AVAILABLE_PACKAGES']),
        'python': sys.version.split()[0],
        'startMs': (time.perf_counter() - _started) * 1000,
    }


def main():
    _closerange(3, 1 << 16)  # nothing inherited beyond the three pipes
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the file-size limit fails (EFBIG) instead of killing
    gc.collect()
    gc.freeze()  # what start-up made is never garbage: full collections then skip it (a call is not held up by one)
    baseline = _address_space()
    hard_memory = baseline + HARD_MEMORY_MB * MIB
    for limit, value in ((resource.RLIMIT_NPROC, 1), (resource.RLIMIT_NOFILE, 64), (resource.RLIMIT_FSIZE, 8 * MIB),
                         (resource.RLIMIT_CORE, 0), (resource.RLIMIT_AS, hard_memory)):
        _setrlimit(limit, (value, value))
    _send(_dumps(_facts(baseline)).encode())

    requests = _Requests()
    memory_now = hard_memory
    while True:
        frame = requests.next()
        if frame is None:
            _exit(0)
        request = _loads(frame)
        op = request['op']
        loads = op in ('load', 'spade-validate')
        if loads and memory_now != hard_memory:
            _setrlimit(_RLIMIT_AS, (hard_memory, hard_memory))
            memory_now = hard_memory
        if loads and _import_named_packages(request['source']):
            gc.freeze()
            baseline = _address_space()  # networkx or sympy were just imported: part of the interpreter now
        limits = request.get('limits') or {}
        max_output = limits.get('maxOutputBytes', 65536)
        memory = min(hard_memory, baseline + (limits.get('memoryMb', 64) + SLACK_MB) * MIB) if op != 'dispose' else hard_memory
        if memory != memory_now:
            _setrlimit(_RLIMIT_AS, (memory, hard_memory))
            memory_now = memory
        _Output.count = 0
        _Output.counting = True
        if op == 'call':
            text = _spade_call(request['env'], request['method'], request['args'])
        elif op == 'load':
            text = _spade_load(request['env'], request['source'], request.get('maxTurns'))
        elif op == 'spade-validate':
            text = _spade_validate(request['source'])
        else:
            text = _spade_dispose(request['env'])
        _Output.counting = False
        if _Output.count > max_output:
            text = _dumps({'ok': False, 'kind': 'output-limit', 'message': f'printed {_Output.count} bytes, more than the limit of {max_output}'})
        elif _len(text) > 4 * max_output + 4096:
            text = _dumps({'ok': False, 'kind': 'output-limit', 'message': f'returned about {_len(text)} bytes, more than the limit of {max_output}'})
        try:
            # A load's reply also says how large the interpreter is (a call's memoryMb is on top of it).
            head = f'{{"id":{request["id"]},"baselineBytes":{baseline},' if loads else f'{{"id":{request["id"]},'
            data = (head + text[1:]).encode('utf-8', 'surrogatepass')
        except MemoryError:
            data = _dumps({'id': request['id'], 'ok': False, 'kind': 'memory', 'message': 'out of memory writing the reply'}).encode()
        _send(data)


if __name__ == '__main__':
    main()
