"""Cost of the resampling behind the global null test and at_prevalence.

Target: 1000 paired permutations of 10^6 records with 10 classes
and two classifiers in under 5 seconds. A paired permutation only moves
records between the cells (y, a, b) and (y, b, a) of the joint table of
(truth, reference prediction, classifier prediction), so the resampling
works on at most K^3 cells whatever the number of records; clustered rows
(stacked cross-validation) are resampled per record instead.

Run from the repository root::

    python benchmarks/bench_global.py            # full sizes
    python benchmarks/bench_global.py --quick    # smaller, for a smoke test

Timings are the best of ``--repeat`` runs (other processes may share the
machine).
"""

import argparse
import warnings

import numpy as np
from bench_engine import best_of  # the sibling script; run from any directory

from sklearn_precision_stats import compare_precision


def exchangeable_predictions(rng, n_records, n_classes, accuracy=0.7, shared=0.5):
    """Truth and two exchangeable classifiers whose errors are correlated."""
    y = rng.integers(0, n_classes, n_records)
    hard = rng.random(n_records) < shared * (1 - accuracy)
    common = rng.integers(0, n_classes, n_records)

    def classifier():
        own = rng.integers(0, n_classes, n_records)
        right = rng.random(n_records) < accuracy
        return np.where(hard, common, np.where(right, y, own))

    return y, classifier(), classifier()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n_paired = 10**5 if args.quick else 10**6
    n_resamples = 1000
    warnings.simplefilter("ignore")

    print(f"Paired rows: {n_paired} records, 10 classes, 2 classifiers")
    y, a, b = exchangeable_predictions(rng, n_paired, 10)
    elapsed, result = best_of(lambda: compare_precision(y, {"a": a, "b": b}), args.repeat)
    print(f"  compare_precision                         {elapsed:8.3f} s")
    for resampling in ("permutation", "bootstrap"):
        elapsed, res = best_of(
            lambda resampling=resampling: result.global_test(
                n_resamples=n_resamples, random_state=0, resampling=resampling
            ),
            args.repeat,
        )
        flag = "  (target < 5 s)" if resampling == "permutation" else ""
        print(
            f"  global_test dai-cui, {n_resamples} {resampling:<12s} {elapsed:8.3f} s"
            f"{flag}  p = {res.pvalue:.3f}, df = {res.df:.2f}"
        )
    elapsed, _ = best_of(
        lambda: result.at_prevalence({0: 0.05, 1: 0.2}, n_resamples=2000, random_state=0),
        args.repeat,
    )
    print(f"  at_prevalence, 2000 bootstrap resamples     {elapsed:8.3f} s")

    n_records, n_repeats = (2000, 5) if args.quick else (20000, 5)
    print(
        f"Clustered rows: {n_records} records x {n_repeats} repeats "
        f"({n_records * n_repeats} rows), 10 classes"
    )
    y, a, b = exchangeable_predictions(rng, n_records * n_repeats, 10)
    y = np.tile(y[:n_records], n_repeats)
    groups = np.tile(np.arange(n_records), n_repeats)
    clustered = compare_precision(y, {"a": a, "b": b}, groups=groups)
    for resampling in ("permutation", "bootstrap"):
        elapsed, res = best_of(
            lambda resampling=resampling: clustered.global_test(
                n_resamples=n_resamples, random_state=0, resampling=resampling
            ),
            args.repeat,
        )
        print(
            f"  global_test dai-cui, {n_resamples} {resampling:<12s} {elapsed:8.3f} s"
            f"  p = {res.pvalue:.3f}"
        )

    n_many, k_many = (10**4, 300) if args.quick else (10**5, 300)
    print(f"Many classes: {n_many} records, {k_many} classes (K^3 > 2^24 cells)")
    y, a, b = exchangeable_predictions(rng, n_many, k_many, accuracy=0.9)
    many = compare_precision(y, {"a": a, "b": b})
    elapsed, res = best_of(
        lambda: many.global_test(n_resamples=n_resamples, random_state=0), args.repeat
    )
    print(
        f"  global_test dai-cui, {n_resamples} permutation  {elapsed:8.3f} s  p = {res.pvalue:.3f}"
    )


if __name__ == "__main__":
    main()
