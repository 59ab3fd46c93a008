"""The result of comparing any measure of classifiers: frozen, read-only arrays.

One result family for every measure that is not one of the paired
comparisons' five (F1, MCC, Cohen's kappa, balanced accuracy, a callable of
the confusion matrix, threshold-free measures such as average precision):
each classifier's measure with its interval, and the difference from the
reference with its standard error, interval and p-value.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from ._base import (
    _check_confidence_level,
    _FrozenComparison,
    name_array,
    read_only,
    read_only_mapping,
)

if TYPE_CHECKING:
    import pandas as pd
    from statsmodels.iolib.summary2 import Summary

__all__ = ["MetricComparison"]

_METHODS = ("delta", "bootstrap", "delong")
_DIFF_COLUMNS = ("diff", "diff_se", "diff_ci_low", "diff_ci_high", "diff_pvalue")
_OMNIBUS_COLUMNS = ("df", "wald_stat", "wald_pvalue")


def percentile_interval(
    replicates: np.ndarray, level: float, defined: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval at `level` of each column (all axes but the first).

    NaN where `defined` (of the columns' shape) is False: an undefined
    estimate (e.g. a single record) has no interval, whatever its resamples
    give. NaN too where no replicate is finite, on which
    :func:`numpy.nanquantile` would warn.
    """
    alpha = (1 - level) / 2
    low, high = np.full(defined.shape, np.nan), np.full(defined.shape, np.nan)
    defined = defined & np.isfinite(replicates).any(axis=0)
    if defined.any():
        low[defined], high[defined] = np.nanquantile(
            replicates[:, defined], [alpha, 1 - alpha], axis=0
        )
    return low, high


def _read_only(array: Any, ndim: int | None = None, dtype: Any = float) -> np.ndarray:
    out = read_only(array, dtype)
    if ndim is not None and out.ndim != ndim:
        raise ValueError(f"expected an array of {ndim} dimensions, got shape {out.shape}.")
    return out


class MetricComparison(_FrozenComparison):
    """Comparison of any measure of classifiers with a reference classifier.

    Returned by :func:`compare_metric` (and by the threshold-free
    comparisons); it is frozen: attributes cannot be assigned, it holds its
    own read-only arrays, and :attr:`table` and :attr:`omnibus` are new
    DataFrames on every access. It can be built from arrays with the
    keyword arguments below (this is how every function of the library
    builds it).

    Parameters
    ----------
    measure : str
        Name of the measure, used as column name (e.g. ``"f1"``,
        ``"mcc"``, ``"average_precision"``).
    classes : array-like of shape (n_classes,)
        The table's class labels, in order: the classes (one-vs-rest
        measures with ``average=None``), or one entry naming the average
        (``"macro"``, ``"micro"``, ``"weighted"``, ``"samples"``) or
        ``"all"`` for measures of the whole confusion matrix.
    classifiers : sequence of str
        Classifier names, the reference first.
    method : {"delta", "bootstrap", "delong"}
        How the standard errors, intervals and p-values were computed.
    average : str or None
        The averaging of per-class values (scikit-learn's meaning), or None.
    confidence_level : float
        Level of the intervals.
    n_rows : int
        Rows per classifier.
    n_records : int
        Distinct records (clusters).
    estimates : array-like of shape (n_classes, n_classifiers)
        The measure of every classifier, reference first (NaN when
        undefined).
    estimate_ci_low, estimate_ci_high : array-like of shape (n_classes, n_classifiers)
        Interval of each classifier's measure.
    diff, diff_se, diff_ci_low, diff_ci_high, diff_pvalue : array-like of shape \
(n_classes, n_classifiers - 1)
        Difference classifier minus reference, its standard error, interval
        and two-sided p-value.
    estimate_se : array-like of shape (n_classes, n_classifiers), default=None
        Standard error of each classifier's measure (Wald methods); with
        it, and `diff_se`, :meth:`to_frame` recomputes Wald intervals at
        another level.
    omnibus : mapping of str to array-like, default=None
        ``df``, ``wald_stat`` and ``wald_pvalue``, one entry per class: the
        Wald test that all classifiers have the same measure (three or more
        classifiers).
    extra_columns : mapping of str to array-like, default=None
        More columns of the table, each of shape
        ``(n_classes, n_classifiers - 1)``, appended after ``diff_pvalue``
        in the given order (the bootstrap's BCa limits
        ``diff_bca_low`` and ``diff_bca_high``).
    replicates : mapping of str to array-like, default=None
        Resampled values of the measure: classifier name (every classifier,
        the reference included) to an array of shape
        ``(n_resamples, n_classes)``; None when not resampled.
    curves : mapping of str to array-like, default=None
        Precision-recall curves of threshold-free comparisons, drawn by
        :func:`~sklearn_precision_stats.plotting.plot_precision_recall`:
        ``recall`` (the grid, shape ``(n_grid,)``), ``precision`` (the
        interpolated precision at each recall, shape ``(n_classifiers,
        n_classes, n_grid)``) and, when resampled, ``low`` and ``high`` (its
        pointwise bootstrap interval, same shape).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per class and compared classifier, columns ``class``,
        ``classifier``, ``<measure>``, ``<measure>_reference``,
        ``<measure>_ci_low``, ``<measure>_ci_high`` (the classifier's
        interval), ``<measure>_reference_ci_low``,
        ``<measure>_reference_ci_high``, ``diff``, ``diff_se``,
        ``diff_ci_low``, ``diff_ci_high``, ``diff_pvalue``, then the extra
        columns (the bootstrap adds ``diff_bca_low`` and ``diff_bca_high``,
        the BCa interval; its ``diff_ci_*`` are percentile limits and
        ``diff_se`` the standard deviation of the replicates).
    omnibus : pandas.DataFrame
        One row per class, columns ``class``, ``df``, ``wald_stat``,
        ``wald_pvalue``; empty with two classifiers.
    measure, classes, classifiers, reference, method, average,
    confidence_level, n_rows, n_records
        As given (``reference`` is ``classifiers[0]``).
    replicates : mapping of str to ndarray or None
        Read-only arrays of shape ``(n_resamples, n_classes)`` per
        classifier, in a read-only mapping.
    curves : mapping of str to ndarray or None
        Read-only precision-recall curves (threshold-free comparisons), in a
        read-only mapping.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import MetricComparison
    >>> result = MetricComparison(
    ...     measure="f1", classes=["macro"], classifiers=["a", "b"],
    ...     method="delta", average="macro", confidence_level=0.95,
    ...     n_rows=100, n_records=100,
    ...     estimates=[[0.70, 0.75]], estimate_ci_low=[[0.6, 0.66]],
    ...     estimate_ci_high=[[0.8, 0.84]], diff=[[0.05]], diff_se=[[0.02]],
    ...     diff_ci_low=[[0.0108]], diff_ci_high=[[0.0892]], diff_pvalue=[[0.0124]],
    ... )
    >>> result.table[["class", "classifier", "f1", "f1_reference", "diff"]]
       class classifier    f1  f1_reference  diff
    0  macro          b  0.75           0.7  0.05
    """

    measure: str
    classes: np.ndarray
    classifiers: tuple[str, ...]
    reference: str
    method: str
    average: str | None
    confidence_level: float
    n_rows: int
    n_records: int
    replicates: Mapping[str, np.ndarray] | None
    curves: Mapping[str, np.ndarray] | None
    _arrays: Mapping[str, np.ndarray]
    _extra_names: tuple[str, ...]
    _omnibus: Mapping[str, np.ndarray] | None

    _ARRAY_MAPPINGS = ("replicates", "curves", "_arrays", "_omnibus")

    def __init__(
        self,
        *,
        measure: str,
        classes: Sequence[Hashable] | np.ndarray,
        classifiers: Sequence[str],
        method: str,
        average: str | None,
        confidence_level: float,
        n_rows: int,
        n_records: int,
        estimates: Any,
        estimate_ci_low: Any,
        estimate_ci_high: Any,
        diff: Any,
        diff_se: Any,
        diff_ci_low: Any,
        diff_ci_high: Any,
        diff_pvalue: Any,
        estimate_se: Any = None,
        omnibus: Mapping[str, Any] | None = None,
        extra_columns: Mapping[str, Any] | None = None,
        replicates: Mapping[str, Any] | None = None,
        curves: Mapping[str, Any] | None = None,
    ) -> None:
        if method not in _METHODS:
            raise ValueError(f"method must be one of {list(_METHODS)}, got {method!r}.")
        classifiers = tuple(classifiers)
        if len(classifiers) < 2:
            raise ValueError("classifiers must name the reference and at least one other.")
        classes_array = np.asarray(classes)
        if classes_array.dtype.kind not in "iub":
            classes_array = classes_array.astype(object)
        classes_array = classes_array.copy()
        classes_array.flags.writeable = False
        n_classes, n_clf = len(classes_array), len(classifiers)
        per_classifier = {
            "estimates": estimates,
            "estimate_ci_low": estimate_ci_low,
            "estimate_ci_high": estimate_ci_high,
        }
        if estimate_se is not None:
            per_classifier["estimate_se"] = estimate_se
        arrays = {}
        for name, value in per_classifier.items():
            arrays[name] = _read_only(value, 2)
            if arrays[name].shape != (n_classes, n_clf):
                raise ValueError(
                    f"{name} must have shape (n_classes, n_classifiers) = "
                    f"{(n_classes, n_clf)}, got {arrays[name].shape}."
                )
        differences = dict(
            zip(_DIFF_COLUMNS, (diff, diff_se, diff_ci_low, diff_ci_high, diff_pvalue), strict=True)
        )
        extras = {str(k): v for k, v in (extra_columns or {}).items()}
        for name, value in {**differences, **extras}.items():
            arrays[name] = _read_only(value, 2)
            if arrays[name].shape != (n_classes, n_clf - 1):
                raise ValueError(
                    f"{name} must have shape (n_classes, n_classifiers - 1) = "
                    f"{(n_classes, n_clf - 1)}, got {arrays[name].shape}."
                )
        omni = None
        if omnibus is not None:
            omni = {name: _read_only(omnibus[name], 1) for name in _OMNIBUS_COLUMNS}
        reps = None
        if replicates is not None:
            reps = {}
            for name in classifiers:
                if name not in replicates:
                    raise ValueError(f"replicates must hold every classifier; {name!r} is missing.")
                reps[name] = _read_only(replicates[name], 2)
                if reps[name].shape[1] != n_classes:
                    raise ValueError(
                        f"replicates[{name!r}] must have shape (n_resamples, {n_classes}), "
                        f"got {reps[name].shape}."
                    )
        values = {
            "measure": str(measure),
            "classes": classes_array,
            "classifiers": classifiers,
            "reference": classifiers[0],
            "method": method,
            "average": average,
            "confidence_level": _check_confidence_level(confidence_level),
            "n_rows": int(n_rows),
            "n_records": int(n_records),
            # Read-only mappings: a frozen result's replicates and curves
            # can be neither replaced nor edited in place.
            "replicates": None if reps is None else MappingProxyType(reps),
            "curves": None
            if curves is None
            else read_only_mapping({str(k): v for k, v in curves.items() if v is not None}),
            "_arrays": MappingProxyType(arrays),
            "_extra_names": tuple(extras),
            "_omnibus": None if omni is None else MappingProxyType(omni),
        }
        self._freeze(values)

    # Tables ---------------------------------------------------------------

    def _intervals(self, level: float) -> dict[str, np.ndarray]:
        """The interval arrays at `level` (the stored ones at the own level)."""
        a = self._arrays
        keys = ("estimate_ci_low", "estimate_ci_high", "diff_ci_low", "diff_ci_high")
        if level == self.confidence_level:
            return {k: a[k] for k in keys}
        if self.method == "bootstrap" and self.replicates is not None:
            reps = np.stack([self.replicates[c] for c in self.classifiers], axis=-1)
            limits: list[np.ndarray] = []
            for own, r in ((a[keys[0]], reps), (a[keys[2]], reps[..., 1:] - reps[..., :1])):
                # Undefined at the own level is undefined at any level.
                limits += percentile_interval(r, level, np.isfinite(own))
            return dict(zip(keys, limits, strict=True))
        if self.method != "bootstrap" and "estimate_se" in a:
            z = stats.norm.ppf(0.5 + level / 2)
            est, se = a["estimates"], a["estimate_se"]
            diff, dse = a["diff"], a["diff_se"]
            low, high = est - z * se, est + z * se
            if self.method == "delong":  # an AUC's interval, clipped as pROC does
                low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
            return dict(zip(keys, (low, high, diff - z * dse, diff + z * dse), strict=True))
        raise ValueError(
            f"this comparison's intervals are only available at its own level "
            f"({self.confidence_level:g}); compute it again with "
            f"confidence_level={level:g}."
        )

    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """The per-class table, with intervals at `confidence_level`.

        Parameters
        ----------
        confidence_level : float, default=None
            Level of every interval; the comparison's own when None. Other
            levels are computed from the standard errors (delta method and
            DeLong) or the stored replicates (bootstrap, percentile limits;
            the BCa columns stay at the comparison's own level).

        Returns
        -------
        pandas.DataFrame
            The columns of :attr:`table`.
        """
        import pandas as pd

        level = self._level(confidence_level)
        a = self._arrays
        ci = self._intervals(level)
        n_classes, n_others = a["diff"].shape
        m = self.measure
        columns: dict[str, Any] = {
            "class": np.repeat(self._class_column(), n_others),
            "classifier": np.tile(name_array(self.classifiers[1:]), n_classes),
            m: a["estimates"][:, 1:].reshape(-1),
            f"{m}_reference": np.repeat(a["estimates"][:, 0], n_others),
            f"{m}_ci_low": ci["estimate_ci_low"][:, 1:].reshape(-1),
            f"{m}_ci_high": ci["estimate_ci_high"][:, 1:].reshape(-1),
            f"{m}_reference_ci_low": np.repeat(ci["estimate_ci_low"][:, 0], n_others),
            f"{m}_reference_ci_high": np.repeat(ci["estimate_ci_high"][:, 0], n_others),
            "diff": a["diff"].reshape(-1),
            "diff_se": a["diff_se"].reshape(-1),
            "diff_ci_low": ci["diff_ci_low"].reshape(-1),
            "diff_ci_high": ci["diff_ci_high"].reshape(-1),
            "diff_pvalue": a["diff_pvalue"].reshape(-1),
        }
        for name in self._extra_names:
            columns[name] = a[name].reshape(-1)
        return pd.DataFrame(columns)

    @property
    def table(self) -> pd.DataFrame:
        """One row per class and compared classifier (a new DataFrame each time)."""
        return self.to_frame()

    @property
    def omnibus(self) -> pd.DataFrame:
        """One row per class: all classifiers equal (a new DataFrame each time)."""
        import pandas as pd

        if self._omnibus is None:
            return pd.DataFrame({"class": [], "df": [], "wald_stat": [], "wald_pvalue": []})
        columns: dict[str, Any] = {"class": self._class_column()}
        for name in _OMNIBUS_COLUMNS:
            columns[name] = np.array(self._omnibus[name])
        return pd.DataFrame(columns)

    def _class_column(self) -> np.ndarray:
        return np.array(self.classes, copy=True)

    def get(self, label: Hashable, classifier: str | None = None) -> pd.Series:
        """The table row of one class (and classifier) as a Series.

        Parameters
        ----------
        label : hashable
            The class, or the table's single label (``"all"``, ``"macro"``,
            ...) for an averaged measure.
        classifier : str, default=None
            The compared classifier; may be omitted when there is only one
            besides the reference.

        Returns
        -------
        pandas.Series
        """
        return self._row(self.table, label, classifier)

    def __getitem__(self, label: Hashable) -> pd.DataFrame:
        """The table rows of one class (every compared classifier).

        Parameters
        ----------
        label : hashable
            The class, or the table's single label for an averaged measure.

        Returns
        -------
        pandas.DataFrame
        """
        t = self.table
        rows = t[t["class"] == label]
        if rows.empty:
            raise self._no_class(label)
        return rows.reset_index(drop=True)

    def adjusted_pvalues(self, method: str | Sequence[str] = ("holm", "bh")) -> pd.DataFrame:
        """The table with per-class multiplicity-adjusted p-values added.

        Parameters
        ----------
        method : str or list of str, default=("holm", "bh")
            ``"holm"`` (Holm's step-down, family-wise error rate under any
            dependence), ``"bh"`` (Benjamini-Hochberg, false discovery rate
            under independence or positive dependence) and ``"by"``
            (Benjamini-Yekutieli, false discovery rate under any
            dependence).

        Returns
        -------
        pandas.DataFrame
            A copy of :attr:`table` with a column ``diff_pvalue_<method>``
            per method.

        Notes
        -----
        The family is the classes of one comparison: the p-values of the
        differences are adjusted over classes, separately for each compared
        classifier. A NaN p-value stays NaN and does not count as a test.
        An averaged measure has a single row, whose p-value is unchanged.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_precision_stats import compare_metric
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 3, 300)
        >>> a = np.where(rng.random(300) < 0.8, y, rng.integers(0, 3, 300))
        >>> b = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
        >>> table = compare_metric(y, {"a": a, "b": b}, metric="f1").adjusted_pvalues()
        >>> list(table.columns[-2:])
        ['diff_pvalue_holm', 'diff_pvalue_bh']
        >>> bool((table["diff_pvalue_holm"] >= table["diff_pvalue"]).all())
        True
        """
        from ..across_classes._global_null import _adjust, _adjust_methods

        methods = _adjust_methods(method)
        table = self.table
        pvalues = np.array(self._arrays["diff_pvalue"])
        for m in methods:
            adjusted = np.column_stack([_adjust(pvalues[:, j], m) for j in range(pvalues.shape[1])])
            table[f"diff_pvalue_{m}"] = adjusted.reshape(-1)
        return table

    # Display -------------------------------------------------------------

    def _frames(self, digits: int, level: float) -> list[tuple[str, pd.DataFrame, list[str]]]:
        """The summary's tables: (name, frame, p-value columns)."""
        import pandas as pd

        from ._paired_comparison import _check_digits, _format_frame, _interval

        digits = _check_digits(digits)

        pct = f"{100 * level:g}%"
        t = self.to_frame(level)
        m = self.measure
        # The bootstrap's p-value is not that of a z statistic.
        pcol = "P" if self.method == "bootstrap" else "P>|z|"
        effects = pd.DataFrame(
            {
                "class": t["class"].astype(str),
                "classifier": t["classifier"].astype(str),
                m: t[m],
                f"{pct} CI": _interval(t[f"{m}_ci_low"], t[f"{m}_ci_high"], digits),
                "ref": t[f"{m}_reference"],
                f"ref {pct} CI": _interval(
                    t[f"{m}_reference_ci_low"], t[f"{m}_reference_ci_high"], digits
                ),
                "Diff": t["diff"],
                "SE": t["diff_se"],
                f"Diff {pct} CI": _interval(t["diff_ci_low"], t["diff_ci_high"], digits),
                pcol: t["diff_pvalue"],
            }
        )
        frames = [("effects", _format_frame(effects, digits), [pcol])]
        if self._omnibus is not None:
            omni = self.omnibus
            omni["class"] = omni["class"].astype(str)
            frames.append(("omnibus", _format_frame(omni, digits), ["wald_pvalue"]))
        return frames

    def _exact_pvalues(self, name: str) -> np.ndarray:
        if name == "effects":
            return np.array(self._arrays["diff_pvalue"]).reshape(-1)
        assert self._omnibus is not None
        return np.array(self._omnibus["wald_pvalue"])

    def summary(self, digits: int = 4, confidence_level: float | None = None) -> Summary:
        """A terminal-friendly summary, in the spirit of statsmodels.

        Parameters
        ----------
        digits : int, default=4
            Significant digits of the estimates.
        confidence_level : float, default=None
            Level of the intervals; the comparison's own when None.

        Returns
        -------
        statsmodels.iolib.summary2.Summary
            Printable; ``.as_text()`` gives the string.
        """
        from statsmodels.iolib.summary2 import Summary

        level = self._level(confidence_level)
        summ = Summary()
        averaged = f", {self.average} average" if self.average not in (None, "binary") else ""
        summ.add_title(f"Paired comparison of {self.measure}{averaged}")
        info = {
            "Measure:": self.measure,
            "Average:": str(self.average),
            "Reference:": str(self.reference),
            "Classifiers:": ", ".join(map(str, self.classifiers[1:])),
            "Method:": self.method,
            "Rows per classifier:": str(self.n_rows),
            "Records (clusters):": str(self.n_records),
            "CI level:": f"{100 * level:g}%",
        }
        summ.add_dict(info, ncols=2)
        for _, frame, _ in self._frames(digits, level):
            summ.add_df(frame, index=False)
        how = {
            "delta": "delta-method (Wald) standard errors",
            "bootstrap": "paired bootstrap (percentile intervals, bootstrap p-values)",
            "delong": "DeLong's standard errors",
        }[self.method]
        text = f"Diff = classifier - reference ({self.reference}); {how}" + (
            ", cluster-robust over records." if self.n_records < self.n_rows else "."
        )
        if self._omnibus is not None:
            text += " Last table: Wald test that all classifiers have the same measure."
        summ.add_text(text)
        return summ

    def _export(
        self,
        latex: bool,
        *,
        digits: int = 4,
        confidence_level: float | None = None,
        marks: Sequence[float] | None = (0.05, 0.01, 0.001),
        caption: str | None = None,
        label: str | None = None,
    ) -> str:
        from ..utils._optional import import_optional
        from ._export import _check_marks, _latex_table, _legend, _mark, _markdown_table

        if latex:
            import_optional("jinja2", "to_latex()", "export")
        else:
            import_optional("tabulate", "to_markdown()", "export")
        levels = _check_marks(marks)
        level = self._level(confidence_level)
        blocks = []
        for name, frame, pcols in self._frames(digits, level):
            frame = frame.reset_index(drop=True)
            if levels:
                exact = self._exact_pvalues(name)
                for column in pcols:
                    frame[column] = [
                        f"{text}{_mark(p, levels)}"
                        for text, p in zip(frame[column], exact, strict=True)
                    ]
            if latex:
                blocks.append(
                    _latex_table(
                        frame,
                        f"{self.measure}: {name}",
                        name,
                        caption=caption,
                        label=label,
                        levels=levels,
                    )
                )
            else:
                blocks.append(_markdown_table(frame))
        if latex:
            return "\n".join(blocks)
        if levels:
            blocks.append(_legend(levels).replace("*", r"\*"))
        return "\n\n".join(blocks)

    def to_latex(
        self,
        *,
        digits: int = 4,
        confidence_level: float | None = None,
        marks: Sequence[float] | None = (0.05, 0.01, 0.001),
        caption: str | None = None,
        label: str | None = None,
    ) -> str:
        """The tables of :meth:`summary` as LaTeX ``tabular`` environments.

        Rounded as printed by :meth:`summary`, with significance marks on
        the p-values; written by pandas' Styler (jinja2, a dependency) with
        booktabs rules.

        Parameters
        ----------
        digits : int, default=4
            Significant digits of the estimates.
        confidence_level : float, default=None
            Level of the intervals; the comparison's own when None.
        marks : sequence of float or None, default=(0.05, 0.01, 0.001)
            Decreasing significance levels: a p-value below the i-th level
            gets i + 1 stars. None for no marks.
        caption : str, default=None
            Caption of each table, as text (LaTeX's special characters are
            escaped); tables are wrapped in ``table`` environments when a
            caption or label is given.
        label : str, default=None
            LaTeX label prefix; each table gets ``<label>-<table name>``
            (``effects``, ``omnibus``).

        Returns
        -------
        str
        """
        return self._export(
            True,
            digits=digits,
            confidence_level=confidence_level,
            marks=marks,
            caption=caption,
            label=label,
        )

    def to_markdown(
        self,
        *,
        digits: int = 4,
        confidence_level: float | None = None,
        marks: Sequence[float] | None = (0.05, 0.01, 0.001),
    ) -> str:
        """The tables of :meth:`summary` as Markdown pipe tables.

        Written with tabulate (a dependency); a legend of the marks
        follows the tables.

        Parameters
        ----------
        digits : int, default=4
            Significant digits of the estimates.
        confidence_level : float, default=None
            Level of the intervals; the comparison's own when None.
        marks : sequence of float or None, default=(0.05, 0.01, 0.001)
            Decreasing significance levels for the stars; None for no marks.

        Returns
        -------
        str
        """
        return self._export(False, digits=digits, confidence_level=confidence_level, marks=marks)

    def plot(self, *, confidence_level: float | None = None, ax: Any = None) -> Any:
        """Forest plot of the differences, one row per class and classifier.

        Needs matplotlib (the ``plot`` extra).

        Parameters
        ----------
        confidence_level : float, default=None
            Level of the intervals; the comparison's own when None.
        ax : matplotlib.axes.Axes, default=None
            Where to draw; a new figure when None.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from ..plotting._forest import plot_metric_differences

        return plot_metric_differences(self, confidence_level=confidence_level, ax=ax)

    def _repr_html_(self) -> str:
        html = self.table.to_html(float_format=lambda v: f"{v:.6g}")
        return str(html)

    def __repr__(self) -> str:
        classes = np.asarray(self.classes).tolist()
        shown = classes if len(classes) <= 6 else classes[:5] + ["..."]
        return (
            f"{type(self).__name__}(measure={self.measure!r}, average={self.average!r}, "
            f"method={self.method!r}, classifiers={list(self.classifiers)!r}, "
            f"classes={shown!r}, n_rows={self.n_rows}, n_records={self.n_records})"
        )

    def __str__(self) -> str:
        return str(self.summary())
