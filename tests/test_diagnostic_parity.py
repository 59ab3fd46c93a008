"""Agreement with R's DTComPair (1.2.6, PropCIs 0.3-0, gee 4.13-25) on two data sets.

The reference values in tests/data/dtcompair_reference.json are DTComPair's
outputs on its example data Paired1 and on a simulated data set (Sim500);
every value is compared to 1e-9 relative through the public API. Where
DTComPair's convention differs from the cited paper, the comparison uses
``convention="dtcompair"``.
"""

import json
import math

import numpy as np
import pytest
from scipy import stats

from sklearn_precision_stats.diagnostic import (
    compare_likelihood_ratios,
    diagnostic_accuracy,
    exact_binomial_test,
    generalized_mcnemar,
    likelihood_ratio_regression,
    paired_table,
    relative_predictive_values,
    relative_sensitivity_specificity,
    relative_tpf_fpf,
    sensitivity_specificity_difference,
)

from .conftest import REFERENCE

RTOL = 1e-9
REF = json.loads((REFERENCE / "dtcompair_reference.json").read_text())["datasets"]
DATASETS = sorted(REF)
_NONFINITE = {"NaN": math.nan, "NA": math.nan, "Inf": math.inf, "-Inf": -math.inf}

# Largest relative difference per DTComPair function, filled by the tests.
MAX_REL = {}


def _num(value):
    return _NONFINITE[value] if isinstance(value, str) else float(value)


def _check(function, actual, expected, rtol=RTOL, atol=0.0):
    expected = _num(expected)
    actual = float(actual)
    if math.isnan(expected):
        assert math.isnan(actual)
        return
    rel = abs(actual - expected) / abs(expected) if expected else abs(actual)
    MAX_REL[function] = max(MAX_REL.get(function, 0.0), rel)
    assert actual == pytest.approx(expected, rel=rtol, abs=atol), function


def _check_chisq_pvalue(function, actual, expected):
    # R computes these p-values as 1 - pchisq(...): absolute error ~1e-16.
    expected = _num(expected)
    if expected > 1e-6:
        _check(function, actual, expected)
    else:
        assert abs(actual - expected) < 1e-15


def _data(name):
    data = REF[name]["data"]
    y = np.asarray(data["d"])
    preds = {"y1": np.asarray(data["y1"]), "y2": np.asarray(data["y2"])}
    return y, preds, REF[name]["results"]


SESP = ("sensitivity", "specificity")
ACC_MEASURES = ("sensitivity", "specificity", "ppv", "npv", "pdlr", "ndlr")
CI_METHODS = {
    "waldci": "wald",
    "logitci": "logit",
    "exactci": "clopper-pearson",
    "add4ci": "add4",
    "addz2ci": "agresti-coull",
    "scoreci": "wilson",
    "blakerci": "blaker",
    "midPci": "mid-p",
}


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("r_method", sorted(CI_METHODS))
def test_acc_1test(name, r_method):
    y, preds, ref = _data(name)
    res = diagnostic_accuracy(
        y, preds, labels=[1], ci_method=CI_METHODS[r_method], convention="dtcompair"
    )
    for c, test in enumerate(("y1", "y2")):
        for m, measure in enumerate(ACC_MEASURES):
            expected = ref["acc.1test"][test][r_method][measure]
            _check("acc.1test", res.estimate[0, c, m], expected["est"])
            se_key = "se.ln" if measure in ("pdlr", "ndlr") else "se"
            _check("acc.1test", res.se[0, c, m], expected[se_key])
            _check("acc.1test", res.ci_low[0, c, m], expected["lcl"])
            _check("acc.1test", res.ci_high[0, c, m], expected["ucl"])


@pytest.mark.parametrize("name", DATASETS)
def test_acc_paired(name):
    y, preds, ref = _data(name)
    res = diagnostic_accuracy(y, preds, labels=[1], convention="dtcompair")
    for c, test in enumerate(("Test1", "Test2")):
        for m, measure in enumerate(ACC_MEASURES):
            expected = ref["acc.paired"][test][measure]
            _check("acc.paired", res.estimate[0, c, m], expected["est"])
            _check("acc.paired", res.ci_low[0, c, m], expected["lcl"])
            _check("acc.paired", res.ci_high[0, c, m], expected["ucl"])


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize(
    ("method", "tolerance"), [("wilson", 5e-5), ("blaker", 1e-5), ("mid-p", 5e-4)]
)
def test_exact_limits_within_r_resolution(name, method, tolerance):
    # The paper convention computes the limits to machine precision; R's are
    # rounded (Wilson), stepped (Blaker) or on a grid (mid-p).
    y, preds, ref = _data(name)
    r_method = {"wilson": "scoreci", "blaker": "blakerci", "mid-p": "midPci"}[method]
    res = diagnostic_accuracy(y, preds, labels=[1], ci_method=method)
    for c, test in enumerate(("y1", "y2")):
        for m, measure in enumerate(ACC_MEASURES[:4]):
            expected = ref["acc.1test"][test][r_method][measure]
            assert abs(res.ci_low[0, c, m] - expected["lcl"]) <= tolerance
            assert abs(res.ci_high[0, c, m] - expected["ucl"]) <= tolerance


@pytest.mark.parametrize("name", DATASETS)
def test_sesp_mcnemar_and_generalized(name):
    y, preds, ref = _data(name)
    res = generalized_mcnemar(y, preds, labels=[1])
    for i, (measure, stat) in enumerate(
        zip(SESP, (res.statistic_sensitivity, res.statistic_specificity), strict=False)
    ):
        expected = ref["sesp.mcnemar"][measure]
        _check("sesp.mcnemar", stat[0, 0], expected["test.statistic"])
        _check_chisq_pvalue("sesp.mcnemar", stats.chi2.sf(stat[0, 0], 1), expected["p.value"])
        del i
    _check("sesp.gen.mcnemar", res.statistic[0, 0], ref["sesp.gen.mcnemar"]["test.statistic"])
    _check_chisq_pvalue("sesp.gen.mcnemar", res.pvalue[0, 0], ref["sesp.gen.mcnemar"]["p.value"])


@pytest.mark.parametrize("name", DATASETS)
def test_sesp_exactbinom(name):
    y, preds, ref = _data(name)
    res = exact_binomial_test(y, preds, labels=[1], convention="dtcompair")
    for i, measure in enumerate(SESP):
        expected = ref["sesp.exactbinom"][measure]
        _check("sesp.exactbinom", res.value_reference[0, 0, i], expected["test1"])
        _check("sesp.exactbinom", res.value[0, 0, i], expected["test2"])
        _check("sesp.exactbinom", res.pvalue[0, 0, i], expected["p.value"])
    # Away from u = v (no capping) the paper convention gives the same p.
    paper = exact_binomial_test(y, preds, labels=[1])
    np.testing.assert_allclose(paper.pvalue, res.pvalue, rtol=1e-15)


DIFF_METHODS = {
    "wald": "wald",
    "wald.cc": "wald-cc",
    "agresti-min": "agresti-min",
    "bonett-price": "bonett-price",
    "tango": "tango",
}


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("r_key", sorted(DIFF_METHODS))
def test_sesp_diff_ci(name, r_key):
    y, preds, ref = _data(name)
    res = sensitivity_specificity_difference(
        y, preds, labels=[1], method=DIFF_METHODS[r_key], convention="dtcompair"
    )
    for i, measure in enumerate(SESP):
        expected = ref["sesp.diff.ci"][r_key][measure]
        for key, arr in (
            ("test1", res.value_reference),
            ("test2", res.value),
            ("diff", res.diff),
            ("diff.se", res.se),
            ("diff.lcl", res.ci_low),
            ("diff.ucl", res.ci_high),
        ):
            _check("sesp.diff.ci", arr[0, 0, i], expected[key])


@pytest.mark.parametrize("name", DATASETS)
def test_tango_exact_root_close_to_halving_search(name):
    # The paper convention solves the score equation exactly; PropCIs'
    # halving search stops within about 1e-7.
    y, preds, ref = _data(name)
    res = sensitivity_specificity_difference(y, preds, labels=[1], method="tango")
    for i, measure in enumerate(SESP):
        expected = ref["sesp.diff.ci"]["tango"][measure]
        assert abs(res.ci_low[0, 0, i] - expected["diff.lcl"]) < 1e-6
        assert abs(res.ci_high[0, 0, i] - expected["diff.ucl"]) < 1e-6


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize(
    ("function", "key", "names", "measures"),
    [
        (relative_sensitivity_specificity, "sesp.rel", ("sens", "spec"), SESP),
        (relative_tpf_fpf, "tpffpf.rel", ("tpf", "fpf"), ("tpf", "fpf")),
    ],
)
def test_relative_sesp_tpffpf(name, function, key, names, measures):
    y, preds, ref = _data(name)
    res = function(y, preds, labels=[1])
    low, high = res.confidence_interval(0.95)
    for i, (short, measure) in enumerate(zip(names, measures, strict=False)):
        expected = ref[key][measure]
        pairs = [
            (f"rel.{short}", res.ratio),
            (f"se.log.rel.{short}", res.se_log),
            (f"lcl.rel.{short}", low),
            (f"ucl.rel.{short}", high),
            (f"pval.rel.{short}", res.pvalue),
            ("test1", res.value_reference),
            ("test2", res.value),
        ]
        for r_key, arr in pairs:
            if r_key in expected:
                _check(key, arr[0, 0, i], expected[r_key])


@pytest.mark.parametrize("name", DATASETS)
def test_pv_rpv_with_sigma(name):
    y, preds, ref = _data(name)
    res = relative_predictive_values(y, preds, labels=[1])
    low, high = res.confidence_interval(0.95)
    for i, measure in enumerate(("ppv", "npv")):
        expected = ref["pv.rpv"][measure]
        for key, arr in (
            ("test1", res.value_reference),
            ("test2", res.value),
            (f"r{measure}", res.ratio),
            (f"se.log.r{measure}", res.se_log),
            (f"lcl.r{measure}", low),
            (f"ucl.r{measure}", high),
            ("test.statistic", res.statistic),
            ("p.value", res.pvalue),
        ):
            _check("pv.rpv", arr[0, 0, i], expected[key])
    sigma = ref["pv.rpv"]["Sigma"]
    for i, a in enumerate(("log.rppv", "log.rnpv")):
        for j, b in enumerate(("log.rppv", "log.rnpv")):
            _check("pv.rpv", res.covariance[0, 0, i, j], sigma[a][b])


@pytest.mark.parametrize("name", DATASETS)
def test_dlr_regtest(name):
    y, preds, ref = _data(name)
    res = compare_likelihood_ratios(y, preds, labels=[1], convention="dtcompair")
    low, high = res.confidence_interval(0.95)
    for i, measure in enumerate(("pdlr", "ndlr")):
        expected = ref["dlr.regtest"][measure]
        for key, arr in (
            ("test1", res.value_reference),
            ("test2", res.value),
            ("ratio", res.ratio),
            ("se.log", res.se_log),
            ("test.statistic", res.statistic),
            ("p.value", res.pvalue),
            ("lcl", low),
            ("ucl", high),
        ):
            _check("dlr.regtest", arr[0, 0, i], expected[key])


GEE_COLUMNS = ["Estimate", "Naive S.E.", "Naive z", "Robust S.E.", "Robust z"]
DLR_COLUMNS = ["coefs", "robustSE", "Zstat", "pvalue", "lowerCI", "upperCI"]


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize(
    ("model", "classifier", "given"),
    [("y1", "y1", None), ("y2", "y2", None), ("y1|y2", "y1", "y2"), ("y2|y1", "y2", "y1")],
)
def test_dlr_regression(name, model, classifier, given):
    y, preds, ref = _data(name)
    res = likelihood_ratio_regression(y, preds, classifier=classifier, given=given, labels=[1])
    expected = ref["DLR"][model]
    for arr, key in ((res.pretest, "logPreTestModel"), (res.posttest, "logPostTestModel")):
        rows = list(expected[key].values())
        assert len(rows) == arr.shape[1]
        for t, row in enumerate(rows):
            for c, column in enumerate(GEE_COLUMNS):
                _check("DLR", arr[0, t, c], row[column])
    for t, row in enumerate(expected["logDLRModel"].values()):
        for c, column in enumerate(DLR_COLUMNS):
            _check("DLR", res.log_dlr[0, t, c], row[column])
    for t, row in enumerate(expected["DLR"].values()):
        for c, column in enumerate(["DLR", "lowerCI", "upperCI"]):
            _check("DLR", res.dlr[0, t, c], row[column])
    assert res.posttest_terms[-1] == (f"{given}:{classifier}" if given else classifier)


@pytest.mark.parametrize("name", DATASETS)
def test_tab_paired(name):
    y, preds, _ = _data(name)
    row = paired_table(y, preds, labels=[1]).iloc[0]
    expected = REF[name]["counts"]
    for status, prefix in (("diseased", "d"), ("nondiseased", "nd")):
        for cell, suffix in (
            ("both_positive", "a"),
            ("only_classifier_positive", "b"),
            ("only_reference_positive", "c"),
            ("both_negative", "d"),
        ):
            assert row[f"{status}_{cell}"] == expected[f"{prefix}.{suffix}"]


def test_parity_table_is_complete():
    # Every DTComPair function in the reference file is checked above (the
    # role-based pv.gs, pv.wgs and pv.prev belong to the paired comparisons).
    checked = {
        "acc.1test",
        "acc.paired",
        "sesp.mcnemar",
        "sesp.exactbinom",
        "sesp.diff.ci",
        "sesp.rel",
        "sesp.gen.mcnemar",
        "tpffpf.rel",
        "pv.rpv",
        "DLR",
        "dlr.regtest",
    }
    roles = {"pv.gs", "pv.wgs", "pv.prev"}
    for name in DATASETS:
        assert set(REF[name]["results"]) == checked | roles
