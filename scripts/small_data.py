#!/usr/bin/env python3
"""small_data.py - fsvc against LIBSVM and scikit-learn's SVC on small data
(issue 27 item 11), each comparison measured in the same run, interleaved,
repeated (--repeats, default 3), medians reported:

  1. 5-fold cross-validation on the UCI sets of data/uci-dogaru
     (`make test-data` expands them under build/data/uci-dogaru):
     `svm-train -q -v 5 FILE` (LIBSVM's defaults, Debian's libsvm-tools)
     against `fsvc train -v 5 FILE` (fsvc's defaults; its cv: line gives the
     centroids per fold model), against fsvc on
     one thread, against --max-neurons 10000 (every sample a centroid: the
     default before issue 27) and against --max-neurons M for each M of
     --sweep (what the default centroid count was chosen from);
  2. GridSearchCV (5 folds, 9 points each) on scikit-learn's digits (80 %
     train, 20 % test, random_state 0): SVC over C x gamma against
     FSVCClassifier over lam x radius, with n_jobs 1 and 2 (and the
     default before issue 27, max_neurons=10000).

Writes --out (default results/small_data.md) with the command, the date,
the machine (lscpu's model name), the load average (the machine may be
shared: read the ratios, measured side by side, rather than the seconds).

Run from the repository root after `make` and `make test-data`:
    PYTHONPATH=python /usr/bin/python3 scripts/small_data.py
"""
import argparse
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_cv(cmd):
    """(wall s, cpu s, CV accuracy %, centroids per fold model or None) of
    a command printing LIBSVM's 'Cross Validation Accuracy = X%' line."""
    c0, t0 = child_cpu(), time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, child_cpu() - c0
    if r.returncode != 0:
        sys.exit("small_data: %s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                  r.stderr.strip()[-500:]))
    m = re.search(r"Cross Validation Accuracy = ([0-9.]+)%", r.stdout)
    if not m:
        sys.exit("small_data: %s printed no cross-validation accuracy" % " ".join(cmd))
    c = re.search(r"([0-9]+) centroids per model", r.stdout)
    return wall, cpu, float(m.group(1)), int(c.group(1)) if c else None


def machine():
    model = "unknown"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        m = re.search(r"^Model name:\s*(.+)$", out, re.M)
        model = m.group(1).strip() if m else model
    except OSError:
        pass
    return "%s, %d cores" % (model, os.cpu_count() or 0)


def commit():
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (r.stdout.strip() or "unknown") + (" (with uncommitted changes)" if dirty else "")


def median(v):
    return statistics.median(v)


def uci(args, out):
    """The -v 5 table: per set, LIBSVM, fsvc's default, fsvc on one thread
    and the --max-neurons sweep, run one after the other in each repeat."""
    runs = {}  # (set, variant) -> [(wall, cpu, acc)]
    variants = [("LIBSVM", None), ("fsvc", []), ("fsvc --threads 1", ["--threads", "1"]),
                # before issue 27: every sample a centroid up to 10000
                ("fsvc --max-neurons 10000", ["--max-neurons", "10000"])]
    variants += [("fsvc --max-neurons %d" % M, ["--max-neurons", str(M)]) for M in args.sweep]
    for rep in range(args.repeats):
        for s in args.sets:
            path = os.path.join(args.data, s + ".train")
            for name, extra in variants:
                cmd = (["svm-train", "-q", "-v", "5", path] if extra is None else
                       [args.fsvc, "train", "-v", "5"] + extra + [path])
                runs.setdefault((s, name), []).append(run_cv(cmd))
            print("small_data: repeat %d, %s done" % (rep + 1, s), file=sys.stderr, flush=True)
    out.append("## 5-fold cross-validation on the UCI sets (`-v 5`)\n")
    out.append("Wall seconds are medians of %d runs; the ratio is fsvc's time over LIBSVM's "
               "in the same repeat (median of the repeats); CPU seconds (user + system, "
               "median) count every thread. Accuracy: `Cross Validation Accuracy` "
               "(deterministic). Centroids: fsvc's per fold model (a fold trains on 4/5 of "
               "N).\n" % args.repeats)
    out.append("| set | N | command | centroids | CV accuracy | wall s | CPU s | time / LIBSVM |")
    out.append("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for s in args.sets:
        path = os.path.join(args.data, s + ".train")
        with open(path) as f:
            N = sum(1 for line in f if line.strip())
        base = runs[(s, "LIBSVM")]
        for name, _ in variants:
            r = runs[(s, name)]
            ratio = median([a[0] / b[0] for a, b in zip(r, base)])
            cmd = ("`svm-train -v 5`" if name == "LIBSVM" else
                   "`%s`" % name.replace("fsvc", "fsvc train -v 5", 1))
            cents = "-" if r[0][3] is None else "%d" % r[0][3]
            out.append("| %s | %d | %s | %s | %.2f %% | %.3f | %.3f | %.2f |"
                       % (s, N, cmd, cents, r[0][2], median([a[0] for a in r]),
                          median([a[1] for a in r]), ratio))
    out.append("")


def digits(args, out):
    """GridSearchCV on digits: SVC against FSVCClassifier, n_jobs 1 and 2."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import GridSearchCV, train_test_split
    from sklearn.svm import SVC

    import fsvc
    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0)
    svc_grid = {"C": [1, 10, 100], "gamma": ["scale", 1e-3, 1e-4]}
    fs_grid = {"lam": [1e-3, 1e-5, 1e-7], "radius": ["0.35rms", "0.45rms", "0.6rms"]}
    cases = [("SVC()", lambda: SVC(), svc_grid, 1),
             ("FSVCClassifier()", lambda: fsvc.FSVCClassifier(), fs_grid, 1),
             # before issue 27: every sample a centroid
             ("FSVCClassifier(max_neurons=10000)",
              lambda: fsvc.FSVCClassifier(max_neurons=10000), fs_grid, 1),
             ("SVC()", lambda: SVC(), svc_grid, 2),
             ("FSVCClassifier()", lambda: fsvc.FSVCClassifier(), fs_grid, 2),
             ("FSVCClassifier(threads=1)", lambda: fsvc.FSVCClassifier(threads=1), fs_grid, 1),
             ("FSVCClassifier(threads=1)", lambda: fsvc.FSVCClassifier(threads=1), fs_grid, 2)]
    times = {}
    result = {}
    for rep in range(args.repeats):
        for name, make, grid, jobs in cases:
            t0 = time.perf_counter()
            g = GridSearchCV(make(), grid, cv=5, n_jobs=jobs).fit(Xtr, ytr)
            times.setdefault((name, jobs), []).append(time.perf_counter() - t0)
            result[(name, jobs)] = (g.score(Xte, yte), g.best_params_)
        print("small_data: repeat %d, digits done" % (rep + 1), file=sys.stderr, flush=True)
    out.append("## GridSearchCV on digits\n")
    out.append("scikit-learn's digits (1797 x 64), `train_test_split(test_size=0.2, "
               "random_state=0)`, `GridSearchCV(cv=5)` over 9 points: SVC over C in "
               "{1, 10, 100} x gamma in {scale, 1e-3, 1e-4}; FSVCClassifier over lam in "
               "{1e-3, 1e-5, 1e-7} x radius in {0.35rms, 0.45rms, 0.6rms}. Wall seconds: "
               "median of %d; the ratio is over SVC's time with the same n_jobs in the same "
               "repeat.\n" % args.repeats)
    out.append("| estimator | n_jobs | wall s | time / SVC | test accuracy | best point |")
    out.append("| --- | ---: | ---: | ---: | ---: | --- |")
    for name, _, _, jobs in cases:
        t = times[(name, jobs)]
        base = times[("SVC()", jobs)]
        ratio = median([a / b for a, b in zip(t, base)])
        acc, best = result[(name, jobs)]
        out.append("| `%s` | %d | %.2f | %.2f | %.2f %% | %s |"
                   % (name, jobs, median(t), ratio, 100 * acc,
                      ", ".join("%s=%s" % kv for kv in sorted(best.items()))))
    out.append("")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "small_data.md"))
    ap.add_argument("--fsvc", default=os.path.join(ROOT, "build", "fsvc"))
    ap.add_argument("--data", default=os.path.join(ROOT, "build", "data", "uci-dogaru"))
    ap.add_argument("--sets", default="iris,phoneme,satimg,optd64")
    ap.add_argument("--sweep", default="250,500,1000,2000",
                    help="--max-neurons values (comma-separated; empty: none)")
    ap.add_argument("--skip-digits", action="store_true")
    args = ap.parse_args()
    args.sets = [s for s in args.sets.split(",") if s]
    args.sweep = [int(v) for v in args.sweep.split(",") if v]
    for s in args.sets:
        if not os.path.exists(os.path.join(args.data, s + ".train")):
            sys.exit("small_data: %s: missing (run `make test-data`)"
                     % os.path.join(args.data, s + ".train"))
    if not os.access(args.fsvc, os.X_OK):
        sys.exit("small_data: %s: not built (run `make`)" % args.fsvc)
    command = "PYTHONPATH=python /usr/bin/python3 scripts/small_data.py " + \
        " ".join(shlex.quote(a) for a in sys.argv[1:])
    load0 = os.getloadavg()
    out = []
    uci(args, out)
    if not args.skip_digits:
        digits(args, out)
    load1 = os.getloadavg()
    head = ["# Small data: fsvc against LIBSVM and SVC (scripts/small_data.py)\n",
            "- command: `%s`" % command.strip(),
            "- date: %s" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "- machine: %s; load average %.1f at the start, %.1f at the end (a shared "
            "machine: compare the ratios, measured side by side)" % (machine(), load0[0],
                                                                    load1[0]),
            "- fsvc: commit %s, %s" % (commit(), args.fsvc),
            "- LIBSVM: `svm-train` of Debian's libsvm-tools, its defaults (C 1, gamma "
            "1/features)", ""]
    text = "\n".join(head + out)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.out)
    print(text)


if __name__ == "__main__":
    main()
