"""Out of memory inside libfsvc, from Python: tests/cli/failmalloc.c,
preloaded into a Python process with OOM_ONLY=libfsvc, fails libfsvc's
k-th allocation for every k a fit / predict_proba / pickle / sparse fit
makes. Each run must give the clean run's numbers, or raise a
MemoryError (fsvc.FSVCMemoryError, an FSVCResourceError too) that says
"out of memory" (or ENOMEM's text); never another error, never a crash, never different
numbers."""
import json
import os
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

def run():
    clf = fsvc.FSVCClassifier(threads=2).fit(X, y)
    p = clf.predict_proba(X)
    back = pickle.loads(pickle.dumps(clf))
    d = back.decision_function(X)
    s = fsvc.FSVCClassifier(threads=2, probability=False).fit(Xs, y).decision_function(Xs)
    return np.concatenate([p.ravel(), d.ravel(), s.ravel()])

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


def test_every_libfsvc_allocation_failing(tmp_path):
    so = str(tmp_path / "failmalloc.so")
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", so, SHIM, "-ldl"], check=True)
    env = dict(os.environ, LD_PRELOAD=so, OOM_ONLY="libfsvc", OMP_NUM_THREADS="2",
               FSVC_ARCH="scalar")  # scalar: no oneDNN (its bad_alloc is C++'s, README)
    r = subprocess.run([sys.executable, "-c", DRIVER], env=env, capture_output=True, text=True,
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
