"""Accuracy of each classifier, class by class, with confidence intervals."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import optimize, stats

from ._counts import Predictions, finite, prepare, robust_covariance
from ._results import (
    CONVENTIONS,
    EMPTY_STRATUM,
    FrozenArrays,
    check_option,
    long_table,
    one_warning,
    quantile,
    ratio,
    warn_undefined,
)

__all__ = ["DiagnosticAccuracy", "diagnostic_accuracy"]

MEASURES = ("sensitivity", "specificity", "ppv", "npv", "pdlr", "ndlr")
CI_METHODS = (
    "wald",
    "wilson",
    "clopper-pearson",
    "agresti-coull",
    "jeffreys",
    "logit",
    "add4",
    "blaker",
    "mid-p",
)
_STATSMODELS = {
    "wilson": "wilson",
    "clopper-pearson": "beta",
    "agresti-coull": "agresti_coull",
    "jeffreys": "jeffreys",
}


@dataclass(frozen=True, repr=False)
class DiagnosticAccuracy(FrozenArrays):
    """Accuracy measures of classifiers, per class (one-vs-rest).

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    classifiers : tuple of str
    measures : tuple of str
        ``("sensitivity", "specificity", "ppv", "npv", "pdlr", "ndlr")``.
    estimate, se, ci_low, ci_high : ndarray of shape (n_classes, n_classifiers, 6)
        Read-only. ``se`` is the standard error on the scale of
        ``se_scale`` (identity for the Wald interval, logit for the logit
        interval, log for the likelihood ratios, NaN where the interval
        method has none).
    counts : ndarray of shape (n_classes, n_classifiers, 4)
        True positives, false negatives, false positives, true negatives.
    ci_method : str
    confidence_level : float
    """

    classes: np.ndarray
    classifiers: tuple
    measures: tuple
    estimate: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    counts: np.ndarray
    ci_method: str
    confidence_level: float
    clustered: bool

    @property
    def table(self) -> pd.DataFrame:
        """Long table: one row per class, classifier and measure."""
        scale = np.array(["identity"] * 4 + ["log"] * 2, dtype=object)
        if self.ci_method == "logit":
            scale[:4] = "logit"
        return long_table(
            self.classes,
            self.classifiers,
            None,
            self.measures,
            {
                "estimate": self.estimate,
                "se": self.se,
                "se_scale": scale,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
            },
        )

    def __repr__(self):
        return (
            f"DiagnosticAccuracy(classes={np.asarray(self.classes).tolist()}, classifiers="
            f"{list(self.classifiers)}, ci_method={self.ci_method!r}, "
            f"confidence_level={self.confidence_level})"
        )


def _blaker_acceptability(x, n, p):
    """Blaker's (2000) acceptability of each p: the smaller tail plus the
    largest opposite tail not exceeding it."""
    upper = stats.binom.sf(x - 1, n, p)
    lower = stats.binom.cdf(x, n, p)
    a1 = upper + stats.binom.cdf(stats.binom.ppf(upper, n, p) - 1, n, p)
    a2 = lower + stats.binom.sf(stats.binom.ppf(1 - lower, n, p), n, p)
    return np.minimum(a1, a2)


def _blaker_limits(x, n, alpha, exact):
    """Blaker's interval: from the Clopper-Pearson limits, move inward while
    the acceptability is below alpha (steps of 1e-5, as PropCIs), then, with
    `exact`, bisect the last step down to the crossing."""
    step, chunk = 1e-5, 512
    limits = []
    for side in (-1, 1):
        if (side < 0 and x == 0) or (side > 0 and x == n):
            limits.append(0.0 if side < 0 else 1.0)
            continue
        if side < 0:
            p = stats.beta.ppf(alpha / 2, x, n - x + 1)
        else:
            p = stats.beta.ppf(1 - alpha / 2, x + 1, n - x)
        while True:
            # Candidates by repeated addition, as R's loop computes them.
            candidates = np.cumsum(np.r_[p, np.full(chunk, -side * step)])
            accepted = _blaker_acceptability(x, n, candidates[1:]) >= alpha
            if accepted.any():
                p = float(candidates[np.argmax(accepted)])
                break
            p = float(candidates[-1])
        if exact:
            outside, inside = p, p - side * step
            for _ in range(45):
                mid = 0.5 * (outside + inside)
                if _blaker_acceptability(x, n, mid) < alpha:
                    outside = mid
                else:
                    inside = mid
            p = inside
        limits.append(p)
    return limits


def _midp_cdf(x, n, p):
    return 0.5 * stats.binom.cdf(x - 1, n, p) + 0.5 * stats.binom.cdf(x, n, p)


def _midp_limits(x, n, alpha, exact):
    """Mid-p interval: exact roots of the mid-p tails, or PropCIs' grid."""
    if exact:
        low = (
            0.0
            if x == 0
            else optimize.brentq(
                lambda p: _midp_cdf(x, n, p) - (1 - alpha / 2), 0.0, x / n, xtol=1e-15, rtol=1e-15
            )
        )
        high = (
            1.0
            if x == n
            else optimize.brentq(
                lambda p: _midp_cdf(x, n, p) - alpha / 2, x / n, 1.0, xtol=1e-15, rtol=1e-15
            )
        )
        return [low, high]
    # PropCIs: at x = 0 or n the closed form of the one mid-p tail that
    # remains (1/2 (1 - p)^n = alpha/2 gives 1 - alpha^(1/n)), elsewhere a grid.
    grid = 0.0001 + np.arange(2000) * 0.0005
    mid = _midp_cdf(x, n, grid)
    low = 0.0 if x == 0 else alpha ** (1 / n) if x == n else grid[mid < 1 - alpha / 2].min()
    high = 1.0 if x == n else 1 - alpha ** (1 / n) if x == 0 else grid[mid > alpha / 2].max()
    return [float(low), float(high)]


def _elementwise(function, x, n, alpha, exact):
    low = np.full(x.shape, np.nan)
    high = np.full(x.shape, np.nan)
    for idx in zip(*np.nonzero(n > 0), strict=True):
        low[idx], high[idx] = function(int(x[idx]), int(n[idx]), alpha, exact)
    return low, high


def _proportion_interval(x, n, method, z, alpha, se_robust, convention):
    """Estimate, SE and limits of proportions x/n (arrays), NaN where n = 0."""
    p = ratio(x, n)
    se = np.full(p.shape, np.nan)
    low = np.full(p.shape, np.nan)
    high = np.full(p.shape, np.nan)
    ok = n > 0
    exact = convention == "paper"
    if method == "wald":
        inner = ok & (x > 0) & (x < n)
        se = np.where(inner, se_robust, np.nan)
        low = np.where(inner, np.clip(p - z * se, 0, 1), np.nan)
        high = np.where(inner, np.clip(p + z * se, 0, 1), np.nan)
        if not exact:
            # DTComPair: at x = 0 or x = n, the one-sided "rule of three"
            # (Hanley and Lippman-Hand 1983) instead of a degenerate interval.
            with np.errstate(divide="ignore"):
                three = -np.log(alpha) / n
            zero, full = ok & (x == 0), ok & (x == n)
            low = np.where(zero, 0.0, np.where(full, 1.0 - three, low))
            high = np.where(zero, three, np.where(full, 1.0, high))
    elif method == "logit":
        inner = ok & (x > 0) & (x < n)
        with np.errstate(divide="ignore", invalid="ignore"):
            se = np.where(inner, np.sqrt(n / (x * (n - x))), np.nan)
            logit = np.log(p / (1 - p))
            low = np.where(inner, 1 / (1 + np.exp(-(logit - z * se))), np.nan)
            high = np.where(inner, 1 / (1 + np.exp(-(logit + z * se))), np.nan)
    elif method == "add4":
        pt = (x + 2) / (n + 4)
        half = z * np.sqrt(pt * (1 - pt) / (n + 4))
        low = np.where(ok, np.clip(pt - half, 0, 1), np.nan)
        high = np.where(ok, np.clip(pt + half, 0, 1), np.nan)
    elif method == "blaker":
        low, high = _elementwise(_blaker_limits, x, n, alpha, exact)
    elif method == "mid-p":
        low, high = _elementwise(_midp_limits, x, n, alpha, exact)
    else:
        nn = np.where(ok, n, 1.0)
        # Imported here: statsmodels is slow to import and needed only now.
        from statsmodels.stats.proportion import proportion_confint

        lo, hi = proportion_confint(
            np.where(ok, x, 0.0), nn, alpha=alpha, method=_STATSMODELS[method]
        )
        low = np.where(ok, lo, np.nan)
        high = np.where(ok, hi, np.nan)
        if method == "wilson" and not exact:
            # PropCIs' scoreci rounds its limits to 4 decimals.
            low, high = np.round(low, 4), np.round(high, 4)
    return p, se, low, high


def diagnostic_accuracy(
    y_true: ArrayLike,
    y_preds: Predictions,
    *,
    labels: ArrayLike | None = None,
    ci_method: str = "wald",
    confidence_level: float = 0.95,
    groups: ArrayLike | None = None,
    convention: str = "paper",
) -> DiagnosticAccuracy:
    """Sensitivity, specificity, predictive values and likelihood ratios per class.

    For every class ``k`` (one-vs-rest: records of class ``k`` are the
    "diseased", predicting ``k`` is a "positive" result) and every
    classifier: sensitivity (recall), specificity, positive and negative
    predictive values (PPV = precision, NPV) with confidence intervals, and
    the positive and negative diagnostic likelihood ratios
    ``PDLR = Se / (1 - Sp)`` and ``NDLR = (1 - Se) / Sp`` with log-scale
    Wald intervals (Simel, Samsa and Matchar [1]_).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        True labels.
    y_preds : array-like of shape (n_rows,), or dict or list of (str, array-like)
        Predicted labels of one classifier, or classifier name -> predicted
        labels for several.
    labels : array-like, default=None
        Classes to report, in this order; every class seen by default.
    ci_method : {"wald", "wilson", "clopper-pearson", "agresti-coull", \
"jeffreys", "logit", "add4", "blaker", "mid-p"}, default="wald"
        Interval for the four proportions. ``"wald"`` is ``p -/+ z se``
        clipped to [0, 1] (as R's DTComPair); ``"wilson"`` (Wilson [3]_),
        ``"clopper-pearson"``, ``"agresti-coull"`` and ``"jeffreys"`` come
        from :func:`statsmodels.stats.proportion.proportion_confint`;
        ``"logit"`` is the Wald interval of the log odds; ``"add4"`` adds two
        successes and two failures (Agresti and Coull [2]_); ``"blaker"`` is
        Blaker's [4]_ interval and ``"mid-p"`` the mid-p exact interval.
    confidence_level : float, default=0.95
    groups : array-like of shape (n_rows,), default=None
        Record id of each row when records contribute several rows. Only
        with ``ci_method="wald"``: the standard errors (of the proportions
        and of the log likelihood ratios) are then cluster-robust.
    convention : {"paper", "dtcompair"}, default="paper"
        ``"paper"``: the Wald and logit intervals are NaN (with a warning)
        when the estimate is 0 or 1, where they degenerate, and so is the
        interval of a likelihood ratio of 1 with a standard error of 0 (the
        class predicted for every record, or for none); Wilson, Blaker
        and mid-p limits are computed to machine precision. ``"dtcompair"``
        reproduces R's DTComPair (PropCIs): the one-sided "rule of three"
        ``[0, -ln(alpha)/n]`` (``[1 + ln(alpha)/n, 1]``) for the Wald
        interval at a count of 0 (``n``), Wilson limits rounded to 4
        decimals, Blaker limits on a 1e-5 step and mid-p limits on PropCIs'
        grid ``0.0001 + 0.0005 k`` (at a count of 0 or n, PropCIs' closed
        forms ``1 - alpha^(1/n)`` and ``alpha^(1/n)``).

    Returns
    -------
    DiagnosticAccuracy
        Arrays of shape (n_classes, n_classifiers, 6) and ``.table``.

    Warns
    -----
    UndefinedStatisticWarning
        Once per call, naming every undefined value: a measure with a zero
        denominator (a class never occurs, or is never predicted), a
        likelihood ratio that is infinite or zero, or (with the paper
        convention) a Wald or logit interval that degenerates, or the
        interval of a likelihood ratio of 1 by construction (a class
        predicted for every record, or for none).

    References
    ----------
    .. [1] Simel, Samsa and Matchar (1991). Likelihood ratios with
       confidence: sample size estimation for diagnostic test studies.
       Journal of Clinical Epidemiology 44(8), 763-770.
    .. [2] Agresti and Coull (1998). Approximate is better than "exact" for
       interval estimation of binomial proportions. The American
       Statistician 52(2), 119-126.
    .. [3] Wilson (1927). Probable inference, the law of succession, and
       statistical inference. Journal of the American Statistical
       Association 22(158), 209-212.
    .. [4] Blaker (2000). Confidence curves and improved exact confidence
       intervals for discrete distributions. Canadian Journal of Statistics
       28(4), 783-798.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import diagnostic_accuracy
    >>> y    = [0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1]
    >>> pred = [0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0]
    >>> res = diagnostic_accuracy(y, pred, labels=[1], ci_method="wilson")
    >>> res.table[["measure", "estimate", "ci_low", "ci_high"]].round(4)
           measure  estimate  ci_low  ci_high
    0  sensitivity    0.7143  0.3589   0.9178
    1  specificity    0.4000  0.1176   0.7693
    2          ppv    0.6250  0.3057   0.8632
    3          npv    0.5000  0.1500   0.8500
    4         pdlr    1.1905  0.5061   2.8004
    5         ndlr    0.7143  0.1458   3.4986
    """
    with one_warning():
        check_option(ci_method, CI_METHODS, "ci_method")
        check_option(convention, CONVENTIONS, "convention")
        if groups is not None and ci_method != "wald":
            raise ValueError(
                f"groups is only supported with ci_method='wald' (cluster-robust standard "
                f"errors), got ci_method={ci_method!r}; pass groups=None or ci_method='wald'."
            )
        z = quantile(confidence_level)
        alpha = 1.0 - float(confidence_level)
        data = prepare(y_true, y_preds, labels=labels, groups=groups, min_classifiers=1)
        s, sg = data.single, data.single_groups
        tp, fn, fp, tn = s[..., 1, 1], s[..., 1, 0], s[..., 0, 1], s[..., 0, 0]
        n1, n0 = tp + fn, fp + tn
        d = np.array([0.0, 1.0])[:, None]
        pos = np.array([0.0, 1.0])[None, :]
        ex = (..., None, None)

        def robust_se(influence):
            with np.errstate(invalid="ignore"):
                return np.sqrt(robust_covariance(influence, influence, s, sg, 2))

        # Per-record influences on each proportion (sums of squares give the
        # binomial variance on one row per record, the sandwich with groups).
        sens, spec = ratio(tp, n1), ratio(tn, n0)
        ppv, npv = ratio(tp, tp + fp), ratio(tn, tn + fn)
        inf_sens = d * (pos - sens[ex]) / n1[ex]
        inf_spec = (1 - d) * ((1 - pos) - spec[ex]) / n0[ex]
        inf_ppv = pos * (d - ppv[ex]) / (tp + fp)[ex]
        inf_npv = (1 - pos) * ((1 - d) - npv[ex]) / (tn + fn)[ex]
        with np.errstate(divide="ignore", invalid="ignore"):
            columns = []
            for x, n, influence in (
                (tp, n1, inf_sens),
                (tn, n0, inf_spec),
                (tp, tp + fp, inf_ppv),
                (tn, tn + fn, inf_npv),
            ):
                columns.append(
                    _proportion_interval(
                        x, n, ci_method, z, alpha, robust_se(influence), convention
                    )
                )
                if groups is not None:
                    inner = (x > 0) & (x < n)
                    for arr in columns[-1][2:]:
                        arr[~inner] = np.nan

            # Likelihood ratios with log-scale intervals (delta method).
            pdlr = ratio(sens, 1 - spec)
            ndlr = ratio(1 - sens, spec)
            inf_lp = d * (pos / tp[ex] - 1 / n1[ex]) - (1 - d) * (pos / fp[ex] - 1 / n0[ex])
            inf_ln = d * ((1 - pos) / fn[ex] - 1 / n1[ex]) - (1 - d) * (
                (1 - pos) / tn[ex] - 1 / n0[ex]
            )
            for est, influence, zero_count in ((pdlr, inf_lp, tp), (ndlr, inf_ln, fn)):
                defined = np.isfinite(est) & (zero_count > 0)
                se = np.where(defined, robust_se(finite(influence)), np.nan)
                log_est = np.log(np.where(defined, est, 1.0))
                # A class predicted for every record (PDLR) or none (NDLR)
                # has a ratio of 1 whatever the data and a standard error of
                # 0: the interval would collapse onto 1 (DTComPair reports
                # that [1, 1]).
                ok = defined & ((se > 0) | (convention != "paper"))
                columns.append(
                    (
                        est,
                        se,
                        np.where(ok, np.exp(log_est - z * se), np.nan),
                        np.where(ok, np.exp(log_est + z * se), np.nan),
                    )
                )
        estimate, se, low, high = (np.stack([c[i] for c in columns], axis=-1) for i in range(4))
        _warn(data, n1, n0, tp, fp, fn, tn, convention)
        for m in range(4):
            warn_undefined(
                np.isfinite(estimate[..., m]) & np.isnan(low[..., m]),
                data.classes,
                data.names,
                f"the {ci_method} interval of the {MEASURES[m]}",
                "the estimate is 0 or 1, where this interval degenerates; use "
                "ci_method='wilson' or 'clopper-pearson'",
            )
        return DiagnosticAccuracy(
            data.classes,
            tuple(data.names),
            MEASURES,
            estimate,
            se,
            low,
            high,
            np.stack([tp, fn, fp, tn], axis=-1),
            ci_method,
            float(confidence_level),
            groups is not None,
        )


def _warn(data, n1, n0, tp, fp, fn, tn, convention):
    both = (n0 > 0) & (n1 > 0)
    paper = convention == "paper"
    for mask, what, reason in (
        (
            both & paper & (fn == 0) & (tn == 0),
            "the PDLR interval",
            "the class is predicted for every record: the PDLR is 1 with a standard error of 0",
        ),
        (
            both & paper & (tp == 0) & (fp == 0),
            "the NDLR interval",
            "the class is never predicted: the NDLR is 1 with a standard error of 0",
        ),
        (n1 == 0, "the sensitivity (and NDLR, PDLR)", EMPTY_STRATUM[0]),
        (n0 == 0, "the specificity (and NDLR, PDLR)", EMPTY_STRATUM[1]),
        (tp + fp == 0, "the PPV", "the class is never predicted"),
        (tn + fn == 0, "the NPV", "the class is always predicted"),
        (both & (fp == 0), "the PDLR", "no false positive: the ratio is infinite"),
        (both & (tn == 0), "the NDLR", "no true negative: the ratio is infinite"),
        (
            both & (fp > 0) & (tp == 0),
            "the PDLR interval",
            "no true positive: the ratio is 0, its log -inf",
        ),
        (
            both & (tn > 0) & (fn == 0),
            "the NDLR interval",
            "no false negative: the ratio is 0, its log -inf",
        ),
    ):
        warn_undefined(mask, data.classes, data.names, what, reason)
