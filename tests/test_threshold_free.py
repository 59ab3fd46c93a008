"""Threshold-free comparisons against scikit-learn, point values and replicates."""

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import average_precision_score, precision_recall_curve, roc_auc_score

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    compare_average_precision,
    compare_precision_at_recall,
    compare_recall_at_precision,
    compare_roc_auc,
    delong_test,
)
from sklearn_precision_stats.threshold_free import _compare
from sklearn_precision_stats.threshold_free._resampling import weight_blocks


def _precision_at_recall(y, s, target, sample_weight=None):
    p, r, _ = precision_recall_curve(y, s, sample_weight=sample_weight)
    return float(np.max(p[r >= target]))


def _recall_at_precision(y, s, target, sample_weight=None):
    p, r, _ = precision_recall_curve(y, s, sample_weight=sample_weight)
    return float(np.max(r[p >= target]))


# name -> (public function, keyword arguments, scikit-learn reference of one binary curve)
MEASURES = {
    "average_precision": (compare_average_precision, {}, average_precision_score),
    "precision_at_recall": (
        compare_precision_at_recall,
        {"recall": 0.7},
        lambda y, s, sample_weight=None: _precision_at_recall(y, s, 0.7, sample_weight),
    ),
    "recall_at_precision": (
        compare_recall_at_precision,
        {"precision": 0.6},
        lambda y, s, sample_weight=None: _recall_at_precision(y, s, 0.6, sample_weight),
    ),
    "roc_auc": (compare_roc_auc, {"method": "bootstrap"}, roc_auc_score),
}


def _binary(n=240, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    # Rounded scores: many ties, within and across classes.
    a = np.round(y + rng.normal(size=n), 1)
    b = np.round(0.5 * a + y + rng.normal(size=n), 1)
    return y.astype(int), {"a": a, "b": b}


def _multiclass(n=300, k=4, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    scores = {}
    for name, noise in (("a", 1.0), ("b", 1.5), ("c", 2.0)):
        logits = np.round(np.eye(k)[y] + rng.normal(scale=noise, size=(n, k)), 1)
        proba = np.exp(logits)
        scores[name] = proba / proba.sum(axis=1, keepdims=True)
    return y, scores


def _multilabel(n=250, k=3, seed=2):
    rng = np.random.default_rng(seed)
    y = (rng.random((n, k)) < [0.1, 0.3, 0.5]).astype(int)
    scores = {
        "a": np.round(y + rng.normal(size=(n, k)), 1),
        "b": np.round(y + rng.normal(scale=1.5, size=(n, k)), 1),
    }
    return y, scores


def _per_class_reference(reference, y, s, average, sample_weight=None, multilabel=False):
    """scikit-learn's per-class or averaged value of one classifier."""
    if s.ndim == 1:
        return np.array([reference(y, s, sample_weight=sample_weight)])
    k = s.shape[1]
    indicator = y if multilabel else (y[:, None] == np.arange(k)[None, :]).astype(int)
    per_class = np.array(
        [reference(indicator[:, j], s[:, j], sample_weight=sample_weight) for j in range(k)]
    )
    if average is None:
        return per_class
    if average == "macro":
        return np.array([per_class.mean()])
    w = np.ones(len(y)) if sample_weight is None else sample_weight
    if average == "weighted":
        support = (indicator * w[:, None]).sum(axis=0)
        return np.array([np.average(per_class, weights=support)])
    return np.array([reference(indicator.ravel(), s.ravel(), sample_weight=np.repeat(w, k))])


@pytest.mark.parametrize("name", list(MEASURES))
@pytest.mark.parametrize(
    "kind, average",
    [
        ("binary", None),
        ("multiclass", None),
        ("multiclass", "macro"),
        ("multiclass", "weighted"),
        ("multiclass", "micro"),
        ("multilabel", None),
        ("multilabel", "macro"),
        ("multilabel", "weighted"),
        ("multilabel", "micro"),
    ],
)
def test_point_values_and_replicates_equal_sklearn(name, kind, average):
    function, kwargs, reference = MEASURES[name]
    y, scores = {"binary": _binary, "multiclass": _multiclass, "multilabel": _multilabel}[kind]()
    n = len(y)
    rng = np.random.default_rng(5)
    weights = rng.multinomial(n, np.full(n, 1 / n), size=4)
    result = function(y, scores, average=average, n_resamples=weights, **kwargs)
    table = result.table
    for clf, s in scores.items():
        expected = _per_class_reference(reference, y, s, average, multilabel=kind == "multilabel")
        if clf == result.reference:
            got = table.groupby("class", sort=False)[f"{name}_reference"].first().to_numpy()
        else:
            got = table.loc[table["classifier"] == clf, name].to_numpy()
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
        for b, w in enumerate(weights):
            expected = _per_class_reference(
                reference, y, s, average, sample_weight=w, multilabel=kind == "multilabel"
            )
            np.testing.assert_allclose(result.replicates[clf][b], expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", list(MEASURES))
def test_replicates_with_groups_equal_sklearn_with_cluster_weights(name):
    function, kwargs, reference = MEASURES[name]
    y, scores = _multiclass(n=240)
    rng = np.random.default_rng(3)
    groups = rng.integers(0, 60, size=len(y)) * 7  # ids need not be 0..m-1
    n_records = np.unique(groups).shape[0]
    weights = rng.integers(0, 3, size=(3, n_records))
    result = function(y, scores, groups=groups, n_resamples=weights, **kwargs)
    assert result.n_records == n_records
    code = np.unique(groups, return_inverse=True)[1]
    for clf, s in scores.items():
        for b, w in enumerate(weights):
            expected = _per_class_reference(reference, y, s, None, sample_weight=w[code])
            np.testing.assert_allclose(result.replicates[clf][b], expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", list(MEASURES))
@pytest.mark.parametrize("high", [2, 31, 32, 255, 256, 5000])
def test_replicates_equal_sklearn_for_any_size_of_weights(name, high):
    # Weights up to 31 are summed 8 at a time, up to 255 in one byte each,
    # larger ones in 4 bytes: every path gives scikit-learn's values.
    function, kwargs, reference = MEASURES[name]
    y, scores = _binary(n=100, seed=6)
    rng = np.random.default_rng(high)
    weights = rng.integers(0, high + 1, size=(3, len(y)))
    weights[:, 0] = high
    result = function(y, scores, n_resamples=weights, **kwargs)
    for clf, s in scores.items():
        for b, w in enumerate(weights):
            expected = reference(y, s, sample_weight=w)
            np.testing.assert_allclose(result.replicates[clf][b, 0], expected, rtol=0, atol=1e-12)


def test_precision_at_recall_reads_the_curve_at_the_target_exactly():
    # Recall 0.9 is reached exactly at 9 of 10 positives.
    y = np.array([1] * 10 + [0] * 10)
    a = np.r_[np.arange(20, 11, -1), 0.5, np.arange(10, 0, -1)].astype(float)
    b = a[::-1].copy()
    result = compare_precision_at_recall(y, {"a": a, "b": b}, recall=0.9, n_resamples=20)
    assert result.table["precision_at_recall_reference"].iloc[0] == _precision_at_recall(y, a, 0.9)
    assert result.table["precision_at_recall_reference"].iloc[0] == 1.0


def test_recall_at_precision_is_zero_when_never_reached():
    y = np.array([0, 0, 1, 1, 0, 1])
    a = np.array([6, 5, 4, 3, 2, 1.0])  # the two highest scores are negatives
    b = np.arange(6.0)
    result = compare_recall_at_precision(y, {"a": a, "b": b}, precision=0.9, n_resamples=20)
    assert result.table["recall_at_precision_reference"].iloc[0] == 0.0
    assert _recall_at_precision(y, a, 0.9) == 0.0


def test_delong_method_extends_delong_test():
    y, scores = _binary(n=400)
    result = compare_roc_auc(y, scores)
    reference = delong_test(y, scores["b"], scores["a"])
    row = result.table.iloc[0]
    assert result.method == "delong"
    assert row["roc_auc"] == pytest.approx(reference.auc_a, abs=1e-12)
    assert row["roc_auc_reference"] == pytest.approx(reference.auc_b, abs=1e-12)
    assert row["diff_se"] == pytest.approx(reference.standard_error, rel=1e-9)
    assert row["diff_pvalue"] == pytest.approx(reference.pvalue, rel=1e-9)
    ci = reference.confidence_interval()
    assert (row["diff_ci_low"], row["diff_ci_high"]) == pytest.approx(tuple(ci), rel=1e-9)
    assert row["roc_auc"] == pytest.approx(roc_auc_score(y, scores["b"]), abs=1e-12)


def test_delong_every_class_and_omnibus():
    y, scores = _multiclass()
    result = compare_roc_auc(y, scores)
    assert list(result.classes) == [0, 1, 2, 3]
    for k in range(4):
        for other in ("b", "c"):
            ref = delong_test(y == k, scores[other][:, k], scores["a"][:, k])
            row = result.get(k, other)
            assert row["diff"] == pytest.approx(ref.auc_a - ref.auc_b, abs=1e-12)
            assert row["diff_pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
    # Omnibus: the Wald statistic of (b - a, c - a) with DeLong's covariance,
    # computed here from delong_test's pairwise variances.
    omni = result.omnibus
    assert list(omni["df"]) == [2, 2, 2, 2]
    for k in range(4):
        ab = delong_test(y == k, scores["b"][:, k], scores["a"][:, k])
        ac = delong_test(y == k, scores["c"][:, k], scores["a"][:, k])
        bc = delong_test(y == k, scores["b"][:, k], scores["c"][:, k])
        v_ab, v_ac, v_bc = ab.standard_error**2, ac.standard_error**2, bc.standard_error**2
        # var(b - c) = var(b - a) + var(c - a) - 2 cov(b - a, c - a)
        cov = (v_ab + v_ac - v_bc) / 2
        d = np.array([ab.difference, ac.difference])
        stat = d @ np.linalg.solve([[v_ab, cov], [cov, v_ac]], d)
        assert omni["wald_stat"].iloc[k] == pytest.approx(stat, rel=1e-8)
        assert omni["wald_pvalue"].iloc[k] == pytest.approx(stats.chi2.sf(stat, 2), rel=1e-8)


def test_bootstrap_omnibus_is_the_wald_test_of_the_replicates():
    y, scores = _multiclass(n=200)
    result = compare_average_precision(y, scores, n_resamples=300, random_state=0)
    for k in range(4):
        d_reps = np.column_stack(
            [result.replicates[c][:, k] - result.replicates["a"][:, k] for c in ("b", "c")]
        )
        d = result[k]["diff"].to_numpy()
        stat = d @ np.linalg.solve(np.cov(d_reps, rowvar=False), d)
        assert result.omnibus["wald_stat"].iloc[k] == pytest.approx(stat, rel=1e-8)


def test_bootstrap_summaries_follow_the_replicates():
    y, scores = _binary()
    result = compare_average_precision(y, scores, n_resamples=400, random_state=1)
    d = result.replicates["b"][:, 0] - result.replicates["a"][:, 0]
    row = result.table.iloc[0]
    assert row["diff_se"] == pytest.approx(np.std(d, ddof=1), rel=1e-12)
    assert row["diff_ci_low"] == pytest.approx(np.quantile(d, 0.025), rel=1e-12)
    assert row["diff_pvalue"] == pytest.approx(
        2 * stats.norm.sf(abs(row["diff"]) / row["diff_se"]), rel=1e-12
    )
    assert row["diff_bca_low"] < row["diff"] < row["diff_bca_high"]
    assert result.replicates["a"].shape == (400, 1)


def test_stratified_weights_keep_every_class_size():
    rng = np.random.default_rng(0)
    blocks = list(weight_blocks(50, [7, 30, 13], rng, block=16))
    weights = np.vstack([w for _, w in blocks])
    assert weights.shape == (50, 50)
    np.testing.assert_array_equal(weights[:, :7].sum(axis=1), 7)
    np.testing.assert_array_equal(weights[:, 7:37].sum(axis=1), 30)
    np.testing.assert_array_equal(weights[:, 37:].sum(axis=1), 13)
    # Every unit of a stratum is drawn with probability 1/size each time.
    assert abs(weights[:, 7:37].mean() - 1) < 0.1


def test_large_strata_are_drawn_chunk_by_chunk_with_the_same_law():
    rng = np.random.default_rng(0)
    sizes = [150_000, 3]
    weights = np.vstack([w for _, w in weight_blocks(40, sizes, rng, block=1)])
    np.testing.assert_array_equal(weights[:, :150_000].sum(axis=1), 150_000)
    np.testing.assert_array_equal(weights[:, 150_000:].sum(axis=1), 3)
    # Multinomial counts: mean 1 and variance 1 - 1/m for every unit, and
    # the same for units of the last, partial chunk.
    counts = weights[:, :150_000].astype(float)
    assert abs(counts.mean() - 1) < 0.01
    assert abs(counts.var() - 1) < 0.02
    assert abs(counts[:, -10_000:].mean() - 1) < 0.02


def test_class_sizes_are_kept_in_every_replicate():
    y, scores = _binary()
    result = compare_average_precision(y, scores, n_resamples=50, random_state=0)
    # Stratified: the replicates' recall steps are multiples of 1/n_pos.
    assert np.isfinite(result.replicates["a"]).all()


def test_seed_makes_runs_repeat():
    y, scores = _binary()
    r1 = compare_average_precision(y, scores, n_resamples=100, random_state=3)
    r2 = compare_average_precision(y, scores, n_resamples=100, random_state=3)
    np.testing.assert_array_equal(r1.replicates["b"], r2.replicates["b"])


@pytest.mark.parametrize("name", list(MEASURES))
def test_strictly_monotone_transforms_change_nothing(name):
    function, kwargs, _ = MEASURES[name]
    y, scores = _binary()
    transformed = {"a": np.exp(scores["a"]), "b": 3 * scores["b"] ** 3 - 1}
    r1 = function(y, scores, n_resamples=100, random_state=0, **kwargs)
    r2 = function(y, transformed, n_resamples=100, random_state=0, **kwargs)
    t1, t2 = r1.table, r2.table
    numeric = [c for c in t1.columns if c not in ("class", "classifier")]
    np.testing.assert_allclose(t1[numeric].to_numpy(float), t2[numeric].to_numpy(float), atol=1e-12)


@pytest.mark.parametrize("name", list(MEASURES))
def test_swapping_classifier_and_reference_negates_the_differences(name):
    function, kwargs, _ = MEASURES[name]
    y, scores = _binary()
    # Given weights: the same replicates for both by construction.
    weights = np.random.default_rng(4).multinomial(len(y), np.full(len(y), 1 / len(y)), size=200)
    r1 = function(y, scores, reference="a", n_resamples=weights, **kwargs)
    r2 = function(y, scores, reference="b", n_resamples=weights, **kwargs)
    a, b = r1.table.iloc[0], r2.table.iloc[0]
    assert b["diff"] == pytest.approx(-a["diff"], abs=1e-12)
    assert b["diff_se"] == pytest.approx(a["diff_se"], rel=1e-9)
    assert b["diff_pvalue"] == pytest.approx(a["diff_pvalue"], rel=1e-9)
    assert b["diff_ci_low"] == pytest.approx(-a["diff_ci_high"], abs=1e-12)


def test_identical_repeats_with_groups_change_nothing():
    y, scores = _binary(n=150)
    m = 3
    rng = np.random.default_rng(11)
    weights = rng.multinomial(150, np.full(150, 1 / 150), size=200)
    r1 = compare_average_precision(y, scores, n_resamples=weights, random_state=0)
    repeated = {k: np.repeat(v, m) for k, v in scores.items()}
    r2 = compare_average_precision(
        np.repeat(y, m), repeated, groups=np.repeat(np.arange(150), m), n_resamples=weights
    )
    t1, t2 = r1.table, r2.table
    for column in ("average_precision", "diff", "diff_se", "diff_ci_low", "diff_ci_high"):
        assert t2[column].iloc[0] == pytest.approx(t1[column].iloc[0], abs=1e-12)
    assert r2.n_rows == 450 and r2.n_records == 150


def test_class_without_positives_is_nan_with_one_warning():
    y, scores = _multiclass()
    with pytest.warns(UndefinedStatisticWarning, match="class 4") as record:
        result = compare_average_precision(
            y,
            {k: np.column_stack([v, v[:, :1]]) for k, v in scores.items()},
            labels=[0, 1, 2, 3, 4],
            n_resamples=20,
            random_state=0,
        )
    assert len([w for w in record if w.category is UndefinedStatisticWarning]) == 1
    assert record[0].filename == __file__
    row = result.get(4, "b")
    assert np.isnan(row["average_precision"]) and np.isnan(row["diff_pvalue"])
    assert np.isfinite(result.get(0, "b")["diff_pvalue"])


def test_replicates_without_positives_are_reported():
    y = np.array([1, 0, 0, 0, 0, 0, 0, 0, 1, 0])
    rng = np.random.default_rng(0)
    scores = {"a": rng.random(10), "b": rng.random(10)}
    with pytest.warns(UndefinedStatisticWarning, match="replicates"):
        result = compare_average_precision(
            y, scores, groups=np.arange(10), n_resamples=200, random_state=0
        )
    assert np.isnan(result.table["diff_ci_low"].iloc[0])
    assert np.isfinite(result.table["diff"].iloc[0])


def test_identical_classifiers_give_nan_pvalue_with_warning():
    y, scores = _binary()
    with pytest.warns(UndefinedStatisticWarning, match="same in every replicate"):
        result = compare_average_precision(
            y, {"a": scores["a"], "b": scores["a"] * 2}, n_resamples=50, random_state=0
        )
    assert result.table["diff"].iloc[0] == 0
    assert np.isnan(result.table["diff_pvalue"].iloc[0])


def test_no_warning_on_regular_input():
    y, scores = _multiclass()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare_average_precision(y, scores, n_resamples=50, random_state=0)
        compare_roc_auc(y, scores)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"y_scores": {"a": np.zeros(5)}}, "at least two"),
        ({"y_scores": {"a": np.zeros(5), "b": np.zeros(4)}}, "shape"),
        ({"y_scores": {"a": np.zeros((5, 3)), "b": np.zeros((5, 3))}}, "columns"),
        ({"reference": "c"}, "reference"),
        ({"n_resamples": 1}, "n_resamples"),
        ({"n_resamples": np.ones((3, 4), dtype=int)}, "one column per row"),
        ({"n_resamples": np.ones((3, 5))}, "integer array"),
        ({"groups": [0, 1]}, "groups"),
        ({"average": "samples"}, "average"),
        ({"labels": [0, 2]}, "not in labels"),
    ],
)
def test_errors_name_the_argument(kwargs, match):
    y = np.array([0, 1, 0, 1, 1])
    args = {"y_scores": {"a": np.arange(5.0), "b": np.arange(5.0)[::-1].copy()}}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        compare_average_precision(y, **args)


def test_nan_scores_are_rejected():
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="row 2"):
        compare_average_precision(y, {"a": [0.1, 0.2, np.nan, 0.3], "b": [1, 2, 3, 4.0]})


def test_inputs_are_not_modified():
    y, scores = _multiclass()
    copies = {k: v.copy() for k, v in scores.items()}
    y_copy = y.copy()
    compare_average_precision(y, scores, n_resamples=20, random_state=0)
    np.testing.assert_array_equal(y, y_copy)
    for k in scores:
        np.testing.assert_array_equal(scores[k], copies[k])


def test_result_is_frozen():
    y, scores = _binary()
    result = compare_average_precision(y, scores, n_resamples=20, random_state=0)
    with pytest.raises(AttributeError):
        result.measure = "x"
    assert result.replicates["a"].flags.writeable is False


def test_string_labels_and_pandas_inputs():
    pd = pytest.importorskip("pandas")
    y, scores = _binary()
    words = np.where(y == 1, "spam", "ham")
    frame = pd.DataFrame(scores)
    result = compare_average_precision(
        pd.Series(words), {"a": frame["a"], "b": frame["b"]}, n_resamples=20, random_state=0
    )
    # The positive class is the second of the sorted classes.
    assert list(result.classes) == ["spam"]
    assert result.table["average_precision"].iloc[0] == pytest.approx(
        average_precision_score(words == "spam", scores["b"]), abs=1e-12
    )
    flipped = compare_average_precision(
        words, {"a": -scores["a"], "b": -scores["b"]}, labels=["spam", "ham"], n_resamples=20
    )
    assert list(flipped.classes) == ["ham"]
    assert flipped.table["average_precision"].iloc[0] == pytest.approx(
        average_precision_score(words == "ham", -scores["b"]), abs=1e-12
    )


def test_averaged_rows_are_labelled_by_the_average():
    y, scores = _multiclass()
    for average in ("macro", "weighted", "micro"):
        result = compare_average_precision(
            y, scores, average=average, n_resamples=30, random_state=0
        )
        assert list(result.classes) == [average]
        assert result.replicates["a"].shape == (30, 1)
        assert result.average == average


def test_multilabel_columns_take_the_given_names():
    y, scores = _multilabel()
    result = compare_roc_auc(y, scores, labels=["x", "y", "z"])
    assert list(result.classes) == ["x", "y", "z"]
    assert result.get("z")["roc_auc"] == pytest.approx(
        roc_auc_score(y[:, 2], scores["b"][:, 2]), abs=1e-12
    )


def test_delong_warns_once_at_the_callers_line():
    y, scores = _multiclass()
    extended = {k: np.column_stack([v, v[:, :1]]) for k, v in scores.items()}
    with pytest.warns(UndefinedStatisticWarning, match="class 4") as record:
        result = compare_roc_auc(y, extended, labels=[0, 1, 2, 3, 4])
    assert len(record) == 1
    assert record[0].filename == __file__
    assert np.isnan(result.get(4, "b")["roc_auc"])
    assert np.isnan(result.omnibus["wald_pvalue"].iloc[4])
    assert np.isfinite(result.omnibus["wald_pvalue"].iloc[0])


@st.composite
def _tied_scores(draw):
    """A small binary problem with heavily tied scores and integer weights."""
    n = draw(st.integers(4, 40))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    if y.min() == y.max():
        y[0] = 1 - y[0]
    levels = st.integers(0, 4)
    a = np.array(draw(st.lists(levels, min_size=n, max_size=n)), dtype=float)
    b = np.array(draw(st.lists(levels, min_size=n, max_size=n)), dtype=float)
    w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    return y, {"a": a, "b": b}, np.vstack([w, np.ones(n, dtype=int)])


@settings(max_examples=60, deadline=None)
@given(_tied_scores())
def test_any_tied_scores_and_weights_match_sklearn(data):
    y, scores, weights = data
    with warnings.catch_warnings():
        # A replicate may lack positives or negatives: NaN, as checked below.
        warnings.simplefilter("ignore")
        results = {
            name: function(y, scores, n_resamples=weights, **kwargs)
            for name, (function, kwargs, _) in MEASURES.items()
        }
    for name, (_, _, reference) in MEASURES.items():
        for clf, s in scores.items():
            for b, w in enumerate(weights):
                got = results[name].replicates[clf][b, 0]
                positives, negatives = w[y == 1].sum(), w[y == 0].sum()
                if positives == 0 or (name == "roc_auc" and negatives == 0):
                    assert np.isnan(got)
                    continue
                assert got == pytest.approx(reference(y, s, sample_weight=w), abs=1e-12)


def test_random_state_takes_a_generator():
    # The documented seed types: None, an int, a Generator or a RandomState.
    from sklearn_precision_stats import compare_metric

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    scores = {"a": rng.random(200), "b": rng.random(200)}
    first = compare_average_precision(
        y, scores, n_resamples=50, random_state=np.random.default_rng(5)
    )
    again = compare_average_precision(
        y, scores, n_resamples=50, random_state=np.random.default_rng(5)
    )
    np.testing.assert_array_equal(first.replicates["a"], again.replicates["a"])
    preds = {"a": (scores["a"] > 0.5).astype(int), "b": (scores["b"] > 0.5).astype(int)}
    result = compare_metric(
        y,
        preds,
        metric="f1",
        method="bootstrap",
        n_resamples=50,
        random_state=np.random.default_rng(5),
    )
    assert np.isfinite(result.table["diff"]).all()


# ------------------------------------------------- the band, curve by curve


def test_band_is_the_quantile_of_sklearn_curves_over_the_replicates(monkeypatch):
    # The band a curve at a time (each block of curves on its own) is, at
    # each recall of the grid, the quantile over the replicates of
    # scikit-learn's interpolated precision on the weighted rows.
    y, scores = _multiclass(n=150, k=4)
    weights = np.random.default_rng(2).multinomial(150, np.full(150, 1 / 150), size=40)
    monkeypatch.setattr(_compare, "_BAND_ELEMENTS", 1)
    result = compare_average_precision(y, scores, n_resamples=weights, confidence_level=0.9)
    grid = result.curves["recall"]
    for j, name in enumerate(result.classifiers):
        for k in range(4):
            interpolated = []
            for w in weights:
                p, r, _ = precision_recall_curve(y == k, scores[name][:, k], sample_weight=w)
                interpolated.append([p[r >= level].max() for level in grid])
            low, high = np.quantile(interpolated, [0.05, 0.95], axis=0)
            np.testing.assert_allclose(result.curves["low"][j, k], low, rtol=1e-12)
            np.testing.assert_allclose(result.curves["high"][j, k], high, rtol=1e-12)


@pytest.mark.parametrize("curves_per_block", [1, 3])
def test_band_in_blocks_of_curves_draws_the_same_replicates(monkeypatch, curves_per_block):
    # Each block of curves draws the replicates again from the generator's
    # first state; the generator ends where one pass leaves it.
    y, scores = _multiclass(n=120, k=7, seed=3)
    whole_rng, blocks_rng = np.random.default_rng(5), np.random.default_rng(5)
    whole = compare_average_precision(y, scores, n_resamples=60, random_state=whole_rng)
    monkeypatch.setattr(_compare, "_BAND_ELEMENTS", curves_per_block * 60 * 3 * 101)
    blocks = compare_average_precision(y, scores, n_resamples=60, random_state=blocks_rng)
    for key in ("precision", "low", "high"):
        np.testing.assert_array_equal(blocks.curves[key], whole.curves[key])
    pd.testing.assert_frame_equal(blocks.table, whole.table)
    for name in whole.classifiers:
        np.testing.assert_array_equal(blocks.replicates[name], whole.replicates[name])
    assert blocks_rng.random() == whole_rng.random()


def test_band_memory_is_a_block_of_curves_not_all_of_them():
    # 100 classes, 2000 replicates, 2 classifiers: the band's replicates of
    # every curve at once are 2000 x 2 x 100 x 101 float64, 323 MB; a block
    # of curves at a time keeps the peak (everything included) far below.
    rng = np.random.default_rng(4)
    y = np.arange(400) % 100
    scores = {
        name: np.round(np.eye(100)[y] + rng.normal(scale=scale, size=(400, 100)), 2)
        for name, scale in (("a", 1.0), ("b", 1.5))
    }
    whole_band = 2000 * 2 * 100 * 101 * 8
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            result = compare_average_precision(y, scores, n_resamples=2000, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.curves["low"].shape == (2, 100, 101)
    assert peak < whole_band / 2, f"peak {peak / 2**20:.0f} MiB"


def _delong_wald(y, s, level):
    """Hand-worked DeLong (1988) interval of one AUC, from its placements, unclipped."""
    pos, neg = s[y == 1], s[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    auc = psi.mean()
    var = psi.mean(axis=1).var(ddof=1) / pos.size + psi.mean(axis=0).var(ddof=1) / neg.size
    z = stats.norm.ppf(0.5 + level / 2)
    return auc - z * np.sqrt(var), auc + z * np.sqrt(var)


def test_delong_auc_intervals_are_clipped_to_the_unit_interval_as_proc():
    # Nearly separated scores: the Wald interval of the AUC reaches past 1,
    # which pROC's ci.auc(method="delong") clips.
    y = np.array([0] * 8 + [1] * 8)
    a = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.95])
    a = np.concatenate([a, [0.8, 0.85, 0.9, 0.92, 0.97, 0.98, 0.99, 1.0]])
    b = np.linspace(0, 1, 16)[np.argsort(np.argsort(a + np.sin(np.arange(16))))]
    res = compare_roc_auc(y, {"a": a, "b": b}, reference="a")
    for level in (0.95, 0.99):
        low, high = _delong_wald(y, a, level)
        assert high > 1  # the case the clipping is for
        row = res.to_frame(confidence_level=level).iloc[0]
        assert row["roc_auc_reference"] == pytest.approx(roc_auc_score(y, a), rel=1e-12)
        np.testing.assert_allclose(
            [row["roc_auc_reference_ci_low"], row["roc_auc_reference_ci_high"]],
            [max(low, 0.0), 1.0],
            rtol=1e-12,
        )
