#!/usr/bin/env python3
"""fsvc --regression against scikit-learn's SVR (its defaults) on the
diabetes set, on fixed splits (train_test_split, test 25 %, seeds 0..4),
in one run: R^2 on the test part for fsvc's default regression settings
and a few neighbours of them. Writes results/regression.md (command, date,
machine, table). Run from the repository root after `make`:
    /usr/bin/python3 scripts/regression.py [--out results/regression.md]
"""
import argparse, datetime, os, platform, subprocess, sys, tempfile

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.svm import SVR

FSVC = os.environ.get("FSVC", "build/fsvc")
SETTINGS = [("default", []), ("-r 1rms -l 0.1", ["-r", "1rms", "-l", "0.1"]),
            ("-r 4rms -l 1e-3", ["-r", "4rms", "-l", "1e-3"]),
            ("-r 0.45rms -l 1e-5 (classification defaults)", ["-r", "0.45rms", "-l", "1e-5"])]


def write_libsvm(path, X, y):
    with open(path, "w") as f:
        for r, t in zip(X, y):
            f.write("%.17g " % t + " ".join("%d:%.17g" % (j + 1, v) for j, v in enumerate(r)) + "\n")


def fsvc_r2(tmp, extra):
    model = os.path.join(tmp, "m.fsvc")
    subprocess.run([FSVC, "train", "-q", "--regression"] + extra + [os.path.join(tmp, "tr"), model],
                   check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([FSVC, "predict", model, os.path.join(tmp, "te"), os.path.join(tmp, "p")],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split("R^2 = ")[1].split()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="results/regression.md")
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    X, y = load_diabetes(return_X_y=True)
    rows = {name: [] for name, _ in SETTINGS}
    svr = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(a.seeds):
            Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.25, random_state=seed)
            write_libsvm(os.path.join(tmp, "tr"), Xa, ya)
            write_libsvm(os.path.join(tmp, "te"), Xb, yb)
            svr.append(SVR().fit(Xa, ya).score(Xb, yb))
            for name, extra in SETTINGS:
                rows[name].append(fsvc_r2(tmp, extra))
    lines = ["# fsvc --regression vs SVR on diabetes", "",
             "Command: `/usr/bin/python3 scripts/regression.py` (this file)  ",
             "Date: %s  " % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
             "Machine: %s, %s, %d CPUs  " % (platform.node(), platform.processor() or platform.machine(),
                                             os.cpu_count()),
             "Data: sklearn `load_diabetes` (442 x 10), `train_test_split(test_size=0.25, "
             "random_state=seed)`, seeds 0..%d; R^2 on the test part; SVR: scikit-learn's "
             "`SVR()` defaults; fsvc: `fsvc train --regression` plus the settings shown, "
             "in the same run." % (a.seeds - 1), "",
             "| model | " + " | ".join("seed %d" % s for s in range(a.seeds)) + " | mean |",
             "|---|" + "---|" * (a.seeds + 1)]
    def row(name, v):
        return "| %s | " % name + " | ".join("%.3f" % x for x in v) + " | %.3f |" % np.mean(v)
    lines.append(row("SVR()", svr))
    for name, _ in SETTINGS:
        lines.append(row("fsvc " + name, rows[name]))
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
