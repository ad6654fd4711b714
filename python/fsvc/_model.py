"""A trained fsvc model held by libfsvc (an opaque handle), its bytes (the
model file's bytes: what pickling stores) and training/prediction on NumPy
arrays without copying them."""
import ctypes

import numpy as np

from ._lib import (DENSE_MAX_N, ArrayView, Csr, Error, FSVCInputError, FSVCUsageError, TrainInfo, check,
                   lib, verbose_lines)

_DTYPES = {np.dtype(np.uint8): 0, np.dtype(np.float32): 1, np.dtype(np.float64): 2}


def engine_array(X):
    """X as the engine takes it: a C-contiguous u8, f32 or f64 2-D array.
    Such an array is returned as is (no copy); anything else is copied to
    float64."""
    X = np.asarray(X)
    if X.dtype not in _DTYPES:
        X = X.astype(np.float64)
    return np.ascontiguousarray(X)


class Model:
    """Owns one fsvc_model (freed with the object)."""

    def __init__(self):
        self._h = lib.fsvc_model_alloc()
        if not self._h:
            raise MemoryError("fsvc: out of memory for a model")

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h and lib is not None:
            lib.fsvc_model_release(h)

    # ---- construction ----
    @classmethod
    def train(cls, X, y, settings, regression, rows=0, cols=0, verbose=False,
              sample_weight=None):
        """settings: (name, value) pairs for fsvc_param_set, applied in order.
        X: a dense array, or a scipy CSR matrix (the sparse path of `fsvc
        train`: a sparse model). sample_weight: N weights > 0 or None."""
        if _is_sparse(X):
            a, arrays = engine_csr(X)  # arrays: the memory a points to, kept alive
            n = X.shape[1]
            return cls._train(settings, regression, verbose, y, sample_weight,
                              lambda m, info, yp, wp, p, err: lib.fsvc_train_csr_view(
                                  m._h, info, ctypes.byref(a), n, yp, wp, p, err))
        X = engine_array(X)
        return cls._train(settings, regression, verbose, y, sample_weight,
                          lambda m, info, yp, wp, p, err: lib.fsvc_train_view(
                              m._h, info, ctypes.byref(_view(X, rows, cols, yp, wp)), p, err))

    def calibrate(self, X, y, settings, rows=0, cols=0, verbose=False, sample_weight=None):
        """Fits the probability calibration (`fsvc train -b 1`) of this model,
        trained from the same dense X, y, sample_weight and settings with
        probability off."""
        X = engine_array(X)
        type(self)._train(settings, False, verbose, y, sample_weight,
                          lambda m, info, yp, wp, p, err: lib.fsvc_calibrate_view(
                              self._h, ctypes.byref(_view(X, rows, cols, yp, wp)), p, err))

    @classmethod
    def _train(cls, settings, regression, verbose, y, sample_weight, call):
        err = Error()
        p = lib.fsvc_param_alloc(1 if regression else 0, 1 if verbose else 0)
        if not p:
            raise MemoryError("fsvc: out of memory for the parameters")
        keep = []  # the backend text must outlive the parameters
        try:
            for name, value in settings:
                if "\0" in str(value):  # C would read 'gauss\0tri' as 'gauss'
                    raise FSVCUsageError(1, "%s: %r holds a NUL character" % (name, str(value)))
                b = str(value).encode()
                keep.append(b)
                check(lib.fsvc_param_set(p, name.encode(), b, ctypes.byref(err)), err)
            # threads reach the library through the parameters only: it
            # brackets its own BLAS calls (OpenBLAS's count is process-wide)
            m = cls()
            y = np.ascontiguousarray(y, dtype=np.float64)
            w = None
            if sample_weight is not None:
                w = np.ascontiguousarray(sample_weight, dtype=np.float64)
                if w.shape != y.shape:
                    raise ValueError("sample_weight: %d values for %d samples"
                                     % (w.size, y.size))
            info = TrainInfo()
            with verbose_lines(verbose):
                rc = call(m, ctypes.byref(info), y.ctypes.data,
                          None if w is None else w.ctypes.data, p, ctypes.byref(err))
            check(rc, err)
            m.train_info = info  # what the warnings of fit read
            return m
        finally:
            lib.fsvc_param_release(p)

    @classmethod
    def from_bytes(cls, data, what="model bytes"):
        m = cls()
        err = Error()
        data = bytes(data)
        check(lib.fsvc_model_from_bytes(m._h, data, len(data), what.encode(),
                                        ctypes.byref(err)), err)
        return m._usable(what)

    @classmethod
    def load(cls, path):
        m = cls()
        err = Error()
        check(lib.fsvc_model_load(m._h, str(path).encode(), ctypes.byref(err)), err)
        return m._usable(str(path))

    def _usable(self, what):
        """self, or FSVCInputError for a dense model beyond what arrays hold
        (a sparse model of any size takes scipy CSR input)."""
        n = self.meta["n"]
        if n > DENSE_MAX_N and not self.sparse:
            raise FSVCInputError(2, "%s: the model has %d features; arrays hold at most %d"
                                 % (what, n, DENSE_MAX_N))
        return self

    # ---- output ----
    def to_bytes(self):
        err = Error()
        buf = ctypes.c_void_p()
        n = ctypes.c_size_t()
        check(lib.fsvc_model_to_bytes(ctypes.byref(buf), ctypes.byref(n), self._h,
                                      ctypes.byref(err)), err)
        try:
            return ctypes.string_at(buf.value, n.value)
        finally:
            lib.fsvc_bytes_free(buf)

    def save(self, path):
        err = Error()
        check(lib.fsvc_model_save(self._h, str(path).encode(), ctypes.byref(err)), err)

    @property
    def meta(self):
        """dict: n, rows, cols, K, Kout, m, regression, dtype."""
        a = (ctypes.c_int64 * 8)()
        lib.fsvc_model_meta(a, self._h)
        keys = ("n", "rows", "cols", "K", "Kout", "m", "regression", "dtype")
        return dict(zip(keys, (int(v) for v in a)))

    @property
    def sparse(self):
        """True for a sparse model (trained on sparse data: CSR centroids)."""
        return bool(lib.fsvc_model_is_sparse(self._h))

    def class_names(self):
        """The K class names the model keeps, or None."""
        K = self.meta["K"]
        names = [lib.fsvc_model_class_name(self._h, k) for k in range(K)]
        if not K or not all(names):
            return None
        return [v.decode("utf-8") for v in names]

    def set_class_names(self, names):
        """Keeps names (K str) in the model, or raises FSVCInputError (the
        model unchanged) for names a model file cannot hold."""
        b = [str(v).encode("utf-8") for v in names]
        arr = (ctypes.c_char_p * len(b))(*b)
        err = Error()
        check(lib.fsvc_model_set_class_names(self._h, arr, len(b), ctypes.byref(err)), err)

    def class_values(self):
        K = self.meta["K"]
        if K == 0:
            return np.zeros(0)
        p = lib.fsvc_model_class_values(self._h)
        return np.array(p[:K], dtype=np.float64)

    def predict(self, X, backend="cpu", threads=0, scores=True, rows=0, cols=0):
        """(pred, score): N class indices (int32) and N x Kout readout scores.
        X: a dense array or a scipy CSR matrix."""
        meta = self.meta
        N = X.shape[0]
        pred = np.empty(N, dtype=np.int32)
        score = np.empty((N, meta["Kout"]), dtype=np.float64) if scores else None
        sp = score.ctypes.data if scores else None
        err = Error()
        if _is_sparse(X):
            a, arrays = engine_csr(X)  # noqa: F841 (the memory a points to)
            rc = lib.fsvc_predict_csr_view(pred.ctypes.data, sp, self._h, ctypes.byref(a),
                                           X.shape[1], str(backend).encode(), int(threads),
                                           ctypes.byref(err))
        else:
            X = engine_array(X)
            rc = lib.fsvc_predict_view(pred.ctypes.data, sp, self._h,
                                       ctypes.byref(_view(X, rows, cols, None, None)),
                                       str(backend).encode(), int(threads), ctypes.byref(err))
        check(rc, err)
        return pred, score


    def calibrated(self):
        """True when the model holds a probability calibration (trained
        with probability on, `fsvc train -b 1`)."""
        return bool(lib.fsvc_model_calibrated(self._h))

    def proba(self, score):
        """Class probabilities from readout scores: softmax(a x score) with
        the model's calibration a, or the plain softmax without one
        (fsvc_model_proba, the same as `fsvc predict -b 1`)."""
        score = np.ascontiguousarray(score, dtype=np.float64)
        out = np.empty_like(score)
        lib.fsvc_model_proba(out.ctypes.data, score.ctypes.data, self._h, score.shape[0])
        return out


def _view(X, rows, cols, y, w):
    """fsvc_array_view of the engine array X (engine_array) with the
    addresses y and w (or None); X, y and w must outlive it."""
    return ArrayView(X.ctypes.data, X.shape[0], X.shape[1], _DTYPES[X.dtype], rows, cols, y, w)


def _is_sparse(X):
    return hasattr(X, "indptr") and hasattr(X, "indices")


def engine_csr(X):
    """(fsvc_csr, arrays): a canonical scipy CSR matrix X (sorted, no
    duplicates) as the engine takes it: int64 offsets, int32 columns and
    float32 values, copies only of those of another dtype. The arrays must
    outlive the struct."""
    indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
    indices = np.ascontiguousarray(X.indices, dtype=np.int32)
    with np.errstate(over="ignore"):
        data = np.ascontiguousarray(X.data, dtype=np.float32)
    if not np.all(np.isfinite(data)):
        raise FSVCInputError(2, "sparse X: a value beyond float32's range (about 3.4e38): "
                                "sparse data is held as float32")
    a = Csr(X.shape[0], len(data), indptr.ctypes.data, indices.ctypes.data, data.ctypes.data)
    return a, (indptr, indices, data)


def scores_proba(score):
    """Softmax of each row of the readout scores (fsvc_scores_proba, the
    same as `fsvc predict -b 1`)."""
    score = np.ascontiguousarray(score, dtype=np.float64)
    out = np.empty_like(score)
    lib.fsvc_scores_proba(out.ctypes.data, score.ctypes.data, score.shape[0], score.shape[1])
    return out
