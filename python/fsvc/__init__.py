"""fsvc: fast RBF "vector support" classifiers, from NumPy and scikit-learn.

    import fsvc
    X, y = fsvc.load_idx("/usr/share/datasets/fashion-mnist/train")
    clf = fsvc.FSVCClassifier().fit(X[:5000], y[:5000])

Use Debian's interpreter, /usr/bin/python3 (it has python3-numpy and
python3-sklearn); in the source tree, after `make`:
PYTHONPATH=python /usr/bin/python3 ...
"""
from ._lib import (FSVCError, FSVCInputError, FSVCMemoryError, FSVCResourceError,
                   FSVCUsageError, FSVCWarning, blas_core, library_path)
from ._model import Model, scores_proba
from .data import load_idx, load_libsvm, load_png_folder
from .estimators import FSVCClassifier, FSVCRegressor

__version__ = "0.1.0"
__all__ = ["FSVCClassifier", "FSVCRegressor", "FSVCError", "FSVCUsageError",
           "FSVCInputError", "FSVCResourceError", "FSVCMemoryError", "FSVCWarning", "Model", "scores_proba",
           "load_idx", "load_libsvm", "load_png_folder", "library_path", "blas_core"]
