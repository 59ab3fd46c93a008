"""Benchmark of the command line on a CSV with many distinct labels.

Prints, from one run, the wall time of ``compare FILE --truth truth`` (text
and CSV output, in-process) against :func:`compare_precision` on the same
columns already in memory, for 10 and for ``--classes`` distinct labels
(target: the command line within a small factor of the in-memory call at
both sizes; it was about 96 s against 1 s when the text summary laid out
one row per class through statsmodels).

Each timing is the best of ``--rounds`` runs, interleaved. Usage::

    python benchmarks/bench_cli.py [--rows 200000] [--classes 100000] [--rounds 2]
"""

import argparse
import contextlib
import io
import os
import tempfile
import time
import warnings

import numpy as np
import pandas as pd

from sklearn_precision_stats import compare_precision
from sklearn_precision_stats.__main__ import main


def _data(n_rows, n_classes, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)

    def noisy(p):
        return np.where(rng.random(n_rows) < p, y, rng.integers(0, n_classes, n_rows))

    return pd.DataFrame({"truth": y, "a": noisy(0.8), "b": noisy(0.7)})


def _cli(path, fmt):
    with (
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        code = main(["compare", path, "--truth", "truth", "--format", fmt])
    assert code == 0


def _in_memory(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_precision(
            frame["truth"].to_numpy(), {"a": frame["a"].to_numpy(), "b": frame["b"].to_numpy()}
        )


def _best(functions, rounds):
    best = [np.inf] * len(functions)
    for _ in range(rounds):
        for i, func in enumerate(functions):
            start = time.perf_counter()
            func()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def main_bench():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--classes", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for n_classes in (10, args.classes):
            frame = _data(args.rows, n_classes)
            path = os.path.join(folder, f"preds_{n_classes}.csv")
            frame.to_csv(path, index=False)
            memory, text, csv = _best(
                [
                    lambda f=frame: _in_memory(f),
                    lambda p=path: _cli(p, "text"),
                    lambda p=path: _cli(p, "csv"),
                ],
                args.rounds,
            )
            print(
                f"{args.rows} rows, {n_classes:>6} classes: compare_precision in memory "
                f"{memory:.2f} s; command line text {text:.2f} s ({text / memory:.2f}x), "
                f"csv {csv:.2f} s ({csv / memory:.2f}x)"
            )


if __name__ == "__main__":
    main_bench()
