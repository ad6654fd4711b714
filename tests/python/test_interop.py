"""The Python package and the rest of fsvc: models travel both ways between
Python and the CLI, the loaders return what the files hold, `make install`
installs an importable package, and the README's example runs as written."""
import gzip
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import fsvc

from conftest import FASHION, ROOT


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert r.returncode == 0, "%s: exit %d: %s" % (cmd, r.returncode, r.stderr[-2000:])
    return r


@pytest.fixture()
def libsvm_file(tmp_path, blobs):
    X, y = blobs
    path = tmp_path / "blobs.libsvm"
    dump_svmlight_file(X, y + 1, str(path), zero_based=False)  # labels 1, 2, 3
    return path


def test_python_model_predicts_the_same_in_the_cli(tmp_path, fsvc_bin, libsvm_file, blobs):
    X, y = blobs
    clf = fsvc.FSVCClassifier().fit(X, y + 1)
    model = tmp_path / "py.fsvc"
    clf.save_model(model)
    out = tmp_path / "labels.txt"
    r = run([fsvc_bin, "predict", str(model), str(libsvm_file), str(out)])
    assert "Accuracy = " in r.stdout
    cli = np.loadtxt(out)
    np.testing.assert_array_equal(cli, clf.predict(X))  # the labels themselves: 1, 2, 3


def test_cli_model_predicts_the_same_in_python(tmp_path, fsvc_bin, libsvm_file):
    model = tmp_path / "cli.fsvc"
    run([fsvc_bin, "train", "-q", "-r", "0.5rms", str(libsvm_file), str(model)])
    out = tmp_path / "labels.txt"
    run([fsvc_bin, "predict", str(model), str(libsvm_file), str(out)])
    clf = fsvc.FSVCClassifier.from_model_file(model)
    assert list(clf.classes_) == [1, 2, 3] and clf.n_features_in_ == 8
    X, _ = fsvc.load_libsvm(libsvm_file)
    np.testing.assert_array_equal(clf.predict(X), np.loadtxt(out))
    # and the same model through pickling's bytes
    again = fsvc.FSVCClassifier.from_model_bytes(model.read_bytes())
    np.testing.assert_array_equal(again.predict(X), np.loadtxt(out))


def test_cli_regression_model_in_python(tmp_path, fsvc_bin):
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(200, 3))
    y = X[:, 0] * 2 + X[:, 1]
    path = tmp_path / "reg.libsvm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    model = tmp_path / "reg.fsvc"
    run([fsvc_bin, "train", "-q", "--regression", str(path), str(model)])
    out = tmp_path / "values.txt"
    run([fsvc_bin, "predict", str(model), str(path), str(out)])
    reg = fsvc.FSVCRegressor.from_model_file(model)
    Xl, _ = fsvc.load_libsvm(path)
    np.testing.assert_allclose(reg.predict(Xl), np.loadtxt(out), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="regression model"):
        fsvc.FSVCClassifier.from_model_file(model)


def test_load_libsvm_matches_sklearn(libsvm_file):
    X, y = fsvc.load_libsvm(libsvm_file)  # CSR of float32, fsvc's sparse form
    Xs, ys = load_svmlight_file(str(libsvm_file))
    np.testing.assert_array_equal(X.toarray(), Xs.toarray().astype(np.float32))
    np.testing.assert_array_equal(y, ys)
    X12, _ = fsvc.load_libsvm(libsvm_file, n_features=12)
    assert X12.shape == (300, 12)


def test_load_idx_matches_the_raw_file():
    X, y = fsvc.load_idx(os.path.join(FASHION, "t10k"))
    assert X.shape == (10000, 28, 28) and X.dtype == np.uint8 and y.dtype == np.int64
    with gzip.open(os.path.join(FASHION, "t10k-images-idx3-ubyte.gz")) as f:
        raw = np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(10000, 28, 28)
    with gzip.open(os.path.join(FASHION, "t10k-labels-idx1-ubyte.gz")) as f:
        lab = np.frombuffer(f.read(), dtype=np.uint8, offset=8)
    np.testing.assert_array_equal(X, raw)
    np.testing.assert_array_equal(y, lab)


def png_folder(root, per_class=3, classes=("cat", "dog")):
    """Writes gray PNGs root/CLASS/I.png; returns {(class, i): pixels}."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rng = np.random.RandomState(2)
    imgs = {}
    for c in classes:
        (root / c).mkdir()
        for i in range(per_class):
            a = rng.randint(0, 256, size=(5, 4)).astype(np.uint8)
            imgs[(c, i)] = a
            plt.imsave(str(root / c / ("%d.png" % i)), a, cmap="gray", vmin=0, vmax=255)
    return imgs


def test_cli_probabilities_for_a_png_folder(tmp_path, fsvc_bin):
    folder = tmp_path / "imgs"
    folder.mkdir()
    png_folder(folder, per_class=6)
    model = tmp_path / "m.fsvc"
    run([fsvc_bin, "train", "-q", str(folder), str(model)])
    out = tmp_path / "p.csv"
    run([fsvc_bin, "predict", "-q", "-b", "1", str(model), str(folder), str(out)])
    lines = out.read_text().splitlines()
    # the model keeps the class folders' names: they head the columns
    assert lines[0] == "path,class,cat,dog" and len(lines) == 13
    for line in lines[1:]:
        path, cls, p0, p1 = line.split(",")
        assert path.endswith(".png") and os.path.exists(path)
        assert abs(float(p0) + float(p1) - 1) < 1e-12
        assert cls == ("dog" if float(p1) > float(p0) else "cat")


def test_load_png_folder(tmp_path):
    imgs = png_folder(tmp_path)
    X, y, names = fsvc.load_png_folder(tmp_path)
    assert names == ["cat", "dog"] and X.shape == (6, 5, 4) and list(y) == [0, 0, 0, 1, 1, 1]
    want = np.stack([imgs[(c, i)] for c in ("cat", "dog") for i in range(3)]).astype(int)
    assert np.abs(X.astype(int) - want).max() <= 1
    with pytest.raises(fsvc.FSVCInputError, match=str(tmp_path / "nothing")):
        fsvc.load_png_folder(tmp_path / "nothing")


def test_make_install_gives_an_importable_package(tmp_path):
    dest = tmp_path / "dest"
    py = os.environ.get("PYTHON", sys.executable)
    run(["make", "-s", "--no-print-directory", "-C", ROOT, "python-install", "DESTDIR=%s" % dest,
         "PREFIX=/usr/local", "PYTHON=%s" % py])
    site = "python%d.%d/dist-packages" % sys.version_info[:2]
    libdir = dest / "usr/local/lib"
    assert (libdir / site / "fsvc" / "__init__.py").exists()
    # make install puts libfsvc.so.0 in PREFIX/lib; the package finds it there
    src = os.environ.get("FSVC_LIBRARY", os.path.join(ROOT, "build", "libfsvc.so"))
    shutil.copy(os.path.realpath(src), libdir / "libfsvc.so.0")
    env = {k: v for k, v in os.environ.items() if k not in ("FSVC_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(libdir / site)
    r = run([py, "-c", "import fsvc; print(fsvc.__file__); print(fsvc.library_path)"],
            env=env, cwd=str(tmp_path))
    where, lib = r.stdout.split()
    assert where.startswith(str(libdir)) and lib == str(libdir / "libfsvc.so.0")


def test_readme_python_example_runs_as_written():
    text = open(os.path.join(ROOT, "README.md")).read()
    sec = text.split("## Python", 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", sec, re.S)
    assert blocks, "README: no python example in the Python section"
    code = blocks[0]
    lines = [l for l in code.splitlines() if l.strip()]
    assert len(lines) == 5, "the README example is %d lines, not 5" % len(lines)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = run([os.environ.get("PYTHON", sys.executable), "-c", code], env=env, cwd=ROOT)
    acc = float(r.stdout.split()[-1])
    assert 0.8 < acc <= 1.0


def test_cli_probabilities_are_python_predict_proba(tmp_path, fsvc_bin, libsvm_file):
    """`fsvc predict -b 1` and --decision-values give what predict_proba and
    decision_function give for the same model (to the last bit); a model of
    `fsvc train -b 1` carries its calibration to Python."""
    model = tmp_path / "m.fsvc"
    run([fsvc_bin, "train", "-q", "-b", "1", str(libsvm_file), str(model)])
    clf = fsvc.FSVCClassifier.from_model_file(model)
    X, _ = fsvc.load_libsvm(libsvm_file)
    for opt, want in (("-b 1", clf.predict_proba(X)), ("--decision-values",
                                                       clf.decision_function(X))):
        out = tmp_path / "out.txt"
        run([fsvc_bin, "predict", "-q"] + opt.split() + [str(model), str(libsvm_file), str(out)])
        lines = out.read_text().splitlines()
        assert lines[0] == "labels 1 2 3"
        table = np.array([[float(v) for v in l.split()] for l in lines[1:]])
        np.testing.assert_array_equal(table[:, 0], clf.predict(X))
        np.testing.assert_array_equal(table[:, 1:], want)


def test_string_labels_survive_the_model_file(tmp_path, fsvc_bin, blobs, libsvm_file):
    """save_model keeps string labels as the model's class names (issue 27
    item 10): from_model_file gives them back, not 0..K-1, and `fsvc
    predict` prints them."""
    X, y = blobs
    names = np.array(["cat", "dog", "fox"])[y]
    clf = fsvc.FSVCClassifier().fit(X, names)
    model = tmp_path / "named.fsvc"
    clf.save_model(model)
    back = fsvc.FSVCClassifier.from_model_file(model)
    assert list(back.classes_) == ["cat", "dog", "fox"]
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))
    out = tmp_path / "labels.txt"
    run([fsvc_bin, "predict", "-q", str(model), str(libsvm_file), str(out)])
    assert out.read_text().split() == list(clf.predict(X))
    again = fsvc.FSVCClassifier.from_model_bytes(clf.model_bytes())
    assert list(again.classes_) == ["cat", "dog", "fox"]


def test_labels_no_model_file_can_name_warn_at_save(tmp_path, blobs):
    X, y = blobs
    clf = fsvc.FSVCClassifier().fit(X, np.array(["", "a\tb", "c"])[y])
    assert list(clf.classes_) == ["", "a\tb", "c"]  # the estimator keeps them
    with pytest.warns(fsvc.FSVCWarning, match="class indices 0..2"):
        clf.save_model(tmp_path / "m.fsvc")
    assert list(fsvc.FSVCClassifier.from_model_file(tmp_path / "m.fsvc").classes_) == [0, 1, 2]
