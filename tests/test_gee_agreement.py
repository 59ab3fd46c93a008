"""The closed-form engine against statsmodels GEE fitted live.

statsmodels is an independent implementation of the paper's Algorithms 1
and 2: the rows predicting a class are stacked, a logistic GEE with an
independence working correlation is fitted with records as clusters, the
Wald test comes from the robust covariance and the score test from
``compare_score_test`` against the intercept-only model.
"""

import warnings

import numpy as np
import pytest
import statsmodels.api as sm

from sklearn_precision_stats import compare_precision, compare_recall

from .conftest import make_correlated_predictions

RTOL = 1e-9


def _gee(endog, exog, groups):
    model = sm.GEE(
        endog,
        exog,
        groups=groups,
        family=sm.families.Binomial(),
        cov_struct=sm.cov_struct.Independence(),
    )
    return model, model.fit()


def _gee_tests(y, preds, groups, label, names):
    """Wald, robust score, coefficients and SEs for classifiers `names`
    (the first is the reference) from statsmodels GEE on stacked rows."""
    endog, clf, grp = [], [], []
    for j, name in enumerate(names):
        rows = preds[name] == label
        endog.append((y[rows] == label).astype(float))
        clf.append(np.full(rows.sum(), j))
        grp.append(groups[rows])
    endog, clf, grp = map(np.concatenate, (endog, clf, grp))
    exog = np.column_stack([np.ones_like(endog)] + [clf == j for j in range(1, len(names))])
    exog = exog.astype(float)
    model, fit = _gee(endog, exog, grp)
    _, null_fit = _gee(endog, np.ones((endog.size, 1)), grp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        score = model.compare_score_test(null_fit)["statistic"]
    b = fit.params[1:]
    cov = fit.cov_params()[1:, 1:]
    wald = float(b @ np.linalg.solve(cov, b))
    return {"wald": wald, "gs": score, "params": fit.params, "bse": fit.bse}


@pytest.mark.parametrize("n_classifiers", [2, 3, 4])
@pytest.mark.parametrize("repeats", [1, 3])
@pytest.mark.parametrize("string_labels", [False, True])
def test_matches_statsmodels_gee(n_classifiers, repeats, string_labels):
    labels = ["cat", "dog", "eel"] if string_labels else None
    y, preds, groups = make_correlated_predictions(
        150, 3, n_classifiers, repeats=repeats, seed=n_classifiers + 10 * repeats, labels=labels
    )
    names = list(preds)
    result = compare_precision(y, preds, groups=groups if repeats > 1 else None)
    if repeats == 1:
        groups = np.arange(y.size)
    for label in result.classes:
        for other in names[1:]:
            ref = _gee_tests(y, preds, groups, label, [names[0], other])
            row = result.get(label, other)
            np.testing.assert_allclose(row["wald_stat"], ref["wald"], rtol=RTOL)
            np.testing.assert_allclose(row["gs_stat"], ref["gs"], rtol=RTOL)
            np.testing.assert_allclose(row["log_or"], ref["params"][1], rtol=RTOL)
            np.testing.assert_allclose(row["log_or_se"], ref["bse"][1], rtol=RTOL)
            # Intercept: the reference's log odds.
            p_ref = row["precision_reference"]
            np.testing.assert_allclose(np.log(p_ref / (1 - p_ref)), ref["params"][0], rtol=RTOL)
        omni = result.omnibus.set_index("class").loc[label]
        ref = _gee_tests(y, preds, groups, label, names)
        np.testing.assert_allclose(omni["wald_stat"], ref["wald"], rtol=RTOL)
        np.testing.assert_allclose(omni["gs_stat"], ref["gs"], rtol=RTOL)
        assert omni["df"] == n_classifiers - 1


@pytest.mark.parametrize("repeats", [1, 2])
@pytest.mark.parametrize("func", [compare_precision, compare_recall])
def test_statsmodels_engine_equals_closed_form(repeats, func):
    y, preds, groups = make_correlated_predictions(120, 3, 3, repeats=repeats, seed=5)
    groups = groups if repeats > 1 else None
    closed = func(y, preds, groups=groups)
    literal = func(y, preds, groups=groups, engine="statsmodels")
    assert literal.engine == "statsmodels"
    numeric = closed.table.select_dtypes("number").columns
    np.testing.assert_allclose(literal.table[numeric], closed.table[numeric], rtol=1e-8)
    np.testing.assert_allclose(
        literal.omnibus[["gs_stat", "wald_stat"]],
        closed.omnibus[["gs_stat", "wald_stat"]],
        rtol=1e-8,
    )


@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.DomainWarning")
def test_rp_delta_method_matches_sandwich_of_gee_on_log_link():
    # The relative precision's se is the delta method on the same sandwich:
    # a log-link GEE (log Pr = a + b f) gives b = log rp and se(b) = ratio_se_log.
    y, preds, groups = make_correlated_predictions(300, 2, 2, repeats=2, seed=3)
    result = compare_precision(y, preds, groups=groups)
    names = list(preds)
    for label in result.classes:
        endog, clf, grp = [], [], []
        for j, name in enumerate(names):
            rows = preds[name] == label
            endog.append((y[rows] == label).astype(float))
            clf.append(np.full(rows.sum(), float(j)))
            grp.append(groups[rows])
        endog, clf, grp = map(np.concatenate, (endog, clf, grp))
        family = sm.families.Binomial(link=sm.families.links.Log())
        fit = sm.GEE(
            endog,
            np.column_stack([np.ones_like(clf), clf]),
            groups=grp,
            family=family,
            cov_struct=sm.cov_struct.Independence(),
        ).fit()
        row = result.get(label)
        np.testing.assert_allclose(np.log(row["ratio"]), fit.params[1], rtol=1e-7)
        np.testing.assert_allclose(row["ratio_se_log"], fit.bse[1], rtol=1e-7)
