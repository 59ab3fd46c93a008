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
    """The corrected meat from the records' keys, one block of records at a time."""
    role, records = data.role, data.records
    n_classes, n_clf = M.shape
    meat = np.zeros((n_classes, n_clf, n_clf))

    def add(k, t, f, sign=1.0):
        # u_ic = g_ic s_ic for the keys' classes k.
        m = t + f
        u = (t - m * P[k]) * M[k] / (M[k] - m)
        for c in range(n_clf):
            for d in range(c, n_clf):
                weights = sign * u[:, c] * u[:, d]
                meat[:, c, d] += np.bincount(k, weights=weights, minlength=n_classes)

    if role.pooled:
        # Accuracy's one pseudo-class: every record's rows, right (the TP
        # of its keys) or wrong.
        for block in records.key_blocks():
            n = block.record_rows.shape[0]
            correct = np.stack(
                [
                    np.bincount(block.key_record, weights=block.x[:, c, TP], minlength=n)
                    for c in range(n_clf)
                ],
                axis=-1,
            )
            rows = block.record_rows.astype(float)[:, None]
            add(np.zeros(n, dtype=np.intp), correct, rows - correct)
        return _symmetric(meat)
    lookup = np.full(records.n_values, -1)
    lookup[data.class_codes] = np.arange(n_classes)
    for block in records.key_blocks():
        k = lookup[block.key_class]
        keep = np.flatnonzero(k >= 0)
        k, x = k[keep], block.x[keep].astype(float)
        rows = block.record_rows[block.key_record[keep]].astype(float)
        x = np.concatenate([x, (rows[:, None] - x.sum(axis=-1))[..., None]], axis=-1)
        add(k, x[..., role.success], x[..., role.failure])
        if role.success == TN:
            # Take back the touched records' share of the term below.
            touched = np.broadcast_to(rows[:, None], (rows.shape[0], n_clf))
            add(k, touched, np.zeros_like(touched), sign=-1.0)
    meat = _symmetric(meat)
    if role.success == TN:
        # NPV and specificity: a record that does not touch the class is in
        # the model with all its R_i rows, every one a success. Sum that
        # over all records by their distinct numbers of rows (the touched
        # records' share was taken back above).
        sizes, n_with = np.unique(records.record_rows(), return_counts=True)
        u_all = sizes * (1 - P)[..., None] * M[..., None] / (M[..., None] - sizes)
        meat += np.einsum("kcv,kdv,v->kcd", u_all, u_all, n_with)
    return meat


def _symmetric(meat):
    """The full matrices from their upper triangles."""
    upper = np.triu(np.ones(meat.shape[-2:], dtype=bool))
    return np.where(upper, meat, np.swapaxes(meat, -1, -2))
