"""FSVCClassifier(class_weight=...) (issue 14 point 7): None, 'balanced' and
{label: weight} reach the ridge readout as `fsvc train --class-weight`."""
import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics import recall_score

import fsvc


@pytest.fixture(scope="module")
def imbalanced():
    """2 classes, 5 % minority, overlapping: (X, y, Xt, yt)."""
    X, y = make_classification(n_samples=3000, n_features=6, n_informative=4,
                               weights=[0.95, 0.05], class_sep=0.6, flip_y=0,
                               random_state=3)
    return X[:2000], y[:2000], X[2000:], y[2000:]


def test_balanced_raises_minority_recall(imbalanced):
    X, y, Xt, yt = imbalanced
    plain = fsvc.FSVCClassifier().fit(X, y)
    bal = fsvc.FSVCClassifier(class_weight="balanced").fit(X, y)
    r0 = recall_score(yt, plain.predict(Xt), pos_label=1)
    r1 = recall_score(yt, bal.predict(Xt), pos_label=1)
    assert r1 >= r0 + 0.1, (r0, r1)  # 0.64 -> 0.84 here


def test_balanced_is_its_dict(imbalanced):
    X, y, _, _ = imbalanced
    n = np.bincount(y)
    d = {k: len(y) / (2 * n[k]) for k in (0, 1)}
    a = fsvc.FSVCClassifier(class_weight="balanced", solver="direct").fit(X, y)
    b = fsvc.FSVCClassifier(class_weight=d, solver="direct").fit(X, y)
    assert a.model_bytes() == b.model_bytes()


@pytest.mark.parametrize("solver", ["direct", "pcg"])
def test_weights_one_are_no_weights(blobs, solver):
    X, y = blobs
    a = fsvc.FSVCClassifier(solver=solver).fit(X, y)
    b = fsvc.FSVCClassifier(solver=solver, class_weight={0: 1, 1: 1.0, 2: 1}).fit(X, y)
    c = fsvc.FSVCClassifier(solver=solver, class_weight={1: 4}).fit(X, y)
    assert a.model_bytes() == b.model_bytes()
    assert a.model_bytes() != c.model_bytes()


def test_string_labels(blobs):
    X, y = blobs
    names = np.array(["cat", "dog", "fox"])[y]
    a = fsvc.FSVCClassifier(class_weight={"dog": 3}).fit(X, names)
    b = fsvc.FSVCClassifier(class_weight={1: 3}).fit(X, y)  # the same class by index
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_errors(blobs):
    X, y = blobs
    with pytest.raises(ValueError, match="the class 7 is not in the training labels"):
        fsvc.FSVCClassifier(class_weight={7: 2}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight must be None, 'balanced' or a dict"):
        fsvc.FSVCClassifier(class_weight="auto").fit(X, y)
    with pytest.raises(fsvc.FSVCUsageError, match="must be > 0"):
        fsvc.FSVCClassifier(class_weight={0: 0}).fit(X, y)
    with pytest.raises(fsvc.FSVCUsageError, match="onehot readout cannot weight classes"):
        fsvc.FSVCClassifier(readout="onehot", class_weight="balanced").fit(X, y)
    assert "class_weight" not in fsvc.FSVCRegressor().get_params()
