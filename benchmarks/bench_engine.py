"""Speed and memory of the closed-form engine (issue 2 targets).

Prints, from one run:

1. the closed-form engine against the statsmodels engine (the paper's
   Algorithms 1 and 2 through statsmodels GEE) on the same 10^5 records:
   target at least 1000x faster, with the same numbers;
2. 10^7 records, 10 classes, 2 classifiers, all tests, against the floor of
   one ``np.bincount`` pass over the joint (y, pred_a, pred_b) codes of the
   same data: target at most 5x that floor, and at most 600 MB of memory
   beyond the input arrays.

Run: ``python benchmarks/bench_engine.py [--quick]``.
"""

import argparse
import time
import tracemalloc
import warnings

import numpy as np

from sklearn_precision_stats import compare_precision


def correlated_predictions(n, n_classes, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    shared = np.where(rng.random(n) < 0.8, y, rng.integers(0, n_classes, n))
    a = np.where(
        rng.random(n) < 0.5,
        shared,
        np.where(rng.random(n) < 0.75, y, rng.integers(0, n_classes, n)),
    )
    b = np.where(
        rng.random(n) < 0.5,
        shared,
        np.where(rng.random(n) < 0.70, y, rng.integers(0, n_classes, n)),
    )
    return y, {"a": a, "b": b}


def best_of(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - start)
    return min(times), out


def versus_statsmodels(n=100_000, n_classes=2):
    y, preds = correlated_predictions(n, n_classes, seed=1)
    t_closed, closed = best_of(lambda: compare_precision(y, preds), 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_sm, literal = best_of(lambda: compare_precision(y, preds, engine="statsmodels"), 1)
    cols = ["score_stat", "wald_stat", "log_or", "log_or_se"]
    a, b = closed.table[cols].to_numpy(), literal.table[cols].to_numpy()
    rel = np.max(np.abs(a - b) / np.abs(b))
    print(f"[1] {n:.0e} records, {n_classes} classes, 2 classifiers")
    print(f"    closed-form engine : {t_closed * 1e3:9.2f} ms")
    print(f"    statsmodels engine : {t_sm * 1e3:9.2f} ms")
    print(f"    speed-up           : {t_sm / t_closed:9.0f}x   (target >= 1000x)")
    print(f"    max relative difference of GS, Wald, log OR, se: {rel:.2e}")


def _bincount_floor(codes, n_cells, repeat):
    # The codes are computed outside the timing: the floor is the pass alone.
    return best_of(lambda: np.bincount(codes, minlength=n_cells), repeat)[0]


def versus_bincount_floor(n=10_000_000, n_classes=10, repeat=5):
    y, preds = correlated_predictions(n, n_classes, seed=2)
    a, b = preds["a"], preds["b"]
    t_floor = _bincount_floor((y * n_classes + a) * n_classes + b, n_classes**3, repeat)
    t_engine, result = best_of(lambda: compare_precision(y, preds), repeat)

    tracemalloc.start()
    compare_precision(y, preds)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    input_mb = (y.nbytes + a.nbytes + b.nbytes) / 1e6
    print(f"[2] {n:.0e} records, {n_classes} classes, 2 classifiers, all tests")
    print(f"    floor (one bincount of joint codes): {t_floor * 1e3:8.1f} ms")
    print(f"    compare_precision                  : {t_engine * 1e3:8.1f} ms")
    print(f"    ratio to floor                     : {t_engine / t_floor:8.2f}x  (target <= 5x)")
    print(
        f"    peak memory beyond inputs ({input_mb:.0f} MB): {peak / 1e6:8.1f} MB  "
        "(target <= 600 MB)"
    )
    assert result.table.shape[0] == n_classes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    args = parser.parse_args()
    if args.quick:
        versus_statsmodels(n=10_000)
        versus_bincount_floor(n=1_000_000, repeat=2)
    else:
        versus_statsmodels()
        versus_bincount_floor()


if __name__ == "__main__":
    main()
