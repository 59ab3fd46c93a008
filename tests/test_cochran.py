"""Cochran's Q test, its clustered version and the pairwise McNemar tests.

Checked against statsmodels' and mlxtend's cochrans_q, statsmodels' GEE
score test, McNemar's test, and the exact relation between Q and the robust
score test derived in the docstring.
"""

import dataclasses
import itertools
import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import cochrans_q
from statsmodels.stats.multitest import multipletests

from sklearn_precision_stats.classic import CochranQResult, cochrans_q_test, mcnemar_test
from sklearn_precision_stats.classic._cochran import (
    _clustered_score_statistic,
    _cochran_q,
    _score_and_variance,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning

RTOL = 1e-9


def _predictions(seed, n=300, n_classifiers=4, n_classes=3, accuracies=None):
    """Correlated predictions: classifiers share hard records."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, n_classes, n)
    hardness = rng.uniform(-1.5, 1.5, n)
    accuracies = accuracies or np.linspace(0.85, 0.7, n_classifiers)
    preds = {}
    for j, acc in enumerate(accuracies):
        right = rng.random(n) < 1 / (1 + np.exp(-(np.log(acc / (1 - acc)) - 1.5 * hardness)))
        wrong = (y_true + rng.integers(1, n_classes, n)) % n_classes
        preds[f"clf{j}"] = np.where(right, y_true, wrong)
    return y_true, preds


def _correct(y_true, preds):
    return np.column_stack([p == y_true for p in preds.values()]).astype(float)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n_classifiers", [2, 3, 5])
def test_q_matches_statsmodels_and_mlxtend(seed, n_classifiers):
    mlxtend_evaluate = pytest.importorskip("mlxtend.evaluate")
    y_true, preds = _predictions(seed, n=200 + 37 * seed, n_classifiers=n_classifiers)
    res = cochrans_q_test(y_true, preds)
    ref = cochrans_q(_correct(y_true, preds))
    assert res.statistic == pytest.approx(ref.statistic, rel=RTOL)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=RTOL)
    assert res.df == ref.df == n_classifiers - 1
    q, p = mlxtend_evaluate.cochrans_q(y_true, *preds.values())
    assert res.statistic == pytest.approx(q, rel=RTOL)
    assert res.pvalue == pytest.approx(p, rel=RTOL)
    assert res.method == "cochran" and res.n_groups is None


def _gee_score_test(correct, record):
    """statsmodels: logistic GEE of correctness, classifier indicators,
    independence working correlation, clusters = records; score test of the
    full model against the intercept-only one."""
    import statsmodels.api as sm

    n_rows, c = correct.shape
    classifier = np.tile(np.arange(c), n_rows)
    exog = np.column_stack(
        [np.ones(n_rows * c)] + [(classifier == j).astype(float) for j in range(1, c)]
    )
    endog, groups = correct.ravel(), np.repeat(record, c)
    family = sm.families.Binomial()
    null = sm.GEE(
        endog, exog[:, :1], groups=groups, family=family, cov_struct=sm.cov_struct.Independence()
    ).fit()
    full = sm.GEE(
        endog, exog, groups=groups, family=family, cov_struct=sm.cov_struct.Independence()
    )
    return full.compare_score_test(null)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_repeats", [1, 3])
def test_clustered_statistic_is_the_gee_robust_score_test(seed, n_repeats):
    y_true, preds = _predictions(seed, n=120)
    # Stacked cross-validation rows: each record predicted n_repeats times,
    # with fresh errors each time.
    rng = np.random.default_rng(100 + seed)
    record = np.tile(np.arange(120), n_repeats)
    y_stacked = y_true[record]
    stacked = {}
    for name, pred in preds.items():
        flip = rng.random(record.size) < 0.1
        stacked[name] = np.where(flip, (pred[record] + 1) % 3, pred[record])
    res = cochrans_q_test(y_stacked, stacked, groups=record)
    ref = _gee_score_test(_correct(y_stacked, stacked), record)
    assert res.statistic == pytest.approx(ref["statistic"], rel=1e-8)
    assert res.pvalue == pytest.approx(ref["p-value"], rel=1e-7)
    assert res.df == ref["df"]
    assert res.method == "clustered score" and res.n_groups == 120


@pytest.mark.parametrize("seed", range(4))
def test_relation_between_q_and_the_robust_score_test(seed):
    y_true, preds = _predictions(seed, n=150, n_classifiers=4)
    correct = _correct(y_true, preds)
    c = correct.shape[1]
    score, variance, _ = _score_and_variance(correct, np.arange(correct.shape[0]))
    q = cochrans_q_test(y_true, preds).statistic
    gs = cochrans_q_test(y_true, preds, groups=np.arange(150)).statistic
    # Q = (c - 1) |U|^2 / trace(V) ...
    assert q == pytest.approx((c - 1) * score @ score / np.trace(variance), rel=RTOL)
    # ... = U' W^+ U with W the average of V over all permutations of the
    # classifiers (brute force over the c! permutations) ...
    perms = list(itertools.permutations(range(c)))
    w = sum(variance[np.ix_(p, p)] for p in perms) / len(perms)
    assert q == pytest.approx(score @ np.linalg.pinv(w) @ score, rel=1e-8)
    # ... while the robust statistic uses V itself.
    assert gs == pytest.approx(score @ np.linalg.pinv(variance) @ score, rel=1e-8)
    assert not math.isclose(q, gs, rel_tol=1e-3)


def test_two_classifiers_q_equals_robust_score_equals_mcnemar():
    y_true, preds = _predictions(9, n=250, n_classifiers=2)
    q = cochrans_q_test(y_true, preds)
    gs = cochrans_q_test(y_true, preds, groups=np.arange(250))
    ref = mcnemar_test(y_true, preds["clf0"], preds["clf1"], method="asymptotic")
    assert q.statistic == pytest.approx(ref.statistic, rel=RTOL)
    assert gs.statistic == pytest.approx(ref.statistic, rel=RTOL)


@pytest.mark.parametrize("groups", [None, "stacked"])
def test_posthoc_is_holm_adjusted_mcnemar(groups):
    y_true, preds = _predictions(3, n=200, n_classifiers=4)
    if groups == "stacked":
        groups = np.repeat(np.arange(100), 2)
    res = cochrans_q_test(y_true, preds, groups=groups)
    table = res.posthoc
    names = list(preds)
    assert list(zip(table.classifier_a, table.classifier_b, strict=True)) == list(
        itertools.combinations(names, 2)
    )
    for row in table.itertuples():
        ref = mcnemar_test(y_true, preds[row.classifier_a], preds[row.classifier_b], groups=groups)
        assert row.pvalue == pytest.approx(ref.pvalue, rel=RTOL)
        assert row.statistic == pytest.approx(ref.statistic, rel=RTOL)
        assert (row.n_a_only, row.n_b_only) == (ref.n_a_only, ref.n_b_only)
    holm = multipletests(table.pvalue, method="holm")[1]
    np.testing.assert_allclose(table.pvalue_holm, holm, rtol=RTOL)
    np.testing.assert_allclose(res.accuracies, _correct(y_true, preds).mean(axis=0))
    mid = cochrans_q_test(y_true, preds, mcnemar_method="midp")
    ref = mcnemar_test(y_true, preds["clf0"], preds["clf1"], method="midp")
    assert mid.posthoc.pvalue[0] == pytest.approx(ref.pvalue, rel=RTOL)


def test_clustered_test_holds_its_size_where_pooling_does_not():
    # Equal accuracies, each record predicted 5 times, with each record's
    # own difficulty for each classifier: the rows of a record are
    # correlated, so Q on the pooled rows rejects far too often.
    rng = np.random.default_rng(77)
    n_sim, n_records, n_repeats, c = 1000, 200, 5, 3
    record = np.repeat(np.arange(n_records), n_repeats)
    p = 1 / (1 + np.exp(-(1.0 + 1.5 * rng.standard_normal((n_sim, n_records, c)))))
    right = rng.random((n_sim, record.size, c)) < p[:, record]
    q = np.array([_cochran_q(r.astype(float)) for r in right])
    gs = np.array(
        [
            _clustered_score_statistic(*_score_and_variance(r.astype(float), record)[:2])
            for r in right
        ]
    )
    crit = stats.chi2.isf(0.05, c - 1)
    assert np.mean(q > crit) > 0.2
    assert 0.03 <= np.mean(gs > crit) <= 0.07, np.mean(gs > crit)
    # The cores are what the public function computes.
    y_true = np.zeros(record.size, dtype=int)
    preds = {f"c{j}": np.where(right[0, :, j], 0, 1) for j in range(c)}
    assert cochrans_q_test(y_true, preds).statistic == pytest.approx(q[0], rel=RTOL)
    res = cochrans_q_test(y_true, preds, groups=record)
    assert res.statistic == pytest.approx(gs[0], rel=RTOL)


@pytest.mark.filterwarnings("ignore:McNemar's test is undefined")
def test_result_conventions_names_and_undefined():
    y_true, preds = _predictions(1, n=80, n_classifiers=3)
    res = cochrans_q_test(y_true, [(k, v) for k, v in preds.items()])
    assert isinstance(res, CochranQResult)
    stat, p = res
    assert (stat, p) == (res.statistic, res.pvalue)
    assert list(res.accuracies.index) == list(preds)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.statistic = 1.0
    assert repr(res).startswith("CochranQResult(statistic=")
    assert isinstance(res.posthoc, pd.DataFrame)
    same = {"a": y_true, "b": y_true.copy(), "c": y_true.copy()}
    with pytest.warns(UndefinedStatisticWarning, match="Cochran's Q test is undefined"):
        undefined = cochrans_q_test(y_true, same)
    assert math.isnan(undefined.statistic) and math.isnan(undefined.pvalue)
    assert undefined.posthoc.pvalue_holm.isna().all()
    # Two classifiers right on the same rows: the clustered covariance is
    # singular.
    twin = {"a": preds["clf0"], "b": preds["clf0"].copy(), "c": preds["clf1"]}
    with pytest.warns(UndefinedStatisticWarning, match="singular"):
        res = cochrans_q_test(y_true, twin, groups=np.arange(80))
    assert math.isnan(res.statistic)


def _forbidden_to_the_library(function):
    """``function``, but an error when this library's own code calls it."""

    def guarded(*args, **kwargs):
        if sys._getframe(1).f_globals.get("__name__", "").startswith("sklearn_precision_stats"):
            raise AssertionError(
                f"warnings.{function.__name__} changes process-wide state; leave it alone"
            )
        return function(*args, **kwargs)

    return guarded


@pytest.mark.parametrize(
    "groups, expected",
    [
        (None, "McNemar's test of the pair 'a'-'b' in posthoc is undefined (no discordant"),
        (np.repeat(np.arange(10), 4), "singular (e.g. no disagreement, or two classifiers"),
    ],
)
def test_warnings_without_touching_the_warning_filters(monkeypatch, groups, expected):
    """Each warning once, without catch_warnings or filter changes.

    catch_warnings swaps the process-wide filters and showwarning, which
    races with other threads and resets every "once" registry. Classifiers
    a and b make the same predictions: their McNemar test is undefined,
    named in the one undefined-statistic warning (with groups, Q is then
    undefined too, and the warning says both); ten records give one
    few-records warning, not one per pair.
    """
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 2, 40)
    a = np.where(rng.random(40) < 0.9, y_true, 1 - y_true)
    c = np.where(rng.random(40) < 0.5, y_true, 1 - y_true)
    # pytest's recorder is a catch_warnings itself, entered before the patch.
    with (
        pytest.warns((UndefinedStatisticWarning, UserWarning)) as record,
        monkeypatch.context() as patch,
    ):
        for name in ("catch_warnings", "simplefilter", "filterwarnings", "resetwarnings"):
            patch.setattr(warnings, name, _forbidden_to_the_library(getattr(warnings, name)))
        res = cochrans_q_test(y_true, {"a": a, "b": a.copy(), "c": c}, groups=groups)
    undefined = [str(w.message) for w in record if w.category is UndefinedStatisticWarning]
    assert len(undefined) == 1, undefined
    assert expected in undefined[0]
    assert "'a'-'b'" in undefined[0] and "'a'-'c'" not in undefined[0]
    assert {w.filename for w in record} == {__file__}
    few = [w for w in record if w.category is UserWarning]
    assert len(few) == (0 if groups is None else 1)
    assert math.isfinite(res.statistic) == (groups is None)
    assert res.posthoc["pvalue"].isna().tolist() == [True, False, False]


def test_record_ids_of_mixed_kinds_are_records():
    # Record ids are told apart, never ordered: numbers and strings mixed
    # give the records their integer codes give (a TypeError before).
    y_true, preds = _predictions(4, n=120, n_classifiers=3)
    codes = np.arange(120) // 2
    mixed = np.array([f"r{c}" if c % 2 else c for c in codes], dtype=object)
    res = cochrans_q_test(y_true, preds, groups=mixed)
    ref = cochrans_q_test(y_true, preds, groups=codes)
    assert res.n_groups == ref.n_groups == 60
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    pd.testing.assert_frame_equal(res.posthoc, ref.posthoc)


def test_input_errors():
    y_true, preds = _predictions(2, n=50, n_classifiers=3)
    with pytest.raises(ValueError, match="at least two classifiers"):
        cochrans_q_test(y_true, {"a": preds["clf0"]})
    with pytest.raises(ValueError, match="groups has 49 entries"):
        cochrans_q_test(y_true, preds, groups=np.arange(49))
    with pytest.raises(ValueError, match="mcnemar_method"):
        cochrans_q_test(y_true, preds, mcnemar_method="fisher")
    with pytest.raises(ValueError, match="Use mcnemar_method='asymptotic'"):
        cochrans_q_test(y_true, preds, groups=np.arange(50) // 2, mcnemar_method="exact")
    with pytest.raises(ValueError, match="rows"):
        cochrans_q_test(y_true, {"a": preds["clf0"], "b": preds["clf1"][:-1]})


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_clustered_statistic_agrees_with_compare_accuracy_omnibus():
    paired = pytest.importorskip("sklearn_precision_stats.paired")
    if not hasattr(paired, "compare_accuracy"):
        pytest.skip("compare_accuracy is not available")
    y_true, preds = _predictions(8, n=160, n_classifiers=4)
    record = np.repeat(np.arange(80), 2)
    res = cochrans_q_test(y_true, preds, groups=record)
    omnibus = paired.compare_accuracy(y_true, preds, groups=record).omnibus
    assert res.statistic == pytest.approx(float(omnibus["gs_stat"].iloc[0]), rel=1e-8)
    assert res.df == int(omnibus["df"].iloc[0])
