"""Calibrated predict_proba (issue 27 item 1): the default classifier fits a
temperature on held-out scores (`fsvc train -b 1`); probability=False and
older model files give the plain softmax, with a warning."""
import os
import subprocess
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

import fsvc

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))


def _split(loader):
    X, y = loader(return_X_y=True)
    return train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)


@pytest.fixture(scope="module")
def digits():
    return _split(load_digits)


def test_digits_log_loss_default(digits):
    """The target of issue 27: <= 0.10 (0.034 measured; the softmax of the
    scores gave 1.54, SVC(probability=True) 0.09)."""
    X, Xt, y, yt = digits
    clf = fsvc.FSVCClassifier().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a calibrated model warns nothing
        P = clf.predict_proba(Xt)
    assert log_loss(yt, P, labels=clf.classes_) <= 0.10
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    # a temperature keeps the argmax: probabilities and predictions agree
    np.testing.assert_array_equal(clf.classes_[P.argmax(axis=1)], clf.predict(Xt))


def test_breast_cancer_log_loss():
    """Scaled to [-1, 1] as svm-scale does: 0.109 measured, LIBSVM's -b 1
    0.106 on the same split (results/probability.md); the plain softmax
    0.374, the fold's own centroids kept in its readout 0.173."""
    from sklearn.preprocessing import MinMaxScaler
    X, Xt, y, yt = _split(load_breast_cancer)
    s = MinMaxScaler((-1, 1)).fit(X)
    P = fsvc.FSVCClassifier().fit(s.transform(X), y).predict_proba(s.transform(Xt))
    assert log_loss(yt, P) <= 0.13


def test_probability_false_is_the_softmax_with_a_warning(digits):
    X, Xt, y, yt = digits
    clf = fsvc.FSVCClassifier(probability=False).fit(X, y)
    with pytest.warns(fsvc.FSVCWarning, match="no probability calibration"):
        P = clf.predict_proba(Xt)
    np.testing.assert_allclose(P, fsvc.scores_proba(clf._scores(Xt)[1]), rtol=1e-12)
    assert log_loss(yt, P, labels=clf.classes_) > 1.0  # what issue 27 measured
    # the scores are the same with and without the calibration
    cal = fsvc.FSVCClassifier().fit(X, y)
    np.testing.assert_array_equal(cal.decision_function(Xt), clf.decision_function(Xt))


def test_probability_checked():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="probability must be True or False"):
        fsvc.FSVCClassifier(probability="yes").fit(X[:50], y[:50])


def test_calibration_survives_the_file_and_pickle(digits, tmp_path):
    import pickle
    X, Xt, y, _ = digits
    clf = fsvc.FSVCClassifier().fit(X, y)
    P = clf.predict_proba(Xt)
    path = tmp_path / "d.fsvc"
    clf.save_model(str(path))
    np.testing.assert_array_equal(fsvc.FSVCClassifier.from_model_file(str(path))
                                  .predict_proba(Xt), P)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(clf)).predict_proba(Xt), P)


def test_old_model_file_falls_back(tmp_path):
    """A model file of an older fsvc (format 1, no calibration) loads; its
    probabilities are the softmax of the scores, with the warning."""
    clf = fsvc.FSVCClassifier.from_model_file(os.path.join(ROOT, "tests", "cli",
                                                            "model_v1_iris.fsvc"))
    X = np.random.RandomState(0).rand(5, clf.n_features_in_)
    with pytest.warns(fsvc.FSVCWarning, match="no probability calibration"):
        P = clf.predict_proba(X)
    np.testing.assert_allclose(P, fsvc.scores_proba(clf._scores(X)[1]), rtol=1e-12)


def test_calibration_waits_for_predict_proba():
    """probability=True on dense data: fit leaves the calibration for the
    first predict_proba (a grid search that only predicts never pays for
    it); predict_proba, save_model and pickling then carry it."""
    import pickle
    X, y = load_digits(return_X_y=True)
    clf = fsvc.FSVCClassifier().fit(X[:1000], y[:1000])
    d0 = dict(clf.__dict__)
    assert not clf._model.calibrated()
    clf.predict(X[1000:])
    assert not clf._model.calibrated()
    p = clf.predict_proba(X[1000:])
    assert clf._model.calibrated() and clf.__dict__ == d0
    assert np.allclose(p.sum(axis=1), 1) and (p.argmax(axis=1) == clf.predict(X[1000:])).all()
    fresh = fsvc.FSVCClassifier().fit(X[:1000], y[:1000])
    back = pickle.loads(pickle.dumps(fresh))
    assert back._model.calibrated() and not getattr(back, "_pending", None)
    assert np.array_equal(back.predict_proba(X[1000:]), p)
