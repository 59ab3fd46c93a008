"""Speed, memory and import time of the closed-form engine.

Prints, from one run:

1. the closed-form engine against the statsmodels engine (the paper's
   Algorithms 1 and 2 through statsmodels GEE) on the same 10^5 records:
   target at least 1000x faster, with the same numbers;
2. 10^7 records, 10 classes, 2 classifiers, all tests, against the floor of
   one ``np.bincount`` pass over the joint (y, pred_a, pred_b) codes of the
   same data (best of interleaved runs, CPU time): target at most 3x that
   floor, and at most 600 MB of memory beyond the input arrays;
3. one ``compare_precision`` call on 100 records, 2 classes, 2 classifiers,
   against the two ``sklearn.metrics.precision_score(average=None)`` calls
   that give the same two precisions without any test (best of many
   :mod:`timeit` runs, CPU time): target no slower than those two calls;
4. ``from sklearn_precision_stats import compare_precision`` against
   ``from sklearn.model_selection import cross_validate``,
   each in fresh interpreters with cached bytecode (median over several
   processes, run alternately so that both see the same machine load):
   target at most 1.1x.

CPU time (``time.process_time``) is what the ratios use where the code is
single-threaded: on an idle machine it equals wall time, and on a busy one
it keeps the ratios meaningful.

Run: ``python benchmarks/bench_engine.py [--quick]``.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
import tracemalloc
import warnings

import numpy as np
from sklearn.metrics import precision_score

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
    cols = ["gs_stat", "wald_stat", "log_or", "log_or_se"]
    a, b = closed.table[cols].to_numpy(), literal.table[cols].to_numpy()
    rel = np.max(np.abs(a - b) / np.abs(b))
    print(f"[1] {n:.0e} records, {n_classes} classes, 2 classifiers")
    print(f"    closed-form engine : {t_closed * 1e3:9.2f} ms")
    print(f"    statsmodels engine : {t_sm * 1e3:9.2f} ms")
    print(f"    speed-up           : {t_sm / t_closed:9.0f}x   (target >= 1000x)")
    print(f"    max relative difference of GS, Wald, log OR, se: {rel:.2e}")


def versus_bincount_floor(n=10_000_000, n_classes=10, repeat=5):
    y, preds = correlated_predictions(n, n_classes, seed=2)
    a, b = preds["a"], preds["b"]
    # The codes are computed outside the timing: the floor is the pass alone.
    codes = (y * n_classes + a) * n_classes + b
    t_floor, t_engine = _best_per_call(
        [lambda: np.bincount(codes, minlength=n_classes**3), lambda: compare_precision(y, preds)],
        repeat,
    )
    result = compare_precision(y, preds)

    tracemalloc.start()
    compare_precision(y, preds)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    input_mb = (y.nbytes + a.nbytes + b.nbytes) / 1e6
    print(f"[2] {n:.0e} records, {n_classes} classes, 2 classifiers, all tests (CPU time)")
    print(f"    floor (one bincount of joint codes): {t_floor * 1e3:8.1f} ms")
    print(f"    compare_precision                  : {t_engine * 1e3:8.1f} ms")
    print(f"    ratio to floor                     : {t_engine / t_floor:8.2f}x  (target <= 3x)")
    print(
        f"    peak memory beyond inputs ({input_mb:.0f} MB): {peak / 1e6:8.1f} MB  "
        "(target <= 600 MB)"
    )
    assert result.table.shape[0] == n_classes


def _best_per_call(funcs, repeat):
    """Best CPU time per call of each function, over interleaved timeit runs.

    CPU time of this process (``time.process_time``) rather than wall time,
    and the functions take turns, so that other load on the machine affects
    neither the ratio nor one function more than the other.
    """
    timers = [timeit.Timer(f, timer=time.process_time) for f in funcs]
    numbers = [t.autorange()[0] for t in timers]  # about 0.2 s per run
    best = [np.inf] * len(funcs)
    for _ in range(repeat):
        for i, (t, number) in enumerate(zip(timers, numbers, strict=True)):
            best[i] = min(best[i], t.timeit(number) / number)
    return best


def versus_precision_score(n=100, n_classes=2, repeat=30):
    y, preds = correlated_predictions(n, n_classes, seed=3)
    a, b = preds["a"], preds["b"]
    table = compare_precision(y, preds).table
    np.testing.assert_allclose(table["precision"], precision_score(y, b, average=None))
    np.testing.assert_allclose(table["precision_reference"], precision_score(y, a, average=None))
    t_call, t_table, t_sklearn = _best_per_call(
        [
            lambda: compare_precision(y, preds),
            lambda: compare_precision(y, preds).table,
            lambda: (precision_score(y, a, average=None), precision_score(y, b, average=None)),
        ],
        repeat,
    )
    print(f"[3] {n} records, {n_classes} classes, 2 classifiers (CPU time, best of {repeat} runs)")
    print(f"    compare_precision                 : {t_call * 1e3:8.3f} ms")
    print(f"    compare_precision(...).table      : {t_table * 1e3:8.3f} ms")
    print(f"    2 x precision_score(average=None) : {t_sklearn * 1e3:8.3f} ms")
    print(f"    ratio                             : {t_call / t_sklearn:8.2f}x  (target <= 1x)")


_IMPORT_TIMER = (
    "import time; wall, cpu = time.perf_counter(), time.process_time(); {statement}; "
    "print(time.perf_counter() - wall, time.process_time() - cpu)"
)


def _import_seconds(statement, env):
    """Wall and CPU time of the import statement, and wall time of the process."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT_TIMER.format(statement=statement)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    wall, cpu = map(float, out.stdout.split())
    return wall, cpu, time.perf_counter() - start


def versus_model_selection_import(runs=11):
    # The package imports its public names on first use, so the import of a
    # name is what a user pays, not the package's bare import.
    modules = [
        "from sklearn_precision_stats import compare_precision",
        "from sklearn.model_selection import cross_validate",
    ]
    with tempfile.TemporaryDirectory() as cache:
        # Both modules import from cached bytecode, as an installed package
        # does; the cache lives outside the source tree, and the first
        # (discarded) import of each fills it.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        for m in modules:
            _import_seconds(m, env)
        times = {m: [] for m in modules}
        for _ in range(runs):
            for m in modules:  # alternately, so that both see the same load
                times[m].append(_import_seconds(m, env))
    ours, theirs = ([statistics.median(t[i] for t in times[m]) for i in range(3)] for m in modules)
    print(f"[4] import in fresh processes (median of {runs} each, bytecode cached)")
    print("                              import (CPU)  import (wall)  process (wall)")
    for name, t in (("compare_precision", ours), ("model_selection", theirs)):
        print(f"    {name:24s}: {t[1] * 1e3:9.0f} ms  {t[0] * 1e3:10.0f} ms  {t[2] * 1e3:11.0f} ms")
    print(
        f"    ratio                   : {ours[1] / theirs[1]:9.2f}x  {ours[0] / theirs[0]:10.2f}x"
        f"  {ours[2] / theirs[2]:11.2f}x  (target <= 1.1x)"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    args = parser.parse_args()
    if args.quick:
        versus_statsmodels(n=10_000)
        versus_bincount_floor(n=1_000_000, repeat=2)
        versus_precision_score(repeat=5)
        versus_model_selection_import(runs=3)
    else:
        versus_statsmodels()
        versus_bincount_floor()
        versus_precision_score()
        versus_model_selection_import()


if __name__ == "__main__":
    main()
