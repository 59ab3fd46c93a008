"""Diagnostic likelihood ratios: regression models and paired comparison."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from ._counts import Predictions, cluster_sums, paired_count, prediction_items, prepare
from ._results import (
    CONVENTIONS,
    FrozenArrays,
    check_option,
    normal_pvalue,
    one_warning,
    quantile,
    ratio,
    warn_undefined,
)
from ._sesp import (
    AGREEMENT_REASON,
    RelativeAccuracyResult,
    log_ratio_influence,
    ratio_fit,
    relative_result,
)

__all__ = [
    "DLRRegressionResult",
    "LikelihoodRatioComparison",
    "compare_likelihood_ratios",
    "likelihood_ratio_regression",
]


@dataclass(frozen=True, repr=False)
class LikelihoodRatioComparison(RelativeAccuracyResult):
    """Ratios of likelihood ratios, with a joint test of both.

    As :class:`RelativeAccuracyResult` with measures ``("pdlr", "ndlr")``,
    plus:

    Attributes
    ----------
    joint_statistic : ndarray of shape (n_classes, n_classifiers - 1)
        Wald statistic ``t' S^-1 t`` of ``t = (log PDLR ratio, log NDLR
        ratio)`` with their joint sandwich covariance ``S``.
    joint_pvalue : ndarray of the same shape
        Upper tail of chi-square with 2 degrees of freedom.
    covariance : ndarray of shape (n_classes, n_classifiers - 1, 2, 2)
        ``S``.
    """

    joint_statistic: np.ndarray | None = None
    joint_pvalue: np.ndarray | None = None
    covariance: np.ndarray | None = None

    _repr_fields = ()


def compare_likelihood_ratios(
    y_true: ArrayLike,
    y_preds: Predictions,
    *,
    reference: str | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    convention: str = "paper",
) -> LikelihoodRatioComparison:
    """Ratios of positive and negative likelihood ratios of paired classifiers.

    Per class (one-vs-rest) and classifier: ``PDLR / PDLR_ref`` and
    ``NDLR / NDLR_ref`` on the same records, with the robust (sandwich)
    variance of the log ratio and a Wald test of a ratio of 1. This is the
    regression comparison of Gu and Pepe [1]_ (a marginal logistic model of
    the stacked records with the classifier as covariate), whose saturated
    fit has the closed form ``Var log(PDLR/PDLR_ref) = (u + v) / (TP
    TP_ref) + (u' + v') / (FP FP_ref)`` (discordant records among the
    diseased and the non-diseased), the multinomial delta-method variance
    that Nofuentes and Luna del Castillo [2]_ use for paired designs. Both
    ratios are also tested jointly (equal positive and equal negative
    likelihood ratios; Wald, chi-square with 2 degrees of freedom, with the
    sandwich covariance of the two log ratios).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
    y_preds : dict or list of (str, array-like)
        At least two classifiers.
    reference : str, default=None
    labels : array-like, default=None
    groups : array-like of shape (n_rows,), default=None
        Record id of each row; the sandwich is then clustered by record, as
        in Gu and Pepe's GEE with a cluster variable.
    convention : {"paper", "dtcompair"}, default="paper"
        ``"paper"`` reports classifier over reference, like every other
        comparison here; ``"dtcompair"`` reports reference over classifier
        (R's ``dlr.regtest``), with the statistic's sign flipped.

    Returns
    -------
    LikelihoodRatioComparison
        Measures ``("pdlr", "ndlr")``; ``value`` and ``value_reference``
        are the classifiers' likelihood ratios; ``joint_statistic`` and
        ``joint_pvalue`` test both ratios at once (chi-square, 2 df).

    References
    ----------
    .. [1] Gu and Pepe (2009). Estimating the capacity for improvement in
       risk prediction with a marker. Biostatistics 10(1), 172-186.
    .. [2] Nofuentes and Luna del Castillo (2007). Comparison of the
       likelihood ratios of two binary diagnostic tests in paired designs.
       Statistics in Medicine 26, 4179-4201.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import compare_likelihood_ratios
    >>> y  = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> rf = [1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1]
    >>> nb = [1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1]
    >>> res = compare_likelihood_ratios(y, {"rf": rf, "nb": nb}, labels=[1])
    >>> res.table[["measure", "value", "value_reference", "ratio"]].round(4)
      measure  value  value_reference  ratio
    0    pdlr    1.0             2.50    0.4
    1    ndlr    1.0             0.25    4.0
    """
    with one_warning():
        check_option(convention, CONVENTIONS, "convention")
        data = prepare(y_true, y_preds, reference=reference, labels=labels, groups=groups)
        p = data.paired
        tp_i, tp_o, tp_r = log_ratio_influence(p, 1, 1)
        fp_i, fp_o, fp_r = log_ratio_influence(p, 0, 1)
        fn_i, fn_o, fn_r = log_ratio_influence(p, 1, 0)
        tn_i, tn_o, tn_r = log_ratio_influence(p, 0, 0)
        n1, n0 = paired_count(p, d=1), paired_count(p, d=0)

        def lr(tp, fp, n_pos, n_neg):
            return ratio(ratio(tp, n_pos), ratio(fp, n_neg))

        value = np.stack([lr(tp_o, fp_o, n1, n0), lr(fn_o, tn_o, n1, n0)], -1)
        value_ref = np.stack([lr(tp_r, fp_r, n1, n0), lr(fn_r, tn_r, n1, n0)], -1)
        measures = ("pdlr", "ndlr")
        # The ratio of ratios, computed from the counts (n1, n0 cancel); R's
        # reference / classifier is the same fit with the roles exchanged, so
        # that a ratio of 0 and an infinite one keep their meaning.
        num = np.stack([tp_o * fp_r, fn_o * tn_r], -1)
        den = np.stack([tp_r * fp_o, fn_r * tn_o], -1)
        influence = np.stack([tp_i - fp_i, fn_i - tn_i], -1)
        if convention == "dtcompair":
            num, den, influence = den, num, -influence
        fit = ratio_fit(
            data,
            num,
            den,
            influence,
            measures,
            (
                "a classifier has no true or false positive",
                "a classifier has no true or false negative",
            ),
            AGREEMENT_REASON,
        )
        # Joint Wald test of both log ratios with their sandwich covariance.
        cov = fit.covariance
        with np.errstate(invalid="ignore", divide="ignore"):
            log_r = np.log(fit.ratio)
            det = cov[..., 0, 0] * cov[..., 1, 1] - cov[..., 0, 1] ** 2
            ok = np.all(np.isfinite(log_r), axis=-1) & (det > 0)
            t0, t1 = log_r[..., 0], log_r[..., 1]
            joint = np.where(
                ok,
                (cov[..., 1, 1] * t0**2 - 2 * cov[..., 0, 1] * t0 * t1 + cov[..., 0, 0] * t1**2)
                / np.where(ok, det, 1.0),
                np.nan,
            )
        cov = np.where(ok[..., None, None], cov, np.nan)
        warn_undefined(
            ~ok & np.all(np.isfinite(log_r), axis=-1),
            data.classes,
            data.names[1:],
            "the joint test of both likelihood ratios",
            "the covariance of the two log ratios is singular",
        )
        return relative_result(
            LikelihoodRatioComparison,
            data,
            fit,
            value,
            value_ref,
            measures,
            groups,
            joint,
            stats.chi2.sf(joint, 2),
            cov,
        )


# --------------------------------------------------------------------------
# Gu and Pepe's regression of likelihood ratios
# --------------------------------------------------------------------------

_GEE_COLUMNS = ["estimate", "naive_se", "naive_z", "robust_se", "robust_z"]
_DLR_COLUMNS = ["coef", "robust_se", "z", "pvalue", "ci_low", "ci_high"]


@dataclass(frozen=True, repr=False)
class DLRRegressionResult(FrozenArrays):
    """Gu and Pepe's regression model of diagnostic likelihood ratios, per class.

    Attributes
    ----------
    pretest : ndarray of shape (n_classes, n_pretest_terms, 5)
        The pre-test model ``logit P(D | X)``: estimate, naive SE, naive z,
        robust SE, robust z.
    posttest : ndarray of shape (n_classes, n_posttest_terms, 5)
        The post-test model ``logit P(D | X, Y)``, same columns.
    log_dlr : ndarray of shape (n_classes, n_posttest_terms, 6)
        Coefficients of the log likelihood ratio model: coefficient, robust
        SE, z, p-value, interval.
    dlr : ndarray of shape (n_classes, 2, 3)
        ``DLR(Y=1 | X=1)`` and ``DLR(Y=0 | X=1)`` with their intervals.
    pretest_terms, posttest_terms : tuple of str
    classes : ndarray
    classifier, given : str or None
    confidence_level : float
    """

    pretest: np.ndarray
    posttest: np.ndarray
    log_dlr: np.ndarray
    dlr: np.ndarray
    pretest_terms: tuple
    posttest_terms: tuple
    classes: np.ndarray
    classifier: str
    given: str | None
    confidence_level: float

    def _frame(self, values, terms, columns, term_name="term"):
        n_classes, n_terms = values.shape[:2]
        frame = pd.DataFrame(values.reshape(n_classes * n_terms, -1), columns=columns)
        frame.insert(0, term_name, np.tile(np.asarray(terms, dtype=object), n_classes))
        frame.insert(0, "class", np.repeat(np.asarray(self.classes, dtype=object), n_terms))
        return frame

    @property
    def pretest_table(self) -> pd.DataFrame:
        """The pre-test model, one row per class and term."""
        return self._frame(self.pretest, self.pretest_terms, _GEE_COLUMNS)

    @property
    def posttest_table(self) -> pd.DataFrame:
        """The post-test model, one row per class and term."""
        return self._frame(self.posttest, self.posttest_terms, _GEE_COLUMNS)

    @property
    def table(self) -> pd.DataFrame:
        """The log likelihood ratio model, one row per class and term."""
        return self._frame(self.log_dlr, self.posttest_terms, _DLR_COLUMNS)

    @property
    def dlr_table(self) -> pd.DataFrame:
        """``DLR(Y=1 | X=1)`` and ``DLR(Y=0 | X=1)`` per class."""
        return self._frame(
            self.dlr, ("DLR(Y=1|X=1)", "DLR(Y=0|X=1)"), ["dlr", "ci_low", "ci_high"], "quantity"
        )

    def __repr__(self):
        return (
            f"DLRRegressionResult(classifier={self.classifier!r}, given={self.given!r}, "
            f"classes={np.asarray(self.classes).tolist()})"
        )


def _saturated_logistic(design, pos, n, defined):
    """Fit of a logistic model saturated in binary covariates, per class.

    `design` (n_patterns, n_terms) is square and invertible; `pos` and `n`
    (n_classes, n_patterns) count the diseased and all records of each
    covariate pattern. The fit is the observed proportions ``p``: returns
    ``p``, the coefficients solving ``design @ beta = logit(p)`` and the
    inverse information (NaN and the identity where not `defined`), and
    the Pearson statistic.
    """
    p = ratio(pos, n)
    logit = np.log(p / (1 - p))
    beta = np.where(
        defined[:, None],
        np.linalg.solve(design, np.where(defined[:, None], logit, 0.0)[..., None])[..., 0],
        np.nan,
    )
    info = np.einsum("kp,pi,pj->kij", np.nan_to_num(n * p * (1 - p)), design, design)
    eye = np.eye(design.shape[1])
    inverse = np.linalg.solve(np.where(defined[:, None, None], info, eye), eye)
    pearson = np.nansum(ratio(pos * (1 - p) ** 2 + (n - pos) * p**2, p * (1 - p)), axis=-1)
    return p, beta, inverse, pearson


def likelihood_ratio_regression(
    y_true: ArrayLike,
    y_preds: Predictions,
    *,
    classifier: str | None = None,
    given: str | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    confidence_level: float = 0.95,
) -> DLRRegressionResult:
    """Regression model of a classifier's likelihood ratios (Gu and Pepe), per class.

    For class ``k`` (one-vs-rest, ``D`` = record of class ``k``, ``Y`` =
    `classifier` predicts ``k``, ``X`` = `given` predicts ``k``) fits the
    pre-test model ``logit P(D | X) = g'X`` and the post-test model ``logit
    P(D | X, Y) = d'V`` (``V = (1, X, Y, XY)``, or ``(1, Y)`` without
    `given`) jointly, as one logistic GEE on the records stacked twice
    (Gu and Pepe [1]_, after Leisenring and Pepe [2]_). The log likelihood
    ratio model has coefficients ``d - g`` for the terms of ``X`` and ``d``
    for the new terms, with the robust (sandwich) covariance; ``DLR(Y=1 |
    X=1)`` and ``DLR(Y=0 | X=1)`` are its sums. Without `given` these are
    the classifier's positive and negative likelihood ratios; with it, the
    information the classifier adds to `given`'s result.

    Both models are saturated in binary covariates, so the fits are the
    observed proportions of each covariate pattern (the GEE estimating
    equations are solved exactly, with no iteration).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
    y_preds : array-like of shape (n_rows,), or dict or list of (str, array-like)
        Predicted labels of one classifier (named ``"classifier"``), or
        classifier name -> predicted labels for several.
    classifier : str, default=None
        The classifier whose likelihood ratios are modelled; the first when
        None.
    given : str, default=None
        A classifier whose result is the pre-test covariate ``X``.
    labels : array-like, default=None
    groups : array-like of shape (n_rows,), default=None
        Cluster of each row; the robust covariance sums scores per cluster
        (records are their own clusters when None).
    confidence_level : float, default=0.95

    Returns
    -------
    DLRRegressionResult

    Warns
    -----
    UndefinedStatisticWarning
        When a covariate pattern has no record or only records of one
        status (the logistic fit does not exist; R's gee fails there).

    References
    ----------
    .. [1] Gu and Pepe (2009). Estimating the capacity for improvement in
       risk prediction with a marker. Biostatistics 10(1), 172-186.
    .. [2] Leisenring and Pepe (1998). Regression modelling of diagnostic
       likelihood ratios for the evaluation of medical diagnostic tests.
       Biometrics 54(2), 444-452.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import likelihood_ratio_regression
    >>> y  = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> rf = [1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1]
    >>> res = likelihood_ratio_regression(y, {"rf": rf}, labels=[1])
    >>> res.dlr_table.round(4)
      class      quantity   dlr  ci_low  ci_high
    0     1  DLR(Y=1|X=1)  2.50  0.7630   8.1916
    1     1  DLR(Y=0|X=1)  0.25  0.0383   1.6327
    """
    with one_warning():
        items = prediction_items(y_preds)
        names = [name for name, _ in items]
        if len(set(names)) != len(names):
            raise ValueError(f"the names in y_preds must be unique, got {names}.")
        lookup = dict(items)
        if classifier is None:
            classifier = names[0]
        for arg, value in (("classifier", classifier), ("given", given)):
            if value is not None and value not in lookup:
                raise ValueError(f"{arg}={value!r} is not one of the classifiers {names}.")
        if given == classifier:
            raise ValueError("given must differ from classifier (the model would be singular).")
        z = quantile(confidence_level)
        if given is None:
            data = prepare(
                y_true,
                {classifier: lookup[classifier]},
                labels=labels,
                groups=groups,
                min_classifiers=1,
            )
            # Cells [d, pattern] with pattern = y.
            cells = data.single[:, 0].reshape(-1, 2, 2)
            clusters = data.single_groups
            x_pat = np.array([[1.0]])
            v_pat = np.array([[1.0, 0.0], [1.0, 1.0]])
            x_of = np.array([0, 0])
            pre_terms: tuple[str, ...] = ("intercept",)
            post_terms: tuple[str | None, ...] = ("intercept", classifier)
        else:
            data = prepare(
                y_true,
                {given: lookup[given], classifier: lookup[classifier]},
                labels=labels,
                groups=groups,
            )
            # Cells [d, pattern] with pattern = 2 x + y.
            cells = data.paired[:, 0].reshape(-1, 2, 4)
            clusters = data.paired_groups
            x_pat = np.array([[1.0, 0.0], [1.0, 1.0]])
            xs = np.array([0.0, 0.0, 1.0, 1.0])
            ys = np.array([0.0, 1.0, 0.0, 1.0])
            v_pat = np.stack([np.ones(4), xs, ys, xs * ys], axis=1)
            x_of = np.array([0, 0, 1, 1])
            pre_terms = ("intercept", given)
            post_terms = ("intercept", given, classifier, f"{given}:{classifier}")
        n_classes = cells.shape[0]
        r, q = x_pat.shape[1], v_pat.shape[1]
        n_rows = cells[0].sum()

        with np.errstate(invalid="ignore", divide="ignore"):
            # Saturated fits: observed proportion diseased per pattern. They
            # exist where every post-test pattern has records of both statuses.
            n_v = cells.sum(axis=1)
            pos_x = np.stack([cells[:, 1][:, x_of == j].sum(-1) for j in range(len(x_pat))], -1)
            n_x = np.stack([n_v[:, x_of == j].sum(-1) for j in range(len(x_pat))], -1)
            defined = np.all((cells[:, 0] > 0) & (cells[:, 1] > 0), axis=-1)
            p_v, delta, inv_v, pearson_v = _saturated_logistic(v_pat, cells[:, 1], n_v, defined)
            p_x, gamma, inv_x, pearson_x = _saturated_logistic(x_pat, pos_x, n_x, defined)

            # Bread (inverse information) of the two blocks.
            bread = np.zeros((n_classes, r + q, r + q))
            bread[:, :r, :r] = inv_x
            bread[:, r:, r:] = inv_v

            # Score of one record in cell (d, pattern): both stacked copies.
            d = np.array([0.0, 1.0])[None, :, None, None]
            res_v = d - np.nan_to_num(p_v)[:, None, :, None]
            res_x = d - np.nan_to_num(p_x)[:, x_of][:, None, :, None]
            score = np.concatenate(
                [
                    np.broadcast_to(res_x * x_pat[x_of][None, None], (n_classes, 2, len(x_of), r)),
                    np.broadcast_to(res_v * v_pat[None, None], (n_classes, 2, len(x_of), q)),
                ],
                axis=-1,
            )
            if clusters is None:
                meat = np.einsum("kdp,kdpi,kdpj->kij", cells, score, score)
            else:
                per_group = cluster_sums(np.ascontiguousarray(score)[:, None], clusters)[:, :, 0]
                meat = np.einsum("gki,gkj->kij", per_group, per_group)
            robust = bread @ meat @ bread

            # Naive covariance: the bread scaled by the Pearson dispersion.
            phi = (pearson_v + pearson_x) / (2 * n_rows - (r + q))
            naive = phi[:, None, None] * bread

            beta = np.concatenate([gamma, delta], axis=-1)
            naive_se = np.sqrt(np.diagonal(naive, axis1=1, axis2=2))
            robust_se = np.sqrt(np.diagonal(robust, axis1=1, axis2=2))
            gee = np.stack([beta, naive_se, beta / naive_se, robust_se, beta / robust_se], -1)

            # log DLR = delta - gamma on the terms of X, delta on the new terms.
            a = np.zeros((q, r + q))
            a[:, r:] = np.eye(q)
            a[:r, :r] -= np.eye(r)
            theta = beta @ a.T
            cov = a @ robust @ a.T
            se = np.sqrt(np.diagonal(cov, axis1=1, axis2=2))
            zstat = theta / se
            log_dlr = np.stack(
                [theta, se, zstat, normal_pvalue(zstat), theta - z * se, theta + z * se], -1
            )
            combos = np.stack([np.ones(q), np.r_[np.ones(r), np.zeros(q - r)]])
            log_l = theta @ combos.T
            se_l = np.sqrt(np.einsum("ci,kij,cj->kc", combos, cov, combos))
            dlr = np.stack([np.exp(log_l), np.exp(log_l - z * se_l), np.exp(log_l + z * se_l)], -1)
        nan = ~defined
        gee[nan], log_dlr[nan], dlr[nan] = np.nan, np.nan, np.nan
        warn_undefined(
            nan[:, None],
            data.classes,
            [classifier],
            "the likelihood ratio regression",
            "a covariate pattern has no record or records of one status only, "
            "so the logistic fit does not exist",
        )
        return DLRRegressionResult(
            gee[:, :r],
            gee[:, r:],
            log_dlr,
            dlr,
            pre_terms,
            post_terms,
            data.classes,
            classifier,
            given,
            float(confidence_level),
        )
