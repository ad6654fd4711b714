"""FSVCClassifier / FSVCRegressor beyond scikit-learn's generic checks: the
API of issue 12 on real data, errors as exceptions, pickling, the
scikit-learn tools, and no copies of C-contiguous u8/f32/f64 input."""
import io
import pickle
import subprocess

import joblib
import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import fsvc
from fsvc._model import engine_array


def test_fashion_accuracy_proba_decision(fashion):
    X, y, Xt, yt = fashion
    clf = fsvc.FSVCClassifier().fit(X, y)
    assert clf.n_features_in_ == 784 and clf.image_shape_ == (28, 28)
    assert list(clf.classes_) == list(range(10))
    assert clf.score(Xt, yt) > 0.75
    pred = clf.predict(Xt)
    proba = clf.predict_proba(Xt)
    assert proba.shape == (500, 10)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(proba >= 0)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], pred)
    dec = clf.decision_function(Xt)
    assert dec.shape == (500, 10)
    np.testing.assert_array_equal(clf.classes_[dec.argmax(axis=1)], pred)
    # 2-D input of the same images predicts the same (the model keeps 28 x 28)
    np.testing.assert_array_equal(clf.predict(Xt.reshape(500, 784)), pred)


def test_hog_features_as_the_cli(fashion, tmp_path, fsvc_bin):
    """features="hog": more right than the pixels, a model file the CLI
    reads as a HOG model and predicts from with the same classes."""
    X, y, Xt, yt = fashion
    pix = fsvc.FSVCClassifier(features="pixels", probability=False).fit(X, y)
    assert fsvc.FSVCClassifier().get_params()["features"] == "auto"
    hog = fsvc.FSVCClassifier(features="hog", probability=False).fit(X, y)
    assert hog.get_params()["features"] == "hog" and hog.n_features_in_ == 784
    assert hog.score(Xt, yt) >= pix.score(Xt, yt) + 0.01
    path = tmp_path / "hog.fsvc"
    path.write_bytes(hog.model_bytes())
    info = subprocess.run([fsvc_bin, "info", str(path)], check=True, capture_output=True,
                          text=True).stdout
    assert "--features hog" in info and "1176 a centroid" in info
    with pytest.raises(ValueError, match="features"):
        fsvc.FSVCClassifier(features="edges").fit(X, y)
    # 2-D X has no image shape: the message says how to give one in Python
    with pytest.raises(fsvc.FSVCInputError, match=r"pass X as a 3-D array") as e:
        fsvc.FSVCClassifier(features="hog").fit(X.reshape(len(X), 784), y)
    assert "--" not in str(e.value)


def test_string_labels_and_binary_decision(blobs):
    X, y = blobs
    names = np.array(["cat", "dog", "fox"])[y]
    clf = fsvc.FSVCClassifier().fit(X, names)
    assert list(clf.classes_) == ["cat", "dog", "fox"]
    assert set(clf.predict(X)) <= {"cat", "dog", "fox"}
    assert clf.score(X, names) > 0.8
    two = np.where(y == 0, "no", "yes")
    clf2 = fsvc.FSVCClassifier().fit(X, two)
    d = clf2.decision_function(X)
    assert d.shape == (300,)
    np.testing.assert_array_equal(np.where(d > 0, "yes", "no"), clf2.predict(X))


def test_regressor_fits_a_smooth_function():
    rng = np.random.RandomState(0)
    X = rng.uniform(-2, 2, size=(600, 2))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] ** 2
    reg = fsvc.FSVCRegressor().fit(X[:500], y[:500])
    assert reg.score(X[500:], y[500:]) > 0.9


def test_parameters_reach_the_engine(blobs):
    X, y = blobs
    a = fsvc.FSVCClassifier(selection="random", max_neurons=20).fit(X, y)
    assert a.n_centroids_ == 20
    b = fsvc.FSVCClassifier(selection="random", max_neurons=20, random_state=5).fit(X, y)
    c = fsvc.FSVCClassifier(selection="random", max_neurons=20, random_state=5).fit(X, y)
    np.testing.assert_array_equal(b.decision_function(X), c.decision_function(X))
    assert not np.array_equal(a.decision_function(X), b.decision_function(X))
    d = fsvc.FSVCClassifier(distance="l1", kernel="tri", radius="search", readout="onehot",
                            selection="global").fit(X, y)
    assert 0 < d.n_centroids_ < 300


@pytest.mark.parametrize("param,value,words", [
    ("distance", "l3", "dist: unknown value 'l3'"),
    ("kernel", "box", "kernel: unknown value 'box'"),
    ("radius", -1.0, "radius"),
    ("readout", "svm", "readout: unknown value 'svm'"),
    ("lam", 0, "lambda"),
    ("backend", "tpu", "backend: unknown value 'tpu'"),
    ("threads", -2, "threads"),
    ("max_neurons", "many", "max-neurons"),
    ("solver", "qr", "solver: unknown value 'qr'"),
    ("cg_tol", 0, "cg-tol"),
    ("augment", "rotate", "augment: unknown value 'rotate'"),
    ("precision", "fp16", "precision: unknown value 'fp16'"),
    ("pcg_h", "f8", "pcg-h: unknown value 'f8'"),
])
def test_bad_parameter_raises_fsvc_message(blobs, param, value, words):
    X, y = blobs
    with pytest.raises(fsvc.FSVCUsageError) as e:
        fsvc.FSVCClassifier(**{param: value}).fit(X, y)
    assert words in str(e.value) and e.value.code == 1
    assert isinstance(e.value, ValueError)


def test_regression_needs_ridge_message(blobs):
    X, y = blobs
    with pytest.raises(fsvc.FSVCError, match="regression needs the ridge readout"):
        fsvc.FSVCRegressor(readout="onehot").fit(X, y.astype(float))


def test_bad_bytes_and_files_raise_not_crash(tmp_path):
    with pytest.raises(fsvc.FSVCInputError, match="^pickled fsvc model: "):
        fsvc.Model.from_bytes(b"FSVCMODL" + b"\0" * 40, "pickled fsvc model")
    with pytest.raises(fsvc.FSVCInputError, match="not an fsvc model"):
        fsvc.FSVCClassifier.from_model_bytes(b"hello")
    missing = tmp_path / "none.fsvc"
    with pytest.raises(fsvc.FSVCInputError, match=str(missing)):
        fsvc.FSVCClassifier.from_model_file(missing)
    bad = tmp_path / "bad-images-idx3-ubyte"
    bad.write_bytes(b"\0\0\x08\x03" + b"\0\0\0\x05")
    with pytest.raises(fsvc.FSVCInputError, match=str(bad)):
        fsvc.load_idx(bad)


def test_corrupted_pickle_raises(blobs):
    X, y = blobs
    clf = fsvc.FSVCClassifier().fit(X, y)
    state = clf.__getstate__()
    b = bytearray(state["_model"])
    b[len(b) // 2] ^= 0xFF
    state["_model"] = bytes(b)
    other = fsvc.FSVCClassifier.__new__(fsvc.FSVCClassifier)
    with pytest.raises(fsvc.FSVCInputError, match="CRC32"):
        other.__setstate__(state)


def test_pickle_and_joblib_round_trip(fashion):
    X, y, Xt, _ = fashion
    clf = fsvc.FSVCClassifier(max_neurons=300).fit(X, y)
    want = clf.decision_function(Xt)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(Xt), want)
    assert again.get_params() == clf.get_params()
    f = io.BytesIO()
    joblib.dump(clf, f)
    f.seek(0)
    np.testing.assert_array_equal(joblib.load(f).decision_function(Xt), want)
    assert clf.__getstate__()["_model"][:8] == b"FSVCMODL"  # fsvc's own model bytes


def test_pipeline_gridsearch_cross_val(blobs):
    X, y = blobs
    pipe = make_pipeline(StandardScaler(), fsvc.FSVCClassifier())
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and scores.mean() > 0.7
    gs = GridSearchCV(fsvc.FSVCClassifier(), {"radius": ["0.3rms", "0.6rms"],
                                              "lam": [1e-5, 1e-2]}, cv=3, n_jobs=2)
    gs.fit(X, y)
    assert gs.best_params_["radius"] in ("0.3rms", "0.6rms")
    assert gs.score(X, y) > 0.7


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
def test_contiguous_input_is_not_copied(dtype):
    X = np.zeros((5, 3), dtype=dtype)
    assert engine_array(X) is X
    assert engine_array(X[:, :2]) is not X  # not contiguous: copied
    assert not np.shares_memory(engine_array(np.asfortranarray(np.zeros((5, 3), dtype))), X)


def test_other_dtypes_are_copied_to_float64():
    X = np.arange(6, dtype=np.int64).reshape(2, 3)
    e = engine_array(X)
    assert e.dtype == np.float64 and not np.shares_memory(e, X)


def test_estimator_keeps_uint8_as_is(fashion, monkeypatch):
    """The classifier hands a C-contiguous uint8 array to the engine itself."""
    X, y, Xt, _ = fashion
    seen = []
    import fsvc._model as m
    real = m.engine_array

    def spy(a):
        out = real(a)
        seen.append((a, out))
        return out
    monkeypatch.setattr(m, "engine_array", spy)
    fsvc.FSVCClassifier(max_neurons=100).fit(X, y).predict(Xt)
    assert len(seen) == 2
    for a, out in seen:
        assert out.dtype == np.uint8 and np.shares_memory(out, X if a.shape[0] == 2000 else Xt)


def test_verbose_prints_progress_quiet_prints_nothing(blobs, capfd):
    X, y = blobs
    fsvc.FSVCClassifier().fit(X, y).predict(X)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    fsvc.FSVCClassifier(verbose=True).fit(X, y)
    out, err = capfd.readouterr()
    assert "radius" in err


@pytest.mark.parametrize("est, fix", [
    (lambda: fsvc.FSVCClassifier(readout="lms", eta=1e300), "(eta)"),
    (lambda: fsvc.FSVCClassifier(radius=1e-300), "(radius)"),
    (lambda: fsvc.FSVCClassifier(selection="random", radius="search"), "(radius)")])
def test_engine_messages_name_parameters_not_options(blobs, est, fix):
    """The engine's advice names `fsvc train`'s options ("-R ridge", "-r");
    the estimators' errors name their parameters instead (issue 27 item 2)."""
    X, y = blobs
    with pytest.raises(fsvc.FSVCError) as e:
        est().fit(X, y)
    assert fix in str(e.value) and "(-" not in str(e.value)


def test_threads_0_follows_omp_num_threads(monkeypatch, blobs):
    """threads=0 is every core, or $OMP_NUM_THREADS when set: what joblib
    gives its worker processes (cores // n_jobs), so that n_jobs=2 does not
    run two fits on every core each (issue 27 item 11)."""
    X, y = blobs
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert ("threads", "0") in fsvc.FSVCClassifier()._settings()
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert ("threads", "1") in fsvc.FSVCClassifier()._settings()
    assert ("threads", "3") in fsvc.FSVCClassifier(threads=3)._settings()
    monkeypatch.setenv("OMP_NUM_THREADS", "junk")
    assert ("threads", "0") in fsvc.FSVCClassifier()._settings()
    # and in joblib's workers: the same model as one process makes
    one = cross_val_score(fsvc.FSVCClassifier(), X, y, cv=3, n_jobs=1)
    two = cross_val_score(fsvc.FSVCClassifier(), X, y, cv=3, n_jobs=2)
    np.testing.assert_array_equal(one, two)
