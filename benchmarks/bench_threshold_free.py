"""Speed and memory of the threshold-free comparisons, as ratios measured in one run.

1. Average precision of 2 classifiers at 10^6 binary records with 2000
   bootstrap replicates (:func:`compare_average_precision`), against the
   plain loop of 2 x 2000 :func:`sklearn.metrics.average_precision_score`
   calls on resampled rows (the loop is timed on 20 replicates and scaled
   to 2000, half before and half after). Target: at most 1/20 of the loop.
2. Peak memory of that comparison beyond its inputs (tracemalloc, NumPy's
   allocations included). Target: at most 100 bytes per record.
3. At 10^5 records and 10 classes, the per-class comparison against 10
   binary comparisons of the same size. Target: at most 3 x the binary
   one per class.
4. Peak memory of the pointwise precision-recall band at 100 classes,
   2000 records and 2000 replicates (2 classifiers), against the 323 MB
   its replicates take when held for every class at once. Target: at
   most 1/3 of that.

Run with ``python benchmarks/bench_threshold_free.py`` (``--quick`` for
10^5 records and 200 replicates).
"""

import argparse
import time
import tracemalloc

import numpy as np
from sklearn.metrics import average_precision_score

from sklearn_precision_stats import compare_average_precision


def binary_scores(rng, n, prevalence=0.1):
    y = rng.random(n) < prevalence
    common = rng.standard_normal(n)
    a = 1.0 * y + common + rng.standard_normal(n)
    b = 0.8 * y + common + rng.standard_normal(n)
    # Four decimals: probability-like scores with ties.
    return y.astype(np.int8), np.round(a, 4), np.round(b, 4)


def plain_loop(y, a, b, n_replicates, rng):
    """The bootstrap as it is usually written: resample rows, call scikit-learn."""
    n = y.shape[0]
    for _ in range(n_replicates):
        rows = rng.integers(0, n, size=n)
        average_precision_score(y[rows], a[rows])
        average_precision_score(y[rows], b[rows])


def timed(func, *args, **kwargs):
    start = time.perf_counter()
    result = func(*args, **kwargs)
    return time.perf_counter() - start, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 records, 200 replicates")
    args = parser.parse_args(argv)
    n = 10**5 if args.quick else 10**6
    n_replicates = 200 if args.quick else 2000
    loop_replicates = 20
    rng = np.random.default_rng(0)

    y, a, b = binary_scores(rng, n)
    scores = {"a": a, "b": b}
    # Half of the loop before and half after, so that a change in the
    # machine's load during the run weighs on both sides.
    before, _ = timed(plain_loop, y, a, b, loop_replicates // 2, rng)
    ours, result = timed(
        compare_average_precision, y, scores, n_resamples=n_replicates, random_state=0
    )
    after, _ = timed(plain_loop, y, a, b, loop_replicates - loop_replicates // 2, rng)
    loop_time = before + after
    loop_scaled = loop_time * n_replicates / loop_replicates
    print(f"1. average precision, 2 classifiers, {n:,} binary records, {n_replicates} replicates")
    print(
        f"   plain loop: {loop_time:.2f} s for {loop_replicates} replicates, "
        f"{loop_scaled:.1f} s scaled to {n_replicates}"
    )
    print(f"   compare_average_precision: {ours:.2f} s")
    print(f"   ratio: 1/{loop_scaled / ours:.1f} (target: at most 1/20)")
    print(f"   diff = {result.table['diff'].iloc[0]:.5f}")

    tracemalloc.start()
    compare_average_precision(y, scores, n_resamples=20, random_state=0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"2. peak memory beyond the inputs: {peak / 2**20:.1f} MiB, "
        f"{peak / n:.1f} bytes per record (target: at most 100)"
    )

    n_classes, n_small = 10, 10**5
    small_reps = 200
    y10 = rng.integers(0, n_classes, size=n_small)
    common = rng.standard_normal((n_small, n_classes))
    onehot = np.eye(n_classes)[y10]
    multi = {
        "a": np.round(onehot + common + rng.standard_normal((n_small, n_classes)), 4),
        "b": np.round(0.8 * onehot + common + rng.standard_normal((n_small, n_classes)), 4),
    }
    per_class, _ = timed(
        compare_average_precision, y10, multi, n_resamples=small_reps, random_state=0
    )
    yb = (y10 == 0).astype(np.int8)
    binary, _ = timed(
        compare_average_precision,
        yb,
        {"a": multi["a"][:, 0], "b": multi["b"][:, 0]},
        n_resamples=small_reps,
        random_state=0,
    )
    print(f"3. {n_small:,} records, {small_reps} replicates")
    print(f"   {n_classes} classes: {per_class:.2f} s; one binary class: {binary:.2f} s")
    print(
        f"   per class: {per_class / n_classes / binary:.2f} x the binary comparison "
        "(target: at most 3)"
    )

    n_classes, n_small = 100, 2000
    y100 = np.arange(n_small) % n_classes
    onehot = np.eye(n_classes)[y100]
    many = {
        "a": np.round(onehot + rng.standard_normal((n_small, n_classes)), 4),
        "b": np.round(0.8 * onehot + rng.standard_normal((n_small, n_classes)), 4),
    }
    whole_band = n_replicates * 2 * n_classes * 101 * 8
    tracemalloc.start()
    seconds, _ = timed(
        compare_average_precision, y100, many, n_resamples=n_replicates, random_state=0
    )
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"4. {n_classes} classes, {n_small:,} records, {n_replicates} replicates")
    print(f"   compare_average_precision: {seconds:.2f} s")
    print(
        f"   peak memory {peak / 2**20:.1f} MiB; the band's replicates of every class "
        f"at once {whole_band / 2**20:.1f} MiB; ratio 1/{whole_band / peak:.1f} "
        "(target: at most 1/3)"
    )


if __name__ == "__main__":
    main()
