#!/usr/bin/python3
"""Benchmarks of the Python package (issue 12), written to results/:

1. Python overhead (results/python-overhead.md): `fsvc train` / `fsvc
   predict` on MNIST (the CLI, a process: load, train or predict, write)
   against the same work from Python (fsvc.load_idx, FSVCClassifier.fit +
   save_model; from_model_file + predict + writing the labels). Target:
   Python at most 5 % of the CLI's time. Two measures: the end-to-end ratio
   (minimum over interleaved repetitions; on a loaded machine it carries the
   load's noise) and, directly, the seconds Python spends outside libfsvc's
   calls (every library call is timed), over the CLI's time.
2. FSVCClassifier against scikit-learn's SVC(kernel='rbf') and LinearSVC on
   MNIST and Fashion-MNIST (results/python-vs-sklearn.md, .csv, .png): SVC
   and LinearSVC on the first --subset training samples, FSVC on the same
   and on the full 60000; accuracy on the 10000 test images, fit and
   predict seconds.

    PYTHONPATH=python /usr/bin/python3 python/bench_sklearn.py [--subset N]
        [--only overhead|compare]
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
sys.path.insert(0, os.path.join(ROOT, "python"))
import fsvc  # noqa: E402
import fsvc._model  # noqa: E402
import fsvc.data  # noqa: E402


class TimedLib:
    """Stands in for the ctypes library in fsvc's modules: every call is
    timed, so the seconds spent in Python around the calls are known."""

    def __init__(self, lib):
        self._lib = lib
        self.seconds = 0.0

    def __getattr__(self, name):
        f = getattr(self._lib, name)

        def call(*a):
            t = time.perf_counter()
            try:
                return f(*a)
            finally:
                self.seconds += time.perf_counter() - t
        return call


def in_python(fn):
    """(wall seconds, seconds outside libfsvc) of fn()."""
    tl = TimedLib(fsvc._model.lib)
    fsvc._model.lib = fsvc.data.lib = tl
    try:
        t = time.perf_counter()
        fn()
        wall = time.perf_counter() - t
    finally:
        fsvc._model.lib = fsvc.data.lib = tl._lib
    return wall, wall - tl.seconds


def machine():
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    load = os.getloadavg()[0]
    return "%s, %d cores, load average %.2f" % (model, os.cpu_count(), load)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def overhead(fsvc_bin, data, tmp, reps):
    """min over reps of (CLI seconds, Python seconds) for train and predict."""
    rows = []
    model_cli = os.path.join(tmp, "cli.fsvc")
    model_py = os.path.join(tmp, "py.fsvc")

    def cli_train():
        subprocess.run([fsvc_bin, "train", "-q", data + "/train", model_cli], check=True,
                       capture_output=True)

    def py_train():
        X, y = fsvc.load_idx(data + "/train")
        fsvc.FSVCClassifier().fit(X, y).save_model(model_py)

    def cli_predict():
        r = subprocess.run([fsvc_bin, "predict", "-q", model_cli, data + "/t10k",
                            os.path.join(tmp, "out.txt")], check=True, capture_output=True,
                           text=True)
        return r.stdout.strip().splitlines()[-1]

    def py_predict():
        X, y = fsvc.load_idx(data + "/t10k")
        clf = fsvc.FSVCClassifier.from_model_file(model_cli)
        pred = clf.predict(X)
        np.savetxt(os.path.join(tmp, "py.txt"), pred, fmt="%d")
        return float(np.mean(pred == y))

    for what, c, p, n in (("train", cli_train, py_train, reps[0]),
                          ("predict", cli_predict, py_predict, reps[1])):
        tc, tp, tout = [], [], []
        for _ in range(n):  # interleaved, so load changes hit both
            tc.append(timed(c)[1])
            wall, outside = in_python(p)
            tp.append(wall)
            tout.append(outside)
        rows.append((what, min(tc), min(tp), 100.0 * (min(tp) / min(tc) - 1), n,
                     max(tout), 100.0 * max(tout) / min(tc)))
        print("overhead %s: CLI %.2f s, Python %.2f s, outside libfsvc %.3f s" % (
            what, min(tc), min(tp), max(tout)), flush=True)
    same = np.array_equal(np.loadtxt(os.path.join(tmp, "out.txt")),
                          np.loadtxt(os.path.join(tmp, "py.txt")))
    return rows, same


def side_by_side(name, data, subset):
    from sklearn.svm import SVC, LinearSVC
    X, y = fsvc.load_idx(data + "/train")
    Xt, yt = fsvc.load_idx(data + "/t10k")
    Xf = (X.reshape(len(X), -1) / np.float32(255)).astype(np.float32)
    Xtf = (Xt.reshape(len(Xt), -1) / np.float32(255)).astype(np.float32)
    out = []
    runs = [("FSVCClassifier()", lambda: fsvc.FSVCClassifier(), X, Xt, len(X)),
            ("FSVCClassifier()", lambda: fsvc.FSVCClassifier(), X, Xt, subset),
            ("SVC(kernel='rbf')", lambda: SVC(kernel="rbf"), Xf, Xtf, subset),
            ("LinearSVC(dual=False)", lambda: LinearSVC(dual=False), Xf, Xtf, subset)]
    for label, make, A, At, n in runs:
        est = make()
        _, tf = timed(lambda: est.fit(A[:n], y[:n]))
        pred, tpr = timed(lambda: est.predict(At))
        acc = float(np.mean(pred == yt))
        out.append((name, label, n, acc, tf, tpr))
        print("%s %s n=%d: %.2f%% fit %.1f s predict %.1f s" % (name, label, n, 100 * acc, tf,
                                                                  tpr), flush=True)
    return out


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "no plot: matplotlib (python3-matplotlib) is not installed"
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, ds in zip(axes, sorted({r[0] for r in rows})):
        for r in (r for r in rows if r[0] == ds):
            ax.scatter(r[4] + r[5], 100 * r[3], s=40)
            ax.annotate("%s\nn=%d" % (r[1].split("(")[0], r[2]), (r[4] + r[5], 100 * r[3]),
                        fontsize=7, xytext=(4, 4), textcoords="offset points")
        ax.set_xscale("log")
        ax.set_xlabel("fit + predict seconds (log)")
        ax.set_ylabel("test accuracy (%)")
        ax.set_title(ds)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return None


def header(title, cmd, start):
    import sklearn
    return ["# " + title, "", "Written by `python/bench_sklearn.py` (do not edit by hand).", "",
            "- command: `%s`" % cmd,
            "- date: %s UTC (%.0f s)" % (start.strftime("%Y-%m-%d %H:%M"),
                                         (datetime.datetime.utcnow() - start).total_seconds()),
            "- machine: %s at the end (a shared machine: other jobs ran at the same time)"
            % machine(),
            "- Python %s, NumPy %s, scikit-learn %s, libfsvc %s" % (
                platform.python_version(), np.__version__, sklearn.__version__,
                fsvc.library_path), ""]


def write_overhead(a, cmd, reps):
    start = datetime.datetime.utcnow()
    with tempfile.TemporaryDirectory() as tmp:
        ov, same = overhead(a.fsvc, a.mnist, tmp, reps)
    L = header("fsvc from Python: overhead against the CLI on MNIST", cmd, start)
    L += ["Target: Python at most 5 % of the CLI's time for MNIST train and predict "
          "(default parameters).", "",
          "CLI: the `fsvc` process (load the IDX files, train or predict, write the model or "
          "the labels). Python: the same steps (`fsvc.load_idx`, "
          "`FSVCClassifier().fit(X, y).save_model(...)`; `from_model_file(...).predict(X)` "
          "and writing the labels). End to end: minimum over the repetitions, CLI and Python "
          "interleaved. Outside libfsvc: Python's seconds minus the seconds inside libfsvc's "
          "calls (each timed), the largest over the repetitions: the cost of the Python layer "
          "itself, which the machine's load barely moves.", "",
          "| step | CLI s | Python s | end to end | outside libfsvc s | outside / CLI "
          "| repetitions |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for what, tc, tp, pct, n, out, opct in ov:
        L.append("| %s | %.2f | %.2f | %+.1f %% | %.3f | %.2f %% | %d |" % (
            what, tc, tp, pct, out, opct, n))
    L += ["", "Python and CLI predictions of the same model identical: %s." %
          ("yes" if same else "NO"), ""]
    with open(a.out_overhead + ".md", "w") as f:
        f.write("\n".join(L))
    print("wrote %s.md" % a.out_overhead)


def write_compare(a, cmd):
    start = datetime.datetime.utcnow()
    rows = side_by_side("MNIST", a.mnist, a.subset) + side_by_side("Fashion-MNIST", a.fashion,
                                                                     a.subset)
    with open(a.out + ".csv", "w") as f:
        f.write("dataset,estimator,train_samples,test_accuracy,fit_s,predict_s\n")
        for r in rows:
            f.write("%s,%s,%d,%.4f,%.2f,%.2f\n" % (r[0], r[1].replace(",", ";"), r[2], r[3],
                                                   r[4], r[5]))
    note = plot(rows, a.out + ".png")
    L = header("FSVCClassifier vs SVC(kernel='rbf') and LinearSVC", cmd, start)
    L += ["Training on the first N training samples, accuracy on the 10000 test images. FSVC "
          "takes the uint8 images as they are (default parameters: sqrt/deskew, L2 Gaussian, "
          "ridge, up to 10000 centroids, all cores); scikit-learn gets the pixels / 255 as "
          "float32 (default C, gamma='scale'; libsvm and liblinear use one core).", "",
          "| dataset | estimator | train samples | test accuracy | fit s | predict s |",
          "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        L.append("| %s | %s | %d | %.2f %% | %.1f | %.1f |" % (r[0], r[1], r[2], 100 * r[3],
                                                             r[4], r[5]))
    L += ["", "Plot: %s" % (note or "`python-vs-sklearn.png` (accuracy against fit + predict "
                                      "seconds, log scale)"), ""]
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(L))
    print("wrote %s.md" % a.out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--subset", type=int, default=10000)
    ap.add_argument("--mnist", default=os.path.join(ROOT, os.pardir, "shared", "datasets",
                                                    "mnist"))
    ap.add_argument("--fashion", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--fsvc", default=os.path.join(ROOT, "build", "fsvc"))
    ap.add_argument("--reps", default="1,3", help="repetitions: train,predict (min taken)")
    ap.add_argument("--only", choices=("overhead", "compare"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "python-vs-sklearn"))
    ap.add_argument("--out-overhead", default=os.path.join(ROOT, "results", "python-overhead"))
    a = ap.parse_args()
    reps = tuple(int(v) for v in a.reps.split(","))
    cmd = "PYTHONPATH=python %s %s" % (sys.executable, " ".join(sys.argv))
    if a.only != "compare":
        write_overhead(a, cmd, reps)
    if a.only != "overhead":
        write_compare(a, cmd)


if __name__ == "__main__":
    main()
