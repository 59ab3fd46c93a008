"""Timings of compare_metric, as ratios against baselines measured in the same run.

* The delta method at 10^7 records and 10 classes against
  :func:`compare_precision` on the same arrays (target: at most 1.5x).
* Multilabel: 20 labels at 10^6 records, per-label precision, against
  twenty binary :func:`compare_precision` calls on the labels' columns
  (target: at most 2x).
* 10^4 bootstrap replicates at 10^5 and at 10^7 records (target: within
  1.5x of each other, so the cost does not grow with the records), and
  against the floor, drawing the same replicates with
  :meth:`numpy.random.Generator.multinomial` over the joint table's nonzero
  cells (target: at most 2x), at 3 and 10 classes. Both the total and
  the replicates alone (the total less the one pass over the rows that
  the delta method also makes) are shown.
* Many classes: per-class F1 (``average=None``, delta method and 10^3
  bootstrap replicates) and macro-F1 at 10^5 rows and K = 100 and 1000
  classes, time and peak traced memory
  (:mod:`tracemalloc`), against :func:`compare_precision` on the same
  arrays. Memory must stay in proportion to the units and the K^2 cells
  (tens of MB), never K^3 (8 GB at K = 1000) or units x K.

Run with ``python benchmarks/bench_metric.py`` (``--small`` divides every
size by 100 for a quick check; ``--many-classes`` runs the many-classes
cases alone).
"""

import sys
import time
import tracemalloc
import warnings

import numpy as np

from sklearn_precision_stats import compare_metric, compare_precision
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning


def make_predictions(rng, n, k):
    y = rng.integers(0, k, n, dtype=np.int8)
    a = np.where(rng.random(n) < 0.8, y, rng.integers(0, k, n, dtype=np.int8))
    b = np.where(rng.random(n) < 0.75, y, rng.integers(0, k, n, dtype=np.int8))
    return y, {"a": a, "b": b}


def best_of(repeats, func):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main(scale=1):
    rng = np.random.default_rng(0)
    rows = []
    warnings.simplefilter("ignore", UndefinedStatisticWarning)

    n = 10**7 // scale
    y, preds = make_predictions(rng, n, 10)
    t_metric = best_of(3, lambda: compare_metric(y, preds, metric="f1", average="macro"))
    t_prec = best_of(3, lambda: compare_precision(y, preds))
    rows.append(
        (f"delta, macro-F1, {n:.0e} rows, 10 classes", t_metric, "compare_precision", t_prec)
    )

    n, n_labels = 10**6 // scale, 20
    y = (rng.random((n, n_labels)) < 0.3).astype(np.int8)
    a = np.where(rng.random((n, n_labels)) < 0.9, y, 1 - y).astype(np.int8)
    b = np.where(rng.random((n, n_labels)) < 0.85, y, 1 - y).astype(np.int8)
    t_multi = best_of(3, lambda: compare_metric(y, {"a": a, "b": b}, metric="precision"))
    columns = [np.ascontiguousarray(m.T) for m in (y, a, b)]

    def binary_calls():
        for j in range(n_labels):
            compare_precision(columns[0][j], {"a": columns[1][j], "b": columns[2][j]}, labels=[1])

    t_binary = best_of(3, binary_calls)
    rows.append((f"multilabel precision, {n:.0e} rows, 20 labels", t_multi, "20 binary", t_binary))

    n_boot = 10**4
    for k in (3, 10):
        replicates = {}
        for n in (10**5 // scale, 10**7 // scale):
            y, preds = make_predictions(rng, n, k)
            total = best_of(
                2,
                lambda y=y, preds=preds: compare_metric(
                    y, preds, metric="mcc", method="bootstrap", n_resamples=n_boot, random_state=0
                ),
            )
            # The one pass over the rows (the delta method's whole cost).
            one_pass = best_of(2, lambda y=y, preds=preds: compare_metric(y, preds, metric="mcc"))
            replicates[n] = total - one_pass
            joint = np.bincount(
                (y.astype(np.intp) * k + preds["a"]) * k + preds["b"], minlength=k**3
            )
            cells = joint[joint > 0]
            floor = best_of(
                2,
                lambda cells=cells, n=n: np.random.default_rng(0).multinomial(
                    n, cells / n, size=n_boot
                ),
            )
            label = f"{n:.0e} rows, {k} classes"
            rows.append((f"bootstrap 1e4, {label}", total, "multinomial floor", floor))
            rows.append((f"  replicates only, {label}", replicates[n], "multinomial floor", floor))
        small, large = replicates.values()
        rows.append((f"  replicates, {k} classes: 1e7 vs 1e5 rows", large, "1e5 rows", small))

    print(f"{'case':<45} {'time (s)':>9} {'baseline':<20} {'time (s)':>9} {'ratio':>6}")
    for case, t, base, tb in rows:
        print(f"{case:<45} {t:9.3f} {base:<20} {tb:9.3f} {t / tb:6.2f}")
    many_classes(scale)


def traced(func):
    """Seconds and peak traced memory (MB) of one call."""
    tracemalloc.start()
    start = time.perf_counter()
    func()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak


def many_classes(scale=1):
    n = max(10**5 // scale, 10**4)
    print(f"\nmany classes, {n:.0e} rows, 2 classifiers")
    print(f"{'case':<40} {'time (s)':>9} {'peak (MB)':>10} {'precision (s)':>14} {'ratio':>7}")
    for k in (100, 1000):
        rng = np.random.default_rng(k)
        y = rng.integers(0, k, n)
        preds = {
            "a": np.where(rng.random(n) < 0.8, y, rng.integers(0, k, n)),
            "b": np.where(rng.random(n) < 0.75, y, rng.integers(0, k, n)),
        }
        t_prec = best_of(3, lambda y=y, preds=preds: compare_precision(y, preds))
        for average, method in ((None, "delta"), ("macro", "delta"), (None, "bootstrap")):
            seconds, peak = traced(
                lambda y=y, preds=preds, average=average, method=method: compare_metric(
                    y, preds, metric="f1", average=average, method=method, n_resamples=1000
                )
            )
            case = f"F1 average={average}, K={k}" + (", 1e3 boot" if method == "bootstrap" else "")
            print(f"{case:<40} {seconds:9.3f} {peak:10.1f} {t_prec:14.3f} {seconds / t_prec:7.1f}")


if __name__ == "__main__":
    if "--many-classes" in sys.argv:
        many_classes(100 if "--small" in sys.argv else 1)
    else:
        main(100 if "--small" in sys.argv else 1)
