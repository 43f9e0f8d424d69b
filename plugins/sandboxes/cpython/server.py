"""
The Python side of the cpython sandbox: a fork server that runs inside the bubblewrap jail.

    bwrap ... -- /usr/bin/python3 -s -B /spade/server.py SLOTS [EXTRA_PYTHON_PATH...]

It starts once per sandbox process: imports numpy, networkx and sympy and the loader shared with
the pyodide sandbox (/spade/loader.py) once, then forks one process per environment, so every
environment starts from the same warm, untouched interpreter and shares no state with another
(each has its own address space, its own numpy and random state, its own limits). One process is
always forked ahead as a spare: it has already paid for the pages every load writes to, so a
load costs about as much as in a long-lived interpreter (the fork happens between loads).

File descriptors, all pipes set up by the host (never sockets):
    0      control requests from the host     1  control events to the host
    2      diagnostics (start-up errors)
    3+2i   requests to slot i                 4+2i  replies from slot i
Every message is a frame: a 4-byte little-endian length, then that many bytes of UTF-8 JSON.

Control requests:
    {"op": "load", "id", "slot", "nonce", "source", "limits": {"memoryMb", "maxOutputBytes"}}
        fork an environment process on slot i: it loads the program and answers on its slot
    {"op": "dispose", "slot"}      kill the environment process on slot i
Control events:
    {"event": "ready", ...facts checked by the host}
    {"event": "forked", "id", "slot", "pid"}   {"event": "fork-failed", "id", "slot", "message"}
    {"event": "exit", "slot", "pid", "status"}   an environment process ended (and was reaped)

An environment process keeps only its own slot's two pipes (every other slot's are closed, so it
can neither read another environment's requests nor forge its replies), points 0-2 at /dev/null,
lowers its hard limits (address space, file size, open files, no new process or thread), writes
a sync marker carrying the load's nonce (so the host can skip whatever an earlier process left in
the pipe), then answers {"id", "method", "args"} requests with the loader's replies until killed.

Wall time is not enforced here: the host kills the whole sandbox (its PID namespace) when a call
runs past its limit, which also stops a loop inside C code that never checks for signals.
"""
import os
import sys

_SERVER_DIR = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or '.') == _SERVER_DIR:
    del sys.path[0]  # server.py and loader.py are not importable by programs
SLOTS = int(sys.argv[1])
sys.path[:0] = [os.path.join(_SERVER_DIR, 'lib')] + sys.argv[2:]  # math_verify, then extra folders

import builtins
import ctypes
import io
import json
import resource
import select
import signal
import struct
import time

_started = time.perf_counter()

# Private references to what the loader refuses to programs (os.fork, os.kill, ...): taken first.
_fork, _kill, _waitpid, _exit = os.fork, os.kill, os.waitpid, os._exit
_read, _write, _close, _closerange, _dup2, _open = os.read, os.write, os.close, os.closerange, os.dup2, os.open
_set_blocking, _getpid, _listdir = os.set_blocking, os.getpid, os.listdir
_dumps, _loads = json.dumps, json.loads
_LENGTH = struct.Struct('<I')
# And the builtins this file uses once a program has run: a program may replace them in the
# interpreter's builtins module, which would otherwise corrupt its replies.
_len, _isinstance, _str, _bytes, _memoryview, _int = len, isinstance, str, bytes, memoryview, int
_setrlimit = resource.setrlimit

MIB = 1024 * 1024
MAX_REQUEST_BYTES = 64 * MIB
# Address space an environment may use on top of the interpreter's own, besides its memoryMb:
# the program's code, its private builtins, random, time and datetime modules.
ENVIRONMENT_SLACK_MB = 16
FILE_SIZE_LIMIT = 8 * MIB
ENVIRONMENT_OPEN_FILES = 32
SYNC = b'\0SPADE-SYNC:'


class _Output(io.TextIOBase):
    """sys.stdout and sys.stderr: in an environment process, printed text is counted and dropped
    (the host fails a call that prints more than maxOutputBytes); in the server, stderr goes to fd 2."""

    counting = False
    count = 0

    def __init__(self, forward=None):
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
        elif self._forward is not None:
            try:
                self._forward(2, text.encode('utf-8', 'replace') if _isinstance(text, _str) else _bytes(text))
            except OSError:
                pass
        return _len(text)

    def flush(self):
        pass


sys.stdout = _Output()
sys.stderr = _Output(forward=_write)
sys.stdin = io.StringIO('')

# Nothing in this process (and so in no environment process) may be ptraced or have its memory
# read through /proc by another process of the sandbox: PR_SET_DUMPABLE = 0.
ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)

# The shared loader, in its own namespace with its own copy of the builtins. It imports the
# packages this interpreter has (numpy, networkx, sympy) once, here, before any fork.
_loader = {'__name__': 'spade_loader', '__builtins__': dict(builtins.__dict__), 'SPADE_RUNTIME': 'cpython'}
with open(os.path.join(_SERVER_DIR, 'loader.py'), encoding='utf-8') as _file:
    exec(compile(_file.read(), os.path.join(_SERVER_DIR, 'loader.py'), 'exec'), _loader)
_spade_load, _spade_call = _loader['spade_load'], _loader['spade_call']
_loader['_fresh_module']('random')  # read random.py's code once, here, for every environment

import gc

gc.collect()
gc.freeze()  # objects made so far are never collected, so forked processes do not copy their pages


def _write_all(fd, data):
    view = _memoryview(data)
    while view:
        view = view[_write(fd, view):]


def _send(fd, message):
    data = message if _isinstance(message, _bytes) else _dumps(message).encode()
    _write_all(fd, _LENGTH.pack(_len(data)) + data)


class _Frames:
    """Length-prefixed frames read from one pipe."""

    def __init__(self, fd):
        self.fd = fd
        self.buffer = b''

    def take(self):
        """The next complete frame in the buffer, or None."""
        if _len(self.buffer) < 4:
            return None
        (size,) = _LENGTH.unpack_from(self.buffer)
        if size > MAX_REQUEST_BYTES:
            raise ValueError('request too large')
        if _len(self.buffer) < 4 + size:
            return None
        frame, self.buffer = self.buffer[4:4 + size], self.buffer[4 + size:]
        return frame

    def fill(self):
        """Read what is there (blocking until something is); False at end of file."""
        chunk = _read(self.fd, 1 << 16)
        if not chunk:
            return False
        self.buffer += chunk
        return True

    def next(self):
        """The next frame, blocking; None at end of file."""
        while True:
            frame = self.take()
            if frame is not None:
                return frame
            if not self.fill():
                return None


def _status(value):
    return f'killed by signal {os.WTERMSIG(value)}' if os.WIFSIGNALED(value) else f'exited with code {os.waitstatus_to_exitcode(value)}'


def _address_space():
    with open('/proc/self/statm', 'rb') as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


# ---------------------------------------------------------------------------------------------
# One environment process
# ---------------------------------------------------------------------------------------------

def _environment_process(request):
    slot = request['slot']
    requests_fd, replies_fd = 3 + 2 * slot, 4 + 2 * slot
    null = _open('/dev/null', os.O_RDWR)
    for fd in (0, 1, 2):
        _dup2(null, fd)
    _closerange(3, requests_fd)
    _closerange(replies_fd + 1, 1 << 16)
    # Whatever an earlier process of this slot left unread is dropped (the host waits for the sync).
    _set_blocking(requests_fd, False)
    try:
        while _read(requests_fd, 1 << 16):
            pass
    except BlockingIOError:
        pass
    _set_blocking(requests_fd, True)
    _set_blocking(replies_fd, True)

    limits = request.get('limits') or {}
    max_output = int(limits.get('maxOutputBytes', 65536))
    memory = _address_space() + (int(limits.get('memoryMb', 64)) + ENVIRONMENT_SLACK_MB) * MIB
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the file-size limit fails (EFBIG) instead of killing
    for limit, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT),
                         (resource.RLIMIT_NOFILE, ENVIRONMENT_OPEN_FILES), (resource.RLIMIT_NPROC, 1),
                         (resource.RLIMIT_CORE, 0)):
        _setrlimit(limit, (value, value))

    def reply(request_id, text):
        if _Output.count > max_output:
            text = _dumps({'ok': False, 'kind': 'output-limit', 'message': f'printed {_Output.count} bytes, more than the limit of {max_output}'})
        elif _len(text) > 4 * max_output + 4096:
            text = _dumps({'ok': False, 'kind': 'output-limit', 'message': f'returned about {_len(text)} bytes, more than the limit of {max_output}'})
        _Output.count = 0
        try:
            data = (f'{{"id":{request_id},' + text[1:]).encode('utf-8', 'surrogatepass')
        except MemoryError:
            data = _dumps({'id': request_id, 'ok': False, 'kind': 'memory', 'message': 'out of memory writing the reply'}).encode()
        _send(replies_fd, data)

    _Output.counting = True
    _write_all(replies_fd, SYNC + request['nonce'].encode() + b'\0')
    loaded = _spade_load('env', request['source'])
    reply(request['id'], loaded)
    del request
    if not loaded.startswith('{"ok": true'):
        _exit(0)
    frames = _Frames(requests_fd)
    while True:
        frame = frames.next()
        if frame is None:
            _exit(0)
        message = _loads(frame)
        reply(message['id'], _spade_call('env', message['method'], message['args']))


_WARM_UP = ('class WarmUpEnv:\n    def reset(self, seed=None):\n        return "", {}\n\n'
            '    def step(self, action):\n        return "", 0.0, True, False, {}\n')


def _spare_process(orders_fd):
    """A process forked before it is needed: it loads and drops a trivial program, which copies
    the pages every load writes to (a forked process pays for each page it first writes), then
    waits for the load request it will serve as an environment process."""
    _spade_load('warm-up', _WARM_UP)
    _loader['spade_dispose']('warm-up')
    frame = _Frames(orders_fd).next()
    if frame is None:
        _exit(0)
    _environment_process(_loads(frame))


def _fork_spare():
    """(pid, fd to send it its load request), or None if no process can be started now."""
    orders_read, orders_write = os.pipe()
    try:
        pid = _fork()
    except OSError:
        _close(orders_read)
        _close(orders_write)
        return None
    if pid == 0:
        try:
            _close(orders_write)
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _spare_process(orders_read)
        finally:
            _exit(70)
    _close(orders_read)
    return pid, orders_write


# ---------------------------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------------------------

def _facts():
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
        'event': 'ready',
        'environmentVariables': sorted(os.environ),
        'networkInterfaces': [name for name in interfaces if name != 'lo'],
        'uid': os.getuid(),
        'capabilities': status.get('CapEff', '').strip(),
        'noNewPrivileges': status.get('NoNewPrivs', '').strip() == '1',
        'serverFolderWritable': writable,
        'packages': sorted(_loader['AVAILABLE_PACKAGES']),
        'python': sys.version.split()[0],
        'startMs': (time.perf_counter() - _started) * 1000,
    }


def _sweep(live, spare):
    """Kill any process of the sandbox that is not the server, the spare or a live environment
    process. (An environment cannot start one: its process limit is reached. This is the second lock.)"""
    keep = {1, _getpid(), *live.values(), *(spare[:1] if spare else ())}
    for name in _listdir('/proc'):
        if name.isdigit() and int(name) not in keep:
            try:
                _kill(int(name), signal.SIGKILL)
            except OSError:
                pass


def main():
    live = {}  # slot -> pid of its environment process
    _closerange(3 + 2 * SLOTS, 1 << 16)  # anything inherited past the slots' pipes
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    for limit, value in ((resource.RLIMIT_NPROC, SLOTS + 4), (resource.RLIMIT_NOFILE, 3 + 2 * SLOTS + 32),
                         (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT), (resource.RLIMIT_CORE, 0)):
        _setrlimit(limit, (value, value))
    _send(1, _facts())
    spare = _fork_spare()

    control = _Frames(0)
    poller = select.poll()
    poller.register(0, select.POLLIN)
    poller.register(wake_read, select.POLLIN)
    while True:
        for fd, _events in poller.poll():
            if fd == wake_read:
                try:
                    while _read(wake_read, 512):
                        pass
                except BlockingIOError:
                    pass
                continue
            if not control.fill():
                for pid in [*live.values(), *(spare[:1] if spare else ())]:
                    _kill(pid, signal.SIGKILL)
                _exit(0)
            while (frame := control.take()) is not None:
                request = _loads(frame)
                slot = request['slot']
                if request['op'] == 'dispose':
                    if slot in live:
                        _kill(live[slot], signal.SIGKILL)
                    continue
                # The spare serves this load; without one, a process is forked for it now.
                pid = None
                if spare is not None:
                    pid, orders = spare
                    spare = None
                    try:
                        _send(orders, frame)
                    except OSError:
                        pid = None
                    _close(orders)
                if pid is None:
                    try:
                        pid = _fork()
                    except OSError as error:
                        _send(1, {'event': 'fork-failed', 'id': request['id'], 'slot': slot, 'message': str(error)})
                        continue
                    if pid == 0:
                        try:
                            signal.set_wakeup_fd(-1)
                            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                            _environment_process(request)
                        finally:
                            _exit(70)
                live[slot] = pid
                _send(1, {'event': 'forked', 'id': request['id'], 'slot': slot, 'pid': pid})
        # Reap every process that ended, and tell the host of environment processes.
        while True:
            try:
                pid, status = _waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if spare is not None and spare[0] == pid:
                _close(spare[1])
                spare = None
            for slot, owner in list(live.items()):
                if owner == pid:
                    del live[slot]
                    _send(1, {'event': 'exit', 'slot': slot, 'pid': pid, 'status': _status(status)})
                    _sweep(live, spare)
        if spare is None and len(live) < SLOTS:
            spare = _fork_spare()


if __name__ == '__main__':
    main()
