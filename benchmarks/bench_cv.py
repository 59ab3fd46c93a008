"""Benchmark of CVPrecisionComparator (cross-validated comparison, paper Algorithm 2).

Prints, from one run:

1. the wall time of ``CVPrecisionComparator.fit`` against a plain loop of
   :func:`sklearn.model_selection.cross_val_predict` for each estimator and
   repeat on the same splits, both with ``n_jobs=1`` (target: at most
   1.10x): the overhead of stacking, of the bookkeeping and of the
   comparison itself;
2. the speed-up of ``n_jobs=2`` over ``n_jobs=1`` on CPU-bound estimators
   (target: at least 1.6x on a 2-core machine).

Each timing is the best of ``--rounds`` runs, interleaved, so that other
processes on the machine disturb it less. Usage::

    python benchmarks/bench_cv.py [--rounds 3]
"""

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB

from sklearn_precision_stats import CVPrecisionComparator

N_SPLITS, N_REPEATS = 5, 3


def _best_times(functions, rounds):
    """Best wall time of each function over `rounds` interleaved runs."""
    best = [np.inf] * len(functions)
    for _ in range(rounds):
        for i, func in enumerate(functions):
            start = time.perf_counter()
            func()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def overhead(rounds):
    """CVPrecisionComparator vs a cross_val_predict loop, n_jobs=1."""
    X, y = make_classification(
        n_samples=4000, n_features=20, n_informative=8, n_classes=3, random_state=0
    )
    estimators = {
        "nb": GaussianNB(),
        "lr": LogisticRegression(max_iter=1000),
        "rf": RandomForestClassifier(n_estimators=50, random_state=0),
    }
    cv = RepeatedStratifiedKFold(n_splits=N_SPLITS, n_repeats=N_REPEATS, random_state=0)
    splits = list(cv.split(X, y))

    def comparator():
        CVPrecisionComparator(estimators, cv=splits, n_jobs=1).fit(X, y)

    def plain_loop():
        for estimator in estimators.values():
            for r in range(N_REPEATS):
                repeat_splits = splits[r * N_SPLITS : (r + 1) * N_SPLITS]
                cross_val_predict(estimator, X, y, cv=repeat_splits, n_jobs=1)

    t_comp, t_loop = _best_times([comparator, plain_loop], rounds)
    n_fits = len(estimators) * len(splits)
    print(
        f"1. {n_fits} fits ({len(estimators)} estimators x {N_REPEATS}x{N_SPLITS}-fold "
        f"CV, {X.shape[0]} records), n_jobs=1, best of {rounds}:"
    )
    print(f"   CVPrecisionComparator.fit:   {t_comp:7.3f} s")
    print(f"   cross_val_predict loop:      {t_loop:7.3f} s")
    ratio = t_comp / t_loop
    verdict = "OK" if ratio <= 1.10 else "ABOVE TARGET"
    print(f"   ratio comparator / loop:     {ratio:7.3f}x  (target <= 1.10x: {verdict})")
    return ratio


def speedup(rounds):
    """n_jobs=2 vs n_jobs=1 on CPU-bound tree ensembles."""
    X, y = make_classification(
        n_samples=3000, n_features=30, n_informative=10, n_classes=2, random_state=1
    )
    estimators = {
        "rf": RandomForestClassifier(n_estimators=60, random_state=0),
        "et": ExtraTreesClassifier(n_estimators=100, random_state=0),
    }
    cv = RepeatedStratifiedKFold(n_splits=N_SPLITS, n_repeats=N_REPEATS, random_state=0)
    results = {}

    def run(n_jobs):
        def fit():
            results[n_jobs] = CVPrecisionComparator(estimators, cv=cv, n_jobs=n_jobs).fit(X, y)

        return fit

    # Start the worker processes once, as in a session that fits repeatedly,
    # so that the timings compare fitting, not process start-up.
    CVPrecisionComparator({"a": GaussianNB(), "b": LogisticRegression()}, cv=2, n_jobs=2).fit(
        X[:100], y[:100]
    )
    t1, t2 = _best_times([run(1), run(2)], rounds)
    same = results[1].predictions_.equals(results[2].predictions_)
    n_fits = len(estimators) * cv.get_n_splits()
    print(
        f"2. {n_fits} CPU-bound fits (random forest, extra trees; {X.shape[0]} "
        f"records), best of {rounds}:"
    )
    print(f"   n_jobs=1:                    {t1:7.3f} s")
    print(f"   n_jobs=2:                    {t2:7.3f} s")
    ratio = t1 / t2
    verdict = "OK" if ratio >= 1.6 else "BELOW TARGET"
    print(f"   speed-up n_jobs=2 / n_jobs=1: {ratio:6.3f}x  (target >= 1.6x: {verdict})")
    print(f"   identical predictions:       {same}")
    return ratio


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=3, help="timing runs per variant (best is kept)"
    )
    args = parser.parse_args(argv)
    overhead(args.rounds)
    speedup(args.rounds)


if __name__ == "__main__":
    main()
