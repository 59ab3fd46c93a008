"""Precision at a known prevalence (PairedComparison.at_prevalence)."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    compare_precision,
    compare_recall,
)
from sklearn_precision_stats.across_classes._prevalence import (
    AT_PREVALENCE_COLUMNS,
    _ClusteredPrevalence,
    _PrevalenceUnits,
)

from .conftest import REFERENCE, make_correlated_predictions


def _quiet_compare(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return compare_precision(*args, **kwargs)


def _by_hand(y, pred, k, pi, alpha=0.05):
    """Eq. (28) and the DTComPair pv.prev interval from the 2x2 counts."""
    y, pred = np.asarray(y), np.asarray(pred)
    tp = np.sum((pred == k) & (y == k))
    fp = np.sum((pred == k) & (y != k))
    se = tp / np.sum(y == k)
    sp = 1 - fp / np.sum(y != k)
    value = se * pi / (se * pi + (1 - sp) * (1 - pi))
    lr = se / (1 - sp)
    half = stats.norm.isf(alpha / 2) * np.sqrt((1 - se) / tp + sp / fp)
    ends = [1 / (1 + (1 / pi - 1) / (lr * np.exp(s * half))) for s in (-1, 1)]
    return value, ends[0], ends[1]


@pytest.mark.parametrize("name", ["paired1", "synthetic1"])
def test_analytic_interval_equals_dtcompair(name):
    ref = json.loads((REFERENCE / "precision_reference.json").read_text())[name]
    data = pd.read_csv(REFERENCE / f"{name}.csv")
    result = compare_precision(data["d"], {"y1": data["y1"], "y2": data["y2"]})
    out = result.at_prevalence({1: ref["prev"]}, n_resamples=50, random_state=0)
    row = out[out["classifier"] == "y2"].iloc[0]
    assert row["class"] == 1 and row["prevalence"] == ref["prev"]
    assert row["precision"] == pytest.approx(ref["precision"], abs=1e-12)
    assert row["precision_at_prevalence"] == pytest.approx(ref["ppv_at_prev"], abs=1e-9)
    assert row["ci_low"] == pytest.approx(ref["ppv_at_prev_low"], abs=1e-9)
    assert row["ci_high"] == pytest.approx(ref["ppv_at_prev_high"], abs=1e-9)


def test_columns_and_hand_values_multiclass():
    y, preds, _ = make_correlated_predictions(600, 4, 3, seed=3)
    result = _quiet_compare(y, preds, confidence_level=0.9)
    prevalence = {3: 0.05, 1: 0.4}
    out = result.at_prevalence(prevalence, n_resamples=100, random_state=0)
    assert list(out.columns) == AT_PREVALENCE_COLUMNS
    # Classes in comparison order, reference first within a class.
    assert out["class"].tolist() == [1, 1, 1, 3, 3, 3]
    assert out["classifier"].tolist() == ["clf0", "clf1", "clf2"] * 2
    assert out["class"].dtype.kind == "i"
    for _, row in out.iterrows():
        value, low, high = _by_hand(
            y, preds[row["classifier"]], row["class"], prevalence[row["class"]], alpha=0.1
        )
        assert row["precision_at_prevalence"] == pytest.approx(value, rel=1e-12)
        assert row["ci_low"] == pytest.approx(low, rel=1e-12)
        assert row["ci_high"] == pytest.approx(high, rel=1e-12)
    observed = result.table.set_index(["class", "classifier"])["precision"]
    for _, row in out[out["classifier"] != "clf0"].iterrows():
        assert row["precision"] == pytest.approx(observed[(row["class"], row["classifier"])])


def test_prevalence_of_the_test_set_gives_back_the_precision():
    y, preds, _ = make_correlated_predictions(500, 3, 2, seed=1)
    result = _quiet_compare(y, preds)
    share = {k: float(np.mean(y == k)) for k in (0, 1, 2)}
    out = result.at_prevalence(share, n_resamples=20, random_state=0)
    np.testing.assert_allclose(out["precision_at_prevalence"], out["precision"], rtol=1e-12)


def test_binary_number_is_the_prevalence_of_class_1():
    y, preds, _ = make_correlated_predictions(400, 2, 2, seed=5)
    result = _quiet_compare(y, preds)
    out = result.at_prevalence(0.1, n_resamples=50, random_state=0)
    as_dict = result.at_prevalence({0: 0.9, 1: 0.1}, n_resamples=50, random_state=0)
    pd.testing.assert_frame_equal(out, as_dict)
    assert out.loc[out["class"] == 1, "prevalence"].tolist() == [0.1, 0.1]
    assert out.loc[out["class"] == 0, "prevalence"].tolist() == [0.9, 0.9]
    # {-1, 1} labels: the positive class is 1.
    signed = _quiet_compare(2 * y - 1, {k: 2 * v - 1 for k, v in preds.items()})
    out_signed = signed.at_prevalence(0.1, n_resamples=50, random_state=0)
    np.testing.assert_allclose(
        out_signed["precision_at_prevalence"], out["precision_at_prevalence"]
    )


def test_rp_is_the_ratio_of_updated_precisions_with_a_bootstrap_interval():
    y, preds, _ = make_correlated_predictions(800, 3, 3, seed=2)
    result = _quiet_compare(y, preds)
    out = result.at_prevalence({0: 0.2, 2: 0.5}, n_resamples=400, random_state=1)
    for k in (0, 2):
        rows = out[out["class"] == k].set_index("classifier")
        assert rows.loc["clf0", ["ratio", "ratio_ci_low", "ratio_ci_high"]].isna().all()
        for name in ("clf1", "clf2"):
            updated = rows["precision_at_prevalence"]
            ratio = updated[name] / updated["clf0"]
            assert rows.loc[name, "ratio"] == pytest.approx(ratio, rel=1e-12)
            assert rows.loc[name, "ratio_ci_low"] < ratio < rows.loc[name, "ratio_ci_high"]


def test_bootstrap_is_reproducible_and_close_to_analytic():
    y, preds, _ = make_correlated_predictions(3000, 3, 2, seed=4)
    result = _quiet_compare(y, preds)
    kwargs = dict(prevalence={0: 0.1, 1: 0.3}, ci="bootstrap", n_resamples=1000)
    a = result.at_prevalence(**kwargs, random_state=3)
    b = result.at_prevalence(**kwargs, random_state=3)
    c = result.at_prevalence(**kwargs, random_state=4)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"], c["ci_low"])
    analytic = result.at_prevalence(kwargs["prevalence"], n_resamples=1000, random_state=3)
    # Same draws for the ratio interval whatever the precision interval.
    pd.testing.assert_series_equal(a["ratio_ci_low"], analytic["ratio_ci_low"])
    width = analytic["ci_high"] - analytic["ci_low"]
    np.testing.assert_allclose(a["ci_low"], analytic["ci_low"], atol=0.15 * width.max())
    np.testing.assert_allclose(a["ci_high"], analytic["ci_high"], atol=0.15 * width.max())
    assert (a["ci_low"] < a["precision_at_prevalence"]).all()
    assert (a["precision_at_prevalence"] < a["ci_high"]).all()


def test_clustered_rows_resample_records():
    """Each record twice in its cluster: the same estimates and intervals as
    once, not intervals narrower by sqrt(2) as resampling rows would give."""
    y, preds, _ = make_correlated_predictions(1500, 2, 2, seed=6)
    once = _quiet_compare(y, preds)
    twice = _quiet_compare(
        np.tile(y, 2),
        {k: np.tile(v, 2) for k, v in preds.items()},
        groups=np.tile(np.arange(y.shape[0]), 2),
    )
    a = once.at_prevalence(0.2, n_resamples=1500, random_state=0)
    b = twice.at_prevalence(0.2, n_resamples=1500, random_state=0)
    cols = ["precision", "precision_at_prevalence", "ci_low", "ci_high", "ratio"]
    pd.testing.assert_frame_equal(a[cols], b[cols], rtol=1e-10)
    boot_a = once.at_prevalence(0.2, ci="bootstrap", n_resamples=1500, random_state=0)
    boot_b = twice.at_prevalence(0.2, ci="bootstrap", n_resamples=1500, random_state=1)
    width_a = boot_a["ci_high"] - boot_a["ci_low"]
    width_b = boot_b["ci_high"] - boot_b["ci_low"]
    np.testing.assert_allclose(width_b, width_a, rtol=0.15)
    rp_a = (boot_a["ratio_ci_high"] - boot_a["ratio_ci_low"]).dropna()
    rp_b = (boot_b["ratio_ci_high"] - boot_b["ratio_ci_low"]).dropna()
    np.testing.assert_allclose(rp_b, rp_a, rtol=0.15)


@pytest.mark.parametrize("units_of", [_PrevalenceUnits, _ClusteredPrevalence])
def test_clustered_analytic_variance_is_the_sandwich(units_of):
    y, preds, groups = make_correlated_predictions(150, 3, 2, repeats=3, seed=7)
    result = _quiet_compare(y, preds, groups=groups)
    units = units_of(result._data, [0, 1, 2])
    tp, fp, n_pos, n_rows = units.totals()
    var = units.log_lr_variance(tp, fp, n_pos, n_rows)
    for ki, k in enumerate((0, 1, 2)):
        for c, name in enumerate(preds):
            p = preds[name]
            r = np.zeros(150)
            for i in range(150):
                rows = groups == i
                tp_i = np.sum((p[rows] == k) & (y[rows] == k))
                fp_i = np.sum((p[rows] == k) & (y[rows] != k))
                d_i = np.sum(y[rows] == k)
                r[i] = (
                    tp_i / tp[ki, c]
                    - d_i / n_pos[ki]
                    - fp_i / fp[ki, c]
                    + (rows.sum() - d_i) / (n_rows - n_pos[ki])
                )
            assert var[ki, c] == pytest.approx(np.sum(r**2), rel=1e-10)


def test_undefined_values_warn_and_are_nan():
    y = np.array([0] * 10 + [1] * 10 + [2] * 10)
    a = y.copy()
    a[0] = 1  # a: one false positive for class 1
    b = y.copy()
    b[b == 2] = 0  # b never predicts class 2 -> 0/0
    b[0] = 1
    result = _quiet_compare(y, {"a": a, "b": b})
    with pytest.warns(UndefinedStatisticWarning) as record:
        out = result.at_prevalence({0: 0.3, 2: 0.2}, n_resamples=50, random_state=0)
    messages = " ".join(str(w.message) for w in record)
    assert "'b' never predicts class(es) [2]" in messages
    assert "no false positives" in messages and "[2]" in messages
    rows = out.set_index(["class", "classifier"])
    assert np.isnan(rows.loc[(2, "b"), "precision_at_prevalence"])
    # a has no false positive of class 2: precision 1 at any prevalence,
    # analytic interval undefined.
    assert rows.loc[(2, "a"), "precision_at_prevalence"] == 1.0
    assert np.isnan(rows.loc[(2, "a"), "ci_low"])


@pytest.mark.parametrize(
    "prevalence, match",
    [
        (0.0, "strictly between 0 and 1"),
        (1.0, "strictly between 0 and 1"),
        ({0: 1.2}, r"strictly between 0 and 1, got 1.2 for class 0"),
        ({0: -0.1}, "strictly between 0 and 1"),
        ({0: True}, "strictly between 0 and 1"),
        ({0: 0.6, 1: 0.5}, "sum to 1.1"),
        ({7: 0.2}, r"class\(es\) \[7\] that are not in the comparison"),
        ({}, "empty dict"),
        ("0.2", "number .* or a dict"),
        ([0.2, 0.8], "number .* or a dict"),
    ],
)
def test_prevalence_validation(prevalence, match):
    y, preds, _ = make_correlated_predictions(100, 2, 2, seed=0)
    result = _quiet_compare(y, preds)
    with pytest.raises(ValueError, match=match):
        result.at_prevalence(prevalence)


def test_number_needs_a_binary_problem_with_01_labels():
    y, preds, _ = make_correlated_predictions(100, 3, 2, seed=0)
    with pytest.raises(ValueError, match=r"Pass a dict class -> prevalence"):
        _quiet_compare(y, preds).at_prevalence(0.2)
    y, preds, _ = make_correlated_predictions(100, 2, 2, seed=0, labels=["neg", "pos"])
    with pytest.raises(ValueError, match=r"prevalence=\{'pos': 0.2\}"):
        _quiet_compare(y, preds).at_prevalence(0.2)
    out = _quiet_compare(y, preds).at_prevalence({"pos": 0.2}, n_resamples=20, random_state=0)
    assert out["class"].tolist() == ["pos", "pos"]


def test_other_validation():
    y, preds, _ = make_correlated_predictions(100, 2, 2, seed=0)
    result = _quiet_compare(y, preds)
    with pytest.raises(ValueError, match="ci must be one of"):
        result.at_prevalence(0.2, ci="exact")
    with pytest.raises(ValueError, match="n_resamples must be an integer"):
        result.at_prevalence(0.2, n_resamples=0)
    with pytest.raises(ValueError, match="recall does not depend on prevalence"):
        compare_recall(y, preds).at_prevalence(0.2)
