"""Sensitivity and specificity of two or more classifiers compared, class by class.

For class ``k`` (one-vs-rest) sensitivity is the recall of ``k`` and
specificity the recall of "not ``k``". Comparing a classifier with the
reference on the same records uses the discordant records of each stratum:
``u`` records that only the compared classifier gets right and ``v`` that
only the reference gets right, among the ``n`` records of the stratum
(class ``k`` for sensitivity, the other classes for specificity).
"""

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import optimize, stats

from ..results._base import IntervalResult, TestResult
from ._counts import (
    CELL_A,
    CELL_B,
    CELL_D,
    Predictions,
    finite,
    log_count_influence,
    paired_count,
    prepare,
    require_no_groups,
    robust_covariance_matrix,
)
from ._results import (
    CONVENTIONS,
    EMPTY_STRATUM,
    ReferenceComparisonMixin,
    check_option,
    log_interval,
    normal_pvalue,
    one_warning,
    quantile,
    ratio,
    warn_undefined,
)

__all__ = [
    "ExactBinomialResult",
    "GeneralizedMcNemarResult",
    "RelativeAccuracyResult",
    "SeSpDifference",
    "exact_binomial_test",
    "generalized_mcnemar",
    "relative_sensitivity_specificity",
    "relative_tpf_fpf",
    "sensitivity_specificity_difference",
]

DIFF_METHODS = ("wald", "wald-cc", "agresti-min", "bonett-price", "tango")
_SESP = ("sensitivity", "specificity")


def discordant(data):
    """``(u, v, n, value, value_reference)`` of shape (K, J, 2): sensitivity, specificity."""
    p = data.paired
    # [d, a, b]: a = reference positive, b = compared classifier positive.
    u = np.stack([p[..., 1, 0, 1], p[..., 0, 1, 0]], axis=-1)
    v = np.stack([p[..., 1, 1, 0], p[..., 0, 0, 1]], axis=-1)
    n = np.stack([paired_count(p, d=1), paired_count(p, d=0)], axis=-1)
    correct_other = np.stack([p[..., 1, :, 1].sum(-1), p[..., 0, :, 0].sum(-1)], axis=-1)
    correct_ref = np.stack([p[..., 1, 1, :].sum(-1), p[..., 0, 0, :].sum(-1)], axis=-1)
    return u, v, n, ratio(correct_other, n), ratio(correct_ref, n)


def _empty_strata_warning(data, n):
    for i, (what, reason) in enumerate(zip(_SESP, EMPTY_STRATUM, strict=True)):
        warn_undefined(
            n[..., i] == 0, data.classes, data.names[1:], f"the {what} comparison", reason
        )


# --------------------------------------------------------------------------
# Exact binomial test
# --------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class ExactBinomialResult(ReferenceComparisonMixin, TestResult):
    """Exact binomial test of equal sensitivity and of equal specificity.

    Attributes
    ----------
    statistic : ndarray of shape (n_classes, n_classifiers - 1, 2)
        ``u``, the discordant records that only the compared classifier gets
        right; ``[..., 0]`` sensitivity, ``[..., 1]`` specificity.
    pvalue : ndarray of the same shape
        Two-sided exact p-value ``min(1, 2 P(X <= min(u, v)))`` with
        ``X ~ Binomial(u + v, 1/2)``.
    n_discordant : ndarray of the same shape
    value, value_reference : ndarray of the same shape
        Sensitivity and specificity of the compared classifier and of the
        reference.
    classes, classifiers, reference
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    n_discordant: np.ndarray
    value: np.ndarray
    value_reference: np.ndarray
    classes: np.ndarray
    classifiers: tuple
    reference: str

    @property
    def table(self) -> pd.DataFrame:
        """One row per class, compared classifier and measure."""
        return self._table(
            _SESP,
            {
                "value": self.value,
                "value_reference": self.value_reference,
                "diff": self.value - self.value_reference,
                "n_discordant": self.n_discordant,
                "statistic": self.statistic,
                "pvalue": self.pvalue,
            },
        )


def exact_binomial_test(
    y_true: ArrayLike,
    y_preds: Predictions,
    *,
    reference: str | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    convention: str = "paper",
) -> ExactBinomialResult:
    """Exact binomial test of equal sensitivity and specificity, per class.

    The exact (conditional) version of McNemar's test: among the discordant
    records of a stratum, the number that only the compared classifier gets
    right is ``Binomial(u + v, 1/2)`` under equal sensitivity (specificity)
    (Zhou, Obuchowski and McClish [1]_, ch. 5).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
    y_preds : dict or list of (str, array-like)
        Classifier name -> predicted labels; at least two.
    reference : str, default=None
        The reference classifier; the first when None.
    labels : array-like, default=None
    groups : None
        Not supported (the binomial law needs independent records): a
        ValueError is raised when given.
    convention : {"paper", "dtcompair"}, default="paper"
        ``"paper"`` caps the p-value at 1 and reports NaN (with a warning)
        without discordant records; ``"dtcompair"`` reproduces R's
        DTComPair: ``2 P(X <= min(u, v))`` uncapped (above 1 when
        ``u = v``, 2 without discordant records).

    Returns
    -------
    ExactBinomialResult

    References
    ----------
    .. [1] Zhou, Obuchowski and McClish (2011). Statistical Methods in
       Diagnostic Medicine, 2nd ed. Wiley.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import exact_binomial_test
    >>> y  = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
    >>> rf = [1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> nb = [1, 1, 0, 0, 0, 1, 0, 1, 0, 1]
    >>> res = exact_binomial_test(y, {"rf": rf, "nb": nb}, labels=[1])
    >>> res.table[["measure", "value", "value_reference", "pvalue"]]
           measure  value  value_reference  pvalue
    0  sensitivity    0.5             1.00    0.25
    1  specificity    0.5             0.75    1.00
    """
    with one_warning():
        require_no_groups(groups, "exact_binomial_test")
        check_option(convention, CONVENTIONS, "convention")
        data = prepare(y_true, y_preds, reference=reference, labels=labels)
        u, v, n, value, value_ref = discordant(data)
        m = u + v
        pvalue = 2.0 * stats.binom.cdf(np.minimum(u, v), m, 0.5)
        if convention == "paper":
            pvalue = np.where(m > 0, np.minimum(pvalue, 1.0), np.nan)
            for i, what in enumerate(_SESP):
                warn_undefined(
                    (m[..., i] == 0) & (n[..., i] > 0),
                    data.classes,
                    data.names[1:],
                    f"the exact test of {what}",
                    "no discordant record",
                )
        else:
            pvalue = np.where(m > 0, pvalue, 2.0)
        _empty_strata_warning(data, n)
        return ExactBinomialResult(
            u, pvalue, m, value, value_ref, data.classes, tuple(data.names[1:]), data.names[0]
        )


# --------------------------------------------------------------------------
# Confidence intervals for the differences
# --------------------------------------------------------------------------


def _tango_t(delta, u, v, n):
    """Tango's score statistic for H0: difference = delta (paired proportions)."""
    a = 2.0 * n
    b = -v - u + (2.0 * n - u + v) * delta
    c = -v * delta * (1.0 - delta)
    q = (np.sqrt(b * b - 4.0 * a * c) - b) / (2.0 * a)
    return (u - v - n * delta) / np.sqrt(n * (2.0 * q + delta * (1.0 - delta)))


def _tango_exact(u, v, n, z):
    """Score interval {delta: |T(delta)| < z} by root finding, element-wise."""
    low = np.full(u.shape, np.nan)
    high = np.full(u.shape, np.nan)
    eps = 1e-12
    for idx in zip(*np.nonzero(n > 0), strict=False):
        ui, vi, ni = u[idx], v[idx], n[idx]
        est = (ui - vi) / ni

        def f(d, target, ui=ui, vi=vi, ni=ni, est=est):
            # T(estimate) = 0, also when it is 0/0 (no discordant record).
            return (0.0 if d == est else _tango_t(d, ui, vi, ni)) - target

        # T decreases in delta, equals 0 at the estimate; the limits solve
        # T = z (below) and T = -z (above), or sit at -1 / 1.
        with np.errstate(invalid="ignore", divide="ignore"):
            lo_end, hi_end = -1.0 + eps, 1.0 - eps
            low[idx] = (
                -1.0
                if not f(lo_end, z) > 0 or est <= lo_end
                else optimize.brentq(f, lo_end, est, args=(z,), xtol=1e-14, rtol=1e-15)
            )
            high[idx] = (
                1.0
                if not f(hi_end, -z) < 0 or est >= hi_end
                else optimize.brentq(f, est, hi_end, args=(-z,), xtol=1e-14, rtol=1e-15)
            )
    return low, high


def _tango_halving(b, c, n, z):
    """PropCIs' ``scoreci.mp(b, c, n)`` halving search, vectorised (R parity).

    Returns the limits for ``(c - b) / n``.
    """
    with np.errstate(invalid="ignore", divide="ignore"):

        def search(sign):
            proot = (c - b) / n
            dp = 1.0 - sign * proot if sign > 0 else 1.0 + proot
            out = np.full(b.shape, np.nan)
            active = np.ones(b.shape, dtype=bool)
            for _ in range(50):
                dp = 0.5 * dp
                x = proot + sign * dp
                # PropCIs' score for (c - b) / n is Tango's with u = c, v = b.
                score = _tango_t(x, c, b, n)
                proot = np.where(active & (np.abs(score) < z), x, proot)
                stop = active & ((dp < 1e-7) | (np.abs(z - score) < 1e-6))
                out = np.where(stop, x, out)
                active &= ~stop
            return out

        ul = np.where(c == n, 1.0, search(1.0))
        ll = np.where(b == n, -1.0, search(-1.0))
    return ll, ul


@dataclass(frozen=True, repr=False)
class SeSpDifference(ReferenceComparisonMixin):
    """Differences in sensitivity and specificity with confidence intervals.

    Attributes
    ----------
    diff, se, ci_low, ci_high : ndarray of shape (n_classes, n_classifiers - 1, 2)
        Compared classifier minus reference; ``[..., 0]`` sensitivity,
        ``[..., 1]`` specificity; ``se`` is NaN for Tango's interval.
    value, value_reference : ndarray of the same shape
    method, convention : str
    confidence_level : float
    classes, classifiers, reference
    """

    diff: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    value: np.ndarray
    value_reference: np.ndarray
    method: str
    convention: str
    confidence_level: float
    classes: np.ndarray
    classifiers: tuple
    reference: str

    _repr_fields = ("method",)

    @property
    def table(self) -> pd.DataFrame:
        """One row per class, compared classifier and measure."""
        return self._table(
            _SESP,
            {
                "value": self.value,
                "value_reference": self.value_reference,
                "diff": self.diff,
                "se": self.se,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
            },
        )


def sensitivity_specificity_difference(
    y_true: ArrayLike,
    y_preds: Predictions,
    *,
    reference: str | None = None,
    labels: ArrayLike | None = None,
    method: str = "wald",
    confidence_level: float = 0.95,
    groups: ArrayLike | None = None,
    convention: str = "paper",
) -> SeSpDifference:
    """Confidence intervals for differences in sensitivity and specificity.

    Per class (one-vs-rest) and classifier: ``Se - Se_ref`` and
    ``Sp - Sp_ref`` on the same records, from the discordant records ``u``
    (only the classifier right) and ``v`` (only the reference right) among
    the ``n`` records of the stratum; the estimate is ``(u - v) / n``.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
    y_preds : dict or list of (str, array-like)
        At least two classifiers.
    reference : str, default=None
    labels : array-like, default=None
    method : {"wald", "wald-cc", "agresti-min", "bonett-price", "tango"}, default="wald"
        ``"wald"``: ``SE = sqrt((u + v) - (u - v)^2 / n) / n`` (Altman
        1991), NaN with a warning where this SE is 0 (with the paper
        convention); ``"wald-cc"``: with a continuity correction ``1/n`` (Fleiss,
        Levin and Paik [1]_: ``estimate -/+ (z SE + 1/n)``);
        ``"agresti-min"``: add 1/2 to each cell (Agresti and Min [2]_);
        ``"bonett-price"``: add 1 to each discordant cell (Bonett and Price
        [3]_); ``"tango"``: the score interval of Tango [4]_, by exact root
        finding.
    confidence_level : float, default=0.95
    groups : array-like, default=None
        Record id of each row; only with ``method="wald"``, whose standard
        error is then cluster-robust. The other methods raise a ValueError.
    convention : {"paper", "dtcompair"}, default="paper"
        ``"paper"`` follows the cited papers: the adjusted intervals are
        centred on their adjusted estimates and kept within [-1, 1].
        ``"dtcompair"`` reproduces R's DTComPair: centred on ``(u - v)/n``,
        not truncated, the continuity correction multiplied by ``z``
        (reported ``se`` includes ``1/n``), and Tango's limits from PropCIs'
        halving search. DTComPair's mirrored Tango interval for a
        non-significant difference in sensitivity is a defect of R and is
        not reproduced: both conventions give the score interval.

    Returns
    -------
    SeSpDifference

    References
    ----------
    .. [1] Fleiss, Levin and Paik (2003). Statistical Methods for Rates and
       Proportions, 3rd ed. Wiley.
    .. [2] Agresti and Min (2005). Simple improved confidence intervals for
       comparing matched proportions. Statistics in Medicine 24, 729-740.
    .. [3] Bonett and Price (2012). Adjusted Wald confidence interval for a
       difference of binomial proportions based on paired data. Journal of
       Educational and Behavioral Statistics 37(4), 479-488.
    .. [4] Tango (1998). Equivalence test and confidence interval for the
       difference in proportions for the paired-sample design. Statistics in
       Medicine 17, 891-908.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import sensitivity_specificity_difference
    >>> y  = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
    >>> rf = [1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> nb = [1, 1, 0, 0, 0, 1, 0, 1, 0, 1]
    >>> res = sensitivity_specificity_difference(y, {"rf": rf, "nb": nb}, labels=[1])
    >>> res.table[["measure", "diff", "ci_low", "ci_high"]].round(4)
           measure  diff  ci_low  ci_high
    0  sensitivity -0.50 -0.9001  -0.0999
    1  specificity -0.25 -0.6743   0.1743
    """
    with one_warning():
        if method not in DIFF_METHODS:
            raise ValueError(f"method must be one of {DIFF_METHODS}, got {method!r}.")
        check_option(convention, CONVENTIONS, "convention")
        if groups is not None and method != "wald":
            require_no_groups(groups, f"sensitivity_specificity_difference(method={method!r})")
        z = quantile(confidence_level)
        data = prepare(y_true, y_preds, reference=reference, labels=labels, groups=groups)
        u, v, n, value, value_ref = discordant(data)
        est = ratio(u - v, n)
        paper = convention == "paper"
        with np.errstate(invalid="ignore", divide="ignore"):
            if method in ("wald", "wald-cc"):
                se = np.sqrt((u + v) - (u - v) ** 2 / n) / n
                if groups is not None:
                    se = _clustered_diff_se(data, est)
                half = z * se
                if method == "wald-cc":
                    if paper:
                        half = z * se + 1.0 / n
                    else:
                        se = se + 1.0 / n
                        half = z * se
                low, high = est - half, est + half
            elif method in ("agresti-min", "bonett-price"):
                if method == "agresti-min":
                    ua, va, na = u + 0.5, v + 0.5, n + 2.0
                    se = np.sqrt((ua + va) - (ua - va) ** 2 / na) / na
                else:
                    pu, pv = (u + 1.0) / (n + 2.0), (v + 1.0) / (n + 2.0)
                    se = np.sqrt((pu + pv - (pu - pv) ** 2) / (n + 2.0))
                centre = (u - v) / (n + 2.0) if paper else est
                low, high = centre - z * se, centre + z * se
                if paper:
                    low, high = np.clip(low, -1, 1), np.clip(high, -1, 1)
            else:
                se = np.full(est.shape, np.nan)
                if paper:
                    low, high = _tango_exact(u, v, n, z)
                else:
                    low, high = _tango_dtcompair(u, v, n, z)
            ok = n > 0
            se, low, high = (np.where(ok, a, np.nan) for a in (se, low, high))
        if method == "wald" and paper:
            # Every record of the stratum differs the same way (or none
            # differs): the standard error is 0 and the interval would
            # collapse onto the difference. DTComPair reports that point.
            collapsed = ok & (se == 0)
            low, high = np.where(collapsed, np.nan, low), np.where(collapsed, np.nan, high)
            for i, what in enumerate(_SESP):
                warn_undefined(
                    collapsed[..., i],
                    data.classes,
                    data.names[1:],
                    f"the Wald interval of the {what} difference",
                    "its standard error is 0: the classifiers agree on every record of "
                    "the stratum, or every discordant record favours the same one; "
                    "use method='tango' or 'agresti-min'",
                )
        _empty_strata_warning(data, n)
        return SeSpDifference(
            est,
            se,
            low,
            high,
            value,
            value_ref,
            method,
            convention,
            float(confidence_level),
            data.classes,
            tuple(data.names[1:]),
            data.names[0],
        )


def _tango_dtcompair(u, v, n, z):
    # DTComPair passes (b, c) = (y1-negative/y2-positive, y1-positive/
    # y2-negative) cells: for specificity (v, u), the interval of the
    # estimate; for sensitivity (u, v), the interval of minus the estimate.
    # R negates the latter only when it excludes the estimate, which
    # mirrors non-significant intervals; here it is always negated.
    low, high = np.empty(u.shape), np.empty(u.shape)
    lo_sp, hi_sp = _tango_halving(v[..., 1], u[..., 1], n[..., 1], z)
    low[..., 1], high[..., 1] = lo_sp, hi_sp
    lo_m, hi_m = _tango_halving(u[..., 0], v[..., 0], n[..., 0], z)
    low[..., 0], high[..., 0] = -hi_m, -lo_m
    return low, high


def _clustered_diff_se(data, est):
    """Cluster-robust SE of the paired differences (influence sums per group)."""
    p = data.paired
    n1 = paired_count(p, d=1)[..., None, None, None]
    n0 = paired_count(p, d=0)[..., None, None, None]
    e = est[..., None, None, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        inf_se = finite(CELL_D * ((CELL_B - CELL_A) - e[..., 0, :, :, :]) / n1)
        inf_sp = finite((1 - CELL_D) * (((1 - CELL_B) - (1 - CELL_A)) - e[..., 1, :, :, :]) / n0)
        cov = robust_covariance_matrix(np.stack([inf_se, inf_sp], -1), p, data.paired_groups, 3)
    return np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))


# --------------------------------------------------------------------------
# Generalized McNemar
# --------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class GeneralizedMcNemarResult(ReferenceComparisonMixin, TestResult):
    """Joint test of equal sensitivity and equal specificity.

    Attributes
    ----------
    statistic : ndarray of shape (n_classes, n_classifiers - 1)
        Sum of the (uncorrected) McNemar statistics of the two strata.
    pvalue : ndarray of the same shape
        Upper tail of chi-square with 2 degrees of freedom.
    df : int
    statistic_sensitivity, statistic_specificity : ndarray
    classes, classifiers, reference
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    df: int
    statistic_sensitivity: np.ndarray
    statistic_specificity: np.ndarray
    classes: np.ndarray
    classifiers: tuple
    reference: str

    @property
    def table(self) -> pd.DataFrame:
        """One row per class and compared classifier."""
        return self._table(
            None,
            {
                "statistic_sensitivity": self.statistic_sensitivity,
                "statistic_specificity": self.statistic_specificity,
                "statistic": self.statistic,
                "df": self.df,
                "pvalue": self.pvalue,
            },
        )


def generalized_mcnemar(
    y_true: ArrayLike,
    y_preds: Predictions,
    *,
    reference: str | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
) -> GeneralizedMcNemarResult:
    """Generalized McNemar test of equal sensitivity and specificity, per class.

    The sum of McNemar's statistics ``(u - v)^2 / (u + v)`` (no continuity
    correction) of the diseased and the non-diseased stratum, chi-square
    with 2 degrees of freedom under equal sensitivity and specificity, the
    strata being independent (Lachenbruch and Lynch [1]_).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
    y_preds : dict or list of (str, array-like)
        At least two classifiers.
    reference : str, default=None
    labels : array-like, default=None
    groups : None
        Not supported (a record's rows would fall in both strata); a
        ValueError is raised when given.

    Returns
    -------
    GeneralizedMcNemarResult

    References
    ----------
    .. [1] Lachenbruch and Lynch (1998). Assessing screening tests:
       extensions of McNemar's test. Statistics in Medicine 17, 2207-2217.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import generalized_mcnemar
    >>> y  = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
    >>> rf = [1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> nb = [1, 1, 0, 0, 0, 1, 0, 1, 0, 1]
    >>> stat, p = generalized_mcnemar(y, {"rf": rf, "nb": nb}, labels=[1])
    >>> print(f"{stat[0, 0]:.3f} {p[0, 0]:.4f}")
    4.000 0.1353
    """
    with one_warning():
        require_no_groups(groups, "generalized_mcnemar")
        data = prepare(y_true, y_preds, reference=reference, labels=labels)
        u, v, n, _, _ = discordant(data)
        chi = ratio((u - v) ** 2, u + v)
        statistic = chi.sum(axis=-1)
        pvalue = stats.chi2.sf(statistic, 2)
        warn_undefined(
            ((u + v) == 0).any(axis=-1),
            data.classes,
            data.names[1:],
            "the generalized McNemar statistic",
            "a stratum has no discordant record (McNemar's statistic is 0/0)",
        )
        return GeneralizedMcNemarResult(
            statistic,
            pvalue,
            2,
            chi[..., 0],
            chi[..., 1],
            data.classes,
            tuple(data.names[1:]),
            data.names[0],
        )


# --------------------------------------------------------------------------
# Relative sensitivity / specificity and relative TPF / FPF
# --------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class RelativeAccuracyResult(ReferenceComparisonMixin, IntervalResult):
    """Ratios of accuracy measures (compared classifier over reference).

    Attributes
    ----------
    statistic : ndarray of shape (n_classes, n_classifiers - 1, 2)
        Wald statistic ``log(ratio) / se_log``.
    pvalue : ndarray of the same shape
        Two-sided normal p-value.
    ratio, se_log : ndarray of the same shape
        The ratio and the standard error of its log (cluster-robust with
        groups).
    value, value_reference : ndarray of the same shape
    measures : tuple of str
        Names of the last axis.
    classes, classifiers, reference, clustered

    ``confidence_interval(confidence_level)`` returns ``exp(log ratio -/+ z
    se_log)`` as arrays of the same shape.
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    ratio: np.ndarray
    se_log: np.ndarray
    value: np.ndarray
    value_reference: np.ndarray
    measures: tuple
    classes: np.ndarray
    classifiers: tuple
    reference: str
    clustered: bool

    _repr_fields: ClassVar[tuple[str, ...]] = ("measures",)

    def _interval(self, level):
        return log_interval(self.ratio, self.se_log, level)

    def table_at(self, confidence_level: float = 0.95) -> pd.DataFrame:
        """The table with intervals at `confidence_level`."""
        low, high = self.confidence_interval(confidence_level)
        return self._table(
            self.measures,
            {
                "value": self.value,
                "value_reference": self.value_reference,
                "ratio": self.ratio,
                "se_log": self.se_log,
                "ci_low": low,
                "ci_high": high,
                "statistic": self.statistic,
                "pvalue": self.pvalue,
            },
        )

    @property
    def table(self) -> pd.DataFrame:
        """One row per class, compared classifier and measure (95% intervals)."""
        return self.table_at(0.95)


class RatioFit(NamedTuple):
    """Ratios of a measure of two paired classifiers, with delta-method standard errors.

    ``ratio`` is 0 where only the compared classifier's measure is 0 and
    NaN where the reference's is 0 (infinite or 0/0); ``se`` (of the log
    ratio) is NaN where either is 0,
    ``statistic`` is ``log(ratio) / se``, ``covariance`` the sandwich
    covariance of the log ratios (shape (K, J, M, M), not masked) and
    ``defined`` says where both measures are positive.
    """

    ratio: np.ndarray
    se: np.ndarray
    statistic: np.ndarray
    covariance: np.ndarray
    defined: np.ndarray


def ratio_fit(data, num_other, num_ref, influences, names, undefined, zero_variance):
    """Ratios ``num_other / num_ref`` with delta-method (sandwich) SEs of their logs.

    `num_other` and `num_ref` have shape (K, J, M), M measures; a ratio is
    undefined where either is 0 (or NaN). `influences` has shape (K, J, 2,
    2, 2, M): the per-record influence on each log ratio, by cell. The
    warnings call the measures `names` and give ``undefined[i]`` as the
    reason where a ratio is undefined, `zero_variance` where its variance
    is 0.
    """
    r = ratio(num_other, num_ref)
    cov = robust_covariance_matrix(influences, data.paired, data.paired_groups, 3)
    var = np.diagonal(cov, axis1=-2, axis2=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        defined = (num_other > 0) & (num_ref > 0)
        se = np.where(defined, np.sqrt(np.maximum(var, 0.0)), np.nan)
        zstat = np.where(defined & (se > 0), np.log(np.where(defined, r, 1.0)) / se, np.nan)
    # A zero count makes the log ratio undefined. The ratio itself is 0
    # when only the numerator is 0 (kept, as scikit-learn keeps a negative
    # likelihood ratio of 0) and infinite or 0/0 when the denominator is 0
    # (NaN, as scikit-learn's class_likelihood_ratios by default).
    zero = (num_other == 0) & (num_ref > 0)
    r = np.where(defined, r, np.where(zero, 0.0, np.nan))
    for i, m in enumerate(names):
        warn_undefined(
            ~defined[..., i] & ~zero[..., i],
            data.classes,
            data.names[1:],
            f"the relative {m}",
            f"{undefined[i]}: the ratio is infinite or 0/0",
        )
        warn_undefined(
            zero[..., i],
            data.classes,
            data.names[1:],
            f"the test (and interval) of the relative {m}",
            f"{undefined[i]}: the ratio is 0, its log -inf",
        )
        warn_undefined(
            defined[..., i] & (se[..., i] == 0),
            data.classes,
            data.names[1:],
            f"the test of the relative {m}",
            zero_variance,
        )
    se = np.where(se > 0, se, np.nan)
    return RatioFit(r, se, zstat, cov, defined)


# Why the test of a ratio of counts has no variance.
AGREEMENT_REASON = "its variance is 0: the two classifiers agree on every record it depends on"


def relative_result(result_class, data, fit, value, value_ref, measures, groups, *extra):
    """A :class:`RelativeAccuracyResult` (or subclass) from a :class:`RatioFit`."""
    return result_class(
        fit.statistic,
        normal_pvalue(fit.statistic),
        fit.ratio,
        fit.se,
        value,
        value_ref,
        measures,
        data.classes,
        tuple(data.names[1:]),
        data.names[0],
        groups is not None,
        *extra,
    )


def log_ratio_influence(paired, stratum, result):
    """Influence of one record in each cell on ``log(N_other / N_ref)``, and the counts.

    ``N`` counts the records of status `stratum` (d) for which a
    classifier's result is `result`; the influence is ``[b == result] /
    N_other - [a == result] / N_ref`` on records of the stratum, 0 where a
    count is 0.
    """
    inf_other, n_other = log_count_influence(paired, d=stratum, b=result)
    inf_ref, n_ref = log_count_influence(paired, d=stratum, a=result)
    with np.errstate(invalid="ignore"):
        return finite(inf_other - inf_ref), n_other, n_ref


def _relative_fractions(data, strata, measures, counted, groups):
    """Ratios of fractions of a stratum with a given result, ``N_other / N_ref``.

    ``strata[i] = (d, result)`` selects the records of status d and the
    result counted for measure i (sensitivity: (1, 1), specificity: (0, 0),
    FPF: (0, 1)); the stratum size cancels in the ratio. `counted` names
    the counts (e.g. ``"true positive"``) in the warnings.
    """
    columns = []
    for stratum, result in strata:
        influence, n_other, n_ref = log_ratio_influence(data.paired, stratum, result)
        n = paired_count(data.paired, d=stratum)
        columns.append((influence, n_other, n_ref, ratio(n_other, n), ratio(n_ref, n)))
    influences, num_other, num_ref, value, value_ref = (
        np.stack([column[i] for column in columns], -1) for i in range(5)
    )
    fit = ratio_fit(
        data,
        num_other,
        num_ref,
        influences,
        measures,
        tuple(f"a classifier has no {what}" for what in counted),
        AGREEMENT_REASON,
    )
    return relative_result(RelativeAccuracyResult, data, fit, value, value_ref, measures, groups)


def relative_sensitivity_specificity(
    y_true: ArrayLike,
    y_preds: Predictions,
    *,
    reference: str | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
) -> RelativeAccuracyResult:
    """Relative sensitivity and specificity with log-scale Wald intervals, per class.

    ``rSe = Se / Se_ref = TP / TP_ref`` and ``rSp = TN / TN_ref`` on the same
    records, with the delta-method variance of the log ratio (Alonzo, Pepe
    and Moskowitz [1]_): ``(u + v) / (TP TP_ref)`` for sensitivity.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
    y_preds : dict or list of (str, array-like)
        At least two classifiers.
    reference : str, default=None
    labels : array-like, default=None
    groups : array-like of shape (n_rows,), default=None
        Record id of each row; the variances are then cluster-robust
        (influences summed per record).

    Returns
    -------
    RelativeAccuracyResult
        Measures ``("sensitivity", "specificity")``.

    References
    ----------
    .. [1] Alonzo, Pepe and Moskowitz (2002). Sample size calculations for
       comparative studies of medical tests for detecting presence of
       disease. Statistics in Medicine 21, 835-852.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import relative_sensitivity_specificity
    >>> y  = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
    >>> rf = [1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> nb = [1, 1, 0, 0, 0, 1, 0, 1, 0, 1]
    >>> res = relative_sensitivity_specificity(y, {"rf": rf, "nb": nb}, labels=[1])
    >>> res.table[["measure", "ratio", "ci_low", "ci_high", "pvalue"]].round(4)
           measure   ratio  ci_low  ci_high  pvalue
    0  sensitivity  0.5000  0.2246   1.1129  0.0895
    1  specificity  0.6667  0.2995   1.4839  0.3206
    """
    with one_warning():
        data = prepare(y_true, y_preds, reference=reference, labels=labels, groups=groups)
        return _relative_fractions(
            data, ((1, 1), (0, 0)), _SESP, ("true positive", "true negative"), groups
        )


def relative_tpf_fpf(
    y_true: ArrayLike,
    y_preds: Predictions,
    *,
    reference: str | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
) -> RelativeAccuracyResult:
    """Relative true and false positive fractions, per class.

    ``rTPF = TP / TP_ref`` and ``rFPF = FP / FP_ref`` (Schatzkin et al.
    [1]_, Cheng and Macaluso [2]_, Alonzo, Pepe and Moskowitz [3]_), with
    log-scale Wald intervals; they need only the records that at least one
    classifier predicts as the class, as in a screen-positive design.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
    y_preds : dict or list of (str, array-like)
        At least two classifiers.
    reference : str, default=None
    labels : array-like, default=None
    groups : array-like of shape (n_rows,), default=None
        Record id of each row; the variances are then cluster-robust.

    Returns
    -------
    RelativeAccuracyResult
        Measures ``("tpf", "fpf")``.

    References
    ----------
    .. [1] Schatzkin, Connor, Taylor et al. (1987). Comparing new and old
       screening tests when a reference procedure cannot be performed on
       all screenees. American Journal of Epidemiology 125(4), 672-678.
    .. [2] Cheng and Macaluso (1997). Comparison of the accuracy of two tests
       with a confirmatory procedure limited to positive results.
       Epidemiology 8(1), 104-106.
    .. [3] Alonzo, Pepe and Moskowitz (2002). Statistics in Medicine 21,
       835-852.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import relative_tpf_fpf
    >>> y  = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
    >>> rf = [1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> nb = [1, 1, 0, 0, 0, 1, 0, 1, 0, 1]
    >>> res = relative_tpf_fpf(y, {"rf": rf, "nb": nb}, labels=[1])
    >>> res.table[["measure", "ratio", "pvalue"]].round(4)
      measure  ratio  pvalue
    0     tpf    0.5  0.0895
    1     fpf    2.0  0.3270
    """
    with one_warning():
        data = prepare(y_true, y_preds, reference=reference, labels=labels, groups=groups)
        return _relative_fractions(
            data, ((1, 1), (0, 1)), ("tpf", "fpf"), ("true positive", "false positive"), groups
        )
