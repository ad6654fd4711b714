"""Datasets as NumPy arrays, read by fsvc's own loaders (fsvc_dataset_load).

Each loader returns (X, y): X uint8 or float (as the file holds it), shape
(N, rows, cols) for images (IDX, PNG) and (N, n) otherwise; y float64 label
values, or None for an unlabelled PNG folder. load_png_folder also returns
the class names (one per class index, sorted like the folders). The arrays
are copies of the loader's (the loader's memory is freed right after)."""
import ctypes
import numbers

import numpy as np

from ._lib import DENSE_MAX_N, Error, FSVCUsageError, check, lib

__all__ = ["load_idx", "load_libsvm", "load_png_folder"]

_NP = {0: np.uint8, 1: np.float32, 2: np.float64}


def _load(source, resize=0, allow_unlabelled=0, n_features=0):
    # an int of C: checked here, where ctypes would cut 2**32 + 5 to 5
    if (isinstance(n_features, (bool, np.bool_)) or not isinstance(n_features, numbers.Integral)
            or not 0 <= n_features <= DENSE_MAX_N):
        raise FSVCUsageError(1, "n_features: %r is not an integer in [0, %d] (0: the largest "
                                "index seen)" % (n_features, DENSE_MAX_N))
    err = Error()
    d = lib.fsvc_dataset_alloc()
    if not d:
        raise MemoryError("fsvc: out of memory for a dataset")
    try:
        check(lib.fsvc_dataset_load_with(d, str(source).encode(), int(resize),
                                         int(allow_unlabelled), int(n_features),
                                         ctypes.byref(err)), err)
        a = (ctypes.c_int64 * 8)()
        lib.fsvc_dataset_meta(a, d)
        N, n, dtype, has_labels, K, rows, cols, _ = (int(v) for v in a)
        t = np.dtype(_NP[dtype])
        buf = ctypes.string_at(lib.fsvc_dataset_x(d), N * n * t.itemsize)
        X = np.frombuffer(buf, dtype=t).reshape(N, n).copy()
        if rows > 0 and cols > 0 and rows * cols == n:
            X = X.reshape(N, rows, cols)
        y = None
        if has_labels:
            yb = ctypes.string_at(lib.fsvc_dataset_y(d), N * 8)
            y = np.frombuffer(yb, dtype=np.float64).copy()
        names = [lib.fsvc_dataset_class_name(d, k) for k in range(K)]
        names = [s.decode("utf-8", "replace") for s in names] if all(names) and K else None
        return X, y, names
    finally:
        lib.fsvc_dataset_release(d)


def load_idx(source):
    """An IDX pair by prefix (DIR/train -> DIR/train-images-idx3-ubyte[.gz] and
    DIR/train-labels-idx1-ubyte[.gz]) or an IDX images file. Returns
    (X, y): X uint8 (N, rows, cols); y float64 labels (None without a
    labels file)."""
    X, y, _ = _load(source)
    return X, (y.astype(np.int64) if y is not None else None)


def load_libsvm(path, n_features=0):
    """A LIBSVM text file: (X float64 (N, n), y float64). n_features > 0
    forces n (0: the largest index seen)."""
    X, y, _ = _load(path, n_features=n_features)
    return X, y


def load_png_folder(path, resize=False, allow_unlabelled=False):
    """A folder of PNG images, one sub-folder per class (or any folder with
    allow_unlabelled). Returns (X uint8 (N, rows, cols) or (N, n), y
    int64 class indices or None, class_names list or None)."""
    X, y, names = _load(path, resize=resize, allow_unlabelled=allow_unlabelled)
    return X, (y.astype(np.int64) if y is not None else None), names
