"""A fit leaves the process's shared state alone (issue 26 items 8, 10):
OpenBLAS's thread count (NumPy's too) and the print hook of other fits."""
import ctypes
import threading

import numpy as np

import fsvc
from fsvc._lib import lib


def _blas():
    get = lib.openblas_get_num_threads
    get.restype, get.argtypes = ctypes.c_int, []
    put = lib.openblas_set_num_threads
    put.restype, put.argtypes = None, [ctypes.c_int]
    return get, put


def test_threads_leave_openblas_alone(blobs):
    # threads=1 set OpenBLAS's process-wide count to 1 and never restored it
    get, put = _blas()
    before = get()
    put(2)
    try:
        X, y = blobs
        fsvc.FSVCClassifier(threads=1).fit(X, y).predict(X)
        assert get() == 2
    finally:
        put(before)


def test_verbose_fit_keeps_its_lines_beside_quiet_fits(blobs, capfd):
    # each fit reset the process-wide print hook at its end: a quiet fit
    # finishing in another thread silenced a verbose fit still running
    X, y = blobs
    X = np.tile(X, (4, 1))
    y = np.tile(y, 4)
    epochs = 1000  # about 0.6 s, the quiet fits 0.05 s each
    loud = fsvc.FSVCClassifier(verbose=True, readout="lms", epochs=epochs, radius="0.3rms")
    t = threading.Thread(target=loud.fit, args=(X, y))
    t.start()
    for _ in range(3):
        fsvc.FSVCClassifier(radius="0.3rms").fit(X[:200], y[:200])
    t.join()
    _, err = capfd.readouterr()
    assert "lms: epoch %d/%d" % (epochs, epochs) in err


def test_verbose_goes_through_sys_stderr(blobs, capsys):
    # issue 27: progress reached file descriptor 2 directly, past a
    # redirected sys.stderr (capsys sees only sys.stderr)
    X, y = blobs
    fsvc.FSVCClassifier(verbose=True).fit(X, y)
    assert "radius" in capsys.readouterr().err


def test_train_warnings_are_python_warnings(blobs):
    # issue 27: fsvc train's warning lines (pcg short of its tolerance, too
    # few centroids for onehot) were lost in Python
    import pytest
    X, y = blobs
    with pytest.warns(fsvc.FSVCWarning, match="pcg stopped at relative residual"):
        fsvc.FSVCClassifier(solver="pcg", cg_tol=1e-15).fit(X, y)
    with pytest.warns(fsvc.FSVCWarning, match="onehot readout got only"):  # 27 for 12000
        fsvc.FSVCClassifier(readout="onehot").fit(np.tile(X, (40, 1)), np.tile(y, 40))
