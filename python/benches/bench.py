#!/usr/bin/env python3
"""Throughput of pisa_sgu.execute from Python (one thread): batches of W warps, and single-warp
calls (the per-call overhead). `python3 python/benches/bench.py [--warps 100000]`."""

import argparse
import time

import numpy as np

import pisa_sgu


def best_of(f, reps):
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--warps", type=int, default=100_000)
    p.add_argument("--forms", default="shfl.idx.32b,ired.sum.32b,fred.max.f,redfirstidx.32b")
    a = p.parse_args()
    rng = np.random.default_rng(1)
    w = a.warps
    src0 = rng.integers(0, 2**32, (w, 32), dtype=np.uint64).astype(np.uint32)
    src1 = rng.integers(0, 32, (w, 32), dtype=np.uint32)
    mask = np.full(w, 0xFFFFFFFF, np.uint32)
    act = rng.integers(0, 2**32, w, dtype=np.uint64).astype(np.uint32)
    for form in a.forms.split(","):
        t = best_of(lambda: pisa_sgu.execute(form, src0, src1, mask, act), 5)
        one = best_of(lambda: [pisa_sgu.execute(form, src0[i], src1[i], 0xFFFFFFFF, act[i])
                               for i in range(2000)], 3) / 2000
        print(f"{form:20} batch of {w}: {w / t / 1e6:6.1f} M warp-ops/s; "
              f"single-warp call: {one * 1e6:5.1f} us")


if __name__ == "__main__":
    main()
