"""Out of memory inside libfsvc, from Python: tests/cli/failmalloc.c,
preloaded into a Python process with OOM_ONLY=libfsvc, fails libfsvc's
k-th allocation for every k that a fit, predict_proba, pickle, a sparse
fit, a fit on gzipped IDX digits (HOG) and the IDX and LIBSVM loaders
make. Each run must give the clean run's numbers, or raise a
MemoryError (fsvc.FSVCMemoryError, an FSVCResourceError too) that says
"out of memory" (or ENOMEM's text); never another error, never a crash, never different
numbers."""
import gzip
import json
import os
import struct
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(HERE, os.pardir, "cli", "failmalloc.c")

DRIVER = r"""
import ctypes, json, pickle, sys
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_classification
import fsvc

shim = ctypes.CDLL(None)  # the preloaded shim's symbols
shim.failmalloc_arm.argtypes = [ctypes.c_long]
shim.failmalloc_calls.restype = ctypes.c_long
X, y = make_classification(n_samples=120, n_features=6, n_informative=4, n_classes=3,
                           random_state=2)
Xs = sp.csr_matrix(np.where(np.abs(X) > 0.7, X, 0.0))
digits, libsvm = sys.argv[1], sys.argv[2]

def run():
    clf = fsvc.FSVCClassifier(threads=2).fit(X, y)
    p = clf.predict_proba(X)
    back = pickle.loads(pickle.dumps(clf))
    d = back.decision_function(X)
    s = fsvc.FSVCClassifier(threads=2, probability=False).fit(Xs, y).decision_function(Xs)
    Xd, yd = fsvc.load_idx(digits)  # u8 images: preprocess auto, HOG features
    h = fsvc.FSVCClassifier(threads=2, probability=False).fit(Xd, yd).decision_function(Xd)
    Xl, yl = fsvc.load_libsvm(libsvm)
    return np.concatenate([p.ravel(), d.ravel(), s.ravel(), h.ravel(), Xl.toarray().ravel(), yl])

shim.failmalloc_arm(0)
clean = run()
n = shim.failmalloc_calls()
out = {"n": n, "same": 0, "oom": 0, "bad": []}
for k in range(1, n + 1):
    shim.failmalloc_arm(k)
    try:
        r = run()
    except MemoryError as e:  # fsvc.FSVCMemoryError, or a handle's allocation (_model.py)
        if "out of memory" in str(e) or "Cannot allocate memory" in str(e):
            out["oom"] += 1
        else:
            out["bad"].append("%d: %s: %s" % (k, type(e).__name__, e))
        continue
    except fsvc.FSVCError as e:
        out["bad"].append("%d: %s: %s" % (k, type(e).__name__, e))
        continue
    finally:
        shim.failmalloc_arm(0)
    if np.array_equal(r, clean):
        out["same"] += 1
    else:
        out["bad"].append("%d: exit 0 with other numbers" % k)
print(json.dumps(out))
"""


def digits_idx(folder, n=150):
    """The first n MNIST training digits as a gzipped IDX pair; its prefix."""
    mnist = os.path.join(os.environ.get("FSVC_DATA", os.path.join(HERE, os.pardir, os.pardir,
                                                                   "build", "data")), "mnist")
    with gzip.open(os.path.join(mnist, "train-images-idx3-ubyte.gz")) as f:
        im = f.read(16 + n * 784)[16:]
    with gzip.open(os.path.join(mnist, "train-labels-idx1-ubyte.gz")) as f:
        lb = f.read(8 + n)[8:]
    with gzip.open(os.path.join(folder, "d-images-idx3-ubyte.gz"), "wb") as f:
        f.write(struct.pack(">IIII", 0x803, n, 28, 28) + im)
    with gzip.open(os.path.join(folder, "d-labels-idx1-ubyte.gz"), "wb") as f:
        f.write(struct.pack(">II", 0x801, n) + lb)
    return os.path.join(folder, "d")


def test_every_libfsvc_allocation_failing(tmp_path):
    libsvm = tmp_path / "small.libsvm"
    libsvm.write_text("".join("%d 1:%g 3:%g\n" % (i % 3, i / 7, -i / 3) for i in range(40)))
    so = str(tmp_path / "failmalloc.so")
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", so, SHIM, "-ldl"], check=True)
    env = dict(os.environ, LD_PRELOAD=so, OOM_ONLY="libfsvc", OMP_NUM_THREADS="2",
               FSVC_ARCH="scalar")  # scalar: no oneDNN (its bad_alloc is C++'s, README)
    r = subprocess.run([sys.executable, "-c", DRIVER, digits_idx(str(tmp_path)), str(libsvm)],
                       env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, "the driver died (%d): %s" % (r.returncode, r.stderr[-2000:])
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["n"] > 50, out
    assert out["bad"] == [], "\n".join(out["bad"][:10])
    assert out["oom"] > 0 and out["oom"] + out["same"] == out["n"], out


def test_out_of_memory_is_a_memory_error():
    import fsvc
    from fsvc._lib import FSVC_ERESOURCE, Error, check
    err = Error(FSVC_ERESOURCE, b"train: out of memory")
    with pytest.raises(MemoryError):
        check(FSVC_ERESOURCE, err)
    err = Error(FSVC_ERESOURCE, b"out.fsvc: write error: No space left on device")
    with pytest.raises(fsvc.FSVCResourceError) as e:
        check(FSVC_ERESOURCE, err)
    assert not isinstance(e.value, MemoryError)
