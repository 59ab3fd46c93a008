"""Relative positive and negative predictive values, jointly."""

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from ..results._base import _check_confidence_level
from ..utils._validation import _check_integer
from ._counts import Predictions, finite, log_count_influence, prepare
from ._results import one_warning, ratio
from ._sesp import RelativeAccuracyResult, ratio_fit, relative_result

__all__ = ["RelativePredictiveValuesResult", "relative_predictive_values"]


def log_rpv_influences(paired):
    """Per-cell influences on ``log rPPV`` and ``log rNPV``, and the values.

    `paired` has shape (..., 2, 2, 2) over ``[d, a, b]`` (``a`` reference,
    ``b`` compared classifier); leading axes broadcast. Returns the
    influences of shape (..., 2, 2, 2, 2) (PPV, NPV last) and the PPV and
    NPV of the compared classifier and of the reference, shape (..., 2).
    """
    influences, value, value_ref = [], [], []
    # log PPV = log N(status 1, result 1) - log N(result 1); NPV: 0 for 1.
    for r in (1, 0):
        inf_hit_o, hit_o = log_count_influence(paired, d=r, b=r)
        inf_res_o, res_o = log_count_influence(paired, b=r)
        inf_hit_r, hit_r = log_count_influence(paired, d=r, a=r)
        inf_res_r, res_r = log_count_influence(paired, a=r)
        with np.errstate(invalid="ignore"):
            influences.append(finite((inf_hit_o - inf_res_o) - (inf_hit_r - inf_res_r)))
        value.append(ratio(hit_o, res_o))
        value_ref.append(ratio(hit_r, res_r))
    return np.stack(influences, -1), np.stack(value, -1), np.stack(value_ref, -1)


@dataclass(frozen=True, repr=False)
class RelativePredictiveValuesResult(RelativeAccuracyResult):
    """Relative PPV and NPV with their joint covariance.

    As :class:`RelativeAccuracyResult` with measures ``("ppv", "npv")``,
    plus ``covariance`` of shape (n_classes, n_classifiers - 1, 2, 2), the
    covariance matrix of ``(log rPPV, log rNPV)``.
    """

    covariance: np.ndarray | None = None

    _repr_fields = ()

    def region(
        self,
        cls: Hashable,
        classifier: str | None = None,
        confidence_level: float = 0.95,
        n_points: int = 200,
    ) -> np.ndarray:
        """Boundary of the joint confidence region of (rPPV, rNPV).

        The ellipse ``{t : (t - t_hat)' S^-1 (t - t_hat) <= q}`` of the
        log ratios, ``q`` the chi-square (2 df) quantile, mapped back to the
        ratio scale.

        Parameters
        ----------
        cls : label
            The class.
        classifier : str, default=None
            The compared classifier; the first non-reference one when None.
        confidence_level : float, default=0.95
        n_points : int, default=200
            At least 3.

        Returns
        -------
        ndarray of shape (n_points, 2)
            Points (rPPV, rNPV) on the boundary.
        """
        level = _check_confidence_level(confidence_level)
        n_points = _check_integer(n_points, "n_points", 3, " (points on the boundary)")
        k = _index(np.asarray(self.classes).tolist(), cls, "cls")
        j = 0 if classifier is None else _index(list(self.classifiers), classifier, "classifier")
        centre = np.log(self.ratio[k, j])
        cov = np.asarray(self.covariance)[k, j]
        if not (np.all(np.isfinite(centre)) and np.all(np.isfinite(cov))):
            return np.full((n_points, 2), np.nan)
        radius = np.sqrt(stats.chi2.ppf(level, 2))
        angle = np.linspace(0, 2 * np.pi, n_points)
        circle = np.stack([np.cos(angle), np.sin(angle)], axis=1)
        values, vectors = np.linalg.eigh(cov)
        root = vectors * np.sqrt(np.maximum(values, 0.0))
        return np.exp(centre + radius * circle @ root.T)

    @property
    def covariance_table(self) -> pd.DataFrame:
        """Variances and covariance of (log rPPV, log rNPV) per class and classifier."""
        covariance = np.asarray(self.covariance)
        return self._table(
            None,
            {
                "var_log_rppv": covariance[..., 0, 0],
                "var_log_rnpv": covariance[..., 1, 1],
                "cov_log_rppv_rnpv": covariance[..., 0, 1],
            },
        )


def _index(values, value, name):
    if value not in values:
        raise ValueError(f"{name}={value!r} is not one of {values}.")
    return values.index(value)


def relative_predictive_values(
    y_true: ArrayLike,
    y_preds: Predictions,
    *,
    reference: str | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
) -> RelativePredictiveValuesResult:
    """Relative PPV and NPV with their joint covariance, per class.

    ``rPPV = PPV / PPV_ref`` and ``rNPV = NPV / NPV_ref`` on the same
    records, with the multinomial delta-method covariance of their logs
    (Moskowitz and Pepe [1]_); the joint region is drawn by
    :func:`~sklearn_precision_stats.plotting.plot_predictive_value_region`.
    The marginal tests equal the ``ratio`` columns of
    :func:`~sklearn_precision_stats.compare_precision` (rPPV) and
    :func:`~sklearn_precision_stats.compare_npv` (rNPV).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
    y_preds : dict or list of (str, array-like)
        At least two classifiers.
    reference : str, default=None
    labels : array-like, default=None
    groups : array-like of shape (n_rows,), default=None
        Record id of each row; the covariance is then cluster-robust.

    Returns
    -------
    RelativePredictiveValuesResult

    References
    ----------
    .. [1] Moskowitz and Pepe (2006). Comparing the predictive values of
       diagnostic tests: sample size and analysis for paired study designs.
       Clinical Trials 3(3), 272-279.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import relative_predictive_values
    >>> y  = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    >>> rf = [1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1]
    >>> nb = [1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1]
    >>> res = relative_predictive_values(y, {"rf": rf, "nb": nb}, labels=[1])
    >>> res.table[["measure", "value", "value_reference", "ratio"]].round(4)
      measure  value  value_reference  ratio
    0     ppv    0.5           0.7143  0.700
    1     npv    0.5           0.8000  0.625
    """
    with one_warning():
        data = prepare(y_true, y_preds, reference=reference, labels=labels, groups=groups)
        influences, value, value_ref = log_rpv_influences(data.paired)
        fit = ratio_fit(
            data,
            value,
            value_ref,
            influences,
            ("PPV", "NPV"),
            ("a classifier's PPV is 0 or undefined", "a classifier's NPV is 0 or undefined"),
            "its variance is 0 (identical results, or both values 1)",
        )
        defined = fit.defined
        cov = np.where(defined[..., :, None] & defined[..., None, :], fit.covariance, np.nan)
        return relative_result(
            RelativePredictiveValuesResult,
            data,
            fit,
            value,
            value_ref,
            ("ppv", "npv"),
            groups,
            cov,
        )
