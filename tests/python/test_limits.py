"""Sizes and values at the edges of the Python binding (issue 26 items 6,
7 and the "And" list): nothing is cut to 32 bits or to int64."""
import numpy as np
import pytest

import fsvc


def _wide(tmp_path, n):
    """A (2, n) uint8 array over a sparse file: C-contiguous, no memory."""
    path = tmp_path / "wide.u8"
    with open(path, "wb") as f:
        f.truncate(2 * n)
    return np.memmap(path, dtype=np.uint8, mode="r", shape=(2, n))


@pytest.fixture(scope="module")
def u8_model():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 255, size=(40, 4), dtype=np.uint8)
    y = np.arange(40) % 2
    return fsvc.FSVCClassifier(radius=50.0).fit(X, y)


def test_wide_array_fit_refused(tmp_path):
    # c_int cut 2**32 + 4 features to 4: a 4-feature model of the wrong bytes
    with pytest.raises(fsvc.FSVCInputError, match=r"4294967300 features; dense data holds "
                                                  r"at most 65536"):
        fsvc.FSVCClassifier().fit(_wide(tmp_path, 2**32 + 4), [0, 1])


def test_wide_array_2_31_named(tmp_path):
    # 2**31 became "2 x -2147483648"
    with pytest.raises(fsvc.FSVCInputError, match=r"2147483648 features; dense data holds"):
        fsvc.FSVCClassifier().fit(_wide(tmp_path, 2**31), [0, 1])


def test_wide_array_predict_refused(tmp_path, u8_model):
    # below the estimator's own n_features_in_ check: the model predicted
    # from the first 4 bytes of each 2**32 + 4 byte row
    with pytest.raises(fsvc.FSVCInputError, match=r"4294967300 features"):
        u8_model._model.predict(_wide(tmp_path, 2**32 + 4))


def test_labels_beyond_int64(tmp_path, fsvc_bin):
    # labels >= 2**63 (a model of `fsvc train`; scikit-learn itself calls
    # them continuous) became int64's minimum after from_model_file
    import subprocess
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1, (30, 3)), rng.normal(4, 1, (30, 3))])
    y = np.repeat([1e19, 3e19], 30)
    with open(tmp_path / "big.txt", "w") as f:
        for row, label in zip(X, y):
            f.write("%.17g %s\n" % (label, " ".join("%d:%.17g" % (j + 1, v)
                                                   for j, v in enumerate(row))))
    subprocess.run([fsvc_bin, "train", "-q", str(tmp_path / "big.txt"),
                    str(tmp_path / "big.fsvc")], check=True, capture_output=True)
    back = fsvc.FSVCClassifier.from_model_file(tmp_path / "big.fsvc")
    assert list(back.classes_) == [1e19, 3e19]
    assert np.mean(back.predict(X) == y) > 0.9


def test_nul_in_a_setting_refused(blobs):
    # c_char_p stopped at the NUL: 'gauss\0tri' trained as 'gauss'
    X, y = blobs
    with pytest.raises(fsvc.FSVCUsageError, match="kernel: 'gauss.x00tri' holds a NUL"):
        fsvc.FSVCClassifier(kernel="gauss\0tri").fit(X, y)


@pytest.mark.parametrize("n", [-5, 2**32 + 5, 1.5])
def test_load_libsvm_n_features_checked(tmp_path, n):
    # -5 was ignored (all features), 2**32 + 5 became 5
    (tmp_path / "a.txt").write_text("1 1:1 7:2\n0 2:1\n")
    with pytest.raises(fsvc.FSVCUsageError, match=r"n_features: .* is not an integer in "
                                                  r"\[0, 16777216\]"):
        fsvc.load_libsvm(tmp_path / "a.txt", n_features=n)


def test_model_wider_than_arrays_predicts_csr(tmp_path, fsvc_bin):
    # a sparse model of 70000 features was refused at load (issue 26); it
    # now predicts scipy CSR (issue 27 item 2), as `fsvc predict` does
    import subprocess
    with open(tmp_path / "wide.txt", "w") as f:
        for i in range(20):
            f.write("%d %d:1 %d:2\n" % (i % 2, 1 + i, 69990 + i % 2))
    subprocess.run([fsvc_bin, "train", "-q", "--sparse", str(tmp_path / "wide.txt"),
                    str(tmp_path / "wide.fsvc")], check=True, capture_output=True)
    subprocess.run([fsvc_bin, "predict", "-q", str(tmp_path / "wide.fsvc"),
                    str(tmp_path / "wide.txt"), str(tmp_path / "out.txt")], check=True,
                   capture_output=True)
    clf = fsvc.FSVCClassifier.from_model_file(tmp_path / "wide.fsvc")
    X, _ = fsvc.load_libsvm(tmp_path / "wide.txt")
    assert clf.n_features_in_ == X.shape[1] == 69991
    np.testing.assert_array_equal(clf.predict(X), np.loadtxt(tmp_path / "out.txt"))
