"""Cost of the engine's layouts and of every special path it keeps.

Prints, from one run (CPU time, best of interleaved runs, ratios against a
baseline measured in the same run):

1. many classifiers: ``compare_precision`` with c = 2, 4, 5, 6, 10, 20
   classifiers of 10 classes, time per pair of classifiers against c = 2:
   target at most 1.5x at every c, at 10^6 records (and 10^7 with
   ``--full``), and no higher where the joint table gives way to the
   tables of groups of classifiers; with the spread of the rounds' ratios;
2. clustered rows (5 rows per record) whose records come contiguous,
   stacked (each repeat of the records in its own order) or shuffled,
   against the paired path on the same rows, per row, at 10^7 and 10^6
   rows: target at most 5x at 10^7 rows;
3. the engine's targets of ``bench_engine.py``: the 10^7 paired path at or
   below 3x one bincount pass, a call on 100 records at or below two
   ``precision_score`` calls, the import at or below 1.1x
   ``sklearn.model_selection``;
4. every special path the engine keeps, against the general path it
   short-cuts, on the input it is for (a special path must gain at least
   2x, or be what a target of section 3 needs).

Run: ``python benchmarks/bench_architecture.py [--quick | --full]``.
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from bench_engine import (
    versus_bincount_floor,
    versus_model_selection_import,
    versus_precision_score,
)

from sklearn_precision_stats import compare_precision
from sklearn_precision_stats.engine import _labels, _pipeline
from sklearn_precision_stats.engine._accumulator import ComparisonCounts

N_CLASSES = 10


def best_times(funcs, repeat):
    """Best CPU time of each function, the functions taking turns."""
    best = [np.inf] * len(funcs)
    for _ in range(repeat):
        for i, func in enumerate(funcs):
            start = time.process_time()
            func()
            best[i] = min(best[i], time.process_time() - start)
    return best


def predictions(n, n_clf, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n)
    preds = {
        f"clf{c}": np.where(rng.random(n) < 0.6 + 0.015 * c, y, rng.integers(0, N_CLASSES, n))
        for c in range(n_clf)
    }
    return y, preds


def many_classifiers(n, counts=(2, 4, 5, 6, 10, 20), repeat=3):
    y, preds = predictions(n, max(counts))
    names = list(preds)
    funcs = [(lambda c=c: compare_precision(y, {k: preds[k] for k in names[:c]})) for c in counts]
    rounds = np.empty((repeat, len(counts)))  # CPU time of each call, the calls taking turns
    for r in range(repeat):
        for i, func in enumerate(funcs):
            start = time.process_time()
            func()
            rounds[r, i] = time.process_time() - start
    per_pair = rounds / [c * (c - 1) // 2 for c in counts]
    best = per_pair.min(axis=0)
    # The spread: each round's time per pair against the same round's c = 2.
    ratios = per_pair / per_pair[:, :1]
    paths = [
        "table" if N_CLASSES ** (c + 1) <= _pipeline.table_cells(c, n) else "groups" for c in counts
    ]
    print(
        f"[1] {n:.0e} records, {N_CLASSES} classes: time per pair of classifiers ({repeat} rounds)"
    )
    for i, c in enumerate(counts):
        print(
            f"    c = {c:2d} ({paths[i]:6s}): {rounds[:, i].min() * 1e3:8.1f} ms, "
            f"{best[i] * 1e3:7.2f} ms per pair, {best[i] / best[0]:5.2f}x c = 2's "
            f"(rounds {ratios[:, i].min():.2f}-{ratios[:, i].max():.2f})  (target <= 1.5x)"
        )
    for i in range(1, len(counts)):
        if paths[i] != paths[i - 1]:
            print(
                f"    {paths[i - 1]} -> {paths[i]} at c = {counts[i]}: "
                f"{best[i - 1] / best[0]:.2f}x -> {best[i] / best[0]:.2f}x per pair  "
                "(target: not higher)"
            )


def clustered_layouts(n, m=5, repeat=3):
    y, preds = predictions(n, 2, seed=1)
    n_records = n // m
    layouts = {
        "contiguous": np.arange(n) // m,
        "stacked": np.concatenate(
            [np.random.default_rng(r).permutation(n_records) for r in range(m)]
        ),
        "shuffled": np.random.default_rng(m).permutation(n_records)[np.arange(n) // m][
            np.random.default_rng(m + 1).permutation(n)
        ],
    }
    funcs = [lambda: compare_precision(y, preds)]
    funcs += [(lambda g=g: compare_precision(y, preds, groups=g)) for g in layouts.values()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        times = best_times(funcs, repeat)
    print(f"[2] {n:.0e} rows, {m} rows per record, 2 classifiers: clustered against paired")
    print(f"    paired     : {times[0] * 1e3:8.1f} ms")
    for name, t in zip(layouts, times[1:], strict=True):
        ratio = t / times[0]
        print(f"    {name:11s}: {t * 1e3:8.1f} ms, {ratio:5.2f}x per row  (target <= 5x at 10^7)")


def special_paths(n, repeat=3):
    """Each special path against the general path it short-cuts."""
    y, preds = predictions(n, 3, seed=2)
    a, b = preds["clf0"], preds["clf1"]
    names = np.array([f"class_{k}" for k in range(N_CLASSES)])
    words = np.array(["setosa", "versicolor", "virginica", "arctica", "borealis"] * 2)
    rows = []

    def timed(label, special, general):
        t_special, t_general = best_times([special, general], repeat)
        rows.append((label, t_special, t_general))

    def compare_encoded(u, v, w, *more, groups=None):
        # The general path: labels encoded (_codes.encode_predictions).
        original = _pipeline.integer_codes, _pipeline.categorical_joint_table
        _pipeline.integer_codes = _pipeline.categorical_joint_table = lambda *args: None
        try:
            named = dict(zip("abcdefgh", (v, w, *more), strict=False))
            return compare_precision(u, named, groups=groups)
        finally:
            _pipeline.integer_codes, _pipeline.categorical_joint_table = original

    timed(
        "integer labels 0..9 as their own one-byte codes (_tables.integer_codes)",
        lambda: compare_precision(y, {"a": a, "b": b}),
        lambda: compare_encoded(y, a, b),
    )
    many = list(predictions(n, 5, seed=2)[1].values())
    timed(
        "the same, 5 classifiers (tables of groups of classifiers)",
        lambda: compare_precision(y, dict(zip("abcde", many, strict=True))),
        lambda: compare_encoded(y, *many),
    )
    stacked = np.concatenate([np.random.default_rng(r).permutation(n // 5) for r in range(5)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        timed(
            "the same, clustered rows (5 per record, stacked)",
            lambda: compare_precision(y, {"a": a, "b": b}, groups=stacked),
            lambda: compare_encoded(y, a, b, groups=stacked),
        )
    cats = [pd.Series(names[v], dtype="category") for v in (y, a, b)]
    timed(
        "categoricals counted from their codes (_tables.categorical_joint_table)",
        lambda: compare_precision(cats[0], {"a": cats[1], "b": cats[2]}),
        lambda: compare_encoded(*cats),
    )

    # Label encoding: whole compare_precision calls, each special path against
    # pandas.factorize (or numpy) doing its work.
    def patched(owner, attr, value, func):
        def run():
            original = getattr(owner, attr)
            setattr(owner, attr, value)
            try:
                return func()
            finally:
                setattr(owner, attr, original)

        return run

    def factorized_strings(self, arr, name):
        self._set_kind("str", name)
        return self._encode_local(*pd.factorize(arr), name)

    def factorized_objects(self, arr, name):
        return self._encode_local(*pd.factorize(arr, use_na_sentinel=True), name)

    encoder = _labels.StreamingLabelEncoder
    for kind, classes in [("class_k", names), ("words", words)]:
        for dtype, method, general in [
            ("str", "_encode_fixed_strings", factorized_strings),
            ("object", "_encode_objects", factorized_objects),
        ]:
            u, v, w = (classes.astype(dtype)[c] for c in (y, a, b))

            def call(u=u, v=v, w=w):
                return compare_precision(u, {"a": v, "b": w})

            timed(
                f"{dtype} labels ({kind}) by integer keys (_labels.{method}) vs pandas.factorize",
                call,
                patched(encoder, method, general, call),
            )

    def counted():
        return compare_precision(ComparisonCounts.from_arrays(y, {"a": a, "b": b}))

    timed(
        "ComparisonCounts of labels 0..9 in the table (_add_integer_table) vs encoded",
        counted,
        patched(ComparisonCounts, "_add_integer_table", lambda self, arrays, name: False, counted),
    )
    groups = np.random.default_rng(3).permutation(n // 2)[np.arange(n) // 2]

    three = {"a": a, "b": b, "c": preds["clf2"]}

    def without_pairs(named):
        original = _pipeline.pair_statistics
        _pipeline.pair_statistics = lambda *args: None
        try:
            return compare_precision(y, named, groups=groups)
        finally:
            _pipeline.pair_statistics = original

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        timed(
            "clustered rows by pairs of rows (_row_pairs) vs per (record, class) keys",
            lambda: compare_precision(y, {"a": a, "b": b}, groups=groups),
            lambda: without_pairs({"a": a, "b": b}),
        )
        timed(
            "clustered rows of 3 classifiers by a table per pair of classifiers vs keys",
            lambda: compare_precision(y, three, groups=groups),
            lambda: without_pairs(three),
        )
    print(f"[4] special paths at {n:.0e} rows: special vs general path (gain)")
    for label, t_special, t_general in rows:
        print(
            f"    {label}\n        {t_special * 1e3:8.1f} ms vs {t_general * 1e3:8.1f} ms: "
            f"{t_general / t_special:5.2f}x"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    size.add_argument("--full", action="store_true", help="also 10^7 records in section 1")
    args = parser.parse_args()
    if args.quick:
        many_classifiers(10**5, repeat=2)
        clustered_layouts(10**6, repeat=2)
        versus_bincount_floor(n=10**6, repeat=2)
        versus_precision_score(repeat=5)
        special_paths(10**5, repeat=2)
        return
    # The clustered layouts first: the 10^7 rows of 20 classifiers leave
    # the process's memory fragmented, which would tax them.
    clustered_layouts(10**7)
    clustered_layouts(10**6, repeat=5)
    many_classifiers(10**6)
    if args.full:
        many_classifiers(10**7)
    versus_bincount_floor()
    versus_precision_score()
    versus_model_selection_import()
    special_paths(10**6)


if __name__ == "__main__":
    main()
