"""Mancl and DeRouen's bias-reduced sandwich for the saturated marginal model.

With few clusters the robust (sandwich) covariance is biased downwards and
Wald-type tests reject too often. Mancl and DeRouen (2001) replace each
cluster's residuals ``r_i`` by ``(I - H_ii)^{-1} r_i``, where ``H_ii`` is the
cluster's block of the GEE hat matrix. For the saturated model of one class
(independence working correlation, any link) ``H_ii`` is block-diagonal in
the classifiers with blocks ``J / M_c`` (all-ones over the cluster's ``m_ic``
rows of classifier ``c``, divided by its ``M_c`` rows in total), so the
correction multiplies the cluster's score for classifier ``c`` by
``g_ic = M_c / (M_c - m_ic)``. The corrected meat is then
``sum_i g_ic g_id s_ic s_id`` with ``s_ic = t_ic - m_ic P_c``, which this
module computes in closed form: from the cross sums for one row per record
(every ``m_ic`` is 0 or 1) and from per-(record, class) counts for clustered
rows. statsmodels' ``GEE.fit(cov_type="bias_reduced")`` gives the same
numbers.
"""

import numpy as np

from ._counts import POOLED_CLASS, TN
from ._marginal_model import _residual_products

__all__ = []


def bias_reduced_meat(counts, data=None):
    """The corrected meat per class, on the proportion scale.

    Parameters
    ----------
    counts : MarginalCounts
        The role's sums of the reported classes.
    data : ComparisonData, default=None
        The comparison's records, needed for clustered rows; None means one
        row per record.

    Returns
    -------
    ndarray of shape (n_classes, n_classifiers, n_classifiers)
        ``sum_i g_ic g_id s_ic s_id``; NaN where a single cluster holds all
        of a classifier's rows (``M_c = m_ic``: nothing left to estimate
        the variance from).
    """
    T, F = counts.successes, counts.failures
    M = T + F
    with np.errstate(divide="ignore", invalid="ignore"):
        P = T / M
        if data is None:
            # Every record has one row: m_ic is 1 wherever s_ic is nonzero.
            S = _residual_products(counts.cross, P[..., :, None], P[..., None, :])
            g = M / (M - 1)
            return S * g[..., :, None] * g[..., None, :]
        return _clustered_meat(data, M, P)


def _clustered_meat(data, M, P):
    role = data.role
    units = data.records.units()
    class_codes = data.class_codes
    if role.pooled:
        units = units.pooled()
        class_codes = np.array([POOLED_CLASS])
    x, key_class, key_record = units.x, units.key_class, units.key_unit
    rows_per_record, n_values = units.unit_rows, units.n_values
    n_classes, n_clf = M.shape
    lookup = np.full(n_values, -1)
    lookup[class_codes] = np.arange(n_classes)
    k = lookup[key_class]
    keep = k >= 0
    k, x, record = k[keep], x[keep], key_record[keep]
    t, f = x[..., role.success], x[..., role.failure]
    u = (t - (t + f) * P[k]) * M[k] / (M[k] - (t + f))
    meat = np.zeros((n_classes, n_clf, n_clf))
    for c in range(n_clf):
        for d in range(c, n_clf):
            meat[:, c, d] = meat[:, d, c] = np.bincount(
                k, weights=u[:, c] * u[:, d], minlength=n_classes
            )
    if role.success == TN:
        # NPV and specificity: a record that does not touch the class is in
        # the model with all its R_i rows, every one a success. Sum that
        # over all records by their distinct numbers of rows, and take the
        # touched records' share back out.
        sizes, n_with = np.unique(rows_per_record, return_counts=True)
        u_all = sizes * (1 - P)[..., None] * M[..., None] / (M[..., None] - sizes)
        meat += np.einsum("kcv,kdv,v->kcd", u_all, u_all, n_with)
        rows = rows_per_record[record][:, None]
        u_touched = rows * (1 - P[k]) * M[k] / (M[k] - rows)
        for c in range(n_clf):
            for d in range(c, n_clf):
                back = np.bincount(
                    k, weights=u_touched[:, c] * u_touched[:, d], minlength=n_classes
                )
                meat[:, c, d] -= back
                if d != c:
                    meat[:, d, c] -= back
    return meat
