"""Paired comparisons of average precision, precision at a recall, recall at a
precision and ROC AUC, per class, by the stratified paired bootstrap (and
DeLong's test for ROC AUC).
"""

import contextlib
import copy
import warnings
from collections.abc import Hashable, Mapping, Sequence
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from ..engine._codes import encode_groups
from ..engine._labels import encode_sorted
from ..exceptions import UndefinedStatisticWarning
from ..metrics._bootstrap import rounding_level
from ..results._metric_comparison import MetricComparison
from ..utils._random_state import check_random_state_any
from ..utils._sklearn_compat import Interval, RealNotInt, StrOptions, validate_params
from ..utils._validation import (
    _as_label_array,
    _check_aligned_indexes,
    _check_groups,
    _named_items,
    reference_order,
)
from . import _curves
from ._delong import _run_delong
from ._inference import _STACKLEVEL, _class_name, _omnibus
from ._resampling import block_size, check_n_resamples, jackknife_blocks, weight_blocks

__all__ = [
    "compare_average_precision",
    "compare_precision_at_recall",
    "compare_recall_at_precision",
    "compare_roc_auc",
]

# Classifier name -> scores, or (name, scores) pairs.
Scores = Mapping[Hashable, ArrayLike] | Sequence[tuple[Hashable, ArrayLike]]
RandomState = int | np.random.Generator | np.random.RandomState | None

_AVERAGES = ("macro", "micro", "weighted")
# Delete-a-group jackknife replicates for the BCa acceleration.
_JACKKNIFE_GROUPS = 50
# The inference that needs replicates which differ from the sample.
_INTERVAL_KEYS = (
    "estimate_ci_low",
    "estimate_ci_high",
    "diff_se",
    "diff_ci_low",
    "diff_ci_high",
    "diff_pvalue",
)
# Points of the recall grid on which the curves and their bands are kept.
_CURVE_POINTS = 101
# Replicates of the band held at once (32 MB of float64), a block of curves.
_BAND_ELEMENTS = 2**22

_PARAMETERS = {
    "y_true": ["array-like"],
    "y_scores": [dict, list, tuple],
    "reference": [Hashable, None],
    "groups": ["array-like", None],
    "labels": ["array-like", None],
    "average": [StrOptions(set(_AVERAGES)), None],
    "n_resamples": [Interval(Integral, 2, None, closed="left"), "array-like"],
    "confidence_level": [Interval(RealNotInt, 0, 1, closed="neither")],
    "random_state": ["random_state", np.random.Generator],
}


# Input ------------------------------------------------------------------


class _Problem:
    """Validated inputs: the positives of every class and the resampling units.

    Attributes
    ----------
    names : list of str
        Classifier names, reference first.
    scores : list of ndarray of shape (n_rows, n_classes)
    positive : ndarray of bool, shape (n_rows, n_classes)
    classes : ndarray
        Labels of the columns.
    unit : ndarray of intp, shape (n_rows,)
        Resampling unit of each row.
    strata_sizes : list of int
        Sizes of the contiguous ranges of units drawn separately.
    unit_of_column : ndarray of intp
        Unit of each column of a user-given weight array (records in the
        order of the rows, or clusters in the sorted order of `groups`).
    """


def _score_array(values):
    return np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values)


def _score_ndim(values):
    """1 for one score per row (a column vector too, as scikit-learn's column_or_1d)."""
    array = _score_array(values)
    return 1 if array.ndim == 2 and array.shape[1] == 1 else array.ndim


def _score_matrix(values, name, n_rows, n_columns):
    raw = _score_array(values)
    # Text is not a score, even when it parses as a number; complex
    # values would lose their imaginary part.
    if raw.ndim == 0 or raw.dtype.kind in "USVcmM":
        what = f"a {type(values).__name__}" if raw.ndim == 0 else f"values of dtype {raw.dtype}"
        raise ValueError(
            f"{name} must hold numeric scores (predict_proba or decision_function output), "
            f"got {what}."
        )
    try:
        array = raw.astype(np.float64, copy=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} must hold numeric scores (predict_proba or decision_function output): {exc}"
        ) from exc
    if array.ndim == 2 and array.shape[1] == 1 and n_columns == 1:
        array = array[:, 0]
    expected = f"({n_rows},)" if n_columns == 1 else f"({n_rows}, {n_columns})"
    if array.shape[0] != n_rows or (array.ndim == 1) != (n_columns == 1) or array.ndim > 2:
        raise ValueError(
            f"{name} has shape {array.shape} but {expected} is needed: one score per row "
            "for a binary problem (the positive class's scores), or one column per class "
            "(in the order of labels, or of the sorted classes) otherwise."
        )
    if array.ndim == 2 and array.shape[1] != n_columns:
        raise ValueError(
            f"{name} has {array.shape[1]} columns but there are {n_columns} classes; pass "
            "one column per class, in the order of labels (or of the sorted classes)."
        )
    if not np.isfinite(array).all():
        row = int(np.flatnonzero(~np.isfinite(array.reshape(n_rows, -1)).any(axis=1))[0])
        raise ValueError(
            f"{name} holds a NaN or infinite score at row {row}; scores must be finite."
        )
    return array.reshape(n_rows, n_columns)


def _is_multilabel(y_true):
    raw = y_true.to_numpy() if hasattr(y_true, "to_numpy") else y_true
    array = np.asarray(raw)
    return array.ndim == 2 and array.shape[1] > 1, array


def _check_problem(y_true, y_scores, reference, groups, labels):
    items = _named_items(
        y_scores,
        "y_scores",
        "a dict mapping classifier name to scores (e.g. {'lr': lr.predict_proba(X), "
        "'rf': rf.predict_proba(X)}) or a list of (name, scores) pairs",
        "add the scores of a reference classifier",
    )
    _check_aligned_indexes(
        y_true=y_true, groups=groups, **{f"y_scores[{n!r}]": s for n, s in items}
    )
    names = [name for name, _ in items]
    order = reference_order(names, reference)
    problem = _Problem()
    problem.names = [names[i] for i in order]

    multilabel, array = _is_multilabel(y_true)
    if multilabel:
        if array.dtype.kind == "O":
            # pandas' nullable columns (Int64, boolean) arrive as objects.
            with contextlib.suppress(TypeError, ValueError):
                array = array.astype(np.float64)
        # scikit-learn's multilabel-indicator: 0 and 1 of any numeric type.
        if array.dtype.kind not in "iubf" or not np.isin(array, (0, 1)).all():
            raise ValueError(
                "y_true of shape (n_rows, n_labels) must be a multilabel indicator matrix "
                "of 0 and 1, with no missing values; for multiclass targets pass one "
                "label per row."
            )
        n_rows, n_labels = array.shape
        if n_rows == 0:
            raise ValueError("y_true is empty; at least one row is needed.")
        positive = array.astype(bool)
        if labels is None:
            # A DataFrame's columns name its labels.
            columns = getattr(y_true, "columns", None)
            classes = np.arange(n_labels) if columns is None else np.asarray(list(columns))
        else:
            classes = np.asarray(labels)
            if classes.shape != (n_labels,):
                raise ValueError(
                    f"labels must name the {n_labels} columns of the multilabel y_true, "
                    f"got {classes.shape[0] if classes.ndim else 0} labels."
                )
            if len(set(classes.tolist())) < n_labels:
                raise ValueError("labels must not repeat a class.")
        codes = None
        binary = False
    else:
        y = _as_label_array(y_true, "y_true")
        n_rows = y.shape[0]
        if n_rows == 0:
            raise ValueError("y_true is empty; at least one row is needed.")
        if labels is None:
            (codes,), classes = encode_sorted(y, names=["y_true"])
        else:
            given = _as_label_array(labels, "labels")
            if given.shape[0] == 0:
                raise ValueError("labels is empty; pass the classes, or None for those of y_true.")
            (label_codes, codes), values = encode_sorted(given, y, names=["labels", "y_true"])
            if np.unique(label_codes).shape[0] < label_codes.shape[0]:
                raise ValueError("labels must not repeat a class.")
            # Codes of y_true become positions in labels; -1 for a class not in it.
            position = np.full(values.shape[0], -1, dtype=np.intp)
            position[label_codes] = np.arange(label_codes.shape[0])
            codes = position[codes]
            if codes.min() < 0:
                row = int(np.argmax(codes < 0))
                raise ValueError(
                    f"y_true holds the class {_class_name(y[row])} (row {row}) that is not in "
                    "labels; "
                    "add it to labels or leave labels=None for every class of y_true."
                )
            classes = values[label_codes]
        if classes.shape[0] < 2:
            raise ValueError(
                "y_true holds only one class; pass labels=[negative, positive] (binary) "
                "or every class, so that the positive class is known."
            )
        binary = classes.shape[0] == 2 and _score_ndim(items[order[0]][1]) == 1
        if binary:
            # Scores of the positive class: the second of the sorted classes
            # (scikit-learn's classes_[1]) or of labels.
            positive = (codes == 1)[:, None]
            classes = classes[1:]
        else:
            positive = codes[:, None] == np.arange(classes.shape[0])[None, :]
    n_columns = positive.shape[1]
    problem.scores = [
        _score_matrix(items[i][1], f"y_scores[{items[i][0]!r}]", n_rows, n_columns) for i in order
    ]
    problem.positive = positive
    problem.classes = classes
    problem.binary = binary
    problem.multilabel = multilabel
    problem.n_rows = n_rows

    if groups is not None:
        groups = _check_groups(groups, n_rows)
        # Clusters mix classes, so they are drawn without strata.
        problem.unit, n_units = encode_groups(groups)
        problem.strata_sizes = [n_units]
        problem.unit_of_column = np.arange(n_units)
    elif codes is not None:
        # Records stratified by true class, each class a contiguous range.
        n_codes = int(codes.max()) + 1 if not binary else 2
        # Within its class, units follow the scores of that class of the
        # first classifier given, decreasing: its curve of the class then
        # reads its positives' weights in place (binary: both its gathers).
        # Not the reference's: a seed then draws the same replicates
        # whichever classifier is the reference.
        first = problem.scores[order.index(0)]
        own = first[:, 0] if binary else first[np.arange(n_rows), codes]
        order_by_class = np.lexsort((-own, codes))
        unit = np.empty(n_rows, dtype=np.intp)
        unit[order_by_class] = np.arange(n_rows)
        problem.unit = unit
        problem.strata_sizes = [int(s) for s in np.bincount(codes, minlength=n_codes)]
        problem.unit_of_column = unit
    else:
        problem.unit = np.arange(n_rows)
        problem.strata_sizes = [n_rows]
        problem.unit_of_column = problem.unit
    problem.n_units = int(sum(problem.strata_sizes))
    return problem


# The measures -------------------------------------------------------------


class _Measure:
    """A measure of a curve: its name, its function of (tp, fp), what it needs."""

    def __init__(self, name, function, needs_negatives=False):
        self.name = name
        self.function = function
        self.needs_negatives = needs_negatives

    @property
    def lacking(self):
        """What a curve lacks when the measure is undefined."""
        return "no positive or no negative rows" if self.needs_negatives else "no positive rows"


class _Evaluator:
    """A measure of every table row of one classifier, from the sorted curves."""

    def __init__(self, problem, scores, measure, average):
        self.measure = measure
        self.average = average
        unit = problem.unit
        if average == "micro" and not problem.binary:
            n_columns = problem.positive.shape[1]
            self.curves = [
                _curves.SortedCurve(
                    scores.reshape(-1), problem.positive.reshape(-1), np.repeat(unit, n_columns)
                )
            ]
        else:
            self.curves = [
                _curves.SortedCurve(
                    np.ascontiguousarray(scores[:, k]), problem.positive[:, k], unit
                )
                for k in range(problem.positive.shape[1])
            ]
        self.per_class = average is None or problem.binary or average == "micro"

    @property
    def size(self):
        return max(curve.size for curve in self.curves)

    def evaluate(self, weights, envelope=None, workspace=None, curves=None, band=None):
        """Values (n_replicates, n_table_rows) and undefined masks.

        The mask is of every curve, shape (n_replicates, n_curves): the
        curves that leave their table row undefined (with an average, the
        row is undefined where any curve is).
        `envelope`: recall grid; then also the interpolated precision of
        each curve at the grid, shape (n_replicates, n_curves, n_grid),
        written into `band` when given.
        `curves`: a range of the curves, to evaluate only those (per-class
        rows only, where each table row is one curve).
        """
        values, undefined, positives = [], [], []
        packed = weights.dtype == np.uint8 and weights.max() <= _curves.PACKED_MAX_WEIGHT
        selected = self.curves if curves is None else self.curves[curves.start : curves.stop]
        if envelope is not None and band is None:
            band = np.empty((weights.shape[0], len(selected), envelope.shape[0]))
        for j, curve in enumerate(selected):
            counts = curve.counts(weights, workspace, packed)
            value, bad = self.measure.function(counts)
            values.append(value)
            undefined.append(bad)
            positives.append(counts.n_pos)
            if envelope is not None:
                band[:, j] = _curves.interpolated_precision(counts, envelope)
        values = np.column_stack(values)
        undefined = np.column_stack(undefined)
        if not self.per_class:
            if self.average == "macro":
                values = values.mean(axis=1, keepdims=True)
            else:
                # scikit-learn's weights, the classes' positives: a class
                # without positives weighs nothing and its (undefined)
                # value drops out; the mean is undefined without positives.
                weights_k = np.column_stack(positives)
                weighted = np.where(weights_k > 0, values * weights_k, 0.0)
                total = weights_k.sum(axis=1)
                with np.errstate(invalid="ignore", divide="ignore"):
                    values = (weighted.sum(axis=1) / total)[:, None]
                undefined &= weights_k > 0
                undefined |= (total == 0)[:, None]
        return values, undefined, band


# Inference --------------------------------------------------------------


def _bca_limits(estimate, replicates, jackknife, level):
    """BCa limits of each column; NaN where the replicates are undefined."""
    alpha = (1 - level) / 2
    n_rep = replicates.shape[0]
    low = np.full(estimate.shape, np.nan)
    high = np.full(estimate.shape, np.nan)
    for j in range(estimate.shape[0]):
        reps, jack = replicates[:, j], jackknife[:, j]
        if not (np.isfinite(estimate[j]) and np.isfinite(reps).all() and np.isfinite(jack).all()):
            continue
        # Ties with the estimate count one half: measures read off a step
        # curve (precision at a recall) often repeat the estimate exactly,
        # up to the rounding of sums taken in another order (the replicates
        # sum weights, the estimate rows), which must not decide the side.
        tied = np.abs(reps - estimate[j]) <= rounding_level(estimate[j])
        below = np.count_nonzero((reps < estimate[j]) & ~tied) + 0.5 * np.count_nonzero(tied)
        z0 = stats.norm.ppf(min(max(below / n_rep, 1 / (2 * n_rep)), 1 - 1 / (2 * n_rep)))
        u = jack.mean() - jack
        denominator = 6.0 * np.sum(u**2) ** 1.5
        a = np.sum(u**3) / denominator if denominator > 0 else 0.0
        z = stats.norm.ppf([alpha, 1 - alpha])
        adjusted = stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
        low[j], high[j] = np.quantile(reps, adjusted)
    return low, high


def _bootstrap_inference(estimates, reps, jack, level):
    """Intervals, standard errors and p-values from the replicates.

    `estimates`: (n_rows, n_clf); `reps`: (B, n_rows, n_clf); `jack`:
    (G, n_rows, n_clf).
    """
    alpha = (1 - level) / 2
    finite = np.isfinite(reps).all(axis=0)
    with np.errstate(invalid="ignore"):
        q = np.quantile(reps, [alpha, 1 - alpha], axis=0)
    est_low = np.where(finite, q[0], np.nan)
    est_high = np.where(finite, q[1], np.nan)
    diff = estimates[:, 1:] - estimates[:, :1]
    d_reps = reps[:, :, 1:] - reps[:, :, :1]
    d_jack = jack[:, :, 1:] - jack[:, :, :1]
    d_finite = finite[:, 1:] & finite[:, :1] & np.isfinite(diff)
    with np.errstate(invalid="ignore"):
        dq = np.quantile(d_reps, [alpha, 1 - alpha], axis=0)
        diff_se = np.std(d_reps, axis=0, ddof=1)
    diff_low = np.where(d_finite, dq[0], np.nan)
    diff_high = np.where(d_finite, dq[1], np.nan)
    diff_se = np.where(d_finite, diff_se, np.nan)
    # pROC's bootstrap test: the difference over the replicates' standard
    # deviation, referred to the standard normal.
    constant = d_finite & (diff_se <= rounding_level(diff))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = diff / diff_se
    pvalue = np.where(d_finite & ~constant, 2 * stats.norm.sf(np.abs(z)), np.nan)
    bca_low = np.full(diff.shape, np.nan)
    bca_high = np.full(diff.shape, np.nan)
    for j in range(diff.shape[1]):
        bca_low[:, j], bca_high[:, j] = _bca_limits(
            diff[:, j], d_reps[:, :, j], d_jack[:, :, j], level
        )
    bca_low[~d_finite] = np.nan
    bca_high[~d_finite] = np.nan
    omnibus = None
    if diff.shape[1] >= 2:
        omnibus = _omnibus(
            diff, [np.cov(d_reps[:, i, :], rowvar=False) for i in range(diff.shape[0])]
        )
    return {
        "estimate_ci_low": est_low,
        "estimate_ci_high": est_high,
        "diff": diff,
        "diff_se": diff_se,
        "diff_ci_low": diff_low,
        "diff_ci_high": diff_high,
        "diff_pvalue": pvalue,
        "extra_columns": {"diff_bca_low": bca_low, "diff_bca_high": bca_high},
        "omnibus": omnibus,
        "constant": constant,
    }


def _run(
    measure,
    y_true,
    y_scores,
    *,
    reference,
    groups,
    labels,
    average,
    n_resamples,
    confidence_level,
    random_state,
    method="bootstrap",
):
    problem = _check_problem(y_true, y_scores, reference, groups, labels)
    if problem.binary:
        # As in scikit-learn, the average is ignored for a binary problem
        # (and not reported as the table's).
        average = None
    unit_name = "record (cluster of groups)" if groups is not None else "row"
    if method == "delong":
        return _run_delong(problem, average, groups, confidence_level)
    n_replicates, given = check_n_resamples(n_resamples, problem.n_units, unit_name)
    rng = check_random_state_any(random_state)
    evaluators = [_Evaluator(problem, s, measure, average) for s in problem.scores]
    per_class = evaluators[0].per_class
    if per_class and not problem.binary and average == "micro":
        table_classes = np.array(["micro"], dtype=object)
    elif per_class:
        table_classes = problem.classes
    else:
        table_classes = np.array([average], dtype=object)
    n_table = table_classes.shape[0]
    n_clf = len(problem.names)
    grid = np.linspace(0.0, 1.0, _CURVE_POINTS)
    with_curves = per_class

    ones = np.ones((1, problem.n_units), dtype=np.int32)
    point = [ev.evaluate(ones, grid if with_curves else None) for ev in evaluators]
    estimates = np.column_stack([p[0][0] for p in point])
    # Whether a curve is defined depends on the rows and their weights, not
    # on the scores: the reference's curves tell for every classifier.
    undefined = point[0][1][0]
    n_curves = undefined.shape[0]

    block = block_size(max(ev.size for ev in evaluators), n_replicates)
    workspace = {}
    reps = np.empty((n_replicates, n_table, n_clf))
    # Replicates in which each curve, and each table row, is undefined.
    curve_undefined = np.zeros(n_curves, dtype=np.intp)
    row_undefined = np.zeros(n_table, dtype=np.intp)
    alpha = (1 - confidence_level) / 2
    if with_curves:
        # The band needs every replicate of a curve at once: a few curves
        # at a time, not (replicates, classifiers, curves, grid) whole, which
        # is 323 MB at 100 classes, 2 classifiers and 2000 replicates. Each block of curves
        # draws the same replicates again, from a copy of the generator.
        per_block = max(1, _BAND_ELEMENTS // (n_replicates * n_clf * grid.shape[0]))
        per_block = min(per_block, n_curves)
        band_limits = np.empty((2, n_clf, n_curves, grid.shape[0]))
        # One buffer for every block, the last one perhaps in part.
        band_buffer = np.empty((n_replicates, n_clf, per_block, grid.shape[0]))
    else:
        per_block = n_curves  # an average needs all its curves together
    curve_blocks = [range(s, min(s + per_block, n_curves)) for s in range(0, n_curves, per_block)]
    first_state = copy.deepcopy(rng) if len(curve_blocks) > 1 else rng
    for i, block_curves in enumerate(curve_blocks):
        # The last pass draws from `rng` itself, which the jackknife then continues.
        draws = rng if i == len(curve_blocks) - 1 else copy.deepcopy(first_state)
        band_reps = band_buffer[:, :, : len(block_curves)] if with_curves else None
        rows = slice(block_curves.start, block_curves.stop) if per_class else slice(None)
        for start, weights in weight_blocks(
            n_replicates, problem.strata_sizes, draws, block, given, problem.unit_of_column
        ):
            stop = start + weights.shape[0]
            for c, ev in enumerate(evaluators):
                values, bad, _ = ev.evaluate(
                    weights,
                    grid if with_curves else None,
                    workspace,
                    block_curves,
                    band_reps[start:stop, c] if with_curves else None,
                )
                reps[start:stop, rows, c] = values
                if c == 0:
                    curve_undefined[block_curves.start : block_curves.stop] += bad.sum(axis=0)
                    row_undefined[rows] += bad.sum(axis=0) if per_class else bad.any(axis=1).sum()
        if with_curves:
            # A curve at a time: np.quantile copies what it sorts. NaN (a
            # replicate without positives) propagates to the band.
            for j, k in enumerate(block_curves):
                band_limits[:, :, k] = np.quantile(band_reps[:, :, j], [alpha, 1 - alpha], axis=0)
    n_groups = min(problem.n_units, _JACKKNIFE_GROUPS)
    jack = np.empty((n_groups, n_table, n_clf))
    for start, weights in jackknife_blocks(problem.n_units, n_groups, rng, block):
        stop = start + weights.shape[0]
        for c, ev in enumerate(evaluators):
            jack[start:stop, :, c] = ev.evaluate(weights, workspace=workspace)[0]

    level = confidence_level
    inference = _bootstrap_inference(estimates, reps, jack, level)
    reasons = []
    # Drawing from strata of one record each (a single group, or one row
    # per class) repeats the sample in every replicate: no spread to report.
    single = given is None and max(problem.strata_sizes) < 2
    if single:
        for key in _INTERVAL_KEYS:
            inference[key] = np.full_like(inference[key], np.nan)
        inference["extra_columns"] = {
            k: np.full_like(v, np.nan) for k, v in inference["extra_columns"].items()
        }
        drawn = "a single record (group)" if groups is not None else "one row per class"
        reasons.append(
            f"the bootstrap of {measure.name}: it draws from {drawn}, so that every "
            "replicate repeats the sample"
        )
    lacking = measure.lacking
    for i, label in enumerate(table_classes):
        what = f"the {average} average" if average else f"class {_class_name(label)}"
        # The curves of the row: its class, or every class of an average.
        own = [i] if per_class else list(range(n_curves))
        empty = [k for k in own if undefined[k]]
        if empty:
            whose = "y_true" if per_class else f"class {_class_name(problem.classes[empty[0]])}"
            reasons.append(f"{measure.name} of {what}: {whose} has {lacking}")
        elif row_undefined[i]:
            count = f"{row_undefined[i]} of {n_replicates} replicates"
            if per_class:
                cause = f"{lacking} in {count}"
            else:
                short = [_class_name(problem.classes[k]) for k in own if curve_undefined[k]]
                which = (
                    f"class {short[0]} has"
                    if len(short) == 1
                    else f"classes {', '.join(short)} have"
                )
                cause = f"{which} {lacking} in {count}"
            reasons.append(f"the bootstrap of {measure.name} of {what}: {cause}")
        elif inference["constant"][i].any() and not single:
            others = [problem.names[j + 1] for j in np.flatnonzero(inference["constant"][i])]
            reasons.append(
                f"the p-value of {measure.name} of {what}: the difference of "
                f"{', '.join(map(repr, others))} from {problem.names[0]!r} is the same in "
                "every replicate (e.g. identical rankings)"
            )
    if reasons:
        warnings.warn(
            "; ".join(reasons) + "; these values are reported as NaN.",
            UndefinedStatisticWarning,
            stacklevel=_STACKLEVEL,
        )
    curves = None
    if with_curves:
        point_band = np.stack([p[2][0] for p in point])  # (n_clf, n_curves, n_grid)
        if single:
            band_limits[:] = np.nan
        curves = {
            "recall": grid,
            "precision": point_band,
            "low": band_limits[0],
            "high": band_limits[1],
        }
    return MetricComparison(
        measure=measure.name,
        classes=table_classes,
        classifiers=problem.names,
        method="bootstrap",
        average=average,
        confidence_level=level,
        n_rows=problem.n_rows,
        n_records=problem.n_units,
        estimates=estimates,
        estimate_ci_low=inference["estimate_ci_low"],
        estimate_ci_high=inference["estimate_ci_high"],
        diff=inference["diff"],
        diff_se=inference["diff_se"],
        diff_ci_low=inference["diff_ci_low"],
        diff_ci_high=inference["diff_ci_high"],
        diff_pvalue=inference["diff_pvalue"],
        omnibus=inference["omnibus"],
        extra_columns=inference["extra_columns"],
        replicates={name: reps[:, :, c] for c, name in enumerate(problem.names)},
        curves=curves,
    )


# Public functions -------------------------------------------------------------

_SHARED_DOC = """
    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_rows, n_labels)
        True class of each row, or a multilabel indicator matrix.
    y_scores : dict or list of (str, array-like)
        Classifier name to scores: shape ``(n_rows,)`` for a binary problem
        (the positive class's scores, the positive class being the second
        of the sorted classes or of `labels`), otherwise ``(n_rows,
        n_classes)`` with one column per class in the order of `labels` (or
        of the sorted classes), e.g. ``predict_proba(X)``. Higher means
        more likely.
    reference : str, default=None
        Name of the reference classifier; the first when None.
    groups : array-like of shape (n_rows,), default=None
        Record (cluster) of each row, e.g. the record id of stacked
        cross-validation rows: the bootstrap then draws records, and
        a record's rows stay together.
    labels : array-like, default=None
        The classes, in the order of the score columns (multilabel: names
        of the columns). None: the sorted classes of `y_true` (multilabel:
        the columns of a DataFrame `y_true`, else 0, 1, ...).
    average : {"macro", "micro", "weighted"} or None, default=None
        None: one row per class. Otherwise one row with scikit-learn's
        average of the per-class (one-vs-rest) values: their mean, the
        value of the pooled (row, class) entries, or their mean weighted by
        the classes' numbers of positives (so that a class without positives
        drops out of it). Ignored for a binary problem.
    n_resamples : int or array-like of int of shape (B, n_records), default=2000
        Number of bootstrap replicates, or the replicates themselves as
        integer weights: how often each record is drawn (records are the
        rows, or with `groups` the distinct groups in sorted order). Given
        weights let several comparisons share their replicates.
    confidence_level : float, default=0.95
        Level of every interval.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Seed of the bootstrap.
"""

_RESULT_DOC = """
    Returns
    -------
    result : MetricComparison
        Frozen. ``result.table`` has one row per class (or average) and
        compared classifier with the columns ``{name}``,
        ``{name}_reference``, their percentile intervals, ``diff``
        (classifier minus reference), ``diff_se`` (standard deviation of the
        bootstrap differences), ``diff_ci_low``/``diff_ci_high`` (percentile
        interval), ``diff_pvalue`` and the BCa interval ``diff_bca_low``/
        ``diff_bca_high``; ``result.omnibus`` is the Wald test that all
        classifiers are equal (three or more classifiers);
        ``result.replicates`` maps every classifier to its values in each
        replicate, shape ``(B, n_table_classes)``.
"""

_NOTES_DOC = """
    The paired bootstrap draws the records with replacement, within each
    true class as R's pROC does (so every replicate has the sample's class
    sizes); with `groups` it draws whole records (clusters), unstratified.
    Every classifier is evaluated on the same replicates. The p-value is
    pROC's: the difference over the standard deviation of its replicates,
    referred to the standard normal. The BCa interval (Efron 1987) takes
    its acceleration from a delete-a-group jackknife over 50 random groups
    of records (every record its own group below 50 records).

    Each classifier's scores are sorted once per class; a replicate is then
    a cumulative sum of integer weights over the sorted order, with ties
    grouped as scikit-learn groups them, so that a replicate's value is
    scikit-learn's with ``sample_weight`` equal to the replicate's weights.
    Replicates are done in blocks: memory grows with the rows and the
    block, never with rows times replicates.

    An undefined value (a class without positive rows, in the data or in a
    replicate) is NaN, with one
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`
    naming the class and the reason.
"""


def _doc(text, name):
    return (
        text.replace("%(shared)s", _SHARED_DOC.strip("\n"))
        .replace("%(result)s", _RESULT_DOC.format(name=name).strip("\n"))
        .replace("%(notes)s", _NOTES_DOC.strip("\n"))
    )


_AP = _Measure("average_precision", _curves.average_precision)
_AUC = _Measure("roc_auc", _curves.roc_auc, needs_negatives=True)


def _at_target(name, curve, target):
    """The measure ``curve(counts, target)``: a curve read at a required level."""
    target = float(target)
    return _Measure(name, lambda counts: curve(counts, target))


@validate_params(_PARAMETERS, prefer_skip_nested_validation=True)
def compare_average_precision(
    y_true: ArrayLike,
    y_scores: Scores,
    *,
    reference: Hashable | None = None,
    groups: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    average: str | None = None,
    n_resamples: int | ArrayLike = 2000,
    confidence_level: float = 0.95,
    random_state: RandomState = None,
) -> MetricComparison:
    return _run(
        _AP,
        y_true,
        y_scores,
        reference=reference,
        groups=groups,
        labels=labels,
        average=average,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        random_state=random_state,
    )


compare_average_precision.__doc__ = _doc(
    """Compare the average precision of classifiers scored on the same records.

    Average precision is :func:`sklearn.metrics.average_precision_score`:
    the sum over thresholds of the precision times the step in recall, with
    no interpolation.

%(shared)s

%(result)s

    Notes
    -----
%(notes)s

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. Journal of the
    American Statistical Association 82, 171-185.

    Robin, X. et al. (2011). pROC: an open-source package for R and S+ to
    analyze and compare ROC curves. BMC Bioinformatics 12, 77.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import compare_average_precision
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(500) < 0.2
    >>> scores = {"a": y + rng.normal(size=500), "b": y + rng.normal(scale=2, size=500)}
    >>> res = compare_average_precision(y, scores, n_resamples=500, random_state=0)
    >>> row = res.table.iloc[0]
    >>> bool(row["diff"] < 0), bool(row["diff_pvalue"] < 0.05)
    (True, True)
    """,
    "average_precision",
)


@validate_params(
    {**_PARAMETERS, "recall": [Interval(Real, 0, 1, closed="right")]},
    prefer_skip_nested_validation=True,
)
def compare_precision_at_recall(
    y_true: ArrayLike,
    y_scores: Scores,
    *,
    recall: float = 0.9,
    reference: Hashable | None = None,
    groups: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    average: str | None = None,
    n_resamples: int | ArrayLike = 2000,
    confidence_level: float = 0.95,
    random_state: RandomState = None,
) -> MetricComparison:
    return _run(
        _at_target("precision_at_recall", _curves.precision_at_recall, recall),
        y_true,
        y_scores,
        reference=reference,
        groups=groups,
        labels=labels,
        average=average,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        random_state=random_state,
    )


compare_precision_at_recall.__doc__ = _doc(
    """Compare the precision classifiers reach at a required recall.

    The precision at a recall is the largest precision among the
    thresholds whose recall is at least `recall`, read off
    :func:`sklearn.metrics.precision_recall_curve`: the precision of the
    best operating point that still finds the required share of positives.

%(shared)s
    recall : float in (0, 1], default=0.9
        The required recall.

%(result)s

    Notes
    -----
    The largest precision at a recall *at least* the target is the
    interpolated precision of the PR curve (its upper envelope): it is
    defined for every target up to 1 whenever the class has positive rows,
    it never needs a threshold that misses the target, and it does not
    depend on how ties or the gaps between thresholds fall around the
    target, as the precision at the first threshold that reaches it would.

    The value is read at an order statistic of the positives' scores (at
    recall 0.9 and 50 positives, the 45th), and the bootstrap overstates
    the variance of an order statistic, by a factor of about
    ``1 + 1 / sqrt(pi * n_pos * recall * (1 - recall))``. With few
    positives the p-value and the percentile interval are therefore
    conservative: simulated under the null with 50 positives,
    ``recall=0.9`` and 2000 replicates, the test rejected 3.3% at the 5%
    level and the 95% interval covered 97.5% (see "Validity by simulation"
    in the user guide).

%(notes)s

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import compare_precision_at_recall
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(500) < 0.2
    >>> scores = {"a": y + rng.normal(size=500), "b": y + rng.normal(scale=2, size=500)}
    >>> res = compare_precision_at_recall(y, scores, recall=0.8, n_resamples=500, random_state=0)
    >>> bool(res.table["diff"].iloc[0] < 0)
    True
    """,
    "precision_at_recall",
)


@validate_params(
    {**_PARAMETERS, "precision": [Interval(Real, 0, 1, closed="right")]},
    prefer_skip_nested_validation=True,
)
def compare_recall_at_precision(
    y_true: ArrayLike,
    y_scores: Scores,
    *,
    precision: float = 0.9,
    reference: Hashable | None = None,
    groups: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    average: str | None = None,
    n_resamples: int | ArrayLike = 2000,
    confidence_level: float = 0.95,
    random_state: RandomState = None,
) -> MetricComparison:
    return _run(
        _at_target("recall_at_precision", _curves.recall_at_precision, precision),
        y_true,
        y_scores,
        reference=reference,
        groups=groups,
        labels=labels,
        average=average,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        random_state=random_state,
    )


compare_recall_at_precision.__doc__ = _doc(
    """Compare the recall classifiers reach at a required precision.

    The recall at a precision is the largest recall among the points of
    :func:`sklearn.metrics.precision_recall_curve` whose precision is at
    least `precision`. That curve ends in the point (recall 0, precision 1),
    so a classifier that never reaches the precision has recall 0 there.

%(shared)s
    precision : float in (0, 1], default=0.9
        The required precision.

%(result)s

    Notes
    -----
%(notes)s

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import compare_recall_at_precision
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(500) < 0.2
    >>> scores = {"a": 3 * y + rng.normal(size=500), "b": y + rng.normal(size=500)}
    >>> res = compare_recall_at_precision(y, scores, precision=0.8, n_resamples=500, random_state=0)
    >>> bool(res.table["diff"].iloc[0] < 0)
    True
    """,
    "recall_at_precision",
)


@validate_params(
    {**_PARAMETERS, "method": [StrOptions({"delong", "bootstrap"})]},
    prefer_skip_nested_validation=True,
)
def compare_roc_auc(
    y_true: ArrayLike,
    y_scores: Scores,
    *,
    method: str = "delong",
    reference: Hashable | None = None,
    groups: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    average: str | None = None,
    n_resamples: int | ArrayLike = 2000,
    confidence_level: float = 0.95,
    random_state: RandomState = None,
) -> MetricComparison:
    return _run(
        _AUC,
        y_true,
        y_scores,
        reference=reference,
        groups=groups,
        labels=labels,
        average=average,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        random_state=random_state,
        method=method,
    )


compare_roc_auc.__doc__ = _doc(
    """Compare the ROC AUC of classifiers scored on the same records, per class.

    The AUC is :func:`sklearn.metrics.roc_auc_score` (one-vs-rest for each
    class), the Mann-Whitney statistic with ties counted 1/2.

%(shared)s
    method : {"delong", "bootstrap"}, default="delong"
        ``"delong"``: DeLong et al.'s (1988) covariance of the correlated
        AUCs (as :func:`delong_test`, for every class and any number of
        classifiers; Wald intervals and p-values, ``n_resamples`` and
        ``random_state`` unused). With `groups`, Obuchowski's (1997)
        clustered form of it, from the placement values summed over each
        record's rows; with one row per record it is DeLong's. With
        `average`, the covariance of the averaged AUC: ``"micro"`` is the
        clustered covariance of the pooled (row, class) entries with the
        records as clusters, ``"macro"`` and ``"weighted"`` combine the
        per-class AUCs with their covariance across classes, estimated in
        the same form (the classes' AUCs share the records).
        ``"bootstrap"``: the stratified paired bootstrap.

%(result)s
        With ``method="delong"``, the intervals are Wald intervals from
        DeLong's standard errors (each AUC's clipped to [0, 1], as pROC's
        ``ci.auc`` does) and there are no replicates.

    Notes
    -----
%(notes)s

    References
    ----------
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing
    the areas under two or more correlated receiver operating characteristic
    curves: a nonparametric approach. Biometrics 44, 837-845.

    Obuchowski, N. A. (1997). Nonparametric analysis of clustered ROC curve
    data. Biometrics 53, 567-578.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import compare_roc_auc
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, size=300)
    >>> scores = {"a": y + rng.normal(size=300), "b": y + rng.normal(scale=2, size=300)}
    >>> res = compare_roc_auc(y, scores)
    >>> bool(res.table["diff"].iloc[0] < 0), bool(res.table["diff_pvalue"].iloc[0] < 0.05)
    (True, True)

    Three rows per patient, compared with the patients as clusters:

    >>> patient = np.repeat(np.arange(100), 3)
    >>> res = compare_roc_auc(y, scores, groups=patient)
    >>> res.n_records
    100
    """,
    "roc_auc",
)
