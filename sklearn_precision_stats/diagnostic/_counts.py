"""One-vs-rest paired 2x2x2 tables of every class, by vectorised bincount.

For class ``k`` a record is *diseased* when its true label is ``k`` and a
classifier's result is *positive* when it predicts ``k``. Two classifiers
then give the paired table of diagnostic-test studies (Pepe 2003, ch. 3),
eight cells indexed ``[d, a, b]``: ``d`` the true status, ``a`` the
reference's result, ``b`` the other classifier's. A record only enters a
non-empty cell of the classes among its true label and its two predictions,
so the tables of all classes take three bincounts over the records, whatever
the number of classes.

With ``groups`` (rows that share a record id, e.g. stacked repeated
cross-validation) the same cells are also counted per group, for
cluster-robust sandwich variances of the delta-method statistics.
"""

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..utils._validation import (
    _as_label_array,
    _check_aligned_indexes,
    _check_groups,
    _check_predictions,
    _prediction_pairs,
)

__all__ = ["paired_table"]

# Classifier name -> predicted labels (a dict or a list of pairs), or the
# predicted labels of one classifier where one suffices.
Predictions = Mapping[str, ArrayLike] | Sequence[tuple[str, ArrayLike]] | ArrayLike


class DiagnosticData(NamedTuple):
    """Counts of the one-vs-rest tables of every class.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    names : list of str
        Classifier names, the reference first.
    single : ndarray of shape (n_classes, n_classifiers, 2, 2)
        ``[k, c, d, p]``: records of true status ``d`` with result ``p`` of
        classifier ``c``.
    paired : ndarray of shape (n_classes, n_classifiers - 1, 2, 2, 2)
        ``[k, j, d, a, b]``: ``a`` the reference's result, ``b`` that of
        classifier ``j + 1``.
    single_groups, paired_groups : ClusterCells or None
        The same per group, stored sparsely; None without groups.
    """

    classes: np.ndarray
    names: list
    single: np.ndarray
    paired: np.ndarray
    single_groups: "ClusterCells | None"
    paired_groups: "ClusterCells | None"


class ClusterCells(NamedTuple):
    """Per-group cell counts, sparse: only cells other than the all-negative one.

    A group's count in the all-negative cell of a stratum is its number of
    rows minus its counts in the listed cells, so a group only appears
    for the classes among its rows' labels and predictions.

    Attributes
    ----------
    group : ndarray of intp
        Group of each entry.
    stratum : ndarray of intp
        Flat index of the (class, classifier) stratum.
    cell : ndarray of intp
        Flat cell index within the stratum (never 0, the all-negative cell).
    n_rows : ndarray of float
    rows_per_group : ndarray of float, shape (n_groups,)
    shape : tuple
        Shape of the strata (n_classes, n_classifiers).
    """

    group: np.ndarray
    stratum: np.ndarray
    cell: np.ndarray
    n_rows: np.ndarray
    rows_per_group: np.ndarray
    shape: tuple


def _single_codes(t, p):
    """Per-row ``(class, flat cell [d, p])`` entries of one classifier.

    A row enters class t (diseased, positive iff predicted t) and, when it
    is misclassified, class p (non-diseased, positive).
    """
    hit = p == t
    miss = ~hit
    classes = np.concatenate([t, p[miss]])
    cells = np.concatenate([2 + hit, np.ones(int(miss.sum()), dtype=np.intp)])
    rows = np.concatenate([np.arange(t.shape[0]), np.flatnonzero(miss)])
    return rows, classes, cells


def _paired_codes(t, r, o):
    """Per-row ``(class, flat cell [d, a, b])`` entries of a pair of classifiers.

    A row enters class t (diseased), class r when r != t (reference
    positive) and class o when o is neither (only the other positive).
    """
    m_r = r != t
    m_o = (o != t) & (o != r)
    idx = np.arange(t.shape[0])
    rows = np.concatenate([idx, idx[m_r], idx[m_o]])
    classes = np.concatenate([t, r[m_r], o[m_o]])
    cells = np.concatenate(
        [
            4 + 2 * (r == t) + (o == t),
            2 + (o[m_r] == r[m_r]),
            np.ones(int(m_o.sum()), dtype=np.intp),
        ]
    )
    return rows, classes, cells


def _dense(classes, cells, n_classes, n_cells):
    """Counts per (class, cell), the all-negative cell still to be filled."""
    out = np.bincount(classes * n_cells + cells, minlength=n_classes * n_cells)
    return out.reshape(n_classes, n_cells).astype(float)


def _sparse(entries, row_code, position, n_classifiers, n_cells):
    """ClusterCells arrays from per-classifier entries (rows, classes, cells, j).

    `position` maps each class code to its index among the reported classes
    (-1 when not reported).
    """
    n_strata = int((position >= 0).sum()) * n_classifiers
    codes = []
    for rows, classes, cells, j in entries:
        keep = position[classes] >= 0
        stratum = position[classes[keep]] * n_classifiers + j
        codes.append((row_code[rows[keep]] * n_strata + stratum) * n_cells + cells[keep])
    unique, count = np.unique(np.concatenate(codes), return_counts=True)
    return unique // (n_strata * n_cells), (unique // n_cells) % n_strata, unique % n_cells, count


def _fill_negative_cell(cells, n_rows, n_axes):
    """Set the all-zero cell (non-diseased, every result negative).

    Every record not counted elsewhere for a class is a true negative of all
    classifiers for it; `n_rows` broadcasts over the leading axes.
    """
    flat = cells.reshape(*cells.shape[:-n_axes], -1).copy()
    flat[..., 0] = 0.0
    flat[..., 0] = n_rows - flat.sum(axis=-1)
    return flat.reshape(cells.shape)


def prediction_items(y_preds):
    """``(name, predictions)`` pairs of `y_preds`, at least one.

    A dict, a list of pairs or a DataFrame (one column per classifier)
    names its classifiers; a single array-like is one classifier named
    ``"classifier"``.
    """
    try:
        items = _prediction_pairs(y_preds)
    except ValueError:  # none of the named forms: one classifier's labels
        items = [("classifier", y_preds)]
    if not items:
        raise ValueError(
            "y_preds holds no classifier; pass the predicted labels, or a dict "
            "mapping classifier name -> predicted labels."
        )
    return items


def _as_named_predictions(y_true, y_preds, reference, min_classifiers, groups=None):
    """Validated ``(y_true, names, preds)`` with the reference first.

    A single array-like is accepted where one classifier suffices and is
    named ``"classifier"``.
    """
    items = prediction_items(y_preds)
    if len(items) > 1:
        return _check_predictions(y_true, items, reference, groups=groups)
    if min_classifiers > 1:
        raise ValueError(
            "y_preds must hold at least two classifiers to compare (a dict "
            "mapping name -> predicted labels); add a reference classifier."
        )
    if reference is not None:
        raise ValueError("reference is only used with two or more classifiers; pass None.")
    ((name, pred),) = items
    _check_aligned_indexes(y_true=y_true, groups=groups, **{f"y_preds[{name!r}]": pred})
    y_true = _as_label_array(y_true, "y_true")
    pred = _as_label_array(pred, f"y_preds[{name!r}]")
    if pred.shape[0] != y_true.shape[0] or y_true.shape[0] == 0:
        raise ValueError(
            f"y_preds[{name!r}] has {pred.shape[0]} rows and y_true has "
            f"{y_true.shape[0]}; pass one prediction per row of a non-empty y_true."
        )
    return y_true, [name], [pred]


def _encode(arrays):
    """Shared integer codes of several label arrays, and the sorted labels."""
    n = arrays[0].shape[0]
    try:
        values, inverse = np.unique(np.concatenate(arrays), return_inverse=True)
    except TypeError as exc:
        raise ValueError(
            "The labels in y_true and y_preds could not be sorted; mix of types? "
            f"Use labels of one type (all str or all int). ({exc})"
        ) from exc
    inverse = inverse.reshape(len(arrays), n).astype(np.intp, copy=False)
    return values, inverse


def _class_codes(values, labels):
    """Codes of the classes to report: every class seen, or `labels` in order."""
    if labels is None:
        return np.arange(values.shape[0])
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(
            "labels must be a non-empty 1-D list of classes, e.g. labels=[0, 1]; "
            "pass None to report every class."
        )
    if len(set(labels.tolist())) != labels.size:
        raise ValueError(f"labels contains duplicates: {labels.tolist()}.")
    lookup = {v: i for i, v in enumerate(values.tolist())}
    missing = [label for label in labels.tolist() if label not in lookup]
    if missing:
        raise ValueError(
            f"labels {missing} do not occur in y_true or in any prediction; the "
            f"classes present are {values.tolist()}. Remove them from labels."
        )
    return np.asarray([lookup[label] for label in labels.tolist()], dtype=np.intp)


def prepare(y_true, y_preds, *, reference=None, labels=None, groups=None, min_classifiers=2):
    """Validate the inputs and count the one-vs-rest tables of every class.

    Returns
    -------
    DiagnosticData
    """
    y_true, names, preds = _as_named_predictions(
        y_true, y_preds, reference, min_classifiers, groups
    )
    groups = _check_groups(groups, y_true.shape[0])
    values, codes_all = _encode([y_true, *preds])
    n_values = values.shape[0]
    t, ps = codes_all[0], list(codes_all[1:])
    n_rows = t.shape[0]

    codes = _class_codes(values, labels)
    single_entries = [(*_single_codes(t, p), j) for j, p in enumerate(ps)]
    paired_entries = [(*_paired_codes(t, ps[0], p), j) for j, p in enumerate(ps[1:])]
    single = np.stack([_dense(c, e, n_values, 4) for _, c, e, _ in single_entries], axis=1)
    single = _fill_negative_cell(single.reshape(n_values, len(ps), 2, 2), n_rows, 2)
    paired = np.zeros((n_values, 0, 2, 2, 2))
    if len(ps) > 1:
        paired = np.stack([_dense(c, e, n_values, 8) for _, c, e, _ in paired_entries], axis=1)
        paired = _fill_negative_cell(paired.reshape(n_values, len(ps) - 1, 2, 2, 2), n_rows, 3)

    single_groups = paired_groups = None
    if groups is not None:
        _, row_code = np.unique(groups, return_inverse=True)
        row_code = row_code.ravel().astype(np.intp, copy=False)
        n_groups = int(row_code.max()) + 1
        rows_per_group = np.bincount(row_code, minlength=n_groups).astype(float)
        # Position of each class among the reported ones (-1: not reported).
        position = np.full(n_values, -1, dtype=np.intp)
        position[codes] = np.arange(codes.shape[0])
        # Functions of single classifiers (min_classifiers=1) use the single
        # tables, comparisons the paired ones: only those are clustered.
        if min_classifiers == 1:
            g, st, ce, cnt = _sparse(single_entries, row_code, position, len(ps), 4)
            single_groups = ClusterCells(
                g, st, ce, cnt.astype(float), rows_per_group, (codes.shape[0], len(ps))
            )
        elif len(ps) > 1:
            g, st, ce, cnt = _sparse(paired_entries, row_code, position, len(ps) - 1, 8)
            paired_groups = ClusterCells(
                g, st, ce, cnt.astype(float), rows_per_group, (codes.shape[0], len(ps) - 1)
            )

    return DiagnosticData(
        values[codes], names, single[codes], paired[codes], single_groups, paired_groups
    )


def require_no_groups(groups, method):
    """ValueError naming `groups` for methods defined on one row per record."""
    if groups is not None:
        raise ValueError(
            f"groups is not supported by {method}: the method's reference "
            "distribution assumes one row per record (independent pairs). Pass "
            "groups=None with one row per record, or use a delta-method "
            "alternative that accepts groups (relative_sensitivity_specificity, "
            "relative_tpf_fpf, compare_likelihood_ratios, relative_predictive_values)."
        )


def cluster_sums(u, clusters):
    """Sums over each group's rows of per-record influences.

    Parameters
    ----------
    u : ndarray of shape (n_classes, n_classifiers, *cells, n_components)
        Influence of one record in each cell, per component.
    clusters : ClusterCells

    Returns
    -------
    ndarray of shape (n_groups, n_classes, n_classifiers, n_components)
    """
    n_strata = int(np.prod(clusters.shape))
    n_comp = u.shape[-1]
    flat = u.reshape(n_strata, -1, n_comp)
    base = flat[:, 0, :]
    n_groups = clusters.rows_per_group.shape[0]
    # Every row counts in the all-negative cell unless listed elsewhere.
    out = clusters.rows_per_group[:, None, None] * base[None]
    diff = clusters.n_rows[:, None] * (
        flat[clusters.stratum, clusters.cell, :] - base[clusters.stratum]
    )
    code = clusters.group * n_strata + clusters.stratum
    for e in range(n_comp):
        out[..., e] += np.bincount(code, diff[:, e], minlength=n_groups * n_strata).reshape(
            n_groups, n_strata
        )
    return out.reshape(n_groups, *clusters.shape, n_comp)


# Status d, reference's result a and other classifier's result b of each
# paired cell [d, a, b], shaped to broadcast over the cells.
CELL_D = np.array([0.0, 1.0])[:, None, None]
CELL_A = np.array([0.0, 1.0])[None, :, None]
CELL_B = np.array([0.0, 1.0])[None, None, :]


def paired_count(paired, d=None, a=None, b=None):
    """Records of the paired cells ``[d, a, b]`` with the given status and results.

    `d`, `a`, `b` are 0 or 1, or None for either; `paired` has shape
    (..., 2, 2, 2) and the leading axes are kept.
    """
    chosen = (d, a, b)
    index = (Ellipsis, *(slice(None) if v is None else v for v in chosen))
    cells = paired[index]
    n_free = sum(v is None for v in chosen)
    return cells.sum(tuple(range(-n_free, 0))) if n_free else cells


def log_count_influence(paired, d=None, a=None, b=None):
    """Influence of one record in each cell on ``log N``, and ``N``.

    ``N = paired_count(paired, d, a, b)``; the influence is ``[cell counted
    in N] / N``, of shape (..., 2, 2, 2), non-finite where ``N = 0``.
    """
    chosen = (d, a, b)
    indicator = np.ones((2, 2, 2))
    for value, axis in zip(chosen, (CELL_D, CELL_A, CELL_B), strict=True):
        if value is not None:
            indicator = indicator * (axis if value == 1 else 1 - axis)
    count = paired_count(paired, *chosen)
    with np.errstate(invalid="ignore", divide="ignore"):
        return indicator / count[..., None, None, None], count


def finite(influence):
    """Influences with the non-finite cells (a zero count) set to 0."""
    return np.where(np.isfinite(influence), influence, 0.0)


def robust_covariance(u, v, cells, clusters, n_cell_axes):
    """Sandwich covariance of two statistics with per-record influences.

    Parameters
    ----------
    u, v : ndarray broadcastable to ``cells``
        Influence of one record in each cell on each statistic (zero mean
        over the records, divided by the number of records where needed).
    cells : ndarray
        Record counts per cell; the trailing `n_cell_axes` axes are summed.
    clusters : ClusterCells or None
        Per-group counts; the influences are then summed within each group
        before multiplying (cluster-robust).
    n_cell_axes : int
        2 for the tables of one classifier, 3 for the paired tables.
    """
    axes = tuple(range(-n_cell_axes, 0))
    with np.errstate(invalid="ignore"):
        if clusters is None:
            return np.sum(cells * u * v, axis=axes)
        both = np.stack(np.broadcast_arrays(u, v, cells)[:2], axis=-1)
        sums = cluster_sums(both, clusters)
        return np.sum(sums[..., 0] * sums[..., 1], axis=0)


def robust_covariance_matrix(influences, cells, clusters, n_cell_axes):
    """Sandwich covariance matrix of the statistics on the last axis of `influences`.

    As :func:`robust_covariance` for every pair, shape (..., M, M); with
    clusters the group sums of all M influences are taken once.
    """
    n = influences.shape[-1]
    shape = np.broadcast_shapes(influences.shape[:-1], cells.shape)
    out = np.empty((*shape[: len(shape) - n_cell_axes], n, n))
    if clusters is None:
        for i in range(n):
            for j in range(i, n):
                out[..., i, j] = out[..., j, i] = robust_covariance(
                    influences[..., i], influences[..., j], cells, None, n_cell_axes
                )
        return out
    sums = cluster_sums(np.ascontiguousarray(np.broadcast_to(influences, (*shape, n))), clusters)
    with np.errstate(invalid="ignore"):
        for i in range(n):
            for j in range(i, n):
                out[..., i, j] = out[..., j, i] = np.sum(sums[..., i] * sums[..., j], axis=0)
    return out


_CELL_COLUMNS = {
    (1, 1, 1): "diseased_both_positive",
    (1, 0, 1): "diseased_only_classifier_positive",
    (1, 1, 0): "diseased_only_reference_positive",
    (1, 0, 0): "diseased_both_negative",
    (0, 1, 1): "nondiseased_both_positive",
    (0, 0, 1): "nondiseased_only_classifier_positive",
    (0, 1, 0): "nondiseased_only_reference_positive",
    (0, 0, 0): "nondiseased_both_negative",
}


def paired_table(
    y_true: ArrayLike,
    y_preds: Predictions,
    *,
    reference: str | None = None,
    labels: ArrayLike | None = None,
) -> pd.DataFrame:
    """The one-vs-rest paired 2x2x2 table of every class and classifier.

    For class ``k`` a record is *diseased* when its true label is ``k`` and
    a result is *positive* when the classifier predicts ``k``. The eight
    counts are R DTComPair's ``tab.paired`` cells ``d.a, d.b, d.c, d.d``
    (diseased: both positive, only the classifier positive, only the
    reference positive, both negative) and ``nd.a`` ... ``nd.d``, with the
    reference as DTComPair's test 1.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
    y_preds : dict or list of (str, array-like)
        At least two classifiers.
    reference : str, default=None
        The reference classifier; the first when None.
    labels : array-like, default=None
        Classes to report, in this order; every class seen by default.

    Returns
    -------
    pandas.DataFrame
        One row per class and compared classifier.

    Examples
    --------
    >>> from sklearn_precision_stats.diagnostic import paired_table
    >>> y  = [1, 1, 1, 0, 0, 0]
    >>> rf = [1, 1, 0, 0, 1, 0]
    >>> nb = [1, 0, 1, 0, 0, 0]
    >>> paired_table(y, {"rf": rf, "nb": nb}, labels=[1]).iloc[0, 3:7].tolist()
    [1, 1, 1, 0]
    """
    data = prepare(y_true, y_preds, reference=reference, labels=labels)
    n_classes, n_other = data.paired.shape[:2]
    frame = pd.DataFrame(
        {
            "class": np.repeat(np.asarray(data.classes, dtype=object), n_other),
            "classifier": np.tile(np.asarray(data.names[1:], dtype=object), n_classes),
            "reference": data.names[0],
        }
    )
    for (d, a, b), column in _CELL_COLUMNS.items():
        frame[column] = data.paired[:, :, d, a, b].reshape(-1).astype(np.int64)
    return frame
