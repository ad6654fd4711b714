#!/usr/bin/env python3
"""scaling_model.py - time and memory per rank of `mpirun fsvc train`
(random selection, ridge readout) for N samples, m centroids, P nodes,
from rates measured on this machine (scripts/scaling.sh writes them).

usage: scaling_model.py RATES.env > model.md

The terms, per rank (one rank per node):
  H      (N/P) m n synaptic ops x t_syn                  (measured)
  G      (N/P) m^2 multiply-adds of syrk                 (measured rate)
  reduce the m^2 Gram matrix (4 B/entry beyond 24000 centroids, else 8 B)
         - as implemented (gather to rank 0, add in rank order, broadcast):
           (P-1) S / bw_link + S / add_rate + S log2(P) / bw_link
         - a ring reduce-scatter + allgather in fixed block order:
           2 S (P-1)/P / bw_link + S / add_rate / P
  solve  Cholesky m^3/3 flops, on every rank (redundant)  (measured rate)
Memory per rank: the data slice (N/P x n bytes, u8) + G (m^2 x 4 or 8 B)
+ the Gram block (as large as G) + H chunks (small).
"""
import math
import sys


def load(path):
    v = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith('#') and '=' in line:
            k, x = line.split('=', 1)
            v[k.strip()] = float(x)
    return v


def model(r, N, m, n, P):
    gs = 8 if m <= 24000 else 4
    S = m * m * gs
    t_h = N / P * m * n * r['tsyn_h']
    t_g = N / P * m * m / r['syrk_rate']
    add = r['add_rate']           # bytes of Gram summed per second, one core
    bw = r['link_bw']             # bytes per second between nodes
    lat = r['link_lat']
    chunks = math.ceil(S / (8 << 20))
    t_red_impl = (P - 1) * S / bw + S * (P - 1) / P / add + S * math.log2(P) / bw \
        + chunks * (1 + math.log2(P)) * lat
    t_red_ring = 2 * S * (P - 1) / P / bw + S / add / P + 2 * (P - 1) * lat
    t_solve = m ** 3 / 3 / r['potrf_rate']
    mem = N / P * n + 2 * S + 4096 * m * 4 * 2
    return t_h, t_g, t_red_impl, t_red_ring, t_solve, mem


def main():
    r = load(sys.argv[1])
    N, m, n = 8.1e6, 1e5, 784
    print('| nodes P | H (s) | H^T H (s) | reduce, as built (s) | reduce, ring (s) | '
          'solve (s) | total as built (s) | total ring (s) | memory/rank (GB) |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for P in (8, 32, 128):
        t_h, t_g, ri, rr, ts, mem = model(r, N, m, n, P)
        print('| %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f |' % (
            P, t_h, t_g, ri, rr, ts, t_h + t_g + ri + ts, t_h + t_g + rr + ts, mem / 1e9))
    # where communication starts to dominate the local work (H + G), and
    # where the (unscaled) solve does
    def first(pred):
        for P in range(2, 100001):
            if pred(model(r, N, m, n, P)):
                return 'P = %d nodes' % P
        return 'no P up to 100000'
    print()
    print('- The reduction as built exceeds the local H + H^T H work from %s.'
          % first(lambda t: t[2] > t[0] + t[1]))
    print('- A ring reduction would exceed it from %s.' % first(lambda t: t[3] > t[0] + t[1]))
    print('- The Cholesky solve (the same on every rank) exceeds the local work from %s.'
          % first(lambda t: t[4] > t[0] + t[1]))

if __name__ == '__main__':
    main()
