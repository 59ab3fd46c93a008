"""Every measure through one engine, checked against independent implementations.

Precision, NPV, recall, specificity and accuracy differ only in which rows
enter the marginal model and what the response is; each is checked against
statsmodels GEE fitted on that role's own rows (paired and clustered, 2 to 4
classifiers), against R DTComPair's values where it has them (``pv.gs``,
``pv.wgs``, ``pv.rpv``, ``sesp.mcnemar``), and against McNemar's test and
Cochran's Q for accuracy.
"""

import json
import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import cochrans_q, mcnemar
from statsmodels.stats.proportion import proportion_confint

from sklearn_precision_stats import (
    PairedComparison,
    UndefinedStatisticWarning,
    compare_accuracy,
    compare_npv,
    compare_precision,
    compare_recall,
    compare_specificity,
)

from .conftest import REFERENCE, assert_reciprocal_ratios, make_correlated_predictions

RTOL = 1e-9
FUNCTIONS = {
    "precision": compare_precision,
    "npv": compare_npv,
    "recall": compare_recall,
    "specificity": compare_specificity,
    "accuracy": compare_accuracy,
}


def _role_rows(metric, y, pred, label):
    """(rows in the model, response) of one classifier for one class, by definition."""
    if metric == "precision":
        return pred == label, y == label
    if metric == "npv":
        return pred != label, y != label
    if metric == "recall":
        return y == label, pred == label
    if metric == "specificity":
        return y != label, pred != label
    return np.ones(y.shape, dtype=bool), pred == y


def _gee_fit(metric, y, preds, groups, label, names, link=None):
    endog, clf, grp = [], [], []
    for j, name in enumerate(names):
        rows, response = _role_rows(metric, y, preds[name], label)
        endog.append(response[rows].astype(float))
        clf.append(np.full(rows.sum(), j))
        grp.append(groups[rows])
    endog, clf, grp = map(np.concatenate, (endog, clf, grp))
    exog = np.column_stack([np.ones_like(endog)] + [clf == j for j in range(1, len(names))])
    family = sm.families.Binomial() if link is None else sm.families.Binomial(link=link)

    def fit(x):
        model = sm.GEE(endog, x, groups=grp, family=family, cov_struct=sm.cov_struct.Independence())
        return model, model.fit()

    model, full = fit(exog.astype(float))
    _, null = fit(np.ones((endog.size, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        score = model.compare_score_test(null)["statistic"]
    b, cov = full.params[1:], full.cov_params()[1:, 1:]
    return {"wald": float(b @ np.linalg.solve(cov, b)), "gs": score, "fit": full}


@pytest.mark.parametrize("metric", ["npv", "specificity", "accuracy", "recall", "precision"])
@pytest.mark.parametrize("n_classifiers", [2, 3, 4])
@pytest.mark.parametrize("repeats", [1, 3])
def test_every_role_matches_statsmodels_gee(metric, n_classifiers, repeats):
    y, preds, groups = make_correlated_predictions(
        120, 3, n_classifiers, repeats=repeats, seed=7 * n_classifiers + repeats
    )
    names = list(preds)
    result = FUNCTIONS[metric](y, preds, groups=groups if repeats > 1 else None)
    assert result.metric == metric
    if repeats == 1:
        groups = np.arange(y.size)
    labels = [None] if metric == "accuracy" else result.classes
    for label in labels:
        key = "all" if label is None else label
        for other in names[1:]:
            ref = _gee_fit(metric, y, preds, groups, label, [names[0], other])
            row = result.get(key, other)
            # An exact 0 here is a few 1e-30 after statsmodels' iterations.
            np.testing.assert_allclose(row["wald_stat"], ref["wald"], rtol=RTOL, atol=1e-20)
            np.testing.assert_allclose(row["gs_stat"], ref["gs"], rtol=RTOL, atol=1e-20)
            np.testing.assert_allclose(row["log_or"], ref["fit"].params[1], rtol=RTOL, atol=1e-14)
            np.testing.assert_allclose(row["log_or_se"], ref["fit"].bse[1], rtol=RTOL)
        omni = result.omnibus.set_index("class").loc[key]
        ref = _gee_fit(metric, y, preds, groups, label, names)
        np.testing.assert_allclose(omni["wald_stat"], ref["wald"], rtol=RTOL, atol=1e-20)
        np.testing.assert_allclose(omni["gs_stat"], ref["gs"], rtol=RTOL, atol=1e-20)


@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.DomainWarning")
@pytest.mark.parametrize("metric", ["precision", "npv", "specificity"])
@pytest.mark.parametrize("repeats", [1, 2])
def test_difference_is_the_identity_link_sandwich(metric, repeats):
    # The difference and its se are the identity-link GEE's contrast and
    # robust se: the model is saturated, so the cell means are the fit.
    y, preds, groups = make_correlated_predictions(300, 2, 2, repeats=repeats, seed=11)
    result = FUNCTIONS[metric](y, preds, groups=groups if repeats > 1 else None)
    if repeats == 1:
        groups = np.arange(y.size)
    for label in result.classes:
        ref = _gee_fit(metric, y, preds, groups, label, list(preds), sm.families.links.Identity())
        row = result.get(label)
        np.testing.assert_allclose(row["diff"], ref["fit"].params[1], rtol=RTOL)
        np.testing.assert_allclose(row["diff_se"], ref["fit"].bse[1], rtol=1e-7)
        z = 1.959963984540054
        np.testing.assert_allclose(
            [row["diff_ci_low"], row["diff_ci_high"]],
            [row["diff"] - z * row["diff_se"], row["diff"] + z * row["diff_se"]],
            rtol=1e-12,
        )


def test_measure_interval_is_wilson_on_paired_rows():
    y, preds, _ = make_correlated_predictions(200, 3, 2, seed=3)
    for metric in ("precision", "npv", "recall", "specificity", "accuracy"):
        result = FUNCTIONS[metric](y, preds, confidence_level=0.9)
        t = result.table
        for _, row in t.iterrows():
            for suffix in ("", "_reference"):
                n = row["n" + suffix]
                k = round(row[metric + suffix] * n)
                low, high = proportion_confint(k, n, alpha=0.1, method="wilson")
                np.testing.assert_allclose(
                    [row[f"{metric}{suffix}_ci_low"], row[f"{metric}{suffix}_ci_high"]],
                    [low, high],
                    rtol=1e-12,
                )


# --- R DTComPair --------------------------------------------------------------


def _dtcompair():
    return json.loads((REFERENCE / "dtcompair_reference.json").read_text())["datasets"]


@pytest.mark.parametrize("name", ["Paired1", "Sim500"])
def test_predictive_values_match_dtcompair(name):
    data = _dtcompair()[name]
    d, y1, y2 = (np.asarray(data["data"][k]) for k in ("d", "y1", "y2"))
    preds = {"y1": y1, "y2": y2}
    res = data["results"]
    for metric, key, ratio in (("precision", "ppv", "rppv"), ("npv", "npv", "rnpv")):
        row = FUNCTIONS[metric](d, preds, reference="y1").get(1)
        gs, wgs, rpv = res["pv.gs"][key], res["pv.wgs"][key], res["pv.rpv"][key]
        np.testing.assert_allclose(row[metric], gs["test2"], rtol=RTOL)
        np.testing.assert_allclose(row[f"{metric}_reference"], gs["test1"], rtol=RTOL)
        np.testing.assert_allclose(row["diff"], gs["diff"], rtol=RTOL)
        np.testing.assert_allclose(row["gs_stat"], gs["test.statistic"], rtol=RTOL)
        np.testing.assert_allclose(row["gs_pvalue"], gs["p.value"], rtol=RTOL)
        np.testing.assert_allclose(row["wgs_stat"], wgs["test.statistic"], rtol=RTOL)
        np.testing.assert_allclose(row["wgs_pvalue"], wgs["p.value"], rtol=RTOL)
        np.testing.assert_allclose(row["ratio"], rpv[ratio], rtol=RTOL)
        np.testing.assert_allclose(row["ratio_se_log"], rpv[f"se.log.{ratio}"], rtol=RTOL)
        np.testing.assert_allclose(row["ratio_ci_low"], rpv[f"lcl.{ratio}"], rtol=RTOL)
        np.testing.assert_allclose(row["ratio_ci_high"], rpv[f"ucl.{ratio}"], rtol=RTOL)
        np.testing.assert_allclose(row["ratio_pvalue"], rpv["p.value"], rtol=RTOL)


@pytest.mark.parametrize("name", ["Paired1", "Sim500"])
def test_sensitivity_specificity_scores_match_dtcompair_mcnemar(name):
    data = _dtcompair()[name]
    d, y1, y2 = (np.asarray(data["data"][k]) for k in ("d", "y1", "y2"))
    preds = {"y1": y1, "y2": y2}
    ref = data["results"]["sesp.mcnemar"]
    for metric, key in (("recall", "sensitivity"), ("specificity", "specificity")):
        row = FUNCTIONS[metric](d, preds, reference="y1").get(1)
        np.testing.assert_allclose(row[metric], ref[key]["test2"], rtol=RTOL)
        np.testing.assert_allclose(row["diff"], ref[key]["diff"], rtol=RTOL)
        np.testing.assert_allclose(row["gs_stat"], ref[key]["test.statistic"], rtol=RTOL)
        np.testing.assert_allclose(row["gs_pvalue"], ref[key]["p.value"], rtol=1e-7)


# --- accuracy: McNemar and Cochran's Q ------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_accuracy_score_test_is_mcnemar(seed):
    y, preds, _ = make_correlated_predictions(150, 3, 2, seed=seed)
    a, b = (p == y for p in preds.values())
    table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
    ref = mcnemar(table, exact=False, correction=False)
    row = compare_accuracy(y, preds).get("all")
    np.testing.assert_allclose(row["gs_stat"], ref.statistic, rtol=RTOL)
    np.testing.assert_allclose(row["gs_pvalue"], ref.pvalue, rtol=RTOL)


@pytest.mark.parametrize("n_classifiers", [2, 3, 4])
def test_accuracy_omnibus_is_cochrans_q_with_exchangeable_covariance(n_classifiers):
    # The omnibus score test is U' V^-1 U with the empirical covariance V of
    # the within-record deviations; Cochran's Q is the same form with V
    # replaced by its exchangeable version (equal for two classifiers).
    y, preds, _ = make_correlated_predictions(200, 3, n_classifiers, seed=n_classifiers)
    x = np.column_stack([p == y for p in preds.values()]).astype(float)
    c = n_classifiers
    dev = x - x.mean(axis=1, keepdims=True)
    u = (x.sum(axis=0) - x.sum() / c)[1:]
    exchangeable = (dev**2).sum() / (c - 1) * (np.eye(c) - 1.0 / c)
    q_form = u @ np.linalg.solve(exchangeable[1:, 1:], u)
    q = cochrans_q(x)
    np.testing.assert_allclose(q_form, q.statistic, rtol=RTOL)
    empirical = dev.T @ dev
    gs = compare_accuracy(y, preds).omnibus["gs_stat"].iloc[0]
    np.testing.assert_allclose(gs, u @ np.linalg.solve(empirical[1:, 1:], u), rtol=RTOL)
    if c == 2:
        np.testing.assert_allclose(gs, q.statistic, rtol=RTOL)


def test_accuracy_pools_the_classes():
    y, preds, _ = make_correlated_predictions(100, 4, 2, seed=1)
    result = compare_accuracy(y, preds)
    assert result.classes.tolist() == ["all"]
    assert len(result.table) == 1
    assert result.get("all")["n"] == 100
    with pytest.raises(ValueError, match="labels"):
        compare_accuracy(y, preds, labels=[0, 1])
    with pytest.raises(ValueError, match="pools the classes"):
        result.global_test()


# --- properties -------------------------------------------------------------------


@st.composite
def binary_predictions(draw):
    n = draw(st.integers(8, 60))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    a = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    b = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    return y, {"a": a, "b": b}


STAT_COLUMNS = ["gs_stat", "wgs_stat", "wald_stat", "log_or", "ratio", "diff", "diff_se"]


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return func(*args, **kwargs)


@settings(max_examples=60, deadline=None)
@given(binary_predictions())
def test_binary_classes_mirror_each_other(data):
    # One-vs-rest in a binary problem: NPV of class k is precision of the
    # other class, specificity of k is recall of the other class.
    y, preds = data
    for mirror, base in (("npv", "precision"), ("specificity", "recall")):
        m = _quiet(FUNCTIONS[mirror], y, preds)
        b = _quiet(FUNCTIONS[base], y, preds)
        for k in m.classes:
            other = 1 - k
            if other not in b.classes:
                continue
            row_m, row_b = m.get(k), b.get(other)
            np.testing.assert_allclose(row_m[mirror], row_b[base], rtol=1e-12)
            np.testing.assert_allclose(
                row_m[STAT_COLUMNS].astype(float),
                row_b[STAT_COLUMNS].astype(float),
                rtol=1e-9,
                atol=1e-12,
            )


@settings(max_examples=40, deadline=None)
@given(binary_predictions(), st.sampled_from(sorted(FUNCTIONS)))
def test_swapping_classifier_and_reference(data, metric):
    y, preds = data
    ab = _quiet(FUNCTIONS[metric], y, preds, reference="a").table
    ba = _quiet(FUNCTIONS[metric], y, preds, reference="b").table
    for col in ("gs_pvalue", "wgs_pvalue", "wald_pvalue", "ratio_pvalue", "diff_se"):
        np.testing.assert_allclose(ab[col], ba[col], rtol=1e-9, atol=1e-12)
    assert_reciprocal_ratios(ab["ratio"], ba["ratio"])
    np.testing.assert_allclose(ab["log_or"], -ba["log_or"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ab["diff"], -ba["diff"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ab["ratio_ci_low"], 1 / ba["ratio_ci_high"], rtol=1e-9)


def test_results_are_frozen_and_own_their_data():
    y = np.array([0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1])
    a = np.array([0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0])
    b = np.array([0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1])
    result = compare_precision(y, {"b": b, "a": a})
    assert isinstance(result, PairedComparison)
    before = result.table.copy()
    global_before = result.global_test(n_resamples=50, random_state=0)
    with pytest.raises(AttributeError, match="frozen"):
        result.confidence_level = 0.5
    with pytest.raises(AttributeError, match="frozen"):
        result.table = None
    # Editing a returned table, or the caller's arrays, changes nothing.
    table = result.table
    table.loc[:, "gs_pvalue"] = 0.0
    b[:] = a
    y[:] = 0
    assert result.table.equals(before)
    again = result.global_test(n_resamples=50, random_state=0)
    assert again.pvalue == global_before.pvalue
    assert not result.classes.flags.writeable
    assert all(not a.flags.writeable for a in result._data.records._arrays.values())


def test_confidence_level_is_an_argument_not_state():
    y, preds, _ = make_correlated_predictions(200, 2, 2, seed=2)
    result = compare_precision(y, preds)
    wide = result.to_frame(confidence_level=0.99)
    assert (wide["ratio_ci_low"] <= result.table["ratio_ci_low"]).all()
    assert result.to_frame(0.95).equals(result.table)
    again = compare_precision(y, preds, confidence_level=0.99).table
    np.testing.assert_allclose(again["ratio_ci_high"], wide["ratio_ci_high"], rtol=1e-12)
    assert "99% CI" in result.summary(confidence_level=0.99).as_text()
    with pytest.raises(ValueError, match="confidence_level"):
        result.to_frame(confidence_level=1.0)


def test_classic_results_unpack_like_scipy():
    from sklearn_precision_stats import mcnemar_test

    y = [0, 1, 1, 0, 1, 0, 1, 1]
    res = mcnemar_test(y, [0, 1, 0, 0, 1, 1, 1, 1], [1, 1, 1, 0, 0, 0, 1, 0])
    stat, p = res
    assert (stat, p) == (res.statistic, res.pvalue)
    assert "<table>" in res._repr_html_()


# --- NPV at a known prevalence ----------------------------------------------------


@pytest.mark.parametrize("name", ["Paired1", "Sim500"])
def test_npv_at_prevalence_matches_dtcompair_through_its_formula(name):
    # DTComPair pv.prev computes NPV as 1 / (1 + (pi / (1 - pi)) / NDLR),
    # dividing by the negative likelihood ratio where Bayes multiplies: its
    # value is 1 - NPV at prevalence 1 - pi (the probability of the class
    # after a negative result), and its limits map the same way.
    data = _dtcompair()[name]
    d, y1, y2 = (np.asarray(data["data"][k]) for k in ("d", "y1", "y2"))
    ref = data["results"]["pv.prev"]
    result = compare_npv(d, {"y1": y1, "y2": y2})
    for pi in (0.1, 0.3):
        out = result.at_prevalence({1: 1 - pi, 0: pi}, n_resamples=20, random_state=0)
        for clf in ("y1", "y2"):
            row = out[(out["class"] == 1) & (out["classifier"] == clf)].iloc[0]
            r = ref[clf][f"pi={pi}"]
            np.testing.assert_allclose(1 - row["npv_at_prevalence"], r["npv_est"], rtol=RTOL)
            np.testing.assert_allclose(1 - row["ci_high"], r["npv_lcl"], rtol=RTOL)
            np.testing.assert_allclose(1 - row["ci_low"], r["npv_ucl"], rtol=RTOL)
            # Bayes by hand from sensitivity and specificity.
            pred = {"y1": y1, "y2": y2}[clf]
            se, sp = np.mean(pred[d == 1] == 1), np.mean(pred[d == 0] == 0)
            npv = sp * pi / (sp * pi + (1 - se) * (1 - pi))
            np.testing.assert_allclose(row["npv_at_prevalence"], npv, rtol=RTOL)


def test_npv_at_prevalence_clustered_identical_repeats_equal_one_pass():
    y, preds, _ = make_correlated_predictions(300, 2, 2, seed=4)
    once = compare_npv(y, preds).at_prevalence({1: 0.2}, n_resamples=20, random_state=0)
    groups = np.tile(np.arange(y.size), 3)
    stacked = compare_npv(
        np.tile(y, 3), {k: np.tile(v, 3) for k, v in preds.items()}, groups=groups
    ).at_prevalence({1: 0.2}, n_resamples=20, random_state=0)
    for col in ("npv", "npv_at_prevalence", "ci_low", "ci_high"):
        np.testing.assert_allclose(stacked[col], once[col], rtol=1e-9)
    with pytest.raises(ValueError, match="does not depend on prevalence"):
        compare_recall(y, preds).at_prevalence({1: 0.2})


def test_global_and_replicability_results_unpack_and_are_frozen():
    from sklearn.datasets import load_breast_cancer
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    from sklearn_precision_stats import replicability

    y, preds, _ = make_correlated_predictions(300, 3, 2, seed=9)
    res = compare_precision(y, preds).global_test(n_resamples=100, random_state=0)
    stat, p = res
    assert (stat, p) == (res.statistic, res.pvalue)
    with pytest.raises(AttributeError):
        res.pvalue = 0.0
    X, yb = load_breast_cancer(return_X_y=True)
    rep = replicability(
        {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)},
        X,
        yb,
        label=1,
        metric="recall",
        test="wald",
        sample_sizes=(1.0,),
        test_sizes=(0.3,),
        n_repeats=4,
        random_state=0,
    )
    stat, p = rep
    assert 0 <= stat <= 1 and 0 <= p <= 1
    assert {"recall", "recall_reference"} <= set(rep.experiments.columns)
    table = rep.table
    table.loc[:, "replicability"] = -1.0
    assert (rep.table["replicability"] >= 0).all()
    with pytest.raises(AttributeError):
        rep.test = "gs"


def test_pandas_inputs_with_different_indexes_are_an_error():
    pd = pytest.importorskip("pandas")
    y = pd.Series([0, 1, 1, 0, 1, 0, 1, 1])
    a = pd.Series([0, 1, 1, 0, 1, 1, 0, 1])
    shuffled = a.sample(frac=1, random_state=0)
    for func in FUNCTIONS.values():
        with pytest.raises(ValueError, match=r"y_true and y_preds\['b'\].*different indexes"):
            func(y, {"a": a, "b": shuffled})
    with pytest.raises(ValueError, match="y_true and groups"):
        compare_precision(y, {"a": a, "b": a}, groups=pd.Series(range(8), index=range(8, 16)))
    # The same index, or plain arrays, are paired by position as given.
    _quiet(compare_precision, y, {"a": a, "b": shuffled.to_numpy()})


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.array([0.1, 0.7, 0.9, 0.2, 0.8, 0.3]), r"y_preds\['b'\] has continuous values"),
        (np.array(["a", 1, 1, 0, 1, 0], dtype=object), r"y_preds\['b'\] mixes strings and numbers"),
        (np.array([0, 1, np.inf, 0, 1, 0]), r"y_preds\['b'\] contains inf"),
    ],
)
def test_labels_follow_scikit_learn_target_rules(bad, message):
    # Probabilities passed as predictions would otherwise become hundreds of
    # classes; mixed types and inf cannot be classes either.
    y = np.array([0, 1, 1, 0, 1, 0])
    for func in FUNCTIONS.values():
        with pytest.raises(ValueError, match=message):
            func(y, {"a": y, "b": bad})
    # Integral floats are labels, as scikit-learn accepts them.
    result = _quiet(compare_precision, y.astype(float), {"a": y, "b": y[::-1].astype(float)})
    assert result.classes.tolist() == [0.0, 1.0]


def test_comparators_refuse_misaligned_pandas_inputs():
    from sklearn.datasets import load_breast_cancer
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    from sklearn_precision_stats import CVPrecisionComparator, PairedPrecisionComparator

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    shuffled = y.sample(frac=1, random_state=0)
    estimators = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
    with pytest.raises(ValueError, match="X and y are pandas objects with different indexes"):
        PairedPrecisionComparator(estimators).fit(X, shuffled)
    with pytest.raises(ValueError, match="different indexes"):
        CVPrecisionComparator(estimators, cv=3).fit(X, shuffled)
    fitted = PairedPrecisionComparator(estimators).fit(X, y)
    with pytest.raises(ValueError, match="different indexes"):
        fitted.compare(X, shuffled)
