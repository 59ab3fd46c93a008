"""compare_metric with many classes: right values with memory bounded by units and cells.

Per-class values of K classes have K gradients over K x K cells; the
comparison must never hold K^3 floats, nor units x K at once.
"""

import tracemalloc
import warnings

import numpy as np
from scipy import sparse
from sklearn import metrics as skm

from sklearn_precision_stats import UndefinedStatisticWarning, compare_metric

_MB = 2**20


def _many_classes(n, k, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.8, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.75, y, rng.integers(0, k, n))
    return y, a, b


def _peak(func):
    """Result of ``func()`` and the peak of memory traced while it ran."""
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            result = func()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _f1_diff_se(y, a, b, k):
    """Delta-method SE of per-class F1 differences, from each row's influence.

    F1_k = 2 TP_k / (T_k + P_k), so a row's influence on it is
    ``(2 [y = k][pred = k] - F1_k ([y = k] + [pred = k])) / (T_k + P_k)``
    (zero for classes the row neither is nor is predicted as), and
    ``Var(F1_b - F1_a) = sum_rows (IF_b - IF_a)^2``.
    """
    n = len(y)
    rows, cols, vals = [], [], []
    for pred, sign in ((a, -1.0), (b, 1.0)):
        t = np.bincount(y, minlength=k).astype(float)
        p = np.bincount(pred, minlength=k).astype(float)
        tp = np.bincount(y[y == pred], minlength=k).astype(float)
        f1 = 2 * tp / (t + p)
        for cls in (y, pred):
            hit = 2.0 * ((y == cls) & (pred == cls))
            member = (y == cls).astype(float) + (pred == cls)
            # a row with y == pred counts once for its class, not twice
            once = 1.0 if cls is y else (y != pred).astype(float)
            rows.append(np.arange(n))
            cols.append(cls)
            vals.append(sign * once * (hit - f1[cls] * member) / (t + p)[cls])
    influence = sparse.csr_array(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, k)
    )  # duplicates summed: each row's difference of influence per class
    return np.sqrt(np.asarray(influence.multiply(influence).sum(axis=0)).reshape(-1))


def test_thousand_classes_per_class_f1_bounded_memory():
    n, k = 100_000, 1000
    y, a, b = _many_classes(n, k)
    result, peak = _peak(lambda: compare_metric(y, {"a": a, "b": b}, metric="f1"))
    table = result.table
    assert len(table) == k
    f1_a = skm.f1_score(y, a, average=None, labels=np.arange(k))
    f1_b = skm.f1_score(y, b, average=None, labels=np.arange(k))
    np.testing.assert_allclose(table["f1_reference"], f1_a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(table["f1"], f1_b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(table["diff"], f1_b - f1_a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(table["diff_se"], _f1_diff_se(y, a, b, k), rtol=1e-9)
    # Proportional to units + K^2 (tens of MB), not K^3 (8 GB) nor units x K.
    assert peak < 200 * _MB, f"peak {peak / _MB:.0f} MB"


def test_many_classes_averages_and_bootstrap_bounded_memory():
    n, k = 50_000, 500
    y, a, b = _many_classes(n, k, seed=1)
    preds = {"a": a, "b": b}
    macro, peak = _peak(lambda: compare_metric(y, preds, metric="f1", average="macro"))
    assert peak < 200 * _MB, f"peak {peak / _MB:.0f} MB"
    expected = skm.f1_score(y, b, average="macro") - skm.f1_score(y, a, average="macro")
    np.testing.assert_allclose(macro.table["diff"], expected, rtol=1e-12)
    weighted = compare_metric(y, preds, metric="f1", average="weighted")
    expected = skm.f1_score(y, b, average="weighted") - skm.f1_score(y, a, average="weighted")
    np.testing.assert_allclose(weighted.table["diff"], expected, rtol=1e-12)
    boot, peak = _peak(
        lambda: compare_metric(
            y, preds, metric="f1", method="bootstrap", n_resamples=20, random_state=0
        )
    )
    # The replicates themselves (20 x 2 x 500) are part of the result.
    assert peak < 200 * _MB, f"peak {peak / _MB:.0f} MB"
    np.testing.assert_allclose(
        boot.table["f1"], skm.f1_score(y, b, average=None, labels=np.arange(k)), rtol=1e-12
    )
    assert boot.replicates["b"].shape == (20, k)


def test_many_classes_blocks_match_one_block(monkeypatch):
    """Blocks of outputs give the numbers of one block (three classifiers, groups)."""
    from sklearn_precision_stats.metrics import _delta

    n, k = 20_000, 60
    y, a, b = _many_classes(n, k, seed=2)
    c = np.where(np.random.default_rng(3).random(n) < 0.7, y, a)
    groups = np.arange(n) // 2
    args = (y, {"a": a, "b": b, "c": c})
    whole = compare_metric(*args, metric="f1", groups=groups)
    monkeypatch.setattr(_delta, "_BLOCK_FLOATS", 1)  # one output per block
    blocked = compare_metric(*args, metric="f1", groups=groups)
    numeric = whole.table.select_dtypes("number").columns
    np.testing.assert_array_equal(blocked.table[numeric], whole.table[numeric])
    np.testing.assert_array_equal(
        blocked.omnibus.select_dtypes("number"), whole.omnibus.select_dtypes("number")
    )


def test_clustered_counts_with_many_classes_equal_the_arrays():
    """Clustered ComparisonCounts keep margins only; lifted, they give the arrays' numbers."""
    from sklearn_precision_stats import ComparisonCounts

    n, k = 30_000, 200
    y, a, b = _many_classes(n, k, seed=4)
    groups = np.random.default_rng(5).integers(0, n // 3, n)
    preds = {"a": a, "b": b}
    counts = ComparisonCounts.from_arrays(y, preds, groups=groups)
    for metric in ("f1", "accuracy", "mcc"):
        from_counts, peak = _peak(lambda metric=metric: compare_metric(counts, metric=metric))
        assert peak < 200 * _MB, f"peak {peak / _MB:.0f} MB"
        from_arrays = compare_metric(y, preds, groups=groups, metric=metric)
        for column in ("diff", "diff_se", "diff_pvalue"):
            np.testing.assert_allclose(
                from_counts.table[column], from_arrays.table[column], rtol=1e-9, atol=1e-12
            )
