#!/usr/bin/env python3
"""Calibrated probabilities (issue 27 item 1): log-loss and training time of
`fsvc train -b 1` / `fsvc predict -b 1` and of FSVCClassifier.predict_proba,
against the plain softmax of the scores (a model without -b 1) and against
LIBSVM's `svm-train -b 1` / `svm-predict -b 1` (Debian's libsvm-tools) and
scikit-learn's SVC(probability=True), on the same fixed splits:

  breast_cancer, digits (scikit-learn): 80/20, stratified, random_state=0
  optd64 (data/uci-dogaru): its own train and test files

Times are wall-clock seconds of each command (loading included) on a shared
machine: compare the ratios within a row, not the seconds across runs.
usage: scripts/probability.py [-o FILE]   (make first; writes markdown)
"""
import datetime
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import dump_svmlight_file, load_breast_cancer, load_digits
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("FSVC_LIBRARY", os.path.join(ROOT, "build", "libfsvc.so"))
import fsvc  # noqa: E402

FSVC = os.path.join(ROOT, "build", "fsvc")


def run(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("%s: exit %d\n%s" % (" ".join(cmd), r.returncode, r.stderr))
    return time.perf_counter() - t, r.stdout + r.stderr


def table_log_loss(path, truth):
    """Log-loss and accuracy of an svm-predict -b 1 style table (`labels
    L1 .. LK`, then `label p1 .. pK`) against the truth labels."""
    lines = open(path).read().split("\n")
    labels = [float(v) for v in lines[0].split()[1:]]
    col = {v: k for k, v in enumerate(labels)}
    ll = acc = 0.0
    for t, row in zip(truth, lines[1:]):
        v = row.split()
        p = float(v[1 + col[t]])
        ll -= math.log(max(p, 1e-15))
        acc += float(v[0]) == t
    return ll / len(truth), acc / len(truth)


def truth_of(path):
    return [float(l.split()[0]) for l in open(path) if l.strip()]


def cli_rows(name, tr, te, work, extra=()):
    """fsvc without and with -b 1, LIBSVM -b 1: (name, tool, log-loss, acc, train s)."""
    truth = truth_of(te)
    rows = []
    for label, opts in (("fsvc, no -b (softmax of the scores)", []), ("fsvc -b 1", ["-b", "1"])):
        m = os.path.join(work, "m.fsvc")
        ttr, _ = run([FSVC, "train", "-q"] + list(extra) + opts + [tr, m])
        out = os.path.join(work, "p.txt")
        run([FSVC, "predict", "-q", "-b", "1", m, te, out])
        ll, acc = table_log_loss(out, truth)
        rows.append((name, label + (" " + " ".join(extra) if extra else ""), ll, acc, ttr))
    if extra:  # LIBSVM has no such option: its row is the plain data's
        return rows
    m = os.path.join(work, "m.svm")
    ttr, _ = run(["svm-train", "-q", "-b", "1", tr, m])
    out = os.path.join(work, "p.svm")
    run(["svm-predict", "-b", "1", te, m, out])
    ll, acc = table_log_loss(out, truth)
    rows.append((name, "LIBSVM svm-train -b 1 (defaults)", ll, acc, ttr))
    return rows


def scaled(tr, te, work):
    """svm-scale -l -1 -u 1 of both files with the training ranges."""
    rng = os.path.join(work, "range")
    a, b = os.path.join(work, "tr.scale"), os.path.join(work, "te.scale")
    with open(a, "w") as f:
        subprocess.run(["svm-scale", "-s", rng, tr], stdout=f, check=True)
    with open(b, "w") as f:
        subprocess.run(["svm-scale", "-r", rng, te], stdout=f, check=True)
    return a, b


def split(loader):
    X, y = loader(return_X_y=True)
    return train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)


def python_rows():
    X, Xt, y, yt = split(load_digits)
    rows = []

    def add(label, make):
        t = time.perf_counter()
        clf = make().fit(X, y)
        fit = time.perf_counter() - t
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            P = clf.predict_proba(Xt)
        rows.append(("digits", label, log_loss(yt, P, labels=clf.classes_),
                     (clf.predict(Xt) == yt).mean(), fit))

    add("FSVCClassifier() (probability=True)", fsvc.FSVCClassifier)
    add("FSVCClassifier(probability=False): softmax", lambda: fsvc.FSVCClassifier(
        probability=False))
    add("CalibratedClassifierCV(FSVCClassifier(probability=False))",
        lambda: CalibratedClassifierCV(fsvc.FSVCClassifier(probability=False)))
    add("SVC(probability=True)", lambda: SVC(probability=True, random_state=0))
    return rows


def machine():
    cpu = "?"
    try:
        for l in open("/proc/cpuinfo"):
            if l.startswith("model name"):
                cpu = l.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return "%s, %d cores, %s" % (cpu, os.cpu_count(), platform.platform())


def main():
    out = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "-o" else None
    rows = []
    with tempfile.TemporaryDirectory() as work:
        X, Xt, y, yt = split(load_breast_cancer)
        tr, te = os.path.join(work, "bc.train"), os.path.join(work, "bc.test")
        dump_svmlight_file(X, y, tr, zero_based=False)
        dump_svmlight_file(Xt, yt, te, zero_based=False)
        rows += cli_rows("breast_cancer", tr, te, work)
        rows += cli_rows("breast_cancer", tr, te, work, ["--scale-features", "range"])
        a, b = scaled(tr, te, work)
        rows += cli_rows("breast_cancer, svm-scale'd", a, b, work)
        tr, te = os.path.join(work, "o.train"), os.path.join(work, "o.test")
        for src, dst in (("optd64.train.gz", tr), ("optd64.test.gz", te)):
            with open(dst, "w") as f:
                subprocess.run(["zcat", os.path.join(ROOT, "data", "uci-dogaru", src)],
                               stdout=f, check=True)
        rows += cli_rows("optd64", tr, te, work)
        rows += python_rows()
    lines = ["# Calibrated probabilities (issue 27 item 1)", "",
             "Command: `scripts/probability.py -o results/probability.md`  ",
             "Date: %s  " % datetime.datetime.now(datetime.timezone.utc).strftime(
                 "%Y-%m-%d %H:%M UTC"),
             "Machine: %s (shared with other jobs: compare times within a data set)" % machine(),
             "", "Splits: breast_cancer and digits of scikit-learn 80/20, stratified, "
             "random_state=0; optd64: data/uci-dogaru's train and test files. Log-loss of the "
             "test set's probabilities (lower is better); train s: wall-clock seconds of the "
             "training command or fit (loading included for the CLI).", "",
             "| data | model | log-loss | accuracy | train s |", "| --- | --- | --- | --- | --- |"]
    for d, m, ll, acc, t in rows:
        lines.append("| %s | %s | %.4f | %.2f %% | %.2f |" % (d, m, ll, 100 * acc, t))
    lines += ["", "fsvc -b 1 is the model of no -b plus one temperature a (the same scores, "
              "predictions and accuracy), fitted on 5-fold held-out scores at training; "
              "LIBSVM's rows are its own models (Platt scaling on 5-fold decision values, "
              "pairwise coupling). breast_cancer's raw features span 5 orders of magnitude: "
              "both RBF models want them scaled (`--scale-features range` inside the fsvc "
              "model, `svm-scale` for LIBSVM)."]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if out:
        with open(out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
