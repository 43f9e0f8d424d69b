"""
The Python side of the cpython sandbox: the zygote, the first process of the bubblewrap jail
(its pid 1), and the processes it forks, one per environment.

    prlimit ... bwrap --as-pid-1 --seccomp 3 ... -- /usr/bin/python3 -s -B /spade/server.py HARD_MEMORY_MB [EXTRA_PYTHON_PATH...]

The zygote runs the loader shared with the pyodide sandbox (/spade/loader.py), which imports
numpy now and networkx and sympy when a program first names them (in the zygote, before that
program's process is forked), and never runs program code itself. Each environment is a
process of its own, forked from the zygote for its load and killed at its dispose; SPADE's
validation of a program gets a process of its own too. Whatever a program changes (modules,
caches, generators, hooks, its frames, /tmp) is gone with its process: no other environment,
later or beside it, can see it.

Each environment's process, before any program code runs (set-up in _confine):
  - its own mount namespace, with its own /tmp (a tmpfs of TMP_BYTES and TMP_INODES inodes)
    and an empty /proc: no other process's memory or files, no other environment's /tmp;
  - no capability (the zygote's CAP_SYS_ADMIN, which it keeps for these mounts only, is dropped),
    not dumpable, and the environment filter (seccomp_filters.py) on top of the jail's: no new
    process or thread, no program started, no signal sent, no socket, no mount;
  - no foreign-function interface: the zygote never loads ctypes or cffi (its own system calls
    are spade_confine's, confine.c), and their files are not in the jail (jail.ts);
  - hard limits: no new process, 64 open files, 8 MiB per file, no core dump, address space of
    the interpreter + HARD_MEMORY_MB; per call, the interpreter + the call's memoryMb;
  - file descriptors 0-2 are /dev/null; its requests and replies go over two pipes of its own
    to the zygote (fds 3 and 4). A program that reads or writes them reaches only its own
    environment's calls: the zygote frames, numbers and times every reply.

File descriptors of the zygote, all pipes set up by the host (never sockets):
    0  requests from the host    1  replies to the host    2  diagnostics (start-up errors)
Host to zygote, a frame: a 4-byte little-endian length, then that many bytes of UTF-8 JSON:
    {"id", "op": "load", "env", "source", "limits": {"memoryMb", "maxOutputBytes"}, "timeoutMs", "maxTurns"?}
    {"id", "op": "call", "env", "method", "args", "limits": {...}, "timeoutMs"}
    {"id", "op": "dispose", "env"}
    {"id", "op": "spade-validate", "source", "limits": {...}, "timeoutMs"}   (SPADE's own validation; keeps nothing)
Zygote to host: a 4-byte length, a 4-byte request id, then the reply's JSON text: the loader's
{"ok": true, "value"} or {"ok": false, "kind", "message"}, as an environment's process wrote it
(so the host checks it), or the zygote's own {"ok": false, "kind", "message", "ended": true}
when that process ended or was killed (wall time, memory, a broken reply). Before the first
request, id 0 carries {"ready": true, ...facts}.

A call's time limit is enforced here (the environment's process is killed, not the jail), on the
CPU time it takes, with a wall-time ceiling (_exchange); the host kills the whole jail if the
zygote itself stops answering.
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
import errno
import gc
import importlib.machinery
import importlib.util
import io
import json
import resource
import select
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

MIB = 1024 * 1024
MAX_REQUEST_BYTES = 64 * MIB
MAX_REPLY_BYTES = 32 * MIB
# After a reply, how long to keep looking for the next request before sleeping until it comes.
SPIN_SECONDS = 0.0002
# Address space a call may use on top of the interpreter's own, besides its memoryMb.
SLACK_MB = 16
# Each environment's /tmp.
TMP_BYTES = 16 * MIB
TMP_INODES = 1024
# A call's limit is on its CPU time; one that waits without computing is stopped after WALL_FACTOR
# times its limit in wall time (at least the limit + WALL_SLACK_SECONDS): see _exchange.
WALL_FACTOR = 10
WALL_SLACK_SECONDS = 5
# A call whose process grew within this much of its memory allowance ran out of memory.
MEMORY_MARGIN = 8 * MIB

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

# The shared loader, in its own namespace with its own copy of the builtins (it imports numpy now).
_loader = {'__name__': 'spade_loader', '__builtins__': dict(builtins.__dict__), 'SPADE_RUNTIME': 'cpython'}
with open(os.path.join(_SERVER_DIR, 'loader.py'), encoding='utf-8') as _file:
    exec(compile(_file.read(), os.path.join(_SERVER_DIR, 'loader.py'), 'exec'), _loader)
_spade_load, _spade_call = _loader['spade_load'], _loader['spade_call']
_spade_validate = _loader['spade_validate']
_spade_repair_braces = _loader['spade_repair_braces']
_import_named_packages = _loader['import_named_packages']
_prepare_process = _loader['prepare_process_environment']



def _address_space():
    with open('/proc/self/statm', 'rb') as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def _write_all(fd, data):
    view = _memoryview(data)
    while view:
        view = view[_write(fd, view):]


def _send_host(request_id, body):
    _write_all(1, _HEADER.pack(_len(body), request_id) + body)


class _Frames:
    """Length-prefixed frames from a non-blocking fd: polled for `spin` seconds, then waited for."""

    def __init__(self, fd, header=_LENGTH, limit=MAX_REQUEST_BYTES, spin=SPIN_SECONDS):
        self.fd, self.header, self.limit, self.spin = fd, header, limit, spin
        self.buffer = b''
        os.set_blocking(fd, False)
        self._poller = select.poll()
        self._poller.register(fd, select.POLLIN)
        self._clock = time.perf_counter

    def next(self, deadline=None):
        """(header fields, body) of the next frame; None at end of file or past a frame's limit;
        'timeout' when `deadline` (a perf_counter time) passes first."""
        size_of = self.header.size
        while True:
            if _len(self.buffer) >= size_of:
                fields = self.header.unpack_from(self.buffer)
                if fields[0] > self.limit:
                    return None
                end = size_of + fields[0]
                if _len(self.buffer) >= end:
                    body, self.buffer = self.buffer[size_of:end], self.buffer[end:]
                    return fields, body
            chunk = self._read(deadline)
            if chunk == 'timeout' or not chunk:
                return chunk or None
            self.buffer += chunk

    def _read(self, deadline):
        spin_until = self._clock() + self.spin
        while True:
            try:
                return _read(self.fd, 1 << 16)
            except BlockingIOError:
                now = self._clock()
                if now <= spin_until:
                    continue
                if deadline is None:
                    self._poller.poll()
                elif now >= deadline:
                    return 'timeout'
                else:
                    self._poller.poll(max(1, int((deadline - now) * 1000) + 1))


# ---------------------------------------------------------------------------------------------
# An environment's process: set up before any program code, then serve its calls.
# ---------------------------------------------------------------------------------------------
def _confine(requests_fd, replies_fd):
    """Make this freshly forked process an environment's: see the module's docstring."""
    # Nothing of the zygote's: 0-2 are /dev/null, 3 and 4 its own pipes.
    null = os.open('/dev/null', os.O_RDWR)
    os.dup2(requests_fd, 3)
    os.dup2(replies_fd, 4)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(5, 1 << 16)
    baseline = _address_space()
    _isolate(_TMP_OPTIONS)  # its own mount namespace, /tmp and empty /proc; working folder /tmp; no capability
    hard = baseline + HARD_MEMORY_MB * MIB
    for limit, value in ((resource.RLIMIT_NPROC, 1), (resource.RLIMIT_NOFILE, 64), (resource.RLIMIT_FSIZE, 8 * MIB),
                         (resource.RLIMIT_CORE, 0), (resource.RLIMIT_AS, hard)):
        _setrlimit(limit, (value, value))
    _add_seccomp(_ENVIRONMENT_BPF)
    return baseline, hard


def _serve_environment(first, baseline, hard):
    """Answer the zygote's requests (`first`, then those on fd 3) until it kills this process."""
    requests = _Frames(3, header=_HEADER, spin=0)
    memory_now = hard
    request, sequence = first
    while True:
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
        _write_all(4, _HEADER.pack(_len(data), sequence) + data)
        frame = requests.next()
        if frame is None:
            _exit(0)
        (_size, sequence), body = frame
        request = _loads(body)


# ---------------------------------------------------------------------------------------------
# The zygote.
# ---------------------------------------------------------------------------------------------
class _Child:
    """An environment's process, as the zygote sees it."""

    def __init__(self, pid, requests_fd, replies_fd):
        self.pid, self.requests_fd = pid, requests_fd
        self.replies = _Frames(replies_fd, header=_HEADER, limit=MAX_REPLY_BYTES, spin=0)
        self.sequence = 0
        self.hard_memory = None
        self.schedstat = None  # fd of its /proc/PID/schedstat, once read

    def close(self):
        try:
            _kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for fd in (self.requests_fd, self.replies.fd, self.schedstat):
            if fd is None:
                continue
            try:
                _close(fd)
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


def _fail(kind, message):
    """The zygote's own reply when an environment's process ended (`ended`: its next call needs a new one)."""
    return _dumps({'ok': False, 'kind': kind, 'message': message, 'ended': True}).encode()


def _address_space_of(pid):
    try:
        with open(f'/proc/{pid}/statm', 'rb') as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return None


def _cpu_seconds(child):
    """The CPU time `child`'s process has had so far (the scheduler's account, in ns, read
    through a file kept open), or None where the kernel does not keep it."""
    try:
        if child.schedstat is None:
            child.schedstat = os.open(f'/proc/{child.pid}/schedstat', os.O_RDONLY | os.O_CLOEXEC)
        return int(os.pread(child.schedstat, 64, 0).split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def wall_ceiling(limit):
    """The wall time, in seconds, after which a call is stopped even if it took little CPU time
    (it waits on something that never comes). python/environment.ts's wallCeilingMs says the same."""
    return max(limit * WALL_FACTOR, limit + WALL_SLACK_SECONDS)


def _exchange(child, request_body, timeout_ms, memory_mb, baseline):
    """Send one request to `child` (None: the one it was forked with) and wait for its reply: the
    reply's bytes, or the failure the zygote gives when the process ran past its time, died or
    broke the protocol (it is then ended).

    The limit is on the CPU time the call takes, not on wall time: on a busy machine an honest
    call may wait for a CPU much longer than it runs. When the limit has passed in wall time, the
    call goes on for as long as it has not used the limit in CPU time, up to wall_ceiling()."""
    child.sequence += 1
    limit = timeout_ms / 1000
    cpu_at_start = _cpu_seconds(child)
    if request_body is not None:
        try:
            _write_all(child.requests_fd, _HEADER.pack(_len(request_body), child.sequence) + request_body)
        except OSError:
            pass  # it died: its reply pipe says so
    started = time.perf_counter()
    ceiling = started + wall_ceiling(limit)
    deadline = started + limit
    while True:
        frame = child.replies.next(deadline)
        if frame != 'timeout':
            break
        now = time.perf_counter()
        cpu = _cpu_seconds(child)
        used = None if cpu is None or cpu_at_start is None else cpu - cpu_at_start
        if used is not None and used < limit and now < ceiling:
            deadline = min(ceiling, now + (limit - used))  # it waited for a CPU: the rest of its limit
            continue
        size = _address_space_of(child.pid)
        _end(child)
        if size is not None and memory_mb is not None and size - baseline >= memory_mb * MIB - MEMORY_MARGIN:
            return _fail('memory', f'the environment reached its memory limit of {memory_mb} MiB and ran on past its time limit of {timeout_ms} ms')
        if used is not None and used < limit:
            return _fail('timeout', f'the call took {(now - started) * 1000:.0f} ms of wall time and little CPU time (waiting on something that never came), past its limit of {timeout_ms} ms')
        return _fail('timeout', f'the call ran past its time limit of {timeout_ms} ms (CPU time)')
    if frame is None:
        _end(child)
        return _fail('crash', "the environment's process ended during the call")
    (_size, sequence), body = frame
    if sequence != child.sequence:
        _end(child)
        return _fail('crash', "the environment's process wrote on its reply pipe out of turn")
    return body


def _fork_environment():
    """A new environment's process, confined and waiting for its first request (None in the zygote's child)."""
    requests_read, requests_write = os.pipe()
    replies_read, replies_write = os.pipe()
    pid = _fork()
    if pid == 0:
        try:
            baseline, hard = _confine(requests_read, replies_write)
        except BaseException as error:  # the jail could not be set up: say so, run nothing
            message = _dumps({'ok': False, 'kind': 'crash', 'message': f"the environment's process could not be confined: {error}"}).encode()
            for fd in (4, replies_write):
                try:
                    _write_all(fd, _HEADER.pack(_len(message), 1) + message)
                    break
                except OSError:
                    pass
            _exit(70)
        frame = _Frames(3, header=_HEADER, spin=0).next()
        if frame is None:
            _exit(0)
        (_size, sequence), body = frame
        _serve_environment((_loads(body), sequence), baseline, hard)
        _exit(0)
    _close(requests_read)
    _close(replies_write)
    return _Child(pid, requests_write, replies_read)


class _Spare:
    """The next environment's process, forked and confined ahead of its load (after the zygote
    answered the host, while the host reads the answer): a load then only runs the program."""

    child = None

    @classmethod
    def take(cls):
        child, cls.child = cls.child, None
        return child if child is not None else _fork_environment()

    @classmethod
    def refill(cls):
        if cls.child is None:
            cls.child = _fork_environment()

    @classmethod
    def discard(cls):
        if cls.child is not None:
            _end(cls.child)
            cls.child = None


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
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the file-size limit fails (EFBIG) instead of killing
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a dead environment's pipe is an error, not the zygote's end
    _prepare_process()
    gc.collect()
    gc.freeze()  # what start-up made is never garbage: a child's collections skip it (and leave its pages shared)
    baseline = _address_space()
    _send_host(0, _dumps(_facts(baseline)).encode())
    _Spare.refill()

    requests = _Frames(0)
    while True:
        frame = requests.next()
        if frame is None:
            _exit(0)
        (_size,), body = frame
        request = _loads(body)
        request_id = request['id']
        op = request['op']
        _reap()
        limits = request.get('limits') or {}
        timeout_ms = request.get('timeoutMs', 10_000)
        if op in ('load', 'spade-validate', 'repair-braces'):
            if _import_named_packages(request['source']):
                _Spare.discard()  # forked without the package
                _prepare_process()  # networkx or sympy were just imported: part of every later process
                gc.freeze()
                baseline = _address_space()
            child = _Spare.take()
            reply = _exchange(child, body, timeout_ms, limits.get('memoryMb'), baseline)
            if op == 'load' and child.pid not in _zombies and reply.startswith(b'{"ok": true'):
                previous = _children.pop(request['env'], None)
                if previous is not None:
                    _end(previous)
                _children[request['env']] = child
            elif child.pid not in _zombies:
                _end(child)
        elif op == 'call':
            child = _children.get(request['env'])
            if child is None:
                reply = _fail('crash', f"environment {request['env']} has no process (it ended with an earlier call)")
            else:
                reply = _exchange(child, body, timeout_ms, limits.get('memoryMb'), baseline)
                if child.pid in _zombies:
                    _children.pop(request['env'], None)
                elif reply.startswith(b'{"ok": false, "kind": "memory"'):
                    # A MemoryError can leave an interpreter half-broken: the environment's next call gets a fresh process.
                    _end(_children.pop(request['env']))
                    reply = reply[:-1] + b', "ended": true}'
        else:  # dispose
            child = _children.pop(request['env'], None)
            if child is not None:
                _end(child)
            reply = b'{"ok": true, "value": null}'
        _send_host(request_id, reply)
        if op in ('load', 'spade-validate', 'repair-braces'):
            _Spare.refill()



if __name__ == '__main__':
    main()
