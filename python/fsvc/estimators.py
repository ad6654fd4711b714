"""scikit-learn estimators over libfsvc: FSVCClassifier and FSVCRegressor.

Parameters mirror `fsvc train` (see `fsvc train --help`) and are applied by
name through fsvc_param_set, the parser of the CLI's settings, so the
values and their checks are the CLI's.

Inputs: X is 2-D (N x n) or 3-D (N x rows x cols images: the geometry is
kept for the deskew preprocessing and features="hog", as the CLI keeps it
for IDX and PNG data). A C-contiguous uint8, float32 or float64 array goes to the engine as
it is, with no copy; any other dtype or layout is copied once to float64.
(The engine then prepares its own input, preprocessing and scaling, the
same as the CLI does.) X may also be a scipy sparse matrix: kept sparse
(the engine's sparse path, a sparse model) by `fsvc train`'s rule for
LIBSVM files, else made dense (_sparse_or_dense).

threads=0 is every core, or $OMP_NUM_THREADS when set (joblib's workers).
"""
import numbers
import os
import re
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (_check_sample_weight, check_array,
                                      check_consistent_length, check_is_fitted, column_or_1d)

from ._lib import DENSE_MAX_N, SPARSE_AUTO_CELLS, FSVCError, FSVCInputError, FSVCWarning
from ._model import Model, _is_sparse

__all__ = ["FSVCClassifier", "FSVCRegressor"]

_ACCEPTED = (np.float64, np.float32, np.uint8)  # the first is what others become


class _DenseRows:
    """A CSR matrix for a dense model: predicted FSVC_PREDICT_CHUNK rows at
    a time, each chunk made dense (X.toarray()), so that the results are
    those of the dense array, to the bit (the engine's chunks), without
    the whole dense matrix in memory."""
    CHUNK = 8192  # FSVC_PREDICT_CHUNK of fsvc/fsvc.h

    def __init__(self, X):
        self.X = X
        self.shape = X.shape

    def predict(self, model, backend, threads, scores, rows, cols):
        N = self.shape[0]
        pred = np.empty(N, dtype=np.int32)
        score = np.empty((N, model.meta["Kout"]), dtype=np.float64)
        for i in range(0, N, self.CHUNK):
            part = np.ascontiguousarray(self.X[i:i + self.CHUNK].toarray())
            pred[i:i + len(part)], score[i:i + len(part)] = model.predict(
                part, backend, threads, True, rows, cols)
        return pred, score if scores else None


def _predict(model, X, backend, threads, scores, rows, cols):
    if isinstance(X, _DenseRows):
        return X.predict(model, backend, threads, scores, rows, cols)
    return model.predict(X, backend, threads, scores, rows, cols)


# `fsvc train`'s options as the estimators' parameters, for the engine's
# messages that name an option to change ("raise lambda (-l)")
_SHORT = {"r": "radius", "p": "prag", "d": "distance", "k": "kernel", "s": "selection",
          "R": "readout", "l": "lam", "e": "eta", "E": "epochs", "w": "class_weight"}
_LONG = {"lambda": "lam", "select": "selection", "dist": "distance"}


def _python_terms(msg):
    """msg with `fsvc train`'s options written as parameters: "(-R lms)" ->
    "(readout='lms')", "(-l, now 1e-05)" -> "(lam, now 1e-05)",
    "--max-neurons" -> "max_neurons"."""
    def short(m):
        name = _SHORT.get(m.group(1))
        if name is None:
            return m.group(0)
        return name + ("='%s'" % m.group(2) if m.group(2) else "")

    def long(m):
        name = _LONG.get(m.group(1), m.group(1).replace("-", "_"))
        return name + ("='%s'" % m.group(2) if m.group(2) else "")
    # the image shape comes from X's own shape here, not from an option
    msg = msg.replace("give it with --shape ROWSxCOLS",
                      "pass X as a 3-D array (samples x rows x cols)")
    msg = re.sub(r"(?<![\w-])--([a-z][a-z-]*)(?: ([a-z0-9][\w+.]*)(?=[),;]))?", long, msg)
    msg = re.sub(r"(?<![\w-])-([a-zA-Z])(?: ([a-z][\w+]*)(?=[),;]))?(?![\w-])", short, msg)
    return re.sub(r"\b(\w+)(?: / |, )\1\b", r"\1", msg)  # "-w, --class-weight"


def _train(X, y, settings, regression, rows, cols, verbose, sample_weight=None):
    """Model.train, its errors in the estimators' terms."""
    try:
        return Model.train(X, y, settings, regression, rows, cols, verbose, sample_weight)
    except FSVCError as e:
        raise type(e)(e.code, _python_terms(e.msg)) from None


def _format(v):
    if isinstance(v, (bool, np.bool_)) or v is None:
        return str(v)  # rejected by fsvc's parser with its message
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    return str(v)


class _FSVCBase(BaseEstimator):
    _regression = False

    def __init__(self, *, distance="l2", kernel="gauss", radius="0.45rms", prag=1.0,
                 selection="auto", max_neurons=0, readout="ridge", lam=1e-5, eta=0.01,
                 epochs=1, scale="none", dtype=None, preprocess="auto", shuffle=False,
                 backend="cpu", threads=0, random_state=0, verbose=False, solver="auto",
                 cg_tol=1e-4, augment="none", precision="full", pcg_h="auto",
                 features="auto"):
        self.distance = distance
        self.kernel = kernel
        self.radius = radius
        self.prag = prag
        self.selection = selection
        self.max_neurons = max_neurons
        self.readout = readout
        self.lam = lam
        self.eta = eta
        self.epochs = epochs
        self.scale = scale
        self.dtype = dtype
        self.preprocess = preprocess
        self.shuffle = shuffle
        self.backend = backend
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
        self.solver = solver
        self.cg_tol = cg_tol
        self.augment = augment
        self.precision = precision
        self.pcg_h = pcg_h
        self.features = features

    # ---- parameters -> fsvc settings ----
    def _settings(self):
        rs = self.random_state
        if rs is None:
            seed = 0  # fsvc is deterministic: no seed means seed 0
        elif isinstance(rs, numbers.Integral) and not isinstance(rs, (bool, np.bool_)):
            seed = int(rs)
        else:
            seed = int(check_random_state(rs).randint(0, 2**31 - 1))
        s = [("radius", _format(self.radius)), ("prag", _format(self.prag)),
             ("dist", _format(self.distance)), ("kernel", _format(self.kernel)),
             ("select", _format(self.selection)), ("max-neurons", _format(self.max_neurons)),
             ("readout", _format(self.readout)), ("lambda", _format(self.lam)),
             ("eta", _format(self.eta)), ("epochs", _format(self.epochs)),
             ("scale", _format(self.scale)), ("preprocess", _format(self.preprocess)),
             ("backend", _format(self.backend)), ("threads", _format(self._threads())),
             ("solver", _format(self.solver)), ("cg-tol", _format(self.cg_tol)),
             ("augment", _format(self.augment)), ("precision", _format(self.precision)),
             ("pcg-h", _format(self.pcg_h)), ("features", _format(self.features)),
             ("shuffle", str(seed))]  # sets the seed (and the shuffle, undone below)
        if self.dtype is not None:
            s.append(("dtype", _format(self.dtype)))
        if not self.shuffle:
            s.append(("shuffle", "off"))  # keeps the seed for -s random
        return s

    def _threads(self):
        """threads, with 0 (every core) read as $OMP_NUM_THREADS when that is
        set: joblib's worker processes get cores // n_jobs there, so that
        GridSearchCV(n_jobs=2) does not run two fits on every core each."""
        t = self.threads
        if isinstance(t, numbers.Integral) and not isinstance(t, (bool, np.bool_)) and t == 0:
            first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
            if first.isdigit() and int(first) > 0:
                return int(first)
        return t

    # ---- input checks ----
    def _check_X(self, X, reset):
        """(X2d, rows, cols): X as a C-contiguous 2-D engine array, or as a
        canonical scipy CSR matrix where the sparse path takes it (see
        _sparse_or_dense)."""
        self._check_feature_names(X, reset=reset)
        if sp.issparse(X):
            X = check_array(X, accept_sparse="csr", dtype=_ACCEPTED, estimator=self)
            self._check_n_features(X, reset=reset)
            X = self._sparse_or_dense(X, reset)
            if isinstance(X, _DenseRows):  # a dense model: its dense checks
                self._check_u8(X.X.dtype)
                return X, self.image_shape_[0] if self.image_shape_ else 0, \
                    self.image_shape_[1] if self.image_shape_ else 0
            return X, 0, 0
        X = check_array(X, dtype=_ACCEPTED, order="C", allow_nd=True,
                        estimator=self)
        rows = cols = 0
        if X.ndim == 3:
            rows, cols = X.shape[1], X.shape[2]
            X = X.reshape(X.shape[0], rows * cols)  # a view: C-contiguous
        elif X.ndim != 2:
            raise ValueError("X must be 2-D (samples x features) or 3-D (samples x rows x "
                             "cols images), got %d dimensions" % X.ndim)
        self._check_n_features(X, reset=reset)
        if reset and X.shape[1] > DENSE_MAX_N:  # before the engine: no scan of X
            raise FSVCInputError(2, "array: %d features; dense data holds at most %d (give "
                                    "a scipy.sparse CSR matrix)" % (X.shape[1], DENSE_MAX_N))
        if not reset and self._model.sparse:
            return self._sparse_or_dense(sp.csr_matrix(X), reset), 0, 0
        if not reset:
            if not rows:
                rows, cols = self.image_shape_ or (0, 0)
            self._check_u8(X.dtype)
        return X, rows, cols

    def _check_u8(self, dtype):
        if self._model.meta["dtype"] == 0 and dtype != np.uint8:
            raise ValueError("this model has u8 centroids and needs uint8 input, got %s" % dtype)

    def _sparse_or_dense(self, X, reset):
        """A CSR X as the engine takes it, by `fsvc train`'s rule for LIBSVM
        files (FSVC_STORE_AUTO): sparse beyond DENSE_MAX_N features or when
        under 10 % of more than SPARSE_AUTO_CELLS cells hold a value, else
        dense (X.toarray(): then the same model as the dense array gives).
        A dense model predicts from dense rows (_DenseRows), a sparse one
        from CSR."""
        if not X.has_canonical_format:  # sorted columns, no duplicates
            X = X.copy()
            X.sum_duplicates()
        if not reset:
            return X if self._model.sparse else _DenseRows(X)
        N, n = X.shape
        cells = N * n
        if n > DENSE_MAX_N or (cells > SPARSE_AUTO_CELLS and X.nnz < cells // 10):
            self._check_sparse_params(N, n)
            return X
        return np.ascontiguousarray(X.toarray())

    def _check_sparse_params(self, N, n):
        """What the sparse path cannot do, as a ValueError naming the parameter
        (fsvc/sparse_train.c refuses the same with the CLI's options)."""
        bad = None
        if self.readout == "lms":
            bad = "readout='lms'"
        elif self.selection == "kmeans++":
            bad = "selection='kmeans++'"
        elif self.scale != "none":
            bad = "scale=%r" % (self.scale,)
        elif self.preprocess not in ("auto", "none"):
            bad = "preprocess=%r" % (self.preprocess,)
        elif self.augment != "none":
            bad = "augment=%r" % (self.augment,)
        elif self.features == "hog":
            bad = "features=%r (HOG needs images)" % (self.features,)
        elif self.dtype not in (None, "auto", "f32"):
            bad = "dtype=%r (sparse centroids are float32)" % (self.dtype,)
        elif getattr(self, "class_weight", None) is not None:
            bad = "class_weight (the sparse ridge has no class weights)"
        if bad is None:
            return
        how = ("pass a dense array (X.toarray())" if n <= DENSE_MAX_N else
               "its %d features are more than a dense array may hold (%d)" % (n, DENSE_MAX_N))
        raise ValueError("%s: sparse X (%d x %d, kept sparse) does not support %s; %s"
                         % (type(self).__name__, N, n, bad, how))

    def _fit(self, X, y, sample_weight=None):
        """(X, y, w, rows, cols) checked; w: the sample weights (None when
        not given), a sample of weight 0 left out (as scikit-learn's SVC)."""
        if y is None:
            raise ValueError("%s requires y to be passed, but the target y is None"
                             % type(self).__name__)
        X, rows, cols = self._check_X(X, reset=True)
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        w = None
        if sample_weight is not None:
            w = _check_sample_weight(sample_weight, X, dtype=np.float64, only_non_negative=True)
            keep = w > 0
            if not keep.any():
                raise ValueError("%s: every sample_weight is 0" % type(self).__name__)
            if not keep.all():
                X, y, w = X[keep], y[keep], w[keep]
        if X.shape[0] < 2:
            raise ValueError("%s needs at least 2 samples, got 1 sample" % type(self).__name__)
        return X, y, w, rows, cols

    def _warn(self, model, N):
        """The warning lines of `fsvc train`, as warnings.warn (issue 27)."""
        info = getattr(model, "train_info", None)
        if info is None:
            return
        if info.solver == 1 and not info.cg_converged:  # FSVC_SOLVER_PCG
            warnings.warn("fsvc: pcg stopped at relative residual %.3g after %d iterations, "
                          "short of cg_tol %g" % (info.cg_res, info.cg_iter, self.cg_tol),
                          FSVCWarning, stacklevel=3)
        r = str(self.radius)
        if (self.readout in ("onehot", "lms") and r.endswith("rms") and not self._regression
                and info.m < 0.01 * N):
            warnings.warn("fsvc: the %s readout got only %d centroids for %d samples at "
                          "radius %s (the ridge readout's default); give radius='search' or "
                          "a smaller radius" % (self.readout, info.m, N, r), FSVCWarning,
                          stacklevel=3)

    def _set_model(self, model, rows, cols):
        self._model = model
        meta = model.meta
        self.n_centroids_ = meta["m"]
        self.image_shape_ = (meta["rows"], meta["cols"]) if meta["rows"] else None
        return self

    # ---- the model file (the CLI reads and writes the same) ----
    def save_model(self, path):
        """Writes the fitted model as an fsvc model file (`fsvc predict` reads it)."""
        check_is_fitted(self)
        self._model.save(path)

    def model_bytes(self):
        """The bytes of the model file."""
        check_is_fitted(self)
        if hasattr(self, "_calibrate_pending"):
            self._calibrate_pending()
        return self._model.to_bytes()

    # ---- pickling: the model travels as fsvc's own model bytes ----
    def __getstate__(self):
        if hasattr(self, "_calibrate_pending") and "_model" in self.__dict__:
            self._calibrate_pending()  # the model travels whole, not the data
        state = super().__getstate__()
        state = dict(state)
        if "_model" in state:
            state["_model"] = state["_model"].to_bytes()
        state.pop("_pending", None)
        return state

    def __setstate__(self, state):
        state = dict(state)
        if "_model" in state:
            state["_model"] = Model.from_bytes(state["_model"], "pickled fsvc model")
        super().__setstate__(state)

    def _more_tags(self):
        return {"X_types": ["2darray"], "allow_nan": False}


class FSVCClassifier(ClassifierMixin, _FSVCBase):
    """FSVC classifier (RBF centroids picked from the training samples, then a
    ridge, one-hot or LMS readout). Labels may be of any type (ints,
    strings); numeric labels are stored in the model file as they are, so
    `fsvc predict` prints them.

    Attributes after fit: classes_, n_features_in_, n_centroids_,
    image_shape_ ((rows, cols) or None).

    class_weight: None (every class 1), 'balanced' (class k weighs
    n_samples / (n_classes * n_k), as scikit-learn) or a dict {label:
    weight} (other classes 1): the ridge readout's fit weighs each sample by
    its class (`fsvc train --class-weight`, `-w LABEL WEIGHT`); the onehot
    and lms readouts cannot weight classes. Sample weights: fit's
    sample_weight (class and sample weights multiply).

    probability: True (default) fits the calibration of predict_proba at
    fit time, as `fsvc train -b 1` (a temperature on 5-fold held-out
    scores; the fit takes about as long again as the readout); False
    skips it, and predict_proba is then the plain softmax of the scores
    (with an FSVCWarning)."""

    def __init__(self, *, distance="l2", kernel="gauss", radius="0.45rms", prag=1.0,
                 selection="auto", max_neurons=0, readout="ridge", lam=1e-5, eta=0.01,
                 epochs=1, scale="none", dtype=None, preprocess="auto", shuffle=False,
                 backend="cpu", threads=0, random_state=0, verbose=False, solver="auto",
                 cg_tol=1e-4, augment="none", class_weight=None, precision="full",
                 pcg_h="auto", probability=True, features="auto"):
        super().__init__(distance=distance, kernel=kernel, radius=radius, prag=prag,
                         selection=selection, max_neurons=max_neurons, readout=readout,
                         lam=lam, eta=eta, epochs=epochs, scale=scale, dtype=dtype,
                         preprocess=preprocess, shuffle=shuffle, backend=backend,
                         threads=threads, random_state=random_state, verbose=verbose,
                         solver=solver, cg_tol=cg_tol, augment=augment,
                         precision=precision, pcg_h=pcg_h, features=features)
        self.class_weight = class_weight
        self.probability = probability

    def _more_tags(self):
        # the check's zero-weight data is its data shuffled, and the
        # calibration's held-out folds follow the order of the samples (as
        # svm-train -b 1's): predict and decision_function agree,
        # predict_proba differs (tests/python/test_sample_weight.py checks
        # zero weights on data in one order)
        return {"_xfail_checks": {"check_sample_weights_invariance":
                                  "predict_proba's calibration folds follow the sample order, "
                                  "which the check shuffles"}}

    def _class_weight_setting(self, classes, values):
        """class_weight as fsvc's class-weight setting, by the label values
        the engine sees (values[i] for classes[i])."""
        cw = self.class_weight
        if cw is None:
            return "none"
        if isinstance(cw, str):
            if cw != "balanced":
                raise ValueError("class_weight must be None, 'balanced' or a dict, got %r" % cw)
            return cw
        if not isinstance(cw, dict):
            raise ValueError("class_weight must be None, 'balanced' or a dict, got %r" % (cw,))
        index = {c: i for i, c in enumerate(classes.tolist())}
        items = []
        for label, w in cw.items():
            key = label.item() if isinstance(label, np.generic) else label
            if key not in index:
                raise ValueError("class_weight: the class %r is not in the training labels %s"
                                 % (label, list(classes)))
            items.append("%r:%s" % (float(values[index[key]]), _format(w)))
        return ",".join(items) if items else "none"

    def fit(self, X, y, sample_weight=None):
        """sample_weight: N weights >= 0 or None (all 1): the readout fits a
        sample of weight w as w copies of it (the ridge loss, the LMS step,
        the calibration); the centroid selection and the radius rule do not
        weigh samples, and a weight of 0 leaves the sample out."""
        X, y, w, rows, cols = self._fit(X, y, sample_weight)
        check_classification_targets(y)
        classes, yi = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError("FSVCClassifier needs samples of at least 2 classes; got 1 class")
        values = None
        if classes.dtype.kind in "biuf":
            values = classes.astype(np.float64)
            if not (np.all(np.isfinite(values)) and np.all(np.diff(values) > 0)):
                values = None
        if values is None:  # labels the model file cannot hold: class indices
            values = np.arange(len(classes), dtype=np.float64)
        if not isinstance(self.probability, (bool, np.bool_)):
            raise ValueError("probability must be True or False, got %r" % (self.probability,))
        settings = self._settings() + [("class-weight",
                                         self._class_weight_setting(classes, values))]
        # dense data: the calibration waits for the first predict_proba (a
        # grid search that only predicts never pays for it); sparse: now
        lazy = bool(self.probability) and not _is_sparse(X)
        on = "on" if self.probability and not lazy else "off"
        model = _train(X, values[yi], settings + [("probability", on)], False, rows, cols,
                       self.verbose, w)
        # mutated in place, never replaced: predict_proba leaves __dict__ as it was
        self._pending = {}
        if lazy:
            self._pending.update(X=X, y=values[yi], w=w, rows=rows, cols=cols,
                                 settings=settings + [("probability", "on")])
        if model.meta["K"] != len(classes):
            raise RuntimeError("fsvc: the model has %d classes, expected %d"
                               % (model.meta["K"], len(classes)))
        self.classes_ = classes
        self._names_kept = self._keep_names(model, classes)
        self._warn(model, X.shape[0])
        return self._set_model(model, rows, cols)

    @staticmethod
    def _keep_names(model, classes):
        """String labels become the model's class names (as a PNG folder's
        classes do), so that the model file, `fsvc predict` and
        from_model_file keep them. True when kept or not needed; False for
        strings a model file cannot hold (empty, control characters)."""
        if classes.dtype.kind in "biuf":
            return True
        if not all(isinstance(c, str) for c in classes.tolist()):
            return False
        try:
            model.set_class_names(classes.tolist())
        except FSVCInputError:
            return False
        return True

    def _calibrate_pending(self):
        """Fits the calibration fit() left for later (probability=True on
        dense data), once; the training data is then let go."""
        pending = getattr(self, "_pending", None)
        if pending:
            try:
                self._model.calibrate(pending["X"], pending["y"], pending["settings"],
                                      pending["rows"], pending["cols"], self.verbose,
                                      pending["w"])
            except FSVCError as e:
                raise type(e)(e.code, _python_terms(e.msg)) from None
            pending.clear()

    def save_model(self, path):
        """Writes the fitted model as an fsvc model file (`fsvc predict` reads
        it); string labels are kept as its class names."""
        check_is_fitted(self)
        self._calibrate_pending()
        if not getattr(self, "_names_kept", True):
            warnings.warn("fsvc: the labels %r cannot be class names of a model file (names "
                          "must be non-empty strings without control characters); the file "
                          "keeps class indices 0..%d" % (list(self.classes_)[:5],
                                                          len(self.classes_) - 1),
                          FSVCWarning, stacklevel=2)
        self._model.save(path)

    def _scores(self, X):
        check_is_fitted(self)
        X, rows, cols = self._check_X(X, reset=False)
        return _predict(self._model, X, self.backend, self._threads(), True, rows, cols)

    def predict(self, X):
        pred, _ = self._scores(X)
        return self.classes_[pred]

    def decision_function(self, X):
        """The readout scores, N x K; for two classes, score 1 - score 0."""
        _, score = self._scores(X)
        if score.shape[1] == 2:
            return score[:, 1] - score[:, 0]
        return score

    def predict_proba(self, X):
        """Class probabilities: softmax(a x scores) with the temperature a
        fitted on held-out scores (probability=True, `fsvc train -b 1`; on
        dense data at the first call, so fits that only predict never pay
        for it); rows sum to 1, the argmax is the prediction. A model
        without it (probability=False, or a file of an older fsvc) gives
        the plain softmax of the scores, with an FSVCWarning."""
        self._calibrate_pending()
        _, score = self._scores(X)
        if not self._model.calibrated():
            warnings.warn("fsvc: this model has no probability calibration (fit it with "
                          "probability=True, or `fsvc train -b 1`): predict_proba is the "
                          "softmax of the scores", FSVCWarning, stacklevel=2)
        return self._model.proba(score)

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))

    @classmethod
    def from_model_file(cls, path):
        """A fitted classifier from an fsvc model file (e.g. from `fsvc train`)."""
        return cls._from_model(Model.load(path))

    @classmethod
    def from_model_bytes(cls, data):
        return cls._from_model(Model.from_bytes(data))

    @classmethod
    def _from_model(cls, model):
        meta = model.meta
        if meta["regression"]:
            raise ValueError("this fsvc model is a regression model: use FSVCRegressor")
        est = cls()
        names = model.class_names()
        if names is not None:  # string labels, or a PNG folder's classes
            est.classes_ = np.array(names)
            est.n_features_in_ = meta["n"]
            return est._set_model(model, meta["rows"], meta["cols"])
        v = model.class_values()
        # int64 only where every label is an integer int64 holds (|v| < 2**63):
        # 1e19 would become int64's minimum
        whole = np.all(v == np.round(v)) and np.all(np.abs(v) < 2.0**63)
        est.classes_ = v.astype(np.int64) if whole else v
        est.n_features_in_ = meta["n"]
        return est._set_model(model, meta["rows"], meta["cols"])


class FSVCRegressor(RegressorMixin, _FSVCBase):
    """FSVC regression: the ridge readout on the targets as real values
    (`fsvc train --regression`). Attributes after fit: n_features_in_,
    n_centroids_, image_shape_. Sample weights: fit's sample_weight."""

    _regression = True

    def fit(self, X, y, sample_weight=None):
        """sample_weight: as FSVCClassifier.fit's (the weighted ridge loss,
        the targets' weighted mean as the offset)."""
        X, y, w, rows, cols = self._fit(X, y, sample_weight)
        y = check_array(y, ensure_2d=False, dtype=np.float64, input_name="y")
        model = _train(X, y, self._settings(), True, rows, cols, self.verbose, w)
        self._warn(model, X.shape[0])
        return self._set_model(model, rows, cols)

    def predict(self, X):
        check_is_fitted(self)
        X, rows, cols = self._check_X(X, reset=False)
        _, score = _predict(self._model, X, self.backend, self._threads(), True, rows, cols)
        return score[:, 0].copy()

    @classmethod
    def from_model_file(cls, path):
        return cls._from_model(Model.load(path))

    @classmethod
    def _from_model(cls, model):
        meta = model.meta
        if not meta["regression"]:
            raise ValueError("this fsvc model is a classifier: use FSVCClassifier")
        est = cls()
        est.n_features_in_ = meta["n"]
        return est._set_model(model, meta["rows"], meta["cols"])
