"""
Measures, inside the cpython sandbox's jail, the two ways of keeping environments apart
(run by perf/cpython-isolation.bench.ts; not part of the sandbox):

  costs          after importing numpy, networkx, sympy and the shared loader once, the cost per
                 environment of (a) a fresh process: fork, load, reset, step, exit, reap; and
                 (b) a fresh interpreter state in this process: load, reset, step, dispose.
                 Prints one JSON line.
  echo           answers length-prefixed frames on fds 0/1 itself (a direct pipe to the host).
  relay          forks a child that answers frames on pipes of its own; this process relays each
                 request and reply (what a fork server pays when the host talks only to it).
"""
import json
import os
import struct
import sys
import time

LENGTH = struct.Struct('<I')
REPLY = json.dumps({'ok': True, 'value': ['o', 0.0, False, False, {}]})


class Frames:
    def __init__(self, fd):
        self.fd, self.buffer = fd, b''

    def next(self):
        while True:
            if len(self.buffer) >= 4:
                (size,) = LENGTH.unpack_from(self.buffer)
                if len(self.buffer) >= 4 + size:
                    frame, self.buffer = self.buffer[4:4 + size], self.buffer[4 + size:]
                    return frame
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                os._exit(0)
            self.buffer += chunk


def send(fd, data):
    os.write(fd, LENGTH.pack(len(data)) + data)


def answer(frame):
    request = json.loads(frame)
    return ('{"id":%d,' % request['id'] + REPLY[1:]).encode()


def echo(read_fd, write_fd):
    frames = Frames(read_fd)
    while True:
        send(write_fd, answer(frames.next()))


def relay():
    from_parent, to_child = os.pipe()
    from_child, to_parent = os.pipe()
    if os.fork() == 0:
        echo(from_parent, to_parent)
    host, child = Frames(0), Frames(from_child)
    while True:
        frame = host.next()
        send(to_child, frame)
        send(1, child.next())


def costs(count):
    loader_dir, program_file = sys.argv[2], sys.argv[3]
    sys.path.insert(0, os.path.join(loader_dir, 'lib'))
    import builtins
    import gc
    started = time.perf_counter()
    import numpy, networkx, sympy  # what a fork server would import once, before forking
    loader = {'__name__': 'spade_loader', '__builtins__': dict(builtins.__dict__), 'SPADE_RUNTIME': 'cpython'}
    with open(os.path.join(loader_dir, 'loader.py')) as file:
        fork, waitpid, exit_now = os.fork, os.waitpid, os._exit
        exec(compile(file.read(), 'loader.py', 'exec'), loader)
    start_ms = (time.perf_counter() - started) * 1000
    source = open(program_file).read()
    load, call, dispose = loader['spade_load'], loader['spade_call'], loader['spade_dispose']
    gc.collect()
    gc.freeze()

    def episode(env):
        assert load(env, source).startswith('{"ok": true')
        call(env, 'reset', [1])
        call(env, 'step', ['\\boxed{50}'])

    for i in range(20):  # warm-up
        episode(f'w{i}')
        dispose(f'w{i}')
    began = time.perf_counter()
    for i in range(count):
        pid = fork()
        if pid == 0:
            episode('e')
            exit_now(0)
        waitpid(pid, 0)
    process_ms = (time.perf_counter() - began) * 1000 / count
    began = time.perf_counter()
    for i in range(count):
        episode(f'n{i}')
        dispose(f'n{i}')
    state_ms = (time.perf_counter() - began) * 1000 / count
    print(json.dumps({'startMs': start_ms, 'processMs': process_ms, 'stateMs': state_ms,
                      'residentMb': int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE') / 2**20}))


if __name__ == '__main__':
    mode = sys.argv[1]
    if mode == 'echo':
        echo(0, 1)
    elif mode == 'relay':
        relay()
    else:
        costs(int(sys.argv[4]) if len(sys.argv) > 4 else 200)
