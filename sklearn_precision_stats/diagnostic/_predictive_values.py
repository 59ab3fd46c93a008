"""Relative positive and negative predictive values, jointly."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from ..results._base import _check_confidence_level
from ._counts import Predictions, prepare, robust_covariance
from ._results import normal_pvalue, ratio, warn_undefined
from ._sesp import RelativeAccuracyResult

__all__ = ["RelativePredictiveValuesResult", "relative_predictive_values"]

_D = np.array([0.0, 1.0])[:, None, None]
_A = np.array([0.0, 1.0])[None, :, None]
_B = np.array([0.0, 1.0])[None, None, :]


def log_rpv_influences(paired):
    """Per-cell influences on ``log rPPV`` and ``log rNPV``, and the ratios.

    `paired` has shape (..., 2, 2, 2) over ``[d, a, b]`` (``a`` reference,
    ``b`` compared classifier); leading axes broadcast.
    """
    tp_o = paired[..., 1, :, 1].sum(-1)
    tp_r = paired[..., 1, 1, :].sum(-1)
    pos_o = paired[..., :, :, 1].sum((-1, -2))
    pos_r = paired[..., :, 1, :].sum((-1, -2))
    tn_o = paired[..., 0, :, 0].sum(-1)
    tn_r = paired[..., 0, 0, :].sum(-1)
    neg_o = paired[..., :, :, 0].sum((-1, -2))
    neg_r = paired[..., :, 0, :].sum((-1, -2))
    ex = (..., None, None, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        u_p = _B * (_D / tp_o[ex] - 1 / pos_o[ex]) - _A * (_D / tp_r[ex] - 1 / pos_r[ex])
        u_n = (1 - _B) * ((1 - _D) / tn_o[ex] - 1 / neg_o[ex]) - (1 - _A) * (
            (1 - _D) / tn_r[ex] - 1 / neg_r[ex]
        )
    u_p = np.where(np.isfinite(u_p), u_p, 0.0)
    u_n = np.where(np.isfinite(u_n), u_n, 0.0)
    ppv_o, ppv_r = ratio(tp_o, pos_o), ratio(tp_r, pos_r)
    npv_o, npv_r = ratio(tn_o, neg_o), ratio(tn_r, neg_r)
    defined = np.stack([(tp_o > 0) & (tp_r > 0), (tn_o > 0) & (tn_r > 0)], -1)
    return (
        u_p,
        u_n,
        np.stack([ppv_o, npv_o], -1),
        np.stack([ppv_r, npv_r], -1),
        defined,
    )


@dataclass(frozen=True, repr=False)
class RelativePredictiveValuesResult(RelativeAccuracyResult):
    """Relative PPV and NPV with their joint covariance.

    As :class:`RelativeAccuracyResult` with measures ``("ppv", "npv")``,
    plus ``covariance`` of shape (n_classes, n_classifiers - 1, 2, 2), the
    covariance matrix of ``(log rPPV, log rNPV)``.
    """

    covariance: np.ndarray | None = None

    def region(self, cls, classifier=None, confidence_level=0.95, n_points=200):
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

        Returns
        -------
        ndarray of shape (n_points, 2)
            Points (rPPV, rNPV) on the boundary.
        """
        level = _check_confidence_level(confidence_level)
        k = _index(list(self.classes), cls, "cls")
        j = 0 if classifier is None else _index(list(self.classifiers), classifier, "classifier")
        centre = np.log(self.ratio[k, j])
        cov = self.covariance[k, j]
        if not (np.all(np.isfinite(centre)) and np.all(np.isfinite(cov))):
            return np.full((n_points, 2), np.nan)
        radius = np.sqrt(stats.chi2.ppf(level, 2))
        angle = np.linspace(0, 2 * np.pi, n_points)
        circle = np.stack([np.cos(angle), np.sin(angle)], axis=1)
        values, vectors = np.linalg.eigh(cov)
        root = vectors * np.sqrt(np.maximum(values, 0.0))
        return np.exp(centre + radius * circle @ root.T)

    def __repr__(self):
        return (
            f"RelativePredictiveValuesResult(classes={list(self.classes)}, "
            f"classifiers={list(self.classifiers)})"
        )

    @property
    def covariance_table(self) -> pd.DataFrame:
        """Variances and covariance of (log rPPV, log rNPV) per class and classifier."""
        from ._results import long_table

        covariance = np.asarray(self.covariance)
        return long_table(
            self.classes,
            self.classifiers,
            self.reference,
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
    data = prepare(y_true, y_preds, reference=reference, labels=labels, groups=groups)
    u_p, u_n, value, value_ref, defined = log_rpv_influences(data.paired)
    cov = np.empty((*u_p.shape[:-3], 2, 2))
    pairs = ((0, 0, u_p, u_p), (1, 1, u_n, u_n), (0, 1, u_p, u_n))
    for i, j, u, v in pairs:
        cov[..., i, j] = robust_covariance(u, v, data.paired, data.paired_groups, 3)
    cov[..., 1, 0] = cov[..., 0, 1]
    r = ratio(value, value_ref)
    var = np.stack([cov[..., 0, 0], cov[..., 1, 1]], -1)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.where(defined, np.sqrt(np.maximum(var, 0.0)), np.nan)
        zstat = np.where(defined & (se > 0), np.log(np.where(defined, r, 1.0)) / se, np.nan)
    cov = np.where(defined[..., :, None] & defined[..., None, :], cov, np.nan)
    r = np.where(defined, r, np.nan)
    names = data.names[1:]
    for i, m in enumerate(("PPV", "NPV")):
        warn_undefined(
            ~defined[..., i],
            data.classes,
            names,
            f"the relative {m}",
            f"a classifier's {m} is 0 or undefined",
            3,
        )
        warn_undefined(
            defined[..., i] & (se[..., i] == 0),
            data.classes,
            names,
            f"the test of the relative {m}",
            "its variance is 0 (identical results, or both values 1)",
            3,
        )
    se = np.where(se > 0, se, np.nan)
    return RelativePredictiveValuesResult(
        zstat,
        normal_pvalue(zstat),
        r,
        se,
        value,
        value_ref,
        ("ppv", "npv"),
        data.classes,
        tuple(names),
        data.names[0],
        groups is not None,
        cov,
    )
