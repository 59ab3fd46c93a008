"""Named measures as functions of the K x K confusion matrix, with exact gradients.

Every measure is computed from confusion matrices of counts (rows truth,
columns predictions, scikit-learn's orientation), batched over leading axes
so that bootstrap replicates are evaluated at once. The one-vs-rest
measures of a class are sums of ratios of linear forms in the class's
(TP, FP, FN, TN), so their value and gradient follow from one rule; the
whole-matrix measures (MCC, Cohen's kappa) have their own closed forms.
Gradients are with respect to the counts. Multilabel inputs give one
2 x 2 table per label, ``(..., L, 2, 2)``, and the same one-vs-rest rules;
their ``"samples"`` average is the mean of the rows' values, a function of
``(..., 3)`` sums: the rows' values, the undefined rows, the rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

__all__ = []

# Index of TP, FP, FN, TN in the per-class count vectors.
_TP, _FP, _FN, _TN = range(4)


@dataclass(frozen=True)
class Ratio:
    """``(num . counts) / (den . counts)`` over (TP, FP, FN, TN)."""

    num: tuple[float, float, float, float]
    den: tuple[float, float, float, float]
    undefined: str


def _ratios(metric: str, beta: float) -> tuple[list[Ratio], float]:
    precision = Ratio((1, 0, 0, 0), (1, 1, 0, 0), "no row is predicted as the class (TP + FP = 0)")
    recall = Ratio((1, 0, 0, 0), (1, 0, 1, 0), "no row is of the class (TP + FN = 0)")
    specificity = Ratio((0, 0, 0, 1), (0, 1, 0, 1), "every row is of the class (TN + FP = 0)")
    npv = Ratio((0, 0, 0, 1), (0, 0, 1, 1), "every row is predicted as the class (TN + FN = 0)")
    b2 = beta * beta
    both = "no row is of the class or predicted as it (TP + FP + FN = 0)"
    table = {
        "precision": ([precision], 0.0),
        "recall": ([recall], 0.0),
        "specificity": ([specificity], 0.0),
        "npv": ([npv], 0.0),
        "f1": ([Ratio((2, 0, 0, 0), (2, 1, 1, 0), both)], 0.0),
        "fbeta": ([Ratio((1 + b2, 0, 0, 0), (1 + b2, 1, b2, 0), both)], 0.0),
        "jaccard": ([Ratio((1, 0, 0, 0), (1, 1, 1, 0), both)], 0.0),
        "informedness": ([recall, specificity], -1.0),
        "markedness": ([precision, npv], -1.0),
    }
    return table[metric]


PER_CLASS = (
    "precision",
    "recall",
    "specificity",
    "npv",
    "f1",
    "fbeta",
    "jaccard",
    "informedness",
    "markedness",
)
WHOLE_MATRIX = ("accuracy", "balanced_accuracy", "mcc", "cohen_kappa")
NAMED = PER_CLASS + WHOLE_MATRIX
# The measures scikit-learn averages over samples (multilabel rows), and when
# a row's value is undefined.
SAMPLES = {
    "precision": "no predicted label (TP + FP = 0)",
    "recall": "no true label (TP + FN = 0)",
    "f1": "no true and no predicted label (TP + FP + FN = 0)",
    "fbeta": "no true and no predicted label (TP + FP + FN = 0)",
    "jaccard": "no true and no predicted label (TP + FP + FN = 0)",
}
# Layout of the sums that a samples-averaged measure is a function of.
_SUM, _UNDEFINED, _ROWS = range(3)


def row_values(
    tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, metric: str, beta: float
) -> np.ndarray:
    """Each multilabel row's measure over its labels; NaN where undefined.

    The per-row (TP, FP, FN) follow the same ratios as a class's counts.
    """
    ratios, const = _ratios(metric, beta)
    counts = np.stack([tp, fp, fn, np.zeros_like(tp)], axis=-1).astype(float)
    return _per_class_value(counts, ratios, const)


def class_counts(confusion: np.ndarray, multilabel: bool = False) -> np.ndarray:
    """(TP, FP, FN, TN) per class, shape ``(..., K, 4)``.

    `confusion` is ``(..., K, K)``, or ``(..., L, 2, 2)`` for multilabel
    (one 2 x 2 table of (truth, prediction) per label).
    """
    if multilabel:
        c = confusion
        return np.stack([c[..., 1, 1], c[..., 0, 1], c[..., 1, 0], c[..., 0, 0]], axis=-1)
    tp = np.diagonal(confusion, axis1=-2, axis2=-1)
    fp = confusion.sum(axis=-2) - tp
    fn = confusion.sum(axis=-1) - tp
    n = confusion.sum(axis=(-2, -1))[..., None]
    return np.stack([tp, fp, fn, n - tp - fp - fn], axis=-1)


def _per_class_value(counts: np.ndarray, ratios: list[Ratio], const: float) -> np.ndarray:
    """Value over the last axis of (TP, FP, FN, TN); NaN where undefined."""
    value = np.full(counts.shape[:-1], const)
    for r in ratios:
        num = counts @ np.asarray(r.num, dtype=float)
        den = counts @ np.asarray(r.den, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = value + np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return value


def _per_class_partials(counts: np.ndarray, ratios: list[Ratio]) -> np.ndarray:
    """Partial derivatives with respect to (TP, FP, FN, TN), shape ``(..., 4)``."""
    out = np.zeros(counts.shape)
    for r in ratios:
        a, b = np.asarray(r.num, dtype=float), np.asarray(r.den, dtype=float)
        num, den = counts @ a, counts @ b
        with np.errstate(invalid="ignore", divide="ignore"):
            v = num / den
            out = out + (a - v[..., None] * b) / den[..., None]
    return out


def _undefined_reasons(counts: np.ndarray, ratios: list[Ratio]) -> list[str | None]:
    """The reason each class's value is undefined (None where defined)."""
    reasons: list[str | None] = []
    for row in counts:
        why = None
        for r in ratios:
            if float(row @ np.asarray(r.den, dtype=float)) <= 0:
                why = r.undefined
                break
        reasons.append(why)
    return reasons


def _class_gradient_at(
    partials: np.ndarray, k: np.ndarray, cells: np.ndarray, n_values: int
) -> np.ndarray:
    """d value / d cell for one-vs-rest classes `k`, at the flat `cells` of a K x K matrix.

    ``partials`` has shape ``(R, 4)``; returns ``(R, S)``. A cell counts
    towards class k's TN, except on row k (FN), column k (FP) and their
    crossing (TP), so nothing of size K^3 is needed.
    """
    t, p = np.divmod(np.asarray(cells, dtype=np.intp), n_values)
    g_tp, g_fp, g_fn, g_tn = (partials[:, i][:, None] for i in range(4))
    is_t = (t[None, :] == k[:, None]).astype(float)
    is_p = (p[None, :] == k[:, None]).astype(float)
    return (
        g_tn
        + (g_fp - g_tn) * is_p
        + (g_fn - g_tn) * is_t
        + (g_tp - g_fp - g_fn + g_tn) * (is_t * is_p)
    )


# The count (TP, FP, FN, TN) that cell ``2 * truth + prediction`` of a 2 x 2 table adds to.
_LABEL_CELL_COUNT = np.array([_TN, _FP, _FN, _TP])


def _label_gradient_at(partials: np.ndarray, k: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """d value / d cell of labels `k` at the flat `cells` of ``(L, 2, 2)`` tables: ``(R, S)``."""
    label, pos = np.divmod(np.asarray(cells, dtype=np.intp), 4)
    return np.where(label[None, :] == k[:, None], partials[:, _LABEL_CELL_COUNT[pos]], 0.0)


def _class_gradient_sum(
    partials: np.ndarray, k: np.ndarray, w: np.ndarray, n_values: int, multilabel: bool
) -> np.ndarray:
    """``sum_j w_j d value_j / d cell`` over classes (labels) `k`: ``(K, K)`` or ``(L, 2, 2)``.

    In O(K^2): the TN partials everywhere, then rows, columns and diagonal
    cells of the classes.
    """
    g = w[:, None] * partials
    if multilabel:
        grad = np.zeros((n_values, 2, 2))
        for i, (t, p) in enumerate(((1, 1), (0, 1), (1, 0), (0, 0))):
            grad[k, t, p] = g[:, i]
        return grad
    g_tp, g_fp, g_fn, g_tn = (g[:, i] for i in range(4))
    grad = np.full((n_values, n_values), g_tn.sum())
    grad[:, k] += g_fp - g_tn
    grad[k, :] += (g_fn - g_tn)[:, None]
    grad[k, k] += g_tp - g_fp - g_fn + g_tn
    return grad


def _micro_cell_maps(labels: np.ndarray, n_values: int, multilabel: bool = False) -> np.ndarray:
    """d(TP, FP, FN, TN summed over `labels`) / d cell, shape ``(4, K, K)``.

    Multilabel: ``(4, L, 2, 2)``.
    """
    if multilabel:
        return _multilabel_micro(labels, n_values)
    in_l = np.zeros(n_values)
    in_l[labels] = 1.0
    diag = np.eye(n_values) * in_l[:, None]
    t_in = np.broadcast_to(in_l[:, None], (n_values, n_values))
    p_in = np.broadcast_to(in_l[None, :], (n_values, n_values))
    tp = diag
    fp = p_in - diag
    fn = t_in - diag
    tn = len(labels) - t_in - p_in + diag
    return np.stack([tp, fp, fn, tn])


def _multilabel_micro(labels: np.ndarray, n_labels: int) -> np.ndarray:
    out = np.zeros((4, n_labels, 2, 2))
    for i, (t, p) in enumerate(((1, 1), (0, 1), (1, 0), (0, 0))):
        out[i, labels, t, p] = 1.0
    return out


@dataclass(frozen=True)
class MeasureSpec:
    """A measure with its averaging: how to get values and gradients."""

    metric: str
    average: str | None
    class_codes: np.ndarray  # the classes (codes) averaged over or reported
    n_values: int
    beta: float = 1.0
    weights: str | None = None
    pos_code: int | None = None
    func: Callable[[np.ndarray], Any] | None = None
    multilabel: bool = False

    def _counts(self, confusion: np.ndarray) -> np.ndarray:
        return class_counts(confusion, self.multilabel)

    def _gradient_sum(self, partials: np.ndarray, k: np.ndarray, w: np.ndarray) -> np.ndarray:
        return _class_gradient_sum(partials, k, w, self.n_values, self.multilabel)

    def outputs(self, rows: slice) -> MeasureSpec:
        """The same measure reporting only the outputs `rows` (per-class values)."""
        if self.n_outputs == 1:
            return self
        return replace(self, class_codes=self.class_codes[rows])

    @property
    def n_outputs(self) -> int:
        if self.func is not None:
            return len(self.class_codes) if self.average is None else 1
        if self.metric in WHOLE_MATRIX or self.average not in (None, "binary"):
            return 1
        return 1 if self.average == "binary" else len(self.class_codes)

    def _reported(self) -> np.ndarray:
        if self.average == "binary":
            assert self.pos_code is not None
            return np.array([self.pos_code], dtype=np.intp)
        return self.class_codes

    # Values ------------------------------------------------------------------

    def values(self, confusion: np.ndarray) -> np.ndarray:
        """Values of batched confusion matrices ``(..., K, K)``: ``(..., R)``."""
        if self.average == "samples":
            # (sum of the rows' values, undefined rows, rows): the mean over rows.
            undefined = (confusion[..., _UNDEFINED] > 0) | ~(confusion[..., _ROWS] > 0)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = confusion[..., _SUM] / confusion[..., _ROWS]
            return np.where(undefined, np.nan, mean)[..., None]
        if self.func is not None:
            return self._callable_values(confusion)
        if self.metric in WHOLE_MATRIX:
            return _whole_matrix_value(self, confusion)[..., None]
        return self.class_count_values(self._counts(confusion))

    @property
    def from_class_counts(self) -> bool:
        """Whether the values depend on the classes' (TP, FP, FN, TN) alone."""
        return (
            self.func is None
            and self.metric in PER_CLASS
            and self.average != "samples"
            and not self.multilabel
        )

    def class_count_values(self, counts: np.ndarray) -> np.ndarray:
        """Values from the classes' (TP, FP, FN, TN) ``(..., K, 4)``: ``(..., R)``."""
        ratios, const = _ratios(self.metric, self.beta)
        if self.average in (None, "binary"):
            return _per_class_value(counts[..., self._reported(), :], ratios, const)
        chosen = counts[..., self.class_codes, :]
        if self.average == "micro":
            return _per_class_value(chosen.sum(axis=-2), ratios, const)[..., None]
        values = _per_class_value(chosen, ratios, const)
        if self.average == "macro":
            return values.mean(axis=-1)[..., None]
        # weighted by support (true rows of each class)
        support = chosen[..., _TP] + chosen[..., _FN]
        total = support.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            terms = np.where(support > 0, support * values, 0.0)
            return np.where(total > 0, terms.sum(axis=-1) / total, np.nan)[..., None]

    def _callable_values(self, confusion: np.ndarray) -> np.ndarray:
        assert self.func is not None
        batch = confusion.shape[:-2]
        flat = confusion.reshape(-1, self.n_values, self.n_values)
        out = np.empty((flat.shape[0], self.n_outputs))
        for i, matrix in enumerate(flat):
            value = np.asarray(self.func(np.array(matrix, dtype=float)), dtype=float)
            if value.ndim == 0:
                out[i] = value
            else:
                value = value[self.class_codes]
                if self.average is None:
                    out[i] = value
                elif self.average == "macro":
                    out[i] = value.mean()
                else:
                    support = matrix.sum(axis=1)[self.class_codes]
                    out[i] = (support * value).sum() / support.sum()
        # An infinite value is no estimate either: undefined, like NaN.
        out[~np.isfinite(out)] = np.nan
        return out.reshape(*batch, self.n_outputs)

    # Gradients ----------------------------------------------------------------

    def gradient(self, confusion: np.ndarray) -> np.ndarray:
        """d values / d counts of one confusion matrix: ``(R, *confusion.shape)``."""
        n_out = self.n_outputs
        if self.func is not None or (self.metric in PER_CLASS and self.average in (None, "binary")):
            every = np.arange(confusion.size)
            return self.gradient_at(confusion, every).reshape(n_out, *confusion.shape)
        if self.average == "samples":
            total, rows = confusion[_SUM], confusion[_ROWS]
            grad = np.array([1.0 / rows, 0.0, -total / rows**2])
            return np.where(np.isfinite(self.values(confusion)), grad, np.nan)[None]
        if self.metric in WHOLE_MATRIX:
            return _whole_matrix_gradient(self, confusion)[None]
        ratios, const = _ratios(self.metric, self.beta)
        counts = self._counts(confusion)
        k_all = self.class_codes
        if self.average == "micro":
            partials = _per_class_partials(counts[k_all].sum(axis=0), ratios)
            return np.tensordot(
                partials, _micro_cell_maps(k_all, self.n_values, self.multilabel), axes=1
            )[None]
        partials = _per_class_partials(counts[k_all], ratios)
        if self.average == "macro":
            return self._gradient_sum(partials, k_all, np.full(len(k_all), 1 / len(k_all)))[None]
        values = _per_class_value(counts[k_all], ratios, const)
        support = counts[k_all, _TP] + counts[k_all, _FN]
        total = support.sum()
        w = support / total
        values = np.where(support > 0, values, 0.0)
        partials = np.where((support > 0)[:, None], partials, 0.0)
        value = (w * values).sum()
        grad = self._gradient_sum(partials, k_all, w)
        # d support_k / d cell = [the cell's truth is class k] (label k's
        # positive rows for multilabel).
        if self.multilabel:
            grad[k_all, 1, :] += ((values - value) / total)[:, None]
        else:
            grad[k_all, :] += ((values - value) / total)[:, None]
        return grad[None]

    def gradient_at(self, confusion: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """d values / d counts at the flat indices `cells` of one confusion matrix: ``(R, S)``.

        Influence values need the gradient only at the cells that rows
        fall in, so per-class values never build ``R x K x K`` arrays.
        """
        if self.func is not None:
            return self._numerical_gradient(confusion, cells)
        if self.metric in PER_CLASS and self.average in (None, "binary"):
            ratios, _ = _ratios(self.metric, self.beta)
            k = self._reported()
            partials = _per_class_partials(self._counts(confusion)[k], ratios)
            if self.multilabel:
                return _label_gradient_at(partials, k, cells)
            return _class_gradient_at(partials, k, cells, self.n_values)
        return self.gradient(confusion).reshape(self.n_outputs, -1)[:, cells]

    def _numerical_gradient(self, confusion: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """Central differences in the counts of `cells` (step ~ eps^(1/3) of the total).

        The step is at most ``1e-5`` of the cell's count, so no count turns
        negative.

        Two calls of the callable per cell: ``2 S`` calls for the ``S``
        cells that rows fall in (at most K^2), each of O(K^2) or more, and
        ``R x S`` floats.
        """
        values = self.values(confusion)
        if not np.isfinite(values).any():
            # Undefined outputs have no gradient: no 2 S calls of the callable.
            return np.full((self.n_outputs, len(cells)), np.nan)
        base = 6e-6 * max(float(confusion.sum()), 1.0)
        grad = np.empty((self.n_outputs, len(cells)))
        for j, cell in enumerate(np.asarray(cells).tolist()):
            index = np.unravel_index(cell, confusion.shape)
            # The step is a small part of the cell's own count (at most 6e-6 of
            # the total): a rare cell's count never turns negative, where a log
            # or a ratio of counts is undefined, and its difference stays local.
            count = float(confusion[index])
            step = min(base, 1e-5 * count) if count > 0 else base
            up, down = confusion.copy(), confusion.copy()
            up[index] += step
            down[index] -= step
            grad[:, j] = (self.values(up) - self.values(down)) / (2 * step)
        return grad

    # Undefined values ------------------------------------------------------

    def undefined_reasons(self, confusion: np.ndarray) -> list[str | None]:
        """Why each output is undefined (None where it is defined)."""
        values = self.values(confusion)
        if self.average == "samples":
            if np.isfinite(values[0]):
                return [None]
            n_undefined, n_rows = int(confusion[_UNDEFINED]), int(confusion[_ROWS])
            return [
                f"{n_undefined} of {n_rows} rows have {SAMPLES[self.metric]}, so their "
                f"{self.metric} and the mean over rows are undefined (average='micro', "
                "'macro' or 'weighted' are defined on these rows)"
            ]
        if self.func is not None or self.metric in WHOLE_MATRIX:
            reason = (
                _whole_matrix_reason(self, confusion)
                if self.func is None
                else "the callable returned NaN or infinity"
            )
            return [None if np.isfinite(v) else reason for v in values]
        ratios, _ = _ratios(self.metric, self.beta)
        counts = self._counts(confusion)
        if self.average in (None, "binary"):
            return _undefined_reasons(counts[self._reported()], ratios)
        if self.average == "micro":
            return _undefined_reasons(counts[self.class_codes].sum(axis=0)[None], ratios)
        if np.isfinite(values[0]):
            return [None]
        chosen = counts[self.class_codes]
        if self.average == "weighted":
            support = chosen[:, _TP] + chosen[:, _FN]
            if support.sum() == 0:
                return ["no row is of the averaged classes"]
            chosen = chosen[support > 0]
        names = [r for r in _undefined_reasons(chosen, ratios) if r is not None]
        return [f"some class is undefined: {names[0]}" if names else "undefined"]


# Whole-matrix measures ---------------------------------------------------------


def _kappa_weights(spec: MeasureSpec) -> np.ndarray:
    k = spec.n_values
    idx = np.arange(k, dtype=float)
    if spec.weights is None:
        return 1.0 - np.eye(k)
    diff = idx[:, None] - idx[None, :]
    return np.abs(diff) if spec.weights == "linear" else diff**2


def _whole_matrix_value(spec: MeasureSpec, c: np.ndarray) -> np.ndarray:
    n = c.sum(axis=(-2, -1))
    trace = np.trace(c, axis1=-2, axis2=-1)
    t = c.sum(axis=-1)  # true rows per class
    p = c.sum(axis=-2)  # predicted rows per class
    with np.errstate(invalid="ignore", divide="ignore"):
        if spec.metric == "accuracy":
            return np.where(n > 0, trace / n, np.nan)
        if spec.metric == "balanced_accuracy":
            diag = np.diagonal(c, axis1=-2, axis2=-1)
            present = t > 0
            recall = np.where(present, diag / np.where(present, t, 1.0), 0.0)
            m = present.sum(axis=-1)
            return np.where(m > 0, recall.sum(axis=-1) / m, np.nan)
        if spec.metric == "mcc":
            cov_tp = trace * n - (t * p).sum(axis=-1)
            cov_pp = n * n - (p * p).sum(axis=-1)
            cov_tt = n * n - (t * t).sum(axis=-1)
            den = cov_tt * cov_pp
            return np.where(den > 0, cov_tp / np.sqrt(np.where(den > 0, den, 1.0)), np.nan)
        # Cohen's kappa as scikit-learn computes it (expected = outer(p, t) / n).
        w = _kappa_weights(spec)
        observed = (w * c).sum(axis=(-2, -1))
        expected = np.einsum("...i,ij,...j->...", p, w, t) / n
        return np.where(
            expected > 0, 1.0 - observed / np.where(expected > 0, expected, 1.0), np.nan
        )


def _whole_matrix_gradient(spec: MeasureSpec, c: np.ndarray) -> np.ndarray:
    k = spec.n_values
    n = c.sum()
    trace = np.trace(c)
    t, p = c.sum(axis=1), c.sum(axis=0)
    eye = np.eye(k)
    with np.errstate(invalid="ignore", divide="ignore"):
        if spec.metric == "accuracy":
            return (eye - trace / n) / n
        if spec.metric == "balanced_accuracy":
            present = t > 0
            m = present.sum()
            recall = np.where(present, np.diagonal(c) / np.where(present, t, 1.0), 0.0)
            # d recall_k / d c[t, p] = ([t = p = k] - recall_k [t = k]) / t_k
            grad = (eye - recall[:, None]) / np.where(present, t, 1.0)[:, None]
            return np.where(present[:, None], grad, 0.0) / m
        if spec.metric == "mcc":
            cov_tp = trace * n - t @ p
            cov_pp = n * n - p @ p
            cov_tt = n * n - t @ t
            mcc = cov_tp / np.sqrt(cov_tt * cov_pp)
            d_tp = n * eye + trace - p[:, None] - t[None, :]
            d_pp = 2 * n - 2 * p[None, :]
            d_tt = 2 * n - 2 * t[:, None]
            return d_tp / np.sqrt(cov_tt * cov_pp) - 0.5 * mcc * (d_tt / cov_tt + d_pp / cov_pp)
        w = _kappa_weights(spec)
        observed = (w * c).sum()
        expected = p @ w @ t / n
        # d expected / d c[a, b] = ((W p)_a + (W t)_b) / n - expected / n
        d_expected = ((w @ p)[:, None] + (w @ t)[None, :]) / n - expected / n
        return -(w / expected) + observed / expected**2 * d_expected


def _whole_matrix_reason(spec: MeasureSpec, c: np.ndarray) -> str:
    t, p = c.sum(axis=1), c.sum(axis=0)
    if c.sum() == 0:
        return "there are no rows"
    if spec.metric == "mcc":
        if np.count_nonzero(p) <= 1:
            return "the prediction is constant (one predicted class)"
        if np.count_nonzero(t) <= 1:
            return "the truth is constant (one true class)"
    if spec.metric == "cohen_kappa":
        return "the chance disagreement is zero (truth and prediction constant and equal)"
    return "undefined"
