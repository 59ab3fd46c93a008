"""The paper's Algorithms 1 and 2 run literally through statsmodels GEE.

This is the reference engine (``engine="statsmodels"``): for every class it
stacks one row per (record, classifier) prediction, keeps the rows in the
class's subset and fits ``logit Pr(D = 1) = a + sum_c b_c f_c`` with
:class:`statsmodels.genmod.generalized_estimating_equations.GEE`
(binomial family, independence working correlation, clusters = records,
robust covariance). Wald tests come from the fit, score tests from
``compare_score_test`` against the intercept-only GEE. It is slow (an
iterative fit per class and classifier) and exists to check the closed form
and as a fallback.
"""

import warnings

import numpy as np

from ._counts import FP, TP
from ._marginal_model import chi2_pvalue

__all__ = []


def _fit(endog, exog, groups, cov_type="robust"):
    """The GEE model and its fit, or None for a fit on degenerate data.

    statsmodels warns when a classifier has no rows in the class's model
    (a rank-deficient design), a value is 0 or 1 (perfect separation) or
    there are as few rows as parameters (a division by zero degrees of
    freedom). The closed form is NaN there and the public functions say
    why in their one warning, so the fit fails (None, NaN statistics)
    rather than adding statsmodels' warnings or a meaningless number.
    """
    import statsmodels.api as sm
    from statsmodels.tools.sm_exceptions import (
        ConvergenceWarning,
        PerfectSeparationWarning,
        SingularMatrixWarning,
    )

    degenerate = (ConvergenceWarning, PerfectSeparationWarning, SingularMatrixWarning)
    model = sm.GEE(
        endog,
        exog,
        groups=groups,
        family=sm.families.Binomial(),
        cov_struct=sm.cov_struct.Independence(),
    )
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        for category in degenerate:
            warnings.simplefilter("error", category)
        try:
            fit = model.fit(cov_type=cov_type)
        except (*degenerate, np.linalg.LinAlgError, ValueError):
            return model, None
    # A division by zero that statsmodels did not flag shows as a
    # non-finite estimate: NaN statistics, which the library reports.
    finite = np.isfinite(fit.params).all() and np.isfinite(fit.cov_params()).all()
    return model, fit if finite else None


def _score_test(model, groups, endog):
    _, null_fit = _fit(endog, np.ones((endog.shape[0], 1)), groups)
    if null_fit is None:
        return np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = model.compare_score_test(null_fit)
    return np.nan if res is None else float(res["statistic"])


def _class_rows(encoded, records, code, classifiers, role):
    """Stacked rows of `classifiers` in the model of class `code` for `role`."""
    y = encoded.y_true
    endog, clf, groups = [], [], []
    for j, c in enumerate(classifiers):
        pred = encoded.preds[c]
        if role.pooled:
            truth_is_k, pred_is_k = np.ones(y.shape, dtype=bool), pred == y
        else:
            truth_is_k, pred_is_k = y == code, pred == code
        category = np.where(truth_is_k, TP, FP) + ~pred_is_k
        rows = (category == role.success) | (category == role.failure)
        response = category[rows] == role.success
        endog.append(response.astype(float))
        clf.append(np.full(response.shape[0], j))
        groups.append(records[rows])
    return np.concatenate(endog), np.concatenate(clf), np.concatenate(groups)


def gee_statistics(data, pairwise, omnibus, cov_type="robust"):
    """Replace the closed-form Wald and score results by statsmodels fits.

    Parameters
    ----------
    data : ComparisonData
        With ``rows``, the label codes of every row.
    pairwise, omnibus : dict
        Closed-form results; entries that are NaN there (undefined
        statistics) stay NaN, everything else is refitted. Modified in
        place and returned.
    """
    encoded, record_codes = data.rows
    n_rows = encoded.y_true.shape[0]
    records = record_codes if record_codes is not None else np.arange(n_rows)
    n_clf = len(encoded.preds)
    for k, code in enumerate(data.class_codes):
        for c in range(1, n_clf):
            endog, clf, groups = _class_rows(encoded, records, code, [0, c], data.role)
            exog = np.column_stack([np.ones_like(endog), clf == 1]).astype(float)
            model, fit = _fit(endog, exog, groups, cov_type)
            if np.isfinite(pairwise["wald_stat"][k, c - 1]):
                if fit is None:
                    wald, b, se = np.nan, np.nan, np.nan
                else:
                    b, se = fit.params[1], fit.bse[1]
                    wald = (b / se) ** 2
                pairwise["wald_stat"][k, c - 1] = wald
                pairwise["log_or"][k, c - 1] = b
                pairwise["log_or_se"][k, c - 1] = se
            if np.isfinite(pairwise["gs_stat"][k, c - 1]):
                pairwise["gs_stat"][k, c - 1] = _score_test(model, groups, endog)
        if n_clf > 2:
            endog, clf, groups = _class_rows(encoded, records, code, list(range(n_clf)), data.role)
            exog = np.column_stack(
                [np.ones_like(endog)] + [clf == c for c in range(1, n_clf)]
            ).astype(float)
            model, fit = _fit(endog, exog, groups, cov_type)
            if np.isfinite(omnibus["wald_stat"][k]):
                if fit is None:
                    omnibus["wald_stat"][k] = np.nan
                else:
                    b = fit.params[1:]
                    cov = fit.cov_params()[1:, 1:]
                    omnibus["wald_stat"][k] = float(b @ np.linalg.solve(cov, b))
            if np.isfinite(omnibus["gs_stat"][k]):
                omnibus["gs_stat"][k] = _score_test(model, groups, endog)
        else:
            omnibus["wald_stat"][k] = pairwise["wald_stat"][k, 0]
            omnibus["gs_stat"][k] = pairwise["gs_stat"][k, 0]
    # p-values from the refitted statistics (intervals follow from log_or_se).
    pairwise["wald_pvalue"] = chi2_pvalue(pairwise["wald_stat"], 1)
    pairwise["gs_pvalue"] = chi2_pvalue(pairwise["gs_stat"], 1)
    omnibus["wald_pvalue"] = chi2_pvalue(omnibus["wald_stat"], n_clf - 1)
    omnibus["gs_pvalue"] = chi2_pvalue(omnibus["gs_stat"], n_clf - 1)
    return pairwise, omnibus
