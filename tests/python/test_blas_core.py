"""OpenBLAS's core in a Python process is chosen as in the CLI
(layers/blas_core.c): NumPy loaded and ran OpenBLAS first, then fsvc's
first fit replaces a core weaker than the CPU, so Python computes with the
kernels `fsvc info` names for the same environment."""
import os
import re
import subprocess
import sys

import pytest

SCRIPT = r"""
import numpy as np
a = np.ones((300, 300)) @ np.ones((300, 300))  # OpenBLAS loaded and running first
import fsvc
from sklearn.datasets import make_classification
X, y = make_classification(n_samples=200, n_features=8, n_classes=3, n_informative=5,
                           random_state=1)
fsvc.FSVCClassifier().fit(X, y)
print("fit ran on", fsvc._lib.lib.bnl_blas_core_name().decode())  # as the fit left it
print("core=%s why=%s" % fsvc.blas_core())
"""


def _env(**kw):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env.update(kw)
    return env


def _cli_core(fsvc_bin, env):
    out = subprocess.run([fsvc_bin, "info"], env=env, capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"^blas core: (\S+) \((.*)\); GEMM check ok$", out, re.M)
    assert m, out
    return m.group(1), m.group(2)


def _py_core(env):
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"^core=(\S+) why=(.*)$", out, re.M)
    assert m, out
    assert re.search(r"^fit ran on %s$" % m.group(1), out, re.M), out
    return m.group(1), m.group(2)


def test_python_replaces_a_weak_core_as_the_cli_does(fsvc_bin):
    own, _ = _cli_core(fsvc_bin, _env(FSVC_BLAS_CORE="keep"))
    if "DYNAMIC_ARCH" not in subprocess.run([fsvc_bin, "info"], capture_output=True,
                                            text=True).stdout:
        pytest.skip("OpenBLAS without DYNAMIC_ARCH: one core compiled in")
    want = "Sandybridge" if own == "Haswell" else "Haswell"
    env = _env(FSVC_BLAS_CORE_PRETEND="Prescott", FSVC_BLAS_CORE_WANT=want)
    cli = _cli_core(fsvc_bin, env)
    py = _py_core(env)
    assert cli[0] == want, cli
    assert py == cli


def test_python_keeps_the_users_coretype(fsvc_bin):
    env = _env(OPENBLAS_CORETYPE="Prescott", FSVC_BLAS_CORE_PRETEND="Prescott")
    py = _py_core(env)
    assert py == ("Prescott", "OPENBLAS_CORETYPE=Prescott from the environment, respected")
    assert _cli_core(fsvc_bin, env) == py
