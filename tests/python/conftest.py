"""Shared fixtures for the Python package's tests (run by `make python-test`
with FSVC=build/fsvc and PYTHONPATH=python)."""
import os

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
FASHION = "/usr/share/datasets/fashion-mnist"


@pytest.fixture(scope="session")
def fsvc_bin():
    return os.environ.get("FSVC", os.path.join(ROOT, "build", "fsvc"))


@pytest.fixture(scope="session")
def fashion():
    """(X, y, Xt, yt): 2000 training and 500 test images of Fashion-MNIST
    (Debian's dataset-fashion-mnist), uint8 (N, 28, 28)."""
    import fsvc
    X, y = fsvc.load_idx(os.path.join(FASHION, "train"))
    Xt, yt = fsvc.load_idx(os.path.join(FASHION, "t10k"))
    return X[:2000], y[:2000], Xt[:500], yt[:500]


@pytest.fixture(scope="session")
def blobs():
    """A small 3-class float problem."""
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=300, n_features=8, n_informative=5, n_classes=3,
                               random_state=1)
    return X, y
