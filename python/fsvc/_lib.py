"""ctypes binding to libfsvc (fsvc/embed.h, fsvc/study.h, fsvc/fsvc.h).

The shared library is looked for, in order: $FSVC_LIBRARY; build/ of the
source tree this package sits in (python/fsvc -> build/libfsvc.so); next to
the package; the lib/ folder of the prefix it was installed under
(PREFIX/lib/python3.X/dist-packages/fsvc -> PREFIX/lib); the system loader.
"""
import contextlib
import ctypes
import os
import sys
import threading

__all__ = ["lib", "library_path", "blas_core", "FSVCError", "FSVCUsageError", "FSVCInputError",
           "FSVCWarning", "TrainInfo", "Csr",
           "FSVCResourceError", "FSVCMemoryError", "check", "Error"]

FSVC_OK, FSVC_EUSAGE, FSVC_EINPUT, FSVC_ERESOURCE = 0, 1, 2, 3
DENSE_MAX_N = 65536  # FSVC_DENSE_MAX_N of datasets/fsvc_data.h: dense features
CSR_MAX_N = 1 << 24  # FSVC_CSR_MAX_N: sparse features
SPARSE_AUTO_CELLS = 1 << 25  # FSVC_SPARSE_AUTO_CELLS: `fsvc train`'s dense/sparse rule


class FSVCError(Exception):
    """An error reported by libfsvc: .code (1 usage, 2 input, 3 resource)
    and .msg, fsvc's one-line message."""

    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code
        self.msg = msg


class FSVCUsageError(FSVCError, ValueError):
    """A bad parameter or argument (fsvc exit code 1)."""


class FSVCInputError(FSVCError, ValueError):
    """Bad input data or file (fsvc exit code 2)."""


class FSVCResourceError(FSVCError, OSError):
    """Out of memory, I/O failure, no device (fsvc exit code 3)."""


class FSVCMemoryError(FSVCResourceError, MemoryError):
    """Out of memory (fsvc exit code 3): also a MemoryError, as numpy's."""


class FSVCWarning(UserWarning):
    """What `fsvc train` prints as a warning line (warnings.warn)."""


class TrainInfo(ctypes.Structure):
    """fsvc_train_info (fsvc/fsvc.h), field for field."""
    _fields_ = [("radius", ctypes.c_double), ("m", ctypes.c_int64),
                ("t_select", ctypes.c_double), ("t_readout", ctypes.c_double),
                ("syn_select", ctypes.c_double), ("syn_readout", ctypes.c_double),
                ("t_ridge", ctypes.c_double * 3), ("solver", ctypes.c_int),
                ("solver_rule", ctypes.c_int), ("cg_iter", ctypes.c_int),
                ("cg_res", ctypes.c_double), ("cg_converged", ctypes.c_int)]


class Csr(ctypes.Structure):
    """fsvc_csr (datasets/fsvc_data.h): int64 offsets, int32 columns, float values."""
    _fields_ = [("rows", ctypes.c_int64), ("nnz", ctypes.c_int64),
                ("row_ptr", ctypes.c_void_p), ("col", ctypes.c_void_p),
                ("val", ctypes.c_void_p)]


class ArrayView(ctypes.Structure):
    """fsvc_array_view (fsvc/embed.h): a dense array on caller memory, its
    labels or targets y and sample weights w (NULL: all 1)."""
    _fields_ = [("x", ctypes.c_void_p), ("N", ctypes.c_int64), ("n", ctypes.c_int64),
                ("dtype", ctypes.c_int), ("rows", ctypes.c_int64), ("cols", ctypes.c_int64),
                ("y", ctypes.c_void_p), ("w", ctypes.c_void_p)]


class Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * 1024)]


def check(rc, err):
    """Raises the exception for a non-zero libfsvc status."""
    if rc == FSVC_OK:
        return
    msg = err.msg.decode("utf-8", "replace") or "fsvc: error %d" % rc
    cls = {FSVC_EUSAGE: FSVCUsageError, FSVC_EINPUT: FSVCInputError}.get(rc, FSVCResourceError)
    if cls is FSVCResourceError and ("out of memory" in msg or "Cannot allocate memory" in msg):
        cls = FSVCMemoryError
    raise cls(rc, msg)


def _candidates():
    env = os.environ.get("FSVC_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.join(here, os.pardir, os.pardir, "build", "libfsvc.so")
    prefix_lib = os.path.join(here, os.pardir, os.pardir, os.pardir, "libfsvc.so.0")
    return [tree, os.path.join(here, "libfsvc.so.0"), prefix_lib, "libfsvc.so.0"]


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            return ctypes.CDLL(path), os.path.realpath(path) if os.sep in path else path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("fsvc: cannot find libfsvc (run 'make' in the source tree, or set "
                      "FSVC_LIBRARY); tried: " + "; ".join(tried))


lib, library_path = _load()

_P, _I, _I64, _D = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_double
_E = ctypes.POINTER(Error)
_sig = {
    "fsvc_model_alloc": (_P, []),
    "fsvc_model_release": (None, [_P]),
    "fsvc_param_alloc": (_P, [_I, _I]),
    "fsvc_param_release": (None, [_P]),
    "fsvc_param_set": (_I, [_P, ctypes.c_char_p, ctypes.c_char_p, _E]),
    "fsvc_model_meta": (None, [ctypes.POINTER(_I64), _P]),
    "fsvc_model_class_values": (ctypes.POINTER(_D), [_P]),
    # sizes are int64_t in C: a ctypes c_int would cut 2**32 + 4 to 4
    "fsvc_train_view": (_I, [_P, _P, ctypes.POINTER(ArrayView), _P, _E]),
    "fsvc_calibrate_view": (_I, [_P, ctypes.POINTER(ArrayView), _P, _E]),
    "fsvc_predict_view": (_I, [_P, _P, _P, ctypes.POINTER(ArrayView), ctypes.c_char_p, _I,
                               _E]),
    "fsvc_train_csr_view": (_I, [_P, _P, ctypes.POINTER(Csr), _I64, _P, _P, _P, _E]),
    "fsvc_predict_csr_view": (_I, [_P, _P, _P, ctypes.POINTER(Csr), _I64, ctypes.c_char_p, _I,
                                   _E]),
    "fsvc_model_is_sparse": (_I, [_P]),
    "fsvc_model_set_class_names": (_I, [_P, ctypes.POINTER(ctypes.c_char_p), _I, _E]),
    "fsvc_model_class_name": (ctypes.c_char_p, [_P, _I]),
    "fsvc_dataset_load_csr": (_I, [_P, ctypes.c_char_p, _I, _E]),
    "fsvc_dataset_csr": (ctypes.POINTER(Csr), [_P]),
    "fsvc_model_to_bytes": (_I, [ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_size_t), _P,
                                 _E]),
    "fsvc_model_from_bytes": (_I, [_P, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                   _E]),
    "fsvc_bytes_free": (None, [_P]),
    "fsvc_model_save": (_I, [_P, ctypes.c_char_p, _E]),
    "fsvc_model_load": (_I, [_P, ctypes.c_char_p, _E]),
    "fsvc_scores_proba": (None, [_P, _P, _I64, _I]),
    "fsvc_model_proba": (None, [_P, _P, _P, _I64]),
    "fsvc_model_calibrated": (_I, [_P]),
    "fsvc_dataset_alloc": (_P, []),
    "fsvc_dataset_release": (None, [_P]),
    "fsvc_dataset_load_with": (_I, [_P, ctypes.c_char_p, _I, _I, _I, _E]),
    "fsvc_dataset_meta": (None, [ctypes.POINTER(_I64), _P]),
    "fsvc_dataset_x": (_P, [_P]),
    "fsvc_dataset_y": (_P, [_P]),
    "fsvc_dataset_class_name": (ctypes.c_char_p, [_P, _I]),
    "fsvc_set_print": (None, [_P]),
    "bnl_blas_core_status": (ctypes.c_char_p, []),
    "bnl_blas_core_name": (ctypes.c_char_p, []),
}
for _name, (_res, _args) in _sig.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

# The library's print hook is process-wide, so it is set once, here, to a
# router: a line goes to sys.stderr when the thread that made the call
# asked for it (verbose_lines), else nowhere. Fits in several threads no
# longer reset each other's hook (issue 26 item 10), and a redirected
# sys.stderr (pytest, Jupyter) sees the lines, not file descriptor 2.
_tls = threading.local()


def blas_core():
    """(core, why): OpenBLAS's kernels fsvc computes with in this process
    and why they were chosen, as `fsvc info` prints them. The choice is
    made once, before fsvc's first product (a core weaker than the CPU is
    replaced, as in the CLI), whatever loaded OpenBLAS first."""
    why = lib.bnl_blas_core_status().decode()
    return lib.bnl_blas_core_name().decode(), why


@ctypes.CFUNCTYPE(None, ctypes.c_char_p)
def _print_line(line):
    if getattr(_tls, "verbose", False):
        try:
            sys.stderr.write(line.decode("utf-8", "replace"))
            sys.stderr.flush()
        except Exception:  # a closed stderr must not break the fit
            pass


lib.fsvc_set_print(ctypes.cast(_print_line, ctypes.c_void_p))


@contextlib.contextmanager
def verbose_lines(on):
    """The library's lines printed by this thread go to sys.stderr inside."""
    before = getattr(_tls, "verbose", False)
    _tls.verbose = bool(on)
    try:
        yield
    finally:
        _tls.verbose = before
