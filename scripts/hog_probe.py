#!/usr/bin/env python3
"""hog_probe.py - what gradient-orientation histograms (HOG) appended to
the pixels would give fsvc's default model, measured before building them
into the library: the features are made here (NumPy), written as IDX
files, and `fsvc train` / `fsvc predict` run on them unchanged.

For each data set (Fashion-MNIST, MNIST): the first 50000 training images
fit, the last 10000 score (held-out, as scripts/presets_search.sh). Rows:
  pixels    sqrt of the pixels (the sqrt-u8 curve, f32), no HOG: the baseline
  hog w     those pixels, then a HOG: central-difference gradients, 4 x 4
            cells, 8 unsigned orientation bins (linear vote), the square
            root of each bin's magnitude sum, scaled so that its mean
            squared norm is w^2 times the pixels'
  hog w u8  the same rounded to u8 (pixels round(255 sqrt(v)), HOG to
            0..255 by a fixed scale), the exact integer path
Each row trains `fsvc train -q --max-neurons M -l 1e-6 --preprocess none`
and reports the held-out accuracy and the training wall time (same run,
same machine: compare the rows, not the seconds across runs).

usage: scripts/hog_probe.py [-o FILE] [--fsvc PATH] [--neurons M ...]
       [--weights W ...] [--data fashion|mnist ...]   (make first)
"""
import argparse
import datetime
import gzip
import os
import platform
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRS = {"fashion": os.environ.get("FASHION_DIR", "/usr/share/datasets/fashion-mnist"),
        "mnist": os.environ.get("MNIST_DIR", os.path.join(ROOT, "data/mnist"))}


def idx(path):
    raw = open(path, "rb").read() if os.path.exists(path) else gzip.open(path + ".gz").read()
    nd = raw[3]
    dims = struct.unpack(">" + "I" * nd, raw[4:4 + 4 * nd])
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * nd).reshape(dims)


def write_idx(path, a):
    code = {np.uint8: 0x08, np.float32: 0x0D}[a.dtype.type]
    with open(path, "wb") as f:
        f.write(struct.pack(">BBBB", 0, 0, code, a.ndim))
        f.write(struct.pack(">" + "I" * a.ndim, *a.shape))
        f.write(a.astype(a.dtype.newbyteorder(">")).tobytes())


def hog(img, cell=4, bins=8):
    """img: N x r x c in [0, 1]; returns N x (r/cell)(c/cell)bins."""
    gx = np.zeros_like(img)
    gy = np.zeros_like(img)
    gx[:, :, 1:-1] = img[:, :, 2:] - img[:, :, :-2]
    gy[:, 1:-1, :] = img[:, 2:, :] - img[:, :-2, :]
    mag = np.sqrt(gx * gx + gy * gy)
    pos = (np.arctan2(gy, gx) % np.pi) / np.pi * bins
    lo = np.floor(pos).astype(np.int64) % bins
    f = pos - np.floor(pos)
    n, r, c = img.shape
    out = np.zeros((n, r // cell, c // cell, bins), np.float32)
    for b in range(bins):
        w = mag * ((lo == b) * (1 - f) + (((lo + 1) % bins) == b) * f)
        out[..., b] = w.reshape(n, r // cell, cell, c // cell, cell).sum((2, 4))
    return np.sqrt(out.reshape(n, -1))


def run(fsvc, fit, val, neurons, work):
    model = os.path.join(work, "m.fsvc")
    t = time.time()
    subprocess.run([fsvc, "train", "-q", "--max-neurons", str(neurons), "-l", "1e-6",
                    "--preprocess", "none", fit, model], check=True, stdout=subprocess.DEVNULL)
    t = time.time() - t
    out = subprocess.run([fsvc, "predict", "-q", model, val], check=True, capture_output=True,
                         text=True).stdout
    acc = [ln for ln in out.splitlines() if ln.startswith("Accuracy = ")][-1]
    return float(acc.split()[2].rstrip("%")), t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", dest="out")
    ap.add_argument("--fsvc", default=os.path.join(ROOT, "build/fsvc"))
    ap.add_argument("--neurons", type=int, nargs="+", default=[10000])
    ap.add_argument("--weights", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    ap.add_argument("--data", nargs="+", default=["fashion", "mnist"])
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name in a.data:
            img = idx(os.path.join(DIRS[name], "train-images-idx3-ubyte"))
            lab = idx(os.path.join(DIRS[name], "train-labels-idx1-ubyte"))
            x = img.astype(np.float32) / 255
            pix = np.sqrt(x.reshape(len(x), -1))
            h = hog(x)
            hs = np.sqrt((pix ** 2).sum(1).mean() / (h ** 2).sum(1).mean())
            cases = [("pixels", pix)]
            for w in a.weights:
                f = np.concatenate([pix, h * (w * hs)], 1)
                cases.append((f"hog {w:g}", f))
                q = np.rint(np.clip(f * 255, 0, 255)).astype(np.uint8)
                cases.append((f"hog {w:g} u8", q))
            for label, feat in cases:
                for part, sl in (("fit", slice(0, 50000)), ("val", slice(50000, 60000))):
                    write_idx(os.path.join(work, f"{part}-images-idx3-ubyte"),
                              np.ascontiguousarray(feat[sl], dtype=feat.dtype))
                    write_idx(os.path.join(work, f"{part}-labels-idx1-ubyte"), lab[sl])
                for m in a.neurons:
                    acc, t = run(a.fsvc, os.path.join(work, "fit"), os.path.join(work, "val"), m,
                                 work)
                    clipped = 100 * float((feat == 255).mean()) if feat.dtype == np.uint8 else 0
                    rows.append((name, label, feat.shape[1], str(feat.dtype), m, acc, t, clipped))
                    print(f"hog_probe: {name} {label} m {m}: {acc:.2f} % in {t:.1f} s",
                          file=sys.stderr)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cpu = [ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
           if ln.startswith("model name")]
    lines = ["# HOG features appended to the pixels: a probe (fsvc unchanged)", "",
             f"- command: `scripts/hog_probe.py {' '.join(sys.argv[1:])}`",
             f"- date: {stamp}; machine: {cpu[0] if cpu else platform.machine()}, "
             f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end",
             "- fit: the first 50000 training images; scored: the last 10000 (held-out)",
             "- each row: `fsvc train -q --max-neurons M -l 1e-6 --preprocess none` on the "
             "features written as IDX (see the script's docstring for the features)", "",
             "| data | features | width | dtype | centroids | held-out accuracy | train wall s |"
             " u8 values at 255 (%) |",
             "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:.2f} % | "
                     f"{r[6]:.1f} | {r[7]:.3f} |")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
