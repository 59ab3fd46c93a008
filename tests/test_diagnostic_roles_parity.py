"""DTComPair functions covered by the paired comparisons (roles), against R.

``pv.gs`` and ``pv.wgs`` are the GS and WGS tests of compare_precision and
compare_npv, ``pv.rpv`` their ``ratio`` columns, ``sesp.mcnemar`` the GS test
of compare_recall and compare_specificity (one row per record), and
``pv.prev``'s PPV the precision at a prevalence. R's NPV at a prevalence
(which divides by the NDLR) is not reproduced; the NPV by Bayes' rule is
checked against a hand computation.
"""

import json
import math

import numpy as np
import pytest

import sklearn_precision_stats as sps
from sklearn_precision_stats.diagnostic import diagnostic_accuracy

from .conftest import REFERENCE

REF = json.loads((REFERENCE / "dtcompair_reference.json").read_text())["datasets"]
DATASETS = sorted(REF)
RTOL = 1e-9


def _data(name):
    data = REF[name]["data"]
    return (
        np.asarray(data["d"]),
        {"y1": np.asarray(data["y1"]), "y2": np.asarray(data["y2"])},
        REF[name]["results"],
    )


def _chisq_p(actual, expected):
    # R computes 1 - pchisq(...): compare relatively only above 1e-6.
    if expected > 1e-6:
        assert actual == pytest.approx(expected, rel=RTOL)
    else:
        assert abs(actual - expected) < 1e-15


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize(
    ("function", "key"), [("compare_precision", "ppv"), ("compare_npv", "npv")]
)
def test_pv_gs_wgs_rpv(name, function, key):
    y, preds, ref = _data(name)
    row = getattr(sps, function)(y, preds, labels=[1]).table.iloc[0]
    metric = "precision" if key == "ppv" else "npv"
    for r_name, column in (("pv.gs", "gs"), ("pv.wgs", "wgs")):
        expected = ref[r_name][key]
        assert row[metric] == pytest.approx(expected["test2"], rel=RTOL)
        assert row[f"{metric}_reference"] == pytest.approx(expected["test1"], rel=RTOL)
        assert row[f"{column}_stat"] == pytest.approx(expected["test.statistic"], rel=RTOL)
        _chisq_p(row[f"{column}_pvalue"], expected["p.value"])
    expected = ref["pv.rpv"][key]
    assert row["ratio"] == pytest.approx(expected[f"r{key}"], rel=RTOL)
    assert row["ratio_se_log"] == pytest.approx(expected[f"se.log.r{key}"], rel=RTOL)
    assert row["ratio_ci_low"] == pytest.approx(expected[f"lcl.r{key}"], rel=RTOL)
    assert row["ratio_ci_high"] == pytest.approx(expected[f"ucl.r{key}"], rel=RTOL)
    assert row["ratio_pvalue"] == pytest.approx(expected["p.value"], rel=RTOL)


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize(
    ("function", "key"), [("compare_recall", "sensitivity"), ("compare_specificity", "specificity")]
)
def test_sesp_mcnemar(name, function, key):
    y, preds, ref = _data(name)
    row = getattr(sps, function)(y, preds, labels=[1]).table.iloc[0]
    expected = ref["sesp.mcnemar"][key]
    assert row["gs_stat"] == pytest.approx(expected["test.statistic"], rel=RTOL)
    _chisq_p(row["gs_pvalue"], expected["p.value"])
    assert row["diff"] == pytest.approx(expected["diff"], rel=RTOL)


@pytest.mark.parametrize("name", DATASETS)
def test_pv_prev_ppv(name):
    y, preds, ref = _data(name)
    res = sps.compare_precision(y, preds, labels=[1])
    for pi in (0.1, 0.3):
        frame = res.at_prevalence({1: pi}, n_resamples=20, random_state=0)
        for test in ("y1", "y2"):
            expected = ref["pv.prev"][test][f"pi={pi}"]
            row = frame[frame["classifier"] == test].iloc[0]
            assert row["precision_at_prevalence"] == pytest.approx(expected["ppv_est"], rel=RTOL)
            assert row["ci_low"] == pytest.approx(expected["ppv_lcl"], rel=RTOL)
            assert row["ci_high"] == pytest.approx(expected["ppv_ucl"], rel=RTOL)


@pytest.mark.parametrize("name", DATASETS)
def test_npv_at_prevalence_by_bayes_not_r(name):
    # R's pv.prev returns 1 / (1 + (pi / (1 - pi)) / NDLR); Bayes' rule gives
    # NPV(pi) = 1 / (1 + (pi / (1 - pi)) NDLR). The NDLR comes from
    # diagnostic_accuracy; R's value is its (wrong) transform of the same NDLR.
    y, preds, ref = _data(name)
    acc = diagnostic_accuracy(y, preds, labels=[1])
    for c, test in enumerate(("y1", "y2")):
        ndlr = acc.estimate[0, c, 5]
        for expected in ref["pv.prev"][test].values():
            odds = expected["pi"] / (1 - expected["pi"])
            assert 1 / (1 + odds / ndlr) == pytest.approx(expected["npv_est"], rel=RTOL)
            bayes = 1 / (1 + odds * ndlr)
            tn_share = (1 - expected["pi"]) * acc.estimate[0, c, 1]
            fn_share = expected["pi"] * (1 - acc.estimate[0, c, 0])
            assert bayes == pytest.approx(tn_share / (tn_share + fn_share), rel=1e-12)
            assert not math.isclose(bayes, expected["npv_est"], rel_tol=1e-3)
