"""Sample size and power of paired comparisons of two classifiers on one class.

The designs are given by the joint distribution of the true status and the
two classifiers' results (one-vs-rest for the class of interest):
prevalence, each classifier's sensitivity and specificity, and the
correlation of their results among the diseased and among the non-diseased.
"""

import math
import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..exceptions import UndefinedStatisticWarning
from ..utils._validation import _check_integer
from ._predictive_values import log_rpv_influences
from ._results import check_option

__all__ = [
    "SampleSize",
    "paired_cell_probabilities",
    "power_predictive_values",
    "power_sensitivity_specificity",
    "sample_size_predictive_values",
    "sample_size_sensitivity_specificity",
]


@dataclass(frozen=True)
class SampleSize:
    """Records needed for a paired comparison.

    Attributes
    ----------
    n_records : int
        Total records (both strata), rounded up.
    n_exact : float
        The formula's value before rounding.
    power : float
        The predicted power at ``n_records``.
    effect : float
        The compared quantity under the alternative: the log ratio for
        predictive values, the difference for sensitivity or specificity.
    """

    n_records: int
    n_exact: float
    power: float
    effect: float


def _pair(value, name, low=0.0, high=1.0, closed=False):
    """A (reference, other) pair of numbers in (low, high), [low, high] if `closed`."""
    interval = f"[{low:g}, {high:g}]" if closed else f"({low:g}, {high:g})"
    message = f"{name} must be a pair (reference, other) of numbers in {interval}"
    try:
        pair = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{message}, got {value!r}.") from None
    inside = (pair >= low) & (pair <= high) if closed else (pair > low) & (pair < high)
    if pair.shape != (2,) or not np.all(inside):
        raise ValueError(f"{message}, got {pair.tolist() if pair.ndim else value!r}.")
    return pair


def _probability(value, name):
    """`value` as a float strictly between 0 and 1, or a ValueError naming `name`."""
    if (
        not isinstance(value, numbers.Real)
        or isinstance(value, bool)
        or not 0 < value < 1  # also rejects NaN
    ):
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}.")
    return float(value)


# A (reference, other) pair of values.
Pair = tuple[float, float] | Sequence[float]


def paired_cell_probabilities(
    prevalence: float, sensitivity: Pair, specificity: Pair, correlation: Pair = (0.0, 0.0)
) -> np.ndarray:
    """Probabilities of the paired table ``[d, a, b]`` of a design.

    Parameters
    ----------
    prevalence : float
        Share of records of the class.
    sensitivity, specificity : pair of float
        ``(reference, other)``.
    correlation : pair of float, default=(0, 0)
        Correlation of the two classifiers' binary results among the
        records of the class and among the others.

    Returns
    -------
    ndarray of shape (2, 2, 2)
        ``[d, a, b]``: status, reference's result, other's result.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import paired_cell_probabilities
    >>> p = paired_cell_probabilities(0.5, (0.8, 0.8), (0.9, 0.9))
    >>> float(p[1, 1, 1])
    0.32
    """
    prevalence = _probability(prevalence, "prevalence")
    se, sp = _pair(sensitivity, "sensitivity"), _pair(specificity, "specificity")
    rho = _pair(correlation, "correlation", -1.0, 1.0, closed=True)
    cells = np.empty((2, 2, 2))
    for d, (p_r, p_o, r, weight) in enumerate(
        ((1 - sp[0], 1 - sp[1], rho[1], 1 - prevalence), (se[0], se[1], rho[0], prevalence))
    ):
        both = p_r * p_o + r * np.sqrt(p_r * (1 - p_r) * p_o * (1 - p_o))
        table = np.array([[1 - p_r - p_o + both, p_o - both], [p_r - both, both]])
        if np.any(table < -1e-15):
            raise ValueError(
                f"correlation={rho.tolist()} is impossible with these sensitivities and "
                "specificities (a cell probability would be negative); use a smaller one."
            )
        cells[d] = np.maximum(table, 0.0) * weight
    return cells


def _check_design(measure, options, alpha, power=0.5):
    check_option(measure, options, "measure")
    _probability(alpha, "alpha")
    _probability(power, "power")


def _rpv_design(prevalence, sensitivity, specificity, correlation, measure, alpha, power=0.5):
    """Log ratio of predictive values and the per-record variance of its estimate."""
    _check_design(measure, ("ppv", "npv"), alpha, power)
    cells = paired_cell_probabilities(prevalence, sensitivity, specificity, correlation)
    influences, value, value_ref = log_rpv_influences(cells)
    i = 0 if measure == "ppv" else 1
    u = influences[..., i]
    return np.log(value[i] / value_ref[i]), float(np.sum(cells * u * u))


def _check_effect(effect, measure, alpha, power):
    # The power of a two-sided level-alpha test only falls to alpha as the
    # number of records falls to 0: a smaller target is no sample size.
    if power <= alpha:
        raise ValueError(
            f"power={power!r} must exceed alpha={alpha!r}: the test rejects at rate "
            "alpha without any difference, so no number of records is needed to "
            "reach a smaller power. Use e.g. power=0.8."
        )
    # The sample size formulas divide by the effect.
    if effect == 0:
        raise ValueError(
            f"the two classifiers have the same {measure} in this design, so no number "
            "of records detects a difference; change sensitivity or specificity so "
            "that they differ."
        )


def _rounded_up(n, power_at, effect):
    """SampleSize of the exact size `n`, with the power ``power_at(records)`` there."""
    n_int = int(np.ceil(n))
    return SampleSize(n_int, float(n), power_at(n_int), float(effect))


def power_predictive_values(
    n_records: int,
    prevalence: float,
    sensitivity: Pair,
    specificity: Pair,
    *,
    correlation: Pair = (0.0, 0.0),
    measure: str = "ppv",
    alpha: float = 0.05,
) -> float:
    """Power of the Wald test of the relative PPV (or NPV) in a paired design.

    The test of ``log rPPV = 0`` with the delta-method variance of Moskowitz
    and Pepe [1]_; the power is ``Phi(sqrt(N) |log r| / sigma - z) +
    Phi(-sqrt(N) |log r| / sigma - z)`` with ``sigma^2 / N`` the variance of
    ``log rPPV`` at the design's cell probabilities.

    Parameters
    ----------
    n_records : int
        Total records.
    prevalence, sensitivity, specificity, correlation
        The design, as in :func:`paired_cell_probabilities`.
    measure : {"ppv", "npv"}, default="ppv"
    alpha : float, default=0.05
        Two-sided level.

    Returns
    -------
    float

    References
    ----------
    .. [1] Moskowitz and Pepe (2006). Comparing the predictive values of
       diagnostic tests: sample size and analysis for paired study designs.
       Clinical Trials 3(3), 272-279.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import power_predictive_values
    >>> power = power_predictive_values(1000, 0.3, (0.8, 0.8), (0.85, 0.92))
    >>> print(f"{power:.3f}")
    0.976
    """
    n_records = _check_integer(n_records, "n_records", 1)
    effect, sigma2 = _rpv_design(prevalence, sensitivity, specificity, correlation, measure, alpha)
    if sigma2 == 0:
        return _undefined_power(f"the log relative {measure.upper()} has variance 0")
    return _normal_power(np.sqrt(n_records) * abs(effect) / np.sqrt(sigma2), alpha)


def _undefined_power(reason):
    """NaN with a warning: the test has no distribution in this design."""
    warnings.warn(
        f"The power is undefined in this design ({reason}: the two classifiers "
        "give the same result on every record); it is reported as NaN.",
        UndefinedStatisticWarning,
        stacklevel=3,
    )
    return math.nan


def _normal_power(shift, alpha):
    z = stats.norm.ppf(1 - alpha / 2)
    return float(stats.norm.cdf(shift - z) + stats.norm.cdf(-shift - z))


def sample_size_predictive_values(
    prevalence: float,
    sensitivity: Pair,
    specificity: Pair,
    *,
    correlation: Pair = (0.0, 0.0),
    measure: str = "ppv",
    alpha: float = 0.05,
    power: float = 0.8,
) -> SampleSize:
    """Records needed to detect a relative PPV (or NPV) in a paired design.

    ``N = (z_{1-alpha/2} + z_{power})^2 sigma^2 / (log r)^2`` (Moskowitz and
    Pepe [1]_), with ``sigma^2 / N`` the delta-method variance of ``log r``
    at the design's cell probabilities.

    Parameters
    ----------
    prevalence, sensitivity, specificity, correlation
        The design, as in :func:`paired_cell_probabilities`.
    measure : {"ppv", "npv"}, default="ppv"
    alpha : float, default=0.05
    power : float, default=0.8
        Target power, greater than `alpha`.

    Returns
    -------
    SampleSize

    References
    ----------
    .. [1] Moskowitz and Pepe (2006). Clinical Trials 3(3), 272-279.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import sample_size_predictive_values
    >>> res = sample_size_predictive_values(0.3, (0.8, 0.8), (0.85, 0.92))
    >>> res.n_records
    505
    """
    effect, sigma2 = _rpv_design(
        prevalence, sensitivity, specificity, correlation, measure, alpha, power
    )
    _check_effect(effect, measure, alpha, power)
    n = (stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)) ** 2 * sigma2 / effect**2
    return _rounded_up(
        n, lambda n_int: _normal_power(np.sqrt(n_int * effect**2 / sigma2), alpha), effect
    )


def _mcnemar_design(prevalence, sensitivity, specificity, correlation, measure, alpha, power=0.5):
    """Discordance probability, difference and share of records of the stratum."""
    _check_design(measure, ("sensitivity", "specificity"), alpha, power)
    cells = paired_cell_probabilities(prevalence, sensitivity, specificity, correlation)
    if measure == "sensitivity":
        stratum = cells[1] / prevalence
        p_u, p_v = stratum[0, 1], stratum[1, 0]
        share = prevalence
    else:
        stratum = cells[0] / (1 - prevalence)
        p_u, p_v = stratum[1, 0], stratum[0, 1]
        share = 1 - prevalence
    return p_u + p_v, p_u - p_v, share


def power_sensitivity_specificity(
    n_records: int,
    prevalence: float,
    sensitivity: Pair,
    specificity: Pair,
    *,
    correlation: Pair = (0.0, 0.0),
    measure: str = "sensitivity",
    alpha: float = 0.05,
) -> float:
    """Power of McNemar's test of equal sensitivity (or specificity).

    Connor's [1]_ approximation for the stratum's ``n = N prevalence``
    records: ``Phi((sqrt(n) |delta| - z sqrt(psi)) / sqrt(psi - delta^2))``
    with ``psi`` the probability of a discordant record and ``delta`` the
    difference (plus the negligible opposite tail).

    Parameters
    ----------
    n_records : int
        Total records (both strata).
    prevalence, sensitivity, specificity, correlation
        As in :func:`paired_cell_probabilities`.
    measure : {"sensitivity", "specificity"}, default="sensitivity"
    alpha : float, default=0.05

    Returns
    -------
    float

    References
    ----------
    .. [1] Connor (1987). Sample size for testing differences in proportions
       for the paired-sample design. Biometrics 43(1), 207-211.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import power_sensitivity_specificity
    >>> power = power_sensitivity_specificity(400, 0.5, (0.8, 0.9), (0.9, 0.9))
    >>> print(f"{power:.3f}")
    0.797
    """
    n_records = _check_integer(n_records, "n_records", 1)
    psi, delta, share = _mcnemar_design(
        prevalence, sensitivity, specificity, correlation, measure, alpha
    )
    if psi == 0:
        return _undefined_power(f"no record is discordant in {measure}")
    n = n_records * share
    z = stats.norm.ppf(1 - alpha / 2)
    sd = np.sqrt(psi - delta**2)
    return float(
        stats.norm.cdf((np.sqrt(n) * abs(delta) - z * np.sqrt(psi)) / sd)
        + stats.norm.cdf((-np.sqrt(n) * abs(delta) - z * np.sqrt(psi)) / sd)
    )


def sample_size_sensitivity_specificity(
    prevalence: float,
    sensitivity: Pair,
    specificity: Pair,
    *,
    correlation: Pair = (0.0, 0.0),
    measure: str = "sensitivity",
    alpha: float = 0.05,
    power: float = 0.8,
) -> SampleSize:
    """Records needed for McNemar's test of equal sensitivity (or specificity).

    Connor's [1]_ formula ``n = (z_{1-alpha/2} sqrt(psi) + z_{power}
    sqrt(psi - delta^2))^2 / delta^2`` for the stratum, divided by the
    stratum's share of records.

    Parameters
    ----------
    prevalence, sensitivity, specificity, correlation
        As in :func:`paired_cell_probabilities`.
    measure : {"sensitivity", "specificity"}, default="sensitivity"
    alpha : float, default=0.05
    power : float, default=0.8
        Target power, greater than `alpha`.

    Returns
    -------
    SampleSize

    References
    ----------
    .. [1] Connor (1987). Biometrics 43(1), 207-211.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import sample_size_sensitivity_specificity
    >>> sample_size_sensitivity_specificity(0.5, (0.8, 0.9), (0.9, 0.9)).n_records
    404
    """
    psi, delta, share = _mcnemar_design(
        prevalence, sensitivity, specificity, correlation, measure, alpha, power
    )
    _check_effect(delta, measure, alpha, power)
    z, zb = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    n = (z * np.sqrt(psi) + zb * np.sqrt(psi - delta**2)) ** 2 / delta**2 / share
    return _rounded_up(
        n,
        lambda n_int: power_sensitivity_specificity(
            n_int,
            prevalence,
            sensitivity,
            specificity,
            correlation=correlation,
            measure=measure,
            alpha=alpha,
        ),
        delta,
    )
