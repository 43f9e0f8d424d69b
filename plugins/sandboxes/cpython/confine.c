/*
 * The few system calls the cpython sandbox's zygote needs that Python's standard library does
 * not offer (mount, unshare, capset, prctl), as a tiny extension module compiled once on the host
 * into the sandbox's files folder (jail.ts) and loaded by server.py.
 *
 * It replaces ctypes there: with ctypes loaded in the zygote, every environment's process forked
 * from it would hold a foreign-function interface that a program could reach (through
 * object.__subclasses__(), a frame's globals, ...). This module offers a program nothing: each
 * function only takes something away, and a process that has dropped its capabilities can no
 * longer mount or unshare.
 *
 * It is written against CPython's stable ABI (PEP 384), whose declarations are spelled out below,
 * so that no Python headers (python3-dev) are needed to build it: a C compiler is enough.
 *
 *   undumpable()              prctl(PR_SET_DUMPABLE, 0)
 *   isolate(tmp_options)      a mount namespace of its own, a new tmpfs on /tmp (mount options
 *                             `tmp_options`), an empty tmpfs over /proc, the working folder /tmp,
 *                             and no capability left (ambient, effective, permitted, inheritable)
 *   seccomp(program)          adds the seccomp filter `program` (a compiled BPF program, bytes)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* CPython's stable ABI: the declarations this module uses, as Python.h gives them. */
typedef ptrdiff_t Py_ssize_t;
typedef struct _object { Py_ssize_t ob_refcnt; void *ob_type; } PyObject;
typedef PyObject *(*PyCFunction)(PyObject *, PyObject *);
typedef struct { const char *ml_name; PyCFunction ml_meth; int ml_flags; const char *ml_doc; } PyMethodDef;
typedef struct { PyObject ob_base; PyObject *(*m_init)(void); Py_ssize_t m_index; PyObject *m_copy; } PyModuleDef_Base;
typedef struct {
  PyModuleDef_Base m_base;
  const char *m_name;
  const char *m_doc;
  Py_ssize_t m_size;
  PyMethodDef *m_methods;
  void *m_slots, *m_traverse, *m_clear, *m_free;
} PyModuleDef;
#define METH_NOARGS 0x0004
#define METH_O 0x0008
extern PyObject *PyModuleDef_Init(PyModuleDef *);
extern PyObject *PyErr_SetFromErrnoWithFilename(PyObject *, const char *);
extern PyObject *PyExc_OSError;
extern int PyBytes_AsStringAndSize(PyObject *, char **, Py_ssize_t *);
extern void Py_IncRef(PyObject *);
extern PyObject _Py_NoneStruct;

static PyObject *none(void) {
  Py_IncRef(&_Py_NoneStruct);
  return &_Py_NoneStruct;
}

static PyObject *failed(const char *what) { return PyErr_SetFromErrnoWithFilename(PyExc_OSError, what); }

static PyObject *undumpable(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return failed("prctl(PR_SET_DUMPABLE)");
  return none();
}

static PyObject *isolate(PyObject *self, PyObject *tmp_options) {
  (void)self;
  char *options;
  Py_ssize_t size;
  if (PyBytes_AsStringAndSize(tmp_options, &options, &size) != 0) return NULL;
  const unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
  if (unshare(CLONE_NEWNS) != 0) return failed("unshare(CLONE_NEWNS)");
  if (mount("tmpfs", "/tmp", "tmpfs", flags, options) != 0) return failed("mount /tmp");
  if (mount("proc-hidden", "/proc", "tmpfs", flags, "size=4096,nr_inodes=2,mode=0555") != 0) return failed("mount over /proc");
  if (chdir("/tmp") != 0) return failed("chdir /tmp");
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) return failed("prctl(PR_CAP_AMBIENT_CLEAR_ALL)");
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2] = {{0, 0, 0}, {0, 0, 0}};
  if (syscall(SYS_capset, &header, data) != 0) return failed("capset");
  return none();
}

static PyObject *seccomp(PyObject *self, PyObject *program) {
  (void)self;
  char *bytes;
  Py_ssize_t size;
  if (PyBytes_AsStringAndSize(program, &bytes, &size) != 0) return NULL;
  if (size <= 0 || size % sizeof(struct sock_filter) != 0 || size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
    errno = EINVAL;
    return failed("seccomp program");
  }
  struct sock_fprog filter = {(unsigned short)(size / sizeof(struct sock_filter)), (struct sock_filter *)bytes};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0) != 0) return failed("prctl(PR_SET_SECCOMP)");
  return none();
}

static PyMethodDef methods[] = {
  {"undumpable", undumpable, METH_NOARGS, NULL},
  {"isolate", isolate, METH_O, NULL},
  {"seccomp", seccomp, METH_O, NULL},
  {NULL, NULL, 0, NULL},
};

static PyModuleDef module = {{{1, NULL}, NULL, 0, NULL}, "spade_confine", NULL, 0, methods, NULL, NULL, NULL, NULL};

PyObject *PyInit_spade_confine(void) { return PyModuleDef_Init(&module); }
