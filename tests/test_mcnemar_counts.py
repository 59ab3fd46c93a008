"""McNemar's test from ComparisonCounts, and its cheap label validation.

The counts give the same result as the arrays they counted, field by field
and to the last bit, for every method, paired and clustered, whole or in
chunks (chunk boundaries splitting records) or merged. The 2x2 counts are
checked against statsmodels' ``mcnemar`` and the clustered statistic
against the closed form ``(sum d_i)**2 / sum d_i**2`` of Durkalski et al.
(2003).
"""

import dataclasses
import math
import warnings

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from sklearn_precision_stats import ComparisonCounts, UndefinedStatisticWarning
from sklearn_precision_stats.classic import mcnemar_test, sign_test

METHODS = ["exact", "midp", "asymptotic", "corrected"]


def _fields(result):
    return dataclasses.asdict(result)


def _assert_identical(left, right):
    """Every field equal exactly (NaN equal to NaN)."""
    a, b = _fields(left), _fields(right)
    assert a.keys() == b.keys()
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, float) and math.isnan(x):
            assert isinstance(y, float) and math.isnan(y), key
        else:
            assert x == y, (key, x, y)
            assert type(x) is type(y), key


def _rows(n, seed, *, n_classes=3, strings=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    a = np.where(rng.random(n) < 0.75, y, rng.integers(0, n_classes, n))
    b = np.where(rng.random(n) < 0.6, y, rng.integers(0, n_classes, n))
    c = np.where(rng.random(n) < 0.5, a, rng.integers(0, n_classes, n))
    if strings:
        names = np.array([f"class {k}" for k in range(n_classes)])
        return names[y], names[a], names[b], names[c]
    return y, a, b, c


def _chunked(y, preds, groups=None, size=37):
    counts = None
    for start in range(0, y.shape[0], size):
        part = slice(start, start + size)
        chunk = {name: p[part] for name, p in preds.items()}
        g = None if groups is None else groups[part]
        if counts is None:
            counts = ComparisonCounts.from_arrays(y[part], chunk, groups=g)
        else:
            counts.update(y[part], chunk, groups=g)
    return counts


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("strings", [False, True])
def test_paired_counts_equal_arrays(method, strings):
    y, a, b, c = _rows(500, 0, strings=strings)
    preds = {"a": a, "b": b, "c": c}
    expected = mcnemar_test(y, b, c, method=method)
    whole = ComparisonCounts.from_arrays(y, preds)
    _assert_identical(mcnemar_test(whole, "b", "c", method=method), expected)
    _assert_identical(mcnemar_test(_chunked(y, preds), "b", "c", method=method), expected)
    half = y.shape[0] // 2
    merged = ComparisonCounts.from_arrays(y[:half], {k: v[:half] for k, v in preds.items()}).merge(
        ComparisonCounts.from_arrays(y[half:], {k: v[half:] for k, v in preds.items()})
    )
    _assert_identical(mcnemar_test(merged, "b", "c", method=method), expected)
    # Order of the names matters as for the arrays.
    _assert_identical(
        mcnemar_test(whole, "c", "b", method=method), mcnemar_test(y, c, b, method=method)
    )


def test_paired_counts_match_statsmodels():
    y, a, b, _ = _rows(400, 1)
    counts = ComparisonCounts.from_arrays(y, {"a": a, "b": b})
    ca, cb = a == y, b == y
    table = [[np.sum(ca & cb), np.sum(ca & ~cb)], [np.sum(~ca & cb), np.sum(~ca & ~cb)]]
    exact = mcnemar_test(counts, "a", "b", method="exact")
    assert exact.pvalue == pytest.approx(sm_mcnemar(table, exact=True).pvalue, rel=1e-12)
    chi2 = mcnemar_test(counts, "a", "b", method="asymptotic")
    ref = sm_mcnemar(table, exact=False, correction=False)
    assert chi2.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert chi2.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    corrected = mcnemar_test(counts, "a", "b", method="corrected")
    ref = sm_mcnemar(table, exact=False, correction=True)
    assert corrected.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert (exact.n_a_only, exact.n_b_only) == (table[0][1], table[1][0])
    assert exact.accuracy_a == pytest.approx(ca.mean(), rel=1e-15)


def test_counts_from_a_contingency_table_equal_arrays():
    # A 2x2x2 table over (truth, a, b) and the rows it counts.
    table = np.array([[[30, 4], [9, 2]], [[3, 6], [11, 35]]])
    cells = np.argwhere(np.ones_like(table, dtype=bool))
    rows = np.repeat(cells, table.ravel(), axis=0)
    y, a, b = rows.T
    counts = ComparisonCounts.from_table(table, classifiers=("a", "b"))
    for method in METHODS:
        _assert_identical(
            mcnemar_test(counts, "a", "b", method=method), mcnemar_test(y, a, b, method=method)
        )


def _clustered_rows(n_records, repeats, seed):
    rng = np.random.default_rng(seed)
    groups = np.tile(rng.permutation(n_records) * 7 + 3, repeats)
    truth = rng.integers(0, 3, n_records)
    order = np.argsort(groups, kind="stable")  # records' rows next to each other
    groups = groups[order]
    y = truth[(groups - 3) // 7]
    q_a, q_b = rng.beta(0.6, 0.6, n_records), rng.beta(0.6, 0.6, n_records)
    r = (groups - 3) // 7
    a = np.where(rng.random(groups.size) < q_a[r], y, (y + 1) % 3)
    b = np.where(rng.random(groups.size) < q_b[r], y, (y + 2) % 3)
    return y, a, b, groups


@pytest.mark.parametrize("size", [5, 37, 10_000])
def test_clustered_counts_equal_arrays(size):
    # Chunks of 5 and 37 rows split the 4 rows of many records.
    y, a, b, groups = _clustered_rows(80, 4, 2)
    expected = mcnemar_test(y, a, b, groups=groups)
    counts = _chunked(y, {"a": a, "b": b}, groups=groups, size=size)
    assert counts.clustered
    result = mcnemar_test(counts, "a", "b")
    _assert_identical(result, expected)
    assert result.method == "asymptotic" and result.n_groups == 80
    # Durkalski et al.'s closed form on the per-record differences.
    d = np.bincount(np.unique(groups, return_inverse=True)[1], weights=(a == y) * 1.0 - (b == y))
    assert result.statistic == pytest.approx(d.sum() ** 2 / np.sum(d**2), rel=1e-12)
    # The Wald SE: residuals of the accuracy difference summed per record.
    sizes = np.bincount(np.unique(groups, return_inverse=True)[1])
    delta = d.sum() / y.size
    se = np.sqrt(np.sum((d - sizes * delta) ** 2)) / y.size
    assert result.standard_error == pytest.approx(se, rel=1e-12)


def test_clustered_counts_merged_and_string_records():
    y, a, b, groups = _clustered_rows(60, 3, 3)
    names = np.array([f"rec-{g}" for g in groups])
    expected = mcnemar_test(y, a, b, groups=groups)
    half = 91  # splits a record's rows between the two parts
    left = ComparisonCounts.from_arrays(
        y[:half], {"a": a[:half], "b": b[:half]}, groups=names[:half]
    )
    right = ComparisonCounts.from_arrays(
        y[half:], {"a": a[half:], "b": b[half:]}, groups=names[half:]
    )
    _assert_identical(mcnemar_test(left.merge(right), "a", "b"), expected)
    _assert_identical(mcnemar_test(y, a, b, groups=names), expected)


def test_clustered_counts_warn_as_the_arrays_do():
    y, a, b, groups = _clustered_rows(12, 3, 4)
    counts = ComparisonCounts.from_arrays(y, {"a": a, "b": b}, groups=groups)
    with pytest.warns(UserWarning, match="only 12 records"):
        mcnemar_test(counts, "a", "b")
    one = ComparisonCounts.from_arrays([1, 0], {"a": [0, 0], "b": [1, 1]}, groups=[0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.warns(UndefinedStatisticWarning, match="single record"):
            res = mcnemar_test(one, "a", "b")
    assert np.isnan(res.statistic)
    with pytest.raises(ValueError, match="not available with groups"):
        mcnemar_test(counts, "a", "b", method="exact")


def test_no_discordant_rows_from_counts():
    y = np.array([0, 1, 1, 0])
    counts = ComparisonCounts.from_arrays(y, {"a": y.copy(), "b": y.copy()})
    with pytest.warns(UndefinedStatisticWarning, match="no discordant rows"):
        res = mcnemar_test(counts, "a", "b")
    assert np.isnan(res.pvalue) and res.accuracy_a == 1.0


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (("a", "zz"), {}, r"^y_pred_b must name a classifier .*'zz'.*\['a', 'b'\]"),
        (("zz", "b"), {}, r"^y_pred_a must name a classifier"),
        ((np.array([0, 1]), "b"), {}, r"^y_pred_a must name a classifier"),
        (
            ("a", "b"),
            {"groups": [0, 1, 2, 3]},
            r"^groups must be None when y_true is a ComparisonCounts",
        ),
        (("a", "b"), {"method": "chi2"}, "method must be one of"),
    ],
)
def test_counts_errors_name_the_argument(args, kwargs, match):
    counts = ComparisonCounts.from_arrays([0, 1, 1, 0], {"a": [0, 1, 0, 0], "b": [1, 1, 1, 0]})
    with pytest.raises(ValueError, match=match):
        mcnemar_test(counts, *args, **kwargs)


def test_empty_counts_are_an_error():
    counts = ComparisonCounts(["a", "b"])
    with pytest.raises(ValueError, match="y_true is empty"):
        mcnemar_test(counts, "a", "b")


# ------------------------------------------------ cheap label validation


@pytest.mark.parametrize(
    ("y_pred_a", "match"),
    [
        (np.array([0.2, 0.7, 0.9, 0.1]), r"y_pred_a has continuous values"),
        (np.array([0.0, np.inf, 1.0, 0.0]), r"y_pred_a contains inf"),
        (
            np.array(["0", "1", "1", "0"]),
            r"Mix of label types: y_pred_a holds strings but y_true and y_pred_b hold numbers",
        ),
        (np.array([0, "1", 1, 0], dtype=object), r"y_pred_a mixes strings and numbers"),
        (np.array([0, 1.5, 1, 0], dtype=object), r"y_pred_a has continuous values"),
    ],
)
def test_invalid_labels_are_rejected(y_pred_a, match):
    y = np.array([0, 1, 1, 0])
    b = np.array([1, 1, 0, 0])
    with pytest.raises(ValueError, match=match) as info:
        mcnemar_test(y, y_pred_a, b)
    assert str(info.value).startswith("y_true, y_pred_a and y_pred_b must hold class labels")
    with pytest.raises(ValueError, match=match):
        sign_test(y, y_pred_a, b)


def test_label_kinds_that_agree_give_the_same_result():
    y, a, b, _ = _rows(300, 5)
    expected = mcnemar_test(y, a, b)
    names = np.array(["x", "y", "z"])
    as_objects = [names[v].astype(object) for v in (y, a, b)]
    for arrays in (
        (y.astype(np.int8), a.astype(np.uint16), b),
        (y.astype(float), a, b.astype(float)),
        (names[y], names[a], names[b]),
        as_objects,
    ):
        _assert_identical(mcnemar_test(*arrays), expected)
    # bool labels against 0/1 integers, as scikit-learn's binary targets.
    yb = y % 2 == 0
    _assert_identical(
        mcnemar_test(yb, a % 2 == 0, (b % 2 == 0).astype(int)),
        mcnemar_test(yb.astype(int), (a % 2 == 0).astype(int), (b % 2 == 0).astype(int)),
    )


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_sign_test_from_counts_equals_arrays(alternative):
    y, a, b, _ = _rows(300, 6, strings=True)
    counts = _chunked(y, {"a": a, "b": b})
    _assert_identical(
        sign_test(counts, "a", "b", alternative=alternative),
        sign_test(y, a, b, alternative=alternative),
    )
    with pytest.raises(ValueError, match="^y_pred_b must name a classifier"):
        sign_test(counts, "a", "c")
