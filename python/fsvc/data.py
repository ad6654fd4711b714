"""Datasets as NumPy arrays, read by fsvc's own loaders (fsvc_dataset_load).

Each loader returns (X, y): X uint8 or float (as the file holds it), shape
(N, rows, cols) for images (IDX, PNG), a scipy CSR matrix (N, n) for
LIBSVM text; y float64 label values, or None for an unlabelled PNG folder.
load_png_folder also returns the class names (one per class index, sorted
like the folders). The arrays are copies of the loader's (the loader's
memory is freed right after)."""
import ctypes
import numbers

import numpy as np

from ._lib import CSR_MAX_N, DENSE_MAX_N, Error, FSVCInputError, FSVCUsageError, check, lib

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
    """A LIBSVM text file read sparse, as `fsvc train` reads a sparse file:
    (X, y), X a scipy.sparse CSR matrix (N, n) of float32 values (what
    fsvc's sparse form holds; a value beyond float32's range is refused at
    its line), y float64 labels. Memory grows with the values in the file,
    not with N x n. n_features > 0 forces n, up to 2**24 (0: the largest
    index seen). X.toarray() gives the dense array (at most 65536 features
    for the estimators' dense path)."""
    import scipy.sparse as sp
    if (isinstance(n_features, (bool, np.bool_)) or not isinstance(n_features, numbers.Integral)
            or not 0 <= n_features <= CSR_MAX_N):
        raise FSVCUsageError(1, "n_features: %r is not an integer in [0, %d] (0: the largest "
                                "index seen)" % (n_features, CSR_MAX_N))
    err = Error()
    d = lib.fsvc_dataset_alloc()
    if not d:
        raise MemoryError("fsvc: out of memory for a dataset")
    try:
        check(lib.fsvc_dataset_load_csr(d, str(path).encode(), int(n_features),
                                        ctypes.byref(err)), err)
        a = (ctypes.c_int64 * 8)()
        lib.fsvc_dataset_meta(a, d)
        N, n, has_labels = int(a[0]), int(a[1]), int(a[3])
        c = lib.fsvc_dataset_csr(d)
        if not c:  # not a LIBSVM file: fsvc's loaders read every other source dense
            raise FSVCInputError(2, "%s: not a LIBSVM text file" % path)
        c = c.contents
        indptr = _copy(c.row_ptr, N + 1, np.int64)
        indices = _copy(c.col, c.nnz, np.int32)
        data = _copy(c.val, c.nnz, np.float32)
        X = sp.csr_matrix((data, indices, indptr), shape=(N, n))
        y = None
        if has_labels:
            y = _copy(lib.fsvc_dataset_y(d), N, np.float64)
        return X, y
    finally:
        lib.fsvc_dataset_release(d)


def _copy(ptr, count, dtype):
    """count values of dtype at the C pointer ptr, copied into a new array."""
    t = np.dtype(dtype)
    if count == 0:
        return np.zeros(0, dtype=t)
    addr = ctypes.cast(ptr, ctypes.c_void_p).value
    return np.frombuffer(ctypes.string_at(addr, count * t.itemsize), dtype=t).copy()


def load_png_folder(path, resize=False, allow_unlabelled=False):
    """A folder of PNG images, one sub-folder per class (or any folder with
    allow_unlabelled). Returns (X uint8 (N, rows, cols) or (N, n), y
    int64 class indices or None, class_names list or None)."""
    X, y, names = _load(path, resize=resize, allow_unlabelled=allow_unlabelled)
    return X, (y.astype(np.int64) if y is not None else None), names
