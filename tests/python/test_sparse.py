"""scipy CSR in and out of the Python package (issue 27 item 2): load_libsvm
returns CSR, the estimators fit and predict CSR through the engine's sparse
path (fsvc_train_csr_view, as `fsvc train` on a sparse file), memory grows
with the nonzeros, and small CSR gives the dense array's model to the bit."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import fsvc

from conftest import ROOT


def write_sparse_libsvm(path, N, n, per_row, seed=0):
    """A LIBSVM file of N rows of about per_row values among n features, in
    two classes: 40 % of a row's features come from its class's pool of
    3000 features, the rest from all n."""
    rng = np.random.default_rng(seed)
    pools = [rng.choice(n, 3000, replace=False) for _ in range(2)]
    with open(path, "w") as f:
        for i in range(N):
            lab = i % 2
            k = per_row * 2 // 5
            c = np.unique(np.concatenate([rng.integers(0, n, per_row - k),
                                          rng.choice(pools[lab], k, replace=False)]))
            v = rng.integers(1, 100, len(c)) / 100
            f.write("%d %s\n" % (lab, " ".join("%d:%g" % (a + 1, b) for a, b in zip(c, v))))


def test_load_libsvm_returns_csr_matching_sklearn(tmp_path):
    path = tmp_path / "s.txt"
    write_sparse_libsvm(path, 50, 70000, 200)
    X, y = fsvc.load_libsvm(path)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float32 and X.has_canonical_format
    Xs, ys = load_svmlight_file(str(path), n_features=X.shape[1])
    assert X.shape == Xs.shape and X.nnz == Xs.nnz
    np.testing.assert_array_equal(X.toarray(), Xs.astype(np.float32).toarray())
    np.testing.assert_array_equal(y, ys)
    X2, _ = fsvc.load_libsvm(path, n_features=200000)
    assert X2.shape == (50, 200000)


def test_load_libsvm_bad_input(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("1 1:1\n2 2:1e39\n")
    with pytest.raises(fsvc.FSVCInputError, match="bad.txt"):
        fsvc.load_libsvm(path)
    with pytest.raises(fsvc.FSVCUsageError, match="n_features"):
        fsvc.load_libsvm(path, n_features=2**24 + 1)


def test_man_train_sized_file_fits_in_little_memory(tmp_path):
    """A 264292-feature file at 0.28 % nonzeros (man.train's shape): loaded,
    fitted and predicted in a child whose peak resident memory stays under
    600 MB, where the dense float32 matrix of its 1000 rows alone would
    take 1.06 GB (float64: 2.1 GB). Peak RSS, not an address-space limit:
    the CUDA libraries of a CUDA build map more than such a limit allows,
    and OpenBLAS spins when its buffers cannot be mapped."""
    path = tmp_path / "man.txt"
    write_sparse_libsvm(path, 1000, 264292, 740)
    script = textwrap.dedent("""
        import resource, sys
        import fsvc
        X, y = fsvc.load_libsvm(sys.argv[1])
        clf = fsvc.FSVCClassifier().fit(X[:800], y[:800])
        print(X.shape[1], clf.n_centroids_, clf.score(X[800:], y[800:]),
              resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """)
    r = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                       text=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="2"), timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    n, m, acc, rss_kb = r.stdout.split()
    assert int(n) == 264292 and int(m) == 800 and float(acc) > 0.9
    assert int(rss_kb) < 600 * 1024, "peak resident memory %s kB" % rss_kb


def test_sparse_fit_predicts_as_the_cli(tmp_path, fsvc_bin):
    """The same file trained by `fsvc train` and by fit(load_libsvm(...)):
    the same model bytes and the same predictions."""
    path = tmp_path / "s.txt"
    write_sparse_libsvm(path, 300, 70000, 150)
    X, y = fsvc.load_libsvm(path)
    clf = fsvc.FSVCClassifier().fit(X, y)
    assert clf._model.sparse and clf.n_features_in_ == X.shape[1] > 65536
    model = tmp_path / "cli.fsvc"
    subprocess.run([fsvc_bin, "train", "-q", str(path), str(model)], check=True)
    cli = fsvc.FSVCClassifier.from_model_file(model)
    np.testing.assert_array_equal(cli.decision_function(X), clf.decision_function(X))
    np.testing.assert_array_equal(cli.predict(X), clf.predict(X))
    out = tmp_path / "labels.txt"
    subprocess.run([fsvc_bin, "predict", "-q", str(model), str(path), str(out)], check=True)
    np.testing.assert_array_equal(np.loadtxt(out), clf.predict(X))
    # a dense row array of the sparse model's width is taken as CSR
    np.testing.assert_array_equal(clf.predict(X[:5].toarray()), clf.predict(X[:5]))
    proba = clf.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_sparse_regressor(tmp_path):
    path = tmp_path / "s.txt"
    write_sparse_libsvm(path, 300, 70000, 150)
    X, y = fsvc.load_libsvm(path)
    reg = fsvc.FSVCRegressor().fit(X, y * 3.0)
    assert reg._model.sparse
    assert reg.score(X, y * 3.0) > 0.9
    again = fsvc.FSVCRegressor.from_model_file(_saved(reg, tmp_path))
    np.testing.assert_array_equal(again.predict(X), reg.predict(X))


def _saved(est, tmp_path):
    p = tmp_path / "m.fsvc"
    est.save_model(p)
    return p


def test_small_csr_gives_the_dense_model_to_the_bit(blobs):
    """CSR that `fsvc train` would read dense (few cells) is fitted dense:
    the same centroids, scores and predictions as the array, any format."""
    X, y = blobs
    dense = fsvc.FSVCClassifier().fit(X, y)
    for fmt in ("csr", "csc", "coo"):
        Xs = sp.csr_matrix(X).asformat(fmt)
        clf = fsvc.FSVCClassifier().fit(Xs, y)
        assert not clf._model.sparse
        assert clf.model_bytes() == dense.model_bytes()
        np.testing.assert_array_equal(clf.decision_function(Xs), dense.decision_function(X))
        np.testing.assert_array_equal(dense.predict(Xs), dense.predict(X))
    reg = fsvc.FSVCRegressor().fit(X, y.astype(float))
    np.testing.assert_array_equal(reg.predict(sp.csr_matrix(X)), reg.predict(X))


def test_dense_model_predicts_csr_in_chunks_to_the_bit():
    """More rows than the engine's chunk (8192): the chunked densification
    keeps the chunk boundaries, so every score equals the dense array's."""
    rng = np.random.RandomState(3)
    X = rng.rand(9000, 6)
    X[X < 0.5] = 0
    y = (X[:, 0] > X[:, 1]).astype(int)
    clf = fsvc.FSVCClassifier(max_neurons=300).fit(X[:2000], y[:2000])
    np.testing.assert_array_equal(clf.decision_function(sp.csr_matrix(X)),
                                  clf.decision_function(X))


def test_unsorted_and_duplicate_csr_entries():
    """scipy allows unsorted columns and duplicates; they are summed, as
    toarray() does, before the engine (which needs ascending columns)."""
    n = 70000
    rows, cols, vals = [], [], []
    rng = np.random.RandomState(0)
    for i in range(60):
        c = rng.randint(0, n, 30)
        c[:5] = (i % 2) * 10 + np.arange(5)
        rows += [i] * 31
        cols += list(c[::-1]) + [c[0]]  # unsorted, one duplicate
        vals += [1.0] * 31
    y = np.arange(60) % 2
    X = sp.csr_matrix((vals, (rows, cols)), shape=(60, n))
    X.has_sorted_indices = False
    Xu = sp.csr_matrix((np.array(vals), np.array(cols), np.arange(0, 61 * 31, 31)[:61]),
                       shape=(60, n))
    assert not Xu.has_canonical_format
    a = fsvc.FSVCClassifier().fit(Xu, y)
    Xc = Xu.copy()
    Xc.sum_duplicates()
    b = fsvc.FSVCClassifier().fit(Xc, y)
    assert a.model_bytes() == b.model_bytes()
    np.testing.assert_array_equal(a.predict(Xu), b.predict(Xc))


@pytest.mark.parametrize("param, value", [("readout", "lms"), ("selection", "kmeans++"),
                                          ("augment", "shift1"), ("dtype", "u8"),
                                          ("class_weight", "balanced"), ("scale", "01"),
                                          ("preprocess", "sqrt"), ("features", "hog")])
def test_what_the_sparse_path_refuses_names_the_parameter(param, value):
    X = sp.random(40, 70000, density=0.003, random_state=0, format="csr")
    y = np.arange(40) % 2
    with pytest.raises(ValueError) as e:
        fsvc.FSVCClassifier(**{param: value}).fit(X, y)
    msg = str(e.value)  # the parameter, never an option of the CLI
    assert msg.startswith("FSVCClassifier: sparse X (40 x 70000") and param in msg
    assert "70000 features" in msg and "-" not in msg.replace("k-means", "")


def test_csr_values_beyond_float32(tmp_path):
    X = sp.random(40, 70000, density=0.003, random_state=0, format="csr")
    X.data[0] = 1e300
    with pytest.raises(fsvc.FSVCInputError, match="float32"):
        fsvc.FSVCClassifier().fit(X, np.arange(40) % 2)


def test_cli_sparse_model_loads_in_python(tmp_path, fsvc_bin):
    """A model of more than 65536 features (the CLI's sparse model), refused
    at load before, now predicts CSR."""
    path = tmp_path / "s.txt"
    write_sparse_libsvm(path, 100, 100000, 100)
    model = tmp_path / "m.fsvc"
    subprocess.run([fsvc_bin, "train", "-q", str(path), str(model)], check=True)
    clf = fsvc.FSVCClassifier.from_model_file(model)
    X, y = fsvc.load_libsvm(path)
    assert clf.score(X, y) > 0.9
