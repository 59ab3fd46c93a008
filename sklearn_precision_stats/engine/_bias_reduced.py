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

from ._counts import TN, TP
from ._marginal_model import _residual_products
from ._units import ROWS, group_sums, key_groups

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
    """The corrected meat from the records' keys, counted by groups of equal keys.

    A key's term ``u_c u_d`` depends only on its class and its record's
    success and failure rows per classifier (and, with true negatives, its
    rows), so keys are grouped by these (:func:`._units.key_groups`).
    """
    role, records = data.role, data.records
    n_classes, n_clf = M.shape
    if role.pooled:
        return _pooled_meat(records, M, P)
    with_rows = TN in (role.success, role.failure)
    digits = [(c, (u,)) for c in range(n_clf) for u in (role.success, role.failure)]

    def features(k, digits):
        digits = digits.astype(float)
        t, f = digits[:, 0 : 2 * n_clf : 2], digits[:, 1 : 2 * n_clf : 2]
        m = t + f
        u = (t - m * P[k]) * M[k] / (M[k] - m)
        products = u[:, :, None] * u[:, None, :]
        if role.success == TN:
            # The touched records' share of the untouched records' term
            # (the same expression as u, so that it is 0 on untouched keys).
            rows = digits[:, -1:]
            u_rows = (rows - rows * P[k]) * M[k] / (M[k] - rows)
            products -= u_rows[:, :, None] * u_rows[:, None, :]
        return products.reshape(k.shape[0], -1)

    groups = key_groups(
        records, data.class_codes, digits + [ROWS] * with_rows, features, n_clf * n_clf
    )
    meat = group_sums(groups).reshape(n_classes, n_clf, n_clf)
    if role.success == TN:
        # NPV and specificity: a record that does not touch the class is in
        # the model with all its R_i rows, every one a success. Sum that
        # over all records by their distinct numbers of rows (the touched
        # records' share is taken back in their groups' features).
        n_with = records.record_sizes()
        sizes = np.flatnonzero(n_with)
        n_with = n_with[sizes]
        u_all = sizes * (1 - P)[..., None] * M[..., None] / (M[..., None] - sizes)
        meat += np.einsum("kcv,kdv,v->kcd", u_all, u_all, n_with)
    return meat


def _pooled_meat(records, M, P):
    """Accuracy's one pseudo-class: every record's rows, right (the TP of its keys) or wrong."""
    n_clf = M.shape[1]
    meat = np.zeros((1, n_clf, n_clf))
    for block in records.key_blocks():
        n = block.record_rows.shape[0]
        t = np.stack(
            [
                np.bincount(block.key_record, weights=block.x[:, c, TP], minlength=n)
                for c in range(n_clf)
            ],
            axis=-1,
        )
        m = block.record_rows.astype(float)[:, None]
        u = (t - m * P[0]) * M[0] / (M[0] - m)
        meat[0] += u.T @ u
    return meat
