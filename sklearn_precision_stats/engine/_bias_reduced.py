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
from ._units import (
    count_digits,
    count_radices,
    counts_of_digits,
    group_codes,
    group_digits,
    group_sums,
    kept,
)

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
    """The corrected meat from the records' keys, counted by groups of equal keys."""
    role, records = data.role, data.records
    n_classes, n_clf = M.shape
    if role.pooled:
        return _pooled_meat(records, M, P)
    grouping = _MeatGrouping(data, M, P)
    meat = group_sums(records, grouping, n_classes * n_clf * n_clf)
    meat = meat.reshape(n_classes, n_clf, n_clf)
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


class _MeatGrouping:
    """Keys grouped by class, success and failure rows per classifier (and rows).

    A key's term ``u_c u_d`` of the meat depends on nothing else
    (:func:`.._units.group_sums`).
    """

    def __init__(self, data, M, P):
        self.role, self.M, self.P = data.role, M, P
        n_classes, n_clf = M.shape
        self.lookup = np.full(data.records.n_values, -1, dtype=np.int64)
        self.lookup[data.class_codes] = np.arange(n_classes)
        self.with_rows = TN in (self.role.success, self.role.failure)
        self.base = data.records.max_rows + 1
        self.n_count_digits = len(count_radices(self.base, n_clf))
        self.radices = [n_classes] + count_radices(self.base, n_clf) + [self.base] * self.with_rows

    def codes(self, block):
        k = self.lookup[block.key_class]
        keys = kept(k >= 0)
        digits = [k[keys]] + count_digits(block, keys)
        if self.with_rows:
            digits.append(block.record_rows[block.key_record[keys]])
        return keys, group_codes(digits, self.radices)

    def features(self, codes):
        digits = group_digits(codes, self.radices)
        n_groups = digits.shape[0]
        k = digits[:, 0]
        n_classes, n_clf = self.M.shape
        x = counts_of_digits(digits[:, 1 : 1 + self.n_count_digits], self.base, n_clf)
        x = x.astype(float)
        rows = digits[:, -1:].astype(float)
        tf = []
        for category in (self.role.success, self.role.failure):
            tf.append(rows - x.sum(axis=-1) if category == TN else x[..., category])
        t, f = tf
        M, P = self.M[k], self.P[k]
        m = t + f
        u = (t - m * P) * M / (M - m)
        products = u[:, :, None] * u[:, None, :]
        if self.role.success == TN:
            # The touched records' share of the untouched records' term.
            u_rows = rows * (1 - P) * M / (M - rows)
            products -= u_rows[:, :, None] * u_rows[:, None, :]
        out = np.zeros((n_groups, n_classes, n_clf, n_clf))
        out[np.arange(n_groups), k] = products
        return out.reshape(n_groups, -1)


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
