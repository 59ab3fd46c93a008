"""Undefined statistics: ONE warning per call, saying exactly what is NaN and why."""

import warnings

import numpy as np
import pytest

import sklearn_precision_stats as sps
from sklearn_precision_stats import UndefinedStatisticWarning, compare_precision


def _undefined_warnings(function, *args, **kwargs):
    """The result and the messages of every UndefinedStatisticWarning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    messages = [str(w.message) for w in caught if w.category is UndefinedStatisticWarning]
    return result, messages


def test_ratio_of_two_zero_precisions_is_said_undefined():
    # Class 2 is never true; each classifier predicts it once, wrongly, so
    # both precisions are 0/1 = 0 and their ratio is 0/0.
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    a = np.array([0, 1, 2, 1, 0, 1, 0, 0])
    b = np.array([0, 2, 0, 1, 0, 1, 1, 1])
    result, messages = _undefined_warnings(compare_precision, y, {"a": a, "b": b}, labels=[2])
    row = result.get(2)
    assert row["precision_reference"] == 0.0 and row["precision"] == 0.0
    assert np.isnan(row["ratio"])
    assert len(messages) == 1
    assert "relative precision is undefined (0/0)" in messages[0]
    assert "relative precision is 0" not in messages[0]


def test_ratio_over_a_positive_reference_is_still_said_zero():
    # 'a' has precision 3/5 for class 1, 'b' 0/3: the ratio is exactly 0.
    y = np.array([1, 1, 1, 0, 0, 1, 0, 0, 0, 0])
    a = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
    b = np.array([0, 0, 0, 1, 1, 0, 1, 0, 0, 0])
    result, messages = _undefined_warnings(compare_precision, y, {"a": a, "b": b})
    assert result.get(1)["ratio"] == 0.0
    assert len(messages) == 1
    assert "relative precision is 0, without an interval or test" in messages[0]
    assert "undefined (0/0)" not in messages[0]


def test_omnibus_message_names_only_the_nan_test():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 100)
    preds = {
        "a": np.where(rng.random(100) < 0.8, y, 1 - y),
        "b": np.where(rng.random(100) < 0.7, y, 1 - y),
        "c": y.copy(),  # precision 1 for both classes: infinite log odds
    }
    result, messages = _undefined_warnings(compare_precision, y, preds)
    omnibus = result.omnibus
    assert omnibus["wald_stat"].isna().all()
    assert np.isfinite(omnibus["gs_stat"]).all()
    assert len(messages) == 1
    assert "The omnibus Wald test is NaN for class(es) 0, 1" in messages[0]
    assert "omnibus generalized score" not in messages[0]
    assert "Omnibus tests are NaN" not in messages[0]


def test_omnibus_message_names_both_tests_when_both_are_nan():
    # Three identical classifiers: every covariance is singular.
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 0])
    p = np.array([0, 1, 0, 0, 1, 1, 1, 1, 0, 1])
    result, messages = _undefined_warnings(
        compare_precision, y, {"a": p, "b": p.copy(), "c": p.copy()}
    )
    assert result.omnibus[["gs_stat", "wald_stat"]].isna().all().all()
    assert len(messages) == 1
    assert (
        "The omnibus generalized score and Wald tests are NaN for class(es) 0, 1" in (messages[0])
    )


@pytest.mark.parametrize(
    ("y", "a", "b", "reasons"),
    [
        # Every row is of class 1: precision 0 for class 0 and 1 for class 1
        # for both classifiers.
        (
            [1, 1, 1, 1, 1, 1],
            [1, 1, 0, 1, 1, 0],
            [1, 0, 1, 1, 1, 1],
            [
                "The precision of 'a' is 0 for class(es) 0",
                "The precision of 'a' is 1 for class(es) 1",
                "The precision of 'b' is 0 for class(es) 0",
                "The precision of 'b' is 1 for class(es) 1",
                "weighted generalized score tests of 'b' vs 'a' are NaN for class(es) 0, 1",
            ],
        ),
        # Both precisions 0 for class 2 (never true).
        (
            [0, 1, 0, 1, 0, 1, 0, 1],
            [0, 1, 2, 1, 0, 1, 0, 0],
            [0, 2, 0, 1, 0, 1, 1, 1],
            [
                "The precision of 'a' is 0 for class(es) 2",
                "The precision of 'b' is 0 for class(es) 2",
                "weighted generalized score tests of 'b' vs 'a' are NaN for class(es) 2",
            ],
        ),
    ],
)
def test_one_warning_keeps_every_reason(y, a, b, reasons):
    preds = {"a": np.array(a), "b": np.array(b)}
    _, messages = _undefined_warnings(compare_precision, np.array(y), preds)
    assert len(messages) == 1
    for reason in reasons:
        assert reason in messages[0]


def test_defined_statistics_give_no_warning():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 300)
    preds = {
        k: np.where(rng.random(300) < acc, y, rng.integers(0, 3, 300))
        for k, acc in (("a", 0.7), ("b", 0.6), ("c", 0.65))
    }
    _, messages = _undefined_warnings(compare_precision, y, preds)
    assert messages == []


def _all_warnings(function, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    return result, [(w.category, str(w.message)) for w in caught]


_RNG = np.random.default_rng(0)
_Y = _RNG.integers(0, 3, 60)
_A = np.where(_RNG.random(60) < 0.7, _Y, _RNG.integers(0, 3, 60))
_B = np.where(_A == 2, 1, _A)  # never predicts class 2


@pytest.mark.parametrize(
    ("function", "y", "preds", "kwargs", "reason"),
    [
        # A classifier that never predicts class 2: a rank-deficient design.
        (compare_precision, _Y, {"a": _A, "b": _B}, {}, "'b' never predicts class(es) 2"),
        (
            compare_precision,
            _Y,
            {"a": _A, "b": _B},
            {"groups": np.arange(60) // 2},
            "'b' never predicts class(es) 2",
        ),
        # Three classifiers: the omnibus model is rank-deficient too.
        (
            compare_precision,
            _Y,
            {"a": _A, "b": _B, "c": np.where(_RNG.random(60) < 0.7, _Y, 0)},
            {},
            "'b' never predicts class(es) 2",
        ),
        # One row.
        (compare_precision, _Y[:1], {"a": _A[:1], "b": _B[:1]}, {}, "never predicts"),
        # NPVs of 0 and 1 on four rows: perfect separation, as many rows as
        # parameters.
        (
            sps.compare_npv,
            np.array([2, 2, 0, 1]),
            {"a": np.array([2, 2, 0, 1]), "b": np.array([2, 1, 1, 1])},
            {},
            "log odds are infinite",
        ),
    ],
)
def test_statsmodels_engine_gives_only_the_librarys_warning(function, y, preds, kwargs, reason):
    closed, expected = _all_warnings(function, y, preds, **kwargs)
    fitted, caught = _all_warnings(function, y, preds, engine="statsmodels", **kwargs)
    assert [category for category, _ in caught] == [UndefinedStatisticWarning], caught
    assert reason in caught[0][1]
    # The same statistics are undefined as in the closed form, with the same
    # explanation.
    assert caught == expected
    assert (fitted.table.isna() == closed.table.isna()).all().all()
    assert (fitted.omnibus.isna() == closed.omnibus.isna()).all().all()


def test_statsmodels_engine_does_not_warn_on_defined_statistics():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 200)
    preds = {
        k: np.where(rng.random(200) < acc, y, rng.integers(0, 3, 200))
        for k, acc in (("a", 0.7), ("b", 0.6), ("c", 0.65))
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = compare_precision(y, preds, engine="statsmodels")
    closed = compare_precision(y, preds)
    # statsmodels' literal fit agrees with the closed form (a check that the
    # suppression did not fail fits on good data).
    for col in ("gs_stat", "wald_stat"):
        np.testing.assert_allclose(fitted.table[col], closed.table[col], rtol=1e-6)


# --- tuple classifier names in the forest plot ---------------------------------


@pytest.fixture
def tuple_named_comparison():
    import pandas as pd

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    preds = pd.DataFrame(
        {
            ("rf", 1): np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300)),
            ("rf", 2): np.where(rng.random(300) < 0.6, y, rng.integers(0, 3, 300)),
            "nb": np.where(rng.random(300) < 0.65, y, rng.integers(0, 3, 300)),
        }
    )
    return compare_precision(y, dict(preds.items()))


@pytest.mark.parametrize(
    ("classifier", "shown"),
    [(("rf", 2), [("rf", 2)]), ("nb", ["nb"]), ([("rf", 2), "nb"], [("rf", 2), "nb"])],
)
def test_forest_plot_keeps_tuple_names_whole(tuple_named_comparison, classifier, shown):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = sps.plot_relative_precision(tuple_named_comparison, classifier=classifier)
    table = tuple_named_comparison.table
    expected = table[[name in shown for name in table["classifier"]]]
    # One row per class and kept classifier, in the table's order.
    assert len(expected) == 3 * len(shown)
    (estimates,) = (line for line in ax.lines if line.get_label() == "_estimates")
    np.testing.assert_array_equal(estimates.get_xdata(), expected["ratio"])
    labels = [tick.get_text() for tick in ax.get_yticklabels()]
    if len(shown) > 1:
        assert labels == [
            f"class {k}: {c}"
            for k, c in zip(expected["class"], expected["classifier"], strict=True)
        ]
    else:
        assert labels == [f"class {k}" for k in expected["class"]]
    plt.close("all")


@pytest.mark.parametrize("classifier", [("rf", 9), ["nb", ("rf", 9)], [("rf", 9), "x", 3]])
def test_forest_plot_missing_name_is_a_value_error(tuple_named_comparison, classifier):
    pytest.importorskip("matplotlib")
    with pytest.raises(ValueError, match=r"classifier .*\('rf', 9\).* not in the comparison"):
        sps.plot_relative_precision(tuple_named_comparison, classifier=classifier)


def test_few_clusters_and_an_undefined_class_are_one_warning():
    y = np.array([0, 1, 1, 0, 1, 2, 2, 0])
    a = np.array([0, 1, 0, 0, 1, 1, 1, 0])
    b = np.array([1, 1, 1, 0, 0, 1, 1, 0])
    _, messages = _undefined_warnings(
        compare_precision, y, {"a": a, "b": b}, groups=[1, 1, 2, 2, 3, 3, 4, 4]
    )
    assert len(messages) == 1
    assert "only 4 distinct records" in messages[0]
    assert "never predicts class(es) 2" in messages[0]
