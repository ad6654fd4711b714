"""ctypes binding to libfsvc (fsvc/embed.h, fsvc/study.h, fsvc/fsvc.h).

The shared library is looked for, in order: $FSVC_LIBRARY; build/ of the
source tree this package sits in (python/fsvc -> build/libfsvc.so); next to
the package; the lib/ folder of the prefix it was installed under
(PREFIX/lib/python3.X/dist-packages/fsvc -> PREFIX/lib); the system loader.
"""
import ctypes
import os

__all__ = ["lib", "library_path", "blas_core", "FSVCError", "FSVCUsageError", "FSVCInputError",
           "FSVCResourceError", "check", "Error"]

FSVC_OK, FSVC_EUSAGE, FSVC_EINPUT, FSVC_ERESOURCE = 0, 1, 2, 3


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


class Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * 1024)]


def check(rc, err):
    """Raises the exception for a non-zero libfsvc status."""
    if rc == FSVC_OK:
        return
    msg = err.msg.decode("utf-8", "replace") or "fsvc: error %d" % rc
    cls = {FSVC_EUSAGE: FSVCUsageError, FSVC_EINPUT: FSVCInputError}.get(rc, FSVCResourceError)
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
    "fsvc_train_view": (_I, [_P, _P, _P, _I64, _I, _I, _I, _I, _P, _P, _E]),
    "fsvc_predict_view": (_I, [_P, _P, _P, _P, _I64, _I, _I, _I, _I, ctypes.c_char_p, _I,
                               _E]),
    "fsvc_model_to_bytes": (_I, [ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_size_t), _P,
                                 _E]),
    "fsvc_model_from_bytes": (_I, [_P, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                   _E]),
    "fsvc_bytes_free": (None, [_P]),
    "fsvc_model_save": (_I, [_P, ctypes.c_char_p, _E]),
    "fsvc_model_load": (_I, [_P, ctypes.c_char_p, _E]),
    "fsvc_scores_proba": (None, [_P, _P, _I64, _I]),
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

# The library prints progress lines only when asked (param progress); the
# few informative lines it prints otherwise are discarded.
PRINT_DISCARD = ctypes.cast(lib.fsvc_print_discard, ctypes.c_void_p)
lib.fsvc_set_print(PRINT_DISCARD)
try:
    _blas_threads = lib.openblas_set_num_threads
    _blas_threads.restype = None
    _blas_threads.argtypes = [_I]
except AttributeError:  # another BLAS: its own thread settings apply
    _blas_threads = None


def blas_core():
    """(core, why): OpenBLAS's kernels fsvc computes with in this process
    and why they were chosen, as `fsvc info` prints them. The choice is
    made once, before fsvc's first product (a core weaker than the CPU is
    replaced, as in the CLI), whatever loaded OpenBLAS first."""
    why = lib.bnl_blas_core_status().decode()
    return lib.bnl_blas_core_name().decode(), why


def set_blas_threads(n):
    if _blas_threads is not None and n > 0:
        _blas_threads(int(n))
