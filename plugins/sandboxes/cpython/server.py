"""
The Python side of the cpython sandbox: the zygote, the first process of the bubblewrap jail
(its pid 1), and the processes it forks, one per environment.

    prlimit ... bwrap --as-pid-1 --seccomp 3 ... -- /usr/bin/python3 -s -B /spade/server.py HARD_MEMORY_MB [EXTRA_PYTHON_PATH...]

The zygote runs the loader shared with the pyodide sandbox (/spade/loader.py), which imports
numpy, networkx and sympy when a program first names them (in the zygote, before that
program's process is forked), and never runs program code itself. Each environment is a
process of its own, forked from the zygote for its load and killed at its dispose; SPADE's
validation of a program gets a process of its own too. Whatever a program changes (modules,
caches, generators, hooks, its frames, /tmp) is gone with its process: no other environment,
later or beside it, can see it.

Each environment's process, before any program code runs (set-up in _confine):
  - its own mount namespace, with its own /tmp (a tmpfs of TMP_BYTES and TMP_INODES inodes,
    mounted over the zygote's) and an empty /proc: no other process's memory or files, no other
    environment's /tmp or channel;
  - no capability (the zygote's CAP_SYS_ADMIN, which it keeps for these mounts only, is dropped),
    not dumpable, and the environment filter (seccomp_filters.py) on top of the jail's: no new
    process or thread, no program started, no signal sent, no socket, no mount;
  - no foreign-function interface: the zygote never loads ctypes or cffi (its own system calls
    are spade_confine's, confine.c), and their files are not in the jail (jail.ts);
  - hard limits: no new process, 64 open files, 8 MiB per file, no core dump, address space of
    the interpreter + HARD_MEMORY_MB; per call, the interpreter + the call's memoryMb;
  - file descriptors 0-2 are /dev/null; fds 3 and 4 are its channel to the host: two FIFOs of
    its own, made by the zygote in its /tmp (the host's channel folder, bound there) and opened
    by the host, which unlinks them. A program that reads or writes them reaches only its own
    environment's calls: the host numbers every request and checks every reply.

File descriptors of the zygote, all pipes set up by the host (never sockets):
    0  requests from the host    1  replies to the host    2  diagnostics (start-up errors)
Host to zygote, a frame: a 4-byte little-endian length, then that many bytes of UTF-8 JSON:
    {"id", "op": "open", "env", "request"}   a process for environment `env` (its earlier one, if
                                             any, is ended), handed its first request (numbered
                                             1; the packages its "source" names are imported
                                             first). Its answer: {"ok": true, "value": {"channel",
                                             "pid", "baselineBytes"}}; the first request's reply
                                             comes on the channel
    {"id", "op": "dispose", "env"}           `env`'s process is killed
Zygote to host: a 4-byte length, a 4-byte request id, then the reply's JSON text. Before the
first request, id 0 carries {"ready": true, ...facts}.

Host to an environment's process, on its channel (fd 3): a 4-byte length, a 4-byte sequence
number, then the request's JSON; its reply (fd 4) has the same frame, with the request's number:
    {"op": "load", "source", "limits": {"memoryMb", "maxOutputBytes"}, "maxTurns"?}
    {"op": "call", "method", "args", "limits"}
    {"op": "spade-validate", "source", "limits", "resetGate"?}   (SPADE's own validation)
    {"op": "repair-braces", "source", "limits"}
The reply is the loader's {"ok": true, "value"} or {"ok": false, "kind", "message"}.

A call's time limit is enforced by the host (channel.ts), on the CPU time the call
takes with a wall-time ceiling: past it, the environment's process is killed (the host sends
SIGKILL to it and has the zygote dispose of it); the host kills the whole jail if the zygote
itself stops answering.
"""
import os
import sys

_SERVER_DIR = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or '.') == _SERVER_DIR:
    del sys.path[0]  # server.py and loader.py are not importable by programs
HARD_MEMORY_MB = int(sys.argv[1])
sys.path[:0] = [os.path.join(_SERVER_DIR, 'lib')] + sys.argv[2:]  # math_verify, then extra folders

# No foreign-function interface in the jail: with ctypes loaded here, every environment's process
# forked from the zygote would hold it, reachable by a program through object.__subclasses__() or
# a frame's globals. Packages that would import it (numpy does) get an ImportError and do without.
# The few system calls the zygote needs that Python lacks are spade_confine's (confine.c).
for _name in ('ctypes', '_ctypes', '_cffi_backend', 'cffi'):
    sys.modules[_name] = None

import builtins
import gc
import importlib.machinery
import importlib.util
import io
import json
import resource
import signal
import socket
import struct
import time

_started = time.perf_counter()

# Private references: the loader refuses some of these to programs, and a program may replace
# builtins in the interpreter's builtins module, which would otherwise corrupt the replies.
_read, _write, _close, _exit = os.read, os.write, os.close, os._exit
_fork, _kill, _waitpid, _WNOHANG = os.fork, os.kill, os.waitpid, os.WNOHANG
_dumps, _loads = json.dumps, json.loads
_LENGTH = struct.Struct('<I')
_HEADER = struct.Struct('<II')
_len, _isinstance, _str, _bytes, _memoryview = len, isinstance, str, bytes, memoryview
_setrlimit, _RLIMIT_AS = resource.setrlimit, resource.RLIMIT_AS
_PAGE_SIZE = resource.getpagesize()

MIB = 1024 * 1024
MAX_REQUEST_BYTES = 64 * MIB
# Address space a call may use on top of the interpreter's own, besides its memoryMb.
SLACK_MB = 16
# Each environment's /tmp.
TMP_BYTES = 16 * MIB
TMP_INODES = 1024
# Environments' processes forked ahead (see _Spares).
SPARES = 8
# Where the zygote makes each environment's channel (two FIFOs): its /tmp, the host's channel folder.
CHANNELS = '/tmp'


def _native_module():
    path = os.path.join(_SERVER_DIR, 'spade_confine.so')
    loader = importlib.machinery.ExtensionFileLoader('spade_confine', path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location('spade_confine', path, loader=loader))
    loader.exec_module(module)
    return module


_native = _native_module()
_undumpable, _isolate, _add_seccomp = _native.undumpable, _native.isolate, _native.seccomp
del _native


class _Output(io.TextIOBase):
    """sys.stdout and sys.stderr: printed text is counted and dropped (the host's limit is
    maxOutputBytes per call); in the zygote, before the first request, stderr goes to fd 2."""

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
            # Encoded strictly, as a real UTF-8 stdout (SPADE's) and Pyodide's encode it: a lone
            # surrogate raises UnicodeEncodeError in the program in every Python sandbox.
            _Output.count += _len(text.encode('utf-8')) if _isinstance(text, _str) else _len(text)
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

# The zygote is not dumpable: no process of the jail may open its memory through /proc.
_undumpable()

# The seccomp filter each environment's process adds to the jail's (libseccomp builds it; before the loader,
# which refuses the seccomp module to programs).
_filters = {'__name__': 'spade_seccomp_filters'}
with open(os.path.join(_SERVER_DIR, 'seccomp_filters.py'), encoding='utf-8') as _file:
    exec(compile(_file.read(), os.path.join(_SERVER_DIR, 'seccomp_filters.py'), 'exec'), _filters)


def _compiled(rules):
    """The BPF program libseccomp compiles for `rules` (once, here: each process only loads it)."""
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, 'wb') as out:
        rules.export_bpf(out)
    with os.fdopen(read_end, 'rb') as program:
        return program.read()


_ENVIRONMENT_BPF = _compiled(_filters['environment_filter']())
_TMP_OPTIONS = f'size={TMP_BYTES},nr_inodes={TMP_INODES},mode=0700'.encode()

# The shared loader, in its own namespace with its own copy of the builtins.
_loader = {'__name__': 'spade_loader', '__builtins__': dict(builtins.__dict__), 'SPADE_RUNTIME': 'cpython'}
with open(os.path.join(_SERVER_DIR, 'loader.py'), encoding='utf-8') as _file:
    exec(compile(_file.read(), os.path.join(_SERVER_DIR, 'loader.py'), 'exec'), _loader)
_spade_load, _spade_call = _loader['spade_load'], _loader['spade_call']
_spade_validate = _loader['spade_validate']
_spade_repair_braces = _loader['spade_repair_braces']
_import_named_packages = _loader['import_named_packages']
_prepare_process = _loader['prepare_process_environment']



def _address_space():
    # os.open rather than open(): in a freshly forked process, Python's file objects would copy
    # many of the zygote's pages for one small read.
    fd = os.open('/proc/self/statm', os.O_RDONLY | os.O_CLOEXEC)
    try:
        return int(_read(fd, 256).split()[0]) * _PAGE_SIZE
    finally:
        _close(fd)


def _frame(number, body):
    """A frame: a 4-byte length, a 4-byte number (a request's id or sequence number), the body."""
    return _HEADER.pack(_len(body), number) + body


def _write_all(fd, data):
    view = _memoryview(data)
    while view:
        view = view[_write(fd, view):]


class _Frames:
    """Length-prefixed frames read from a blocking fd (`header`: the length first)."""

    def __init__(self, fd, header):
        self.fd, self.header = fd, header
        self.buffer = b''

    def next(self):
        """(header fields, body) of the next frame; None at end of file or past MAX_REQUEST_BYTES."""
        size_of = self.header.size
        while True:
            if _len(self.buffer) >= size_of:
                fields = self.header.unpack_from(self.buffer)
                if fields[0] > MAX_REQUEST_BYTES:
                    return None
                end = size_of + fields[0]
                if _len(self.buffer) >= end:
                    body, self.buffer = self.buffer[size_of:end], self.buffer[end:]
                    return fields, body
            chunk = _read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk


# ---------------------------------------------------------------------------------------------
# An environment's process: set up before any program code, then serve its calls.
# ---------------------------------------------------------------------------------------------
def _confine(requests_fd, replies_fd):
    """Make this freshly forked process an environment's: see the module's docstring."""
    # Nothing of the zygote's: 0-2 are /dev/null, 3 and 4 its own channel (blocking: it only waits on it).
    null = os.open('/dev/null', os.O_RDWR)
    os.dup2(requests_fd, 3)
    os.dup2(replies_fd, 4)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(5, 1 << 16)
    os.set_blocking(3, True)
    os.set_blocking(4, True)
    baseline = _address_space()
    _isolate(_TMP_OPTIONS)  # its own mount namespace, /tmp and empty /proc; working folder /tmp; no capability
    hard = baseline + HARD_MEMORY_MB * MIB
    for limit, value in ((resource.RLIMIT_NPROC, 1), (resource.RLIMIT_NOFILE, 64), (resource.RLIMIT_FSIZE, 8 * MIB),
                         (resource.RLIMIT_CORE, 0), (resource.RLIMIT_AS, hard)):
        _setrlimit(limit, (value, value))
    _add_seccomp(_ENVIRONMENT_BPF)
    return baseline, hard


def _serve_environment(baseline, hard):
    """Answer the host's requests on fd 3, on fd 4, until the zygote kills this process (it
    keeps a write end of fd 3's FIFO: no end of file comes before)."""
    requests = _Frames(3, _HEADER)
    memory_now = hard
    while True:
        frame = requests.next()
        if frame is None:
            return
        (_size, sequence), body = frame
        request = _loads(body)
        op = request['op']
        limits = request.get('limits') or {}
        max_output = limits.get('maxOutputBytes', 65536)
        memory = min(hard, baseline + (limits.get('memoryMb', 64) + SLACK_MB) * MIB)
        if memory != memory_now:
            _setrlimit(_RLIMIT_AS, (memory, hard))
            memory_now = memory
        _Output.count = 0
        _Output.counting = True
        if op == 'call':
            text = _spade_call('env', request['method'], request['args'])
        elif op == 'load':
            text = _spade_load('env', request['source'], request.get('maxTurns'))
        elif op == 'repair-braces':
            text = _spade_repair_braces(request['source'])
        else:
            text = _spade_validate(request['source'], request.get('resetGate'))
        _Output.counting = False
        if _Output.count > max_output:
            text = _dumps({'ok': False, 'kind': 'output-limit', 'message': f'printed {_Output.count} bytes, more than the limit of {max_output}'})
        elif _len(text) > 4 * max_output + 4096:
            text = _dumps({'ok': False, 'kind': 'output-limit', 'message': f'returned about {_len(text)} bytes, more than the limit of {max_output}'})
        try:
            data = text.encode('utf-8', 'surrogatepass')
        except MemoryError:
            data = b'{"ok": false, "kind": "memory", "message": "out of memory writing the reply"}'
        _write_all(4, _frame(sequence, data))


def _refuse_requests(message):
    """A process that could not be confined runs nothing: it answers its first request with `message`."""
    try:
        frame = _Frames(3, _HEADER).next()
        if frame is not None:
            _write_all(4, _frame(frame[0][1], message))
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------
# The zygote.
# ---------------------------------------------------------------------------------------------
class _Child:
    """An environment's process, as the zygote sees it: its pid, its channel's name, and the
    zygote's own ends of its channel, kept while it lives: a write end of its request FIFO (its
    first request is written there; and it never reads an end of file before the host has opened
    the FIFO), and a read end of its reply FIFO (its writes never fail before the host reads)."""

    def __init__(self, pid, channel, requests_fd, replies_fd, baseline):
        self.pid, self.channel, self.baseline = pid, channel, baseline
        self.requests_fd, self.replies_fd = requests_fd, replies_fd
        self.handed = False  # to an environment: the host opens its FIFOs and unlinks them

    def close(self):
        try:
            _kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for fd in (self.requests_fd, self.replies_fd):
            try:
                _close(fd)
            except OSError:
                pass
        if not self.handed:  # a spare's FIFOs: no host opened them
            for end in ('in', 'out'):
                try:
                    os.unlink(f'{CHANNELS}/{self.channel}.{end}')
                except OSError:
                    pass


_children = {}  # environment id -> _Child
_zombies = set()


def _reap():
    for pid in list(_zombies):
        try:
            done, _status = _waitpid(pid, _WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _zombies.discard(pid)


def _end(child):
    child.close()
    _zombies.add(child.pid)


class _Channels:
    """Names of the environments' channels: c1, c2, ... (in a channel folder of this jail's own)."""

    made = 0

    @classmethod
    def make(cls):
        """A new channel's FIFOs: its name, the child's ends (requests' read end, replies' write
        end) and the zygote's (requests' write end, replies' read end)."""
        cls.made += 1
        name = f'c{cls.made}'
        requests, replies = f'{CHANNELS}/{name}.in', f'{CHANNELS}/{name}.out'
        os.mkfifo(requests, 0o600)
        os.mkfifo(replies, 0o600)
        flags = os.O_NONBLOCK | os.O_CLOEXEC
        requests_read = os.open(requests, os.O_RDONLY | flags)  # read ends first: a FIFO's write end needs a reader
        replies_read = os.open(replies, os.O_RDONLY | flags)
        requests_write = os.open(requests, os.O_WRONLY | flags)
        replies_write = os.open(replies, os.O_WRONLY | flags)
        return name, (requests_read, replies_write), (requests_write, replies_read)


def _fork_environment(baseline):
    """A new environment's process, confined and waiting for its first request on its channel."""
    name, (requests_read, replies_write), own = _Channels.make()
    try:
        pid = _fork()
    except OSError:
        for fd in (requests_read, replies_write, *own):
            _close(fd)
        raise
    if pid == 0:
        try:
            own_baseline, hard = _confine(requests_read, replies_write)
        except BaseException as error:  # the jail could not be set up: say so, run nothing
            _refuse_requests(_dumps({'ok': False, 'kind': 'crash', 'message': f"the environment's process could not be confined: {error}"}).encode())
            _exit(70)
        _serve_environment(own_baseline, hard)
        _exit(0)
    _close(requests_read)
    _close(replies_write)
    os.set_blocking(own[0], True)
    return _Child(pid, name, own[0], own[1], baseline)


class _Spares:
    """Environments' processes forked and confined ahead of their opens, SPARES at a time, once
    the zygote has answered the host: an environment then only runs its program.

    Forked in a row, because every fork makes the zygote's pages shared with the new process
    again, and the first write the zygote makes to each of them afterwards (a reference count,
    as it serves the next request) copies that page: forking them together, the zygote copies
    the pages its requests touch once for SPARES processes, rather than once for each."""

    ready = []

    @classmethod
    def take(cls, baseline):
        return cls.ready.pop(0) if cls.ready else _fork_environment(baseline)

    @classmethod
    def refill(cls, baseline):
        if cls.ready:
            return
        try:
            for _ in range(SPARES):
                cls.ready.append(_fork_environment(baseline))
        except OSError:
            pass  # the next open tries again, and says why if it fails

    @classmethod
    def discard(cls):
        while cls.ready:
            _end(cls.ready.pop())


def _facts(baseline):
    """What the host checks before it trusts this sandbox with a program."""
    status = dict(line.split(':', 1) for line in open('/proc/self/status').read().splitlines() if ':' in line)
    try:
        with open(os.path.join(_SERVER_DIR, '.write-probe'), 'w') as probe:
            probe.write('probe')
        writable = True
    except OSError:
        writable = False
    return {
        'ready': True,
        'environmentVariables': sorted(os.environ),
        'networkInterfaces': [name for _index, name in socket.if_nameindex() if name != 'lo'],
        'uid': os.getuid(),
        'pid': os.getpid(),
        # The zygote keeps CAP_SYS_ADMIN in the jail's user namespace (each environment's mounts), and nothing else.
        'capabilities': status.get('CapEff', '').strip(),
        'noNewPrivileges': status.get('NoNewPrivs', '').strip() == '1',
        'seccomp': status.get('Seccomp', '').strip(),
        'serverFolderWritable': writable,
        'limits': {name: resource.getrlimit(getattr(resource, name))[1] for name in ('RLIMIT_AS', 'RLIMIT_NOFILE', 'RLIMIT_FSIZE', 'RLIMIT_CORE')},
        'baselineBytes': baseline,
        'packages': sorted(_loader['AVAILABLE_PACKAGES']),
        'python': sys.version.split()[0],
        'startMs': (time.perf_counter() - _started) * 1000,
    }


def main():
    os.closerange(3, 1 << 16)  # nothing inherited beyond the three pipes
    os.set_blocking(0, True)  # the zygote only ever waits on the host's requests
    os.set_blocking(1, True)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the file-size limit fails (EFBIG) instead of killing
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a write to a channel nobody reads is an error, not the end
    _prepare_process()
    gc.collect()
    gc.freeze()  # what start-up made is never garbage: a child's collections skip it (and leave its pages shared)
    baseline = _address_space()
    _write_all(1, _frame(0, _dumps(_facts(baseline)).encode()))
    _Spares.refill(baseline)

    requests = _Frames(0, _LENGTH)
    while True:
        frame = requests.next()
        if frame is None:
            _exit(0)
        (_size,), body = frame
        request = _loads(body)
        op, env = request['op'], request['env']
        _reap()
        if op == 'open':
            first = request['request']
            source = first.get('source')
            if source is not None and _import_named_packages(source):
                _Spares.discard()  # forked without the package
                _prepare_process()  # a package was just imported: part of every later process
                gc.freeze()
                baseline = _address_space()
            previous = _children.pop(env, None)
            if previous is not None:
                _end(previous)
            try:
                child = _Spares.take(baseline)
            except OSError as error:
                reply = _dumps({'ok': False, 'kind': 'crash', 'message': f"no process for the environment: {error}"})
            else:
                child.handed = True
                _children[env] = child
                data = _dumps(first).encode()
                try:
                    _write_all(child.requests_fd, _frame(1, data))
                except OSError:
                    pass  # it died: the host finds its channel closed
                reply = _dumps({'ok': True, 'value': {'channel': child.channel, 'pid': child.pid, 'baselineBytes': child.baseline}})
        else:  # dispose
            child = _children.pop(env, None)
            if child is not None:
                _end(child)
            reply = '{"ok": true, "value": null}'
        _write_all(1, _frame(request['id'], reply.encode()))
        if op == 'open':
            _Spares.refill(baseline)


if __name__ == '__main__':
    main()
