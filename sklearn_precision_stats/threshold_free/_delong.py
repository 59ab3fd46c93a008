"""DeLong's covariance of correlated ROC AUCs for compare_roc_auc: per class,
averaged over the classes, and with several rows per record (clusters).

With one row per record, DeLong, DeLong and Clarke-Pearson (1988) estimate
the covariance of the AUCs of several classifiers from the placement values
``V10`` of the positives (the share of negatives a positive outscores, ties
1/2) and ``V01`` of the negatives. With several rows per record, Obuchowski
(1997) sums the placement values over the rows of each record (cluster)
``i``, ``V10_i`` over its ``m_i`` positives and ``V01_i`` over its ``n_i``
negatives, and with ``M``, ``N`` the positive and negative rows, ``I10``,
``I01`` the clusters holding positives or negatives and ``I`` all clusters,
writes, for classifiers ``r`` and ``s``::

    S10 = I10 / ((I10 - 1) M) sum_i (V10_i^r - m_i A^r) (V10_i^s - m_i A^s)
    S01 = I01 / ((I01 - 1) N) sum_i (V01_i^r - n_i A^r) (V01_i^s - n_i A^s)
    S11 = I / (I - 1) sum_i (V10_i^r - m_i A^r) (V01_i^s - n_i A^s)
    cov(A^r, A^s) = S10 / M + S01 / N + (S11^rs + S11^sr) / (M N)

With one row per record a cluster holds one positive or one negative, so
``S11 = 0``, ``I10 = M`` and ``I01 = N``: DeLong's covariance exactly. In
terms of ``p_i = (V10_i - m_i A) / M`` and ``q_i = (V01_i - n_i A) / N``,
a cluster's share of the AUC's deviation, ``u_i = p_i + q_i``, and
``c(J) = J / (J - 1)``::

    cov = c(I) sum_i u^r u^s + (c(I10) - c(I)) sum_i p^r p^s
          + (c(I01) - c(I)) sum_i q^r q^s.

The AUCs of different classes (one against the rest) are computed on the
same records, where a record is a positive of its class and a negative of
the others (multilabel: of every label it lacks), so their estimates are
correlated through the records. The same form gives their covariance: the
product of two clusters' deviations carries ``c(I)``, Obuchowski's factor
for the products of different sums, raised to ``c(I10)`` or ``c(I01)`` for
the products of a class's positive (negative) sums with themselves, which
is the per-class covariance above. For classes ``k`` and ``l``::

    cov(A_k^r, A_l^s) = c(I) sum_i u_ki^r u_li^s
                        + [k = l] ((c(I10_k) - c(I)) sum_i p_ki^r p_ki^s
                                   + (c(I01_k) - c(I)) sum_i q_ki^r q_ki^s).

A weighted mean of the classes' AUCs ``sum_k w_k A_k`` (macro: ``w_k =
1/K``; weighted: ``w_k`` proportional to the class's positive rows) has
the covariance ``sum_kl w_k w_l cov(A_k, A_l)``, which is the form above
with ``u_i = sum_k w_k u_ki`` plus each class's extra terms times
``w_k^2``. Each term is a Gram matrix times a factor that is not
negative (``c(I10) >= c(I)`` since ``I10 <= I``), so the covariance is
positive semi-definite. The micro average is the AUC of the flattened (row, class)
entries, whose rows are clustered by record: the clustered covariance with
the records (or groups) as clusters.
"""

import warnings

import numpy as np
from scipy import stats

from ..classic._roc import _centred_placements, _dot
from ..exceptions import UndefinedStatisticWarning
from ..results._metric_comparison import MetricComparison
from ._inference import _STACKLEVEL, _class_name, _omnibus


def _factor(count):
    """Obuchowski's small-sample factor ``J / (J - 1)``; NaN below two clusters."""
    return count / (count - 1.0) if count >= 2 else np.nan


def _gram(rows):
    """``rows @ rows.T``, each product summed accurately."""
    n = rows.shape[0]
    gram = np.empty((n, n))
    for r in range(n):
        for s in range(r, n):
            gram[r, s] = gram[s, r] = _dot(rows[r], rows[s])
    return gram


class _ClusterPlacements:
    """One binary curve (a class against the rest) of every classifier.

    Attributes
    ----------
    auc : ndarray of shape (n_clf,)
    pos, neg : ndarray of shape (n_clf, n_clusters)
        ``p_i`` and ``q_i``: per-cluster sums of the centred placement values
        of the positive (negative) rows, over the positive (negative) rows.
    pos_factor, neg_factor : float
        ``c(I10)`` and ``c(I01)``: NaN below two clusters with positive
        (negative) rows.
    """

    def __init__(self, positive, scores, cluster, n_clusters):
        n_pos = int(np.count_nonzero(positive))
        n_neg = positive.shape[0] - n_pos
        self.pos_factor = _factor(np.count_nonzero(np.bincount(cluster[positive], minlength=1)))
        self.neg_factor = _factor(np.count_nonzero(np.bincount(cluster[~positive], minlength=1)))
        self.auc = np.empty(len(scores))
        self.pos = np.empty((len(scores), n_clusters))
        self.neg = np.empty((len(scores), n_clusters))
        for r, values in enumerate(scores):
            auc, centred = _centred_placements(values, positive, n_pos, n_neg, scaled=False)
            self.auc[r] = auc
            self.pos[r] = np.bincount(
                cluster, weights=np.where(positive, centred, 0.0), minlength=n_clusters
            )
            self.neg[r] = np.bincount(
                cluster, weights=np.where(positive, 0.0, centred), minlength=n_clusters
            )
        self.pos /= n_pos
        self.neg /= n_neg


def _obuchowski_covariance(parts, weights, n_clusters):
    """AUCs and covariance of ``sum_k w_k A_k`` over the classifiers.

    `parts` (the classes' placements) is read once, so it may be a
    generator: only one class's placements are held at a time. Also
    returns the index of the first class whose own factors are undefined
    (fewer than two clusters with positive or negative rows), or None.
    """
    common = _factor(n_clusters)
    auc = total = own = undefined = None
    for k, (w, part) in enumerate(zip(weights, parts, strict=True)):
        terms = (part.pos_factor - common) * _gram(part.pos)
        terms += (part.neg_factor - common) * _gram(part.neg)
        if auc is None:
            auc, total, own = w * part.auc, w * (part.pos + part.neg), w**2 * terms
        else:
            auc += w * part.auc
            total += w * (part.pos + part.neg)
            own += w**2 * terms
        if undefined is None and np.isnan([part.pos_factor, part.neg_factor]).any():
            undefined = k
    return auc, common * _gram(total) + own, undefined


def _table_rows(problem, average, groups):
    """The table's labels, and for each row the AUCs and their covariance.

    Yields ``(label, auc, covariance, reason)``; ``reason`` says why the
    AUCs (then NaN) or the covariance (then NaN) are undefined.
    """
    positive = problem.positive
    n_classes = positive.shape[1]
    averaged = average is not None and not problem.binary
    if groups is None:
        cluster = np.arange(problem.n_rows)
        lacking = "fewer than two positive or two negative rows"
    else:
        cluster = problem.unit
        lacking = "fewer than two records (groups) with positive rows or with negative rows"
    n_clusters = int(cluster.max()) + 1
    names = [f"class {_class_name(label)}" for label in problem.classes]

    if not averaged:
        for k in range(n_classes):
            in_class = np.ascontiguousarray(positive[:, k])
            n_pos = int(np.count_nonzero(in_class))
            if n_pos == 0 or n_pos == problem.n_rows:
                reason = f"roc_auc of {names[k]}: y_true has no positive or no negative rows"
                yield problem.classes[k], None, None, reason
                continue
            scores = [np.ascontiguousarray(s[:, k]) for s in problem.scores]
            # One cluster per row without groups: DeLong's covariance exactly.
            part = _ClusterPlacements(in_class, scores, cluster, n_clusters)
            auc, cov, _ = _obuchowski_covariance([part], [1.0], n_clusters)
            reason = None
            if not np.isfinite(cov).all():
                reason = f"DeLong's variance of {names[k]}: {lacking}"
            yield problem.classes[k], auc, cov, reason
        return

    what = f"the {average} average"
    if average == "micro":
        flat = positive.reshape(-1)
        n_pos = int(np.count_nonzero(flat))
        if n_pos == 0 or n_pos == flat.shape[0]:
            reason = f"roc_auc of {what}: y_true has no positive or no negative entries"
            yield average, None, None, reason
            return
        # The (row, class) entries of a record form one cluster.
        part = _ClusterPlacements(
            flat,
            [s.reshape(-1) for s in problem.scores],
            np.repeat(cluster, n_classes),
            n_clusters,
        )
        auc, cov, _ = _obuchowski_covariance([part], [1.0], n_clusters)
        reason = None if np.isfinite(cov).all() else f"DeLong's variance of {what}: {lacking}"
        yield average, auc, cov, reason
        return

    n_pos = np.count_nonzero(positive, axis=0)
    # scikit-learn's weighted average weighs a class by its positives: a
    # class without positives drops out of it.
    kept = n_pos > 0 if average == "weighted" else np.ones(n_classes, dtype=bool)
    empty = kept & ((n_pos == 0) | (n_pos == problem.n_rows))
    if empty.any() or not kept.any():
        first = names[int(np.flatnonzero(empty | ~kept)[0])]
        yield average, None, None, f"roc_auc of {what}: {first} has no positive or no negative rows"
        return
    kept = np.flatnonzero(kept)
    weights = np.full(n_classes, 1.0 / n_classes) if average == "macro" else n_pos / n_pos.sum()
    parts = (
        _ClusterPlacements(
            np.ascontiguousarray(positive[:, k]),
            [np.ascontiguousarray(s[:, k]) for s in problem.scores],
            cluster,
            n_clusters,
        )
        for k in kept
    )
    auc, cov, bad = _obuchowski_covariance(parts, weights[kept], n_clusters)
    reason = None
    if bad is not None or not np.isfinite(cov).all():
        which = f"{names[kept[bad]]} has " if bad is not None else ""
        reason = f"DeLong's variance of {what}: {which}{lacking}"
    yield average, auc, cov, reason


def _label_name(label, average, problem):
    if average is not None and not problem.binary:
        return f"the {average} average"
    return f"class {_class_name(label)}"


def _run_delong(problem, average, groups, level):
    n_clf = len(problem.names)
    rows = list(_table_rows(problem, average, groups))
    n_table = len(rows)
    estimates = np.full((n_table, n_clf), np.nan)
    estimate_se = np.full((n_table, n_clf), np.nan)
    diff = np.full((n_table, n_clf - 1), np.nan)
    diff_se = np.full((n_table, n_clf - 1), np.nan)
    contrast = np.hstack([-np.ones((n_clf - 1, 1)), np.eye(n_clf - 1)])
    covariances = []
    reasons = []
    for i, (label, auc, cov, reason) in enumerate(rows):
        if reason is not None:
            reasons.append(reason)
        if auc is None:
            covariances.append(np.full((n_clf - 1, n_clf - 1), np.nan))
            continue
        estimates[i] = auc
        diff[i] = auc[1:] - auc[0]
        cov_diff = contrast @ cov @ contrast.T
        covariances.append(cov_diff)
        if reason is not None:
            continue
        estimate_se[i] = np.sqrt(np.maximum(np.diag(cov), 0.0))
        variance = np.diag(cov_diff)
        # Relative threshold: identical rankings leave only rounding error.
        flat = variance <= 1e-12 * (cov[0, 0] + np.diag(cov)[1:])
        if flat.any():
            others = [problem.names[j + 1] for j in np.flatnonzero(flat)]
            reasons.append(
                f"DeLong's test of {_label_name(label, average, problem)}: the variance of "
                f"the AUC difference of {', '.join(map(repr, others))} from "
                f"{problem.names[0]!r} is zero (e.g. identical rankings)"
            )
        diff_se[i] = np.where(flat, np.nan, np.sqrt(np.maximum(variance, 0.0)))
    if reasons:
        warnings.warn(
            "; ".join(reasons) + "; these values are reported as NaN.",
            UndefinedStatisticWarning,
            stacklevel=_STACKLEVEL + 1,
        )
    zq = stats.norm.ppf(0.5 + level / 2)
    with np.errstate(invalid="ignore"):
        pvalue = 2 * stats.norm.sf(np.abs(diff / diff_se))
    omnibus = _omnibus(diff, covariances) if n_clf >= 3 else None
    averaged = average is not None and not problem.binary
    return MetricComparison(
        measure="roc_auc",
        classes=np.array([average], dtype=object) if averaged else problem.classes,
        classifiers=problem.names,
        method="delong",
        average=average,
        confidence_level=level,
        n_rows=problem.n_rows,
        n_records=problem.n_units,
        estimates=estimates,
        estimate_se=estimate_se,
        # Clipped to [0, 1], as pROC's ci.auc(method="delong") does.
        estimate_ci_low=np.clip(estimates - zq * estimate_se, 0.0, 1.0),
        estimate_ci_high=np.clip(estimates + zq * estimate_se, 0.0, 1.0),
        diff=diff,
        diff_se=diff_se,
        diff_ci_low=diff - zq * diff_se,
        diff_ci_high=diff + zq * diff_se,
        diff_pvalue=pvalue,
        omnibus=omnibus,
    )
