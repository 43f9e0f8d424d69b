"""
The seccomp filters of the cpython sandbox, built with Debian's libseccomp (python3-seccomp):
libseccomp writes the BPF program and its architecture check, so no byte of it is written here.

    jail_filter()         every process of the jail (bubblewrap loads it with --seccomp before
                          it starts the sandbox's first process): what no process in the jail has
                          a use for;
    environment_filter()  each environment's process adds it on top (filters stack and cannot be
                          removed) before any program code runs: what only the zygote needs,
                          and everything that would let one environment reach another.

Run as a script, it writes the jail's filter as a compiled BPF program to the file it is given
(the host hands that file to bubblewrap):

    /usr/bin/python3 seccomp_filters.py OUT.bpf

A denied call fails with EPERM (clone3 with ENOSYS, so C libraries fall back to clone, whose
flags the filter can read); a call of another architecture (32-bit or x32 system calls on a
64-bit machine) kills the process: libseccomp's check of the architecture.
"""
import errno
import sys

import seccomp

# Namespace flags of clone() and unshare().
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWTIME = 0x00000080
NAMESPACES = (CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME)
# The only mount the jail makes after it starts: each environment's own /tmp (and an empty /proc),
# new tmpfs mounts with exactly these flags. Binds, remounts, moves and propagation changes differ.
MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x2, 0x4, 0x8
TMPFS_FLAGS = MS_NOSUID | MS_NODEV | MS_NOEXEC
TIOCSTI, TIOCLINUX = 0x5412, 0x541C

# What no process of the jail has a use for: reading or changing another process (ptrace,
# process_vm_*, kcmp), the kernel's own machinery (bpf, perf events, keyrings, modules, io_uring,
# userfaultfd), file handles that bypass the mount table, the clock, the host's identity, ...
DENIED_IN_JAIL = (
    'ptrace', 'process_vm_readv', 'process_vm_writev', 'kcmp', 'pidfd_getfd',
    'perf_event_open', 'bpf', 'userfaultfd', 'keyctl', 'add_key', 'request_key',
    'io_uring_setup', 'io_uring_enter', 'io_uring_register',
    'init_module', 'finit_module', 'delete_module', 'kexec_load', 'kexec_file_load',
    'reboot', 'swapon', 'swapoff', 'acct', 'quotactl', 'quotactl_fd', 'syslog', 'vhangup',
    'iopl', 'ioperm', 'modify_ldt', 'lookup_dcookie', 'uselib', 'ustat', 'sysfs', '_sysctl', 'nfsservctl',
    'name_to_handle_at', 'open_by_handle_at', 'fanotify_init',
    'settimeofday', 'clock_settime', 'clock_adjtime', 'adjtimex', 'sethostname', 'setdomainname',
    'setns', 'pivot_root', 'chroot', 'umount', 'umount2',
    'open_tree', 'move_mount', 'fsopen', 'fsconfig', 'fsmount', 'fspick', 'mount_setattr',
    'move_pages', 'migrate_pages', 'mbind', 'set_mempolicy', 'memfd_secret', 'personality',
)

# What an environment's process does not need either, once it is set up: new processes and
# threads, running another program, signals to other processes, changing other processes'
# limits or scheduling, mounts, sockets (an abstract UNIX socket would join environments), and
# System V / POSIX message queues and shared memory (the jail's IPC namespace is shared by its
# environments).
DENIED_IN_ENVIRONMENT = (
    'fork', 'vfork', 'execve', 'execveat',
    'kill', 'tkill', 'tgkill', 'rt_sigqueueinfo', 'rt_tgsigqueueinfo', 'pidfd_open', 'pidfd_send_signal',
    'mount', 'unshare', 'setpriority', 'sched_setaffinity', 'sched_setparam', 'sched_setscheduler', 'sched_setattr',
    'ioprio_set', 'process_madvise', 'process_mrelease',
    'socket', 'socketpair', 'connect', 'bind', 'listen', 'accept', 'accept4',
    'msgget', 'msgsnd', 'msgrcv', 'msgctl', 'semget', 'semop', 'semtimedop', 'semctl',
    'shmget', 'shmat', 'shmctl', 'shmdt', 'mq_open', 'mq_unlink', 'mq_timedsend', 'mq_timedreceive', 'mq_notify', 'mq_getsetattr',
)


def _deny(rules, action, name, *args):
    if seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) < 0:
        return  # not a system call of this architecture
    rules.add_rule(action, name, *args)


def jail_filter():
    """The filter bubblewrap loads for every process of the jail."""
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    eperm = seccomp.ERRNO(errno.EPERM)
    for name in DENIED_IN_JAIL:
        _deny(rules, eperm, name)
    # New namespaces: none by clone(); by unshare() only a mount namespace alone (the zygote
    # gives each environment its own /tmp that way; only it has the capability to use it).
    for flag in NAMESPACES:
        _deny(rules, eperm, 'clone', seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    _deny(rules, eperm, 'unshare', seccomp.Arg(0, seccomp.NE, CLONE_NEWNS))
    _deny(rules, seccomp.ERRNO(errno.ENOSYS), 'clone3')  # its flags are behind a pointer: clone() instead
    _deny(rules, eperm, 'mount', seccomp.Arg(3, seccomp.NE, TMPFS_FLAGS))
    # Writing into the terminal's input queue.
    _deny(rules, eperm, 'ioctl', seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, TIOCSTI))
    _deny(rules, eperm, 'ioctl', seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, TIOCLINUX))
    return rules


def environment_filter():
    """The filter an environment's process adds to the jail's before any program code runs."""
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    eperm = seccomp.ERRNO(errno.EPERM)
    for name in DENIED_IN_ENVIRONMENT:
        _deny(rules, eperm, name)
    _deny(rules, eperm, 'clone')  # no process and no thread, whatever the flags
    # Its own limits only (pid 0): lowering a neighbour's would be reaching it.
    _deny(rules, eperm, 'prlimit64', seccomp.Arg(0, seccomp.NE, 0))
    return rules


if __name__ == '__main__':
    with open(sys.argv[1], 'wb') as out:
        jail_filter().export_bpf(out)
