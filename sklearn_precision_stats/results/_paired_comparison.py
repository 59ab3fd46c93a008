"""The result of a paired comparison: frozen, built from read-only arrays."""

from __future__ import annotations

import html
import numbers
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine._marginal_model import add_intervals, normal_two_sided_pvalue
from ..engine._pipeline import ComparisonData
from ._base import _FrozenComparison, name_array, read_only, read_only_mapping
from ._registry import OMNIBUS_COLUMNS, TESTS, table_columns

if TYPE_CHECKING:  # imported by the methods that need them
    import pandas as pd
    from matplotlib.axes import Axes
    from statsmodels.iolib.summary2 import Summary

    from .._typing import ArrayLike, RandomStateLike
    from ..across_classes._global_null import GlobalTestResult

__all__ = ["PairedComparison"]


class PairedComparison(_FrozenComparison):
    """Per-class comparison of classifiers' precision, NPV, recall,
    specificity or accuracy with a reference classifier.

    Returned by :func:`compare_precision`, :func:`compare_npv`,
    :func:`compare_recall`, :func:`compare_specificity` and
    :func:`compare_accuracy`; not meant to be built by hand. It is frozen:
    attributes cannot be assigned, it holds its own read-only arrays (the
    statistics, and for the resampling methods the nonzero cells of the
    joint table or, with ``groups``, per (record, class) counts: never the
    caller's arrays and never a copy of every row), and :attr:`table` and
    :attr:`omnibus` are new DataFrames on every access, so editing one
    changes nothing.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per class and non-reference classifier (one pooled row for
        accuracy): the measure of the classifier and of the reference, each
        with its confidence interval (Wilson's with one row per record,
        cluster-robust with ``groups``), ``n`` and ``n_reference`` (rows in
        the measure's denominator), the generalized score test
        (``gs_*``), the weighted generalized score test (``wgs_*``), the
        empirical Wald test of the GEE marginal model (``wald_*``) with the
        log odds ratio, its robust standard error and the odds ratio's
        interval, the ratio ``measure / measure_reference`` (relative
        precision for precision) with its log-scale standard error,
        interval and p-value, and the difference with its sandwich standard
        error and interval. Each row is the two-classifier comparison of
        that classifier with the reference.
    omnibus : pandas.DataFrame
        One row per class: robust score and Wald tests that all classifiers
        have the same measure (``df`` = number of classifiers - 1).
    metric : {"precision", "npv", "recall", "specificity", "accuracy"}
    classes : ndarray
        The classes compared, in table order (``["all"]`` for accuracy).
    classifiers : tuple of str
        Classifier names, reference first.
    reference : str
        Name of the reference classifier.
    confidence_level : float
        Level of the intervals in :attr:`table`; methods that return
        intervals take their own ``confidence_level``.
    engine : {"closed-form", "statsmodels"}
    n_rows : int
        Rows per classifier (stacked rows under cross-validation).
    n_records : int
        Distinct records (clusters).
    cov_type : {"robust", "bias_reduced"}
        Covariance of the Wald test, odds ratio, ratio and difference.
    """

    # The attributes, set once by __init__ (the class is frozen).
    metric: str
    classes: np.ndarray
    classifiers: tuple[str, ...]
    reference: str
    confidence_level: float
    engine: str
    n_rows: int
    n_records: int
    cov_type: str
    _statistics: Mapping[str, np.ndarray]
    _omnibus: Mapping[str, np.ndarray]
    _role: Any
    _data: ComparisonData | None

    _ARRAY_MAPPINGS = ("_statistics", "_omnibus")

    def __init__(
        self,
        statistics: Mapping[str, ArrayLike],
        omnibus: Mapping[str, ArrayLike],
        *,
        classes: ArrayLike,
        classifiers: Sequence[str],
        role: Any,
        confidence_level: float,
        engine: str,
        n_rows: int,
        n_records: int,
        cov_type: str = "robust",
        data: ComparisonData | None = None,
    ) -> None:
        fields = {
            "_statistics": read_only_mapping(statistics),
            "_omnibus": read_only_mapping(omnibus),
            "classes": read_only(classes),
            "classifiers": tuple(classifiers),
            "reference": classifiers[0],
            "metric": role.metric,
            "_role": role,
            "confidence_level": confidence_level,
            "engine": engine,
            "n_rows": n_rows,
            "n_records": n_records,
            "cov_type": cov_type,
            "_data": data,
        }
        self._freeze(fields)

    # Tables ---------------------------------------------------------------

    def to_frame(self, confidence_level: float | None = None) -> pd.DataFrame:
        """The per-class table, with intervals at `confidence_level`.

        Parameters
        ----------
        confidence_level : float, default=None
            Level of every interval; the comparison's own when None.

        Returns
        -------
        pandas.DataFrame
            The columns of :attr:`table`.
        """
        import pandas as pd

        level = self._level(confidence_level)
        stats = dict(self._statistics)
        stats.update(add_intervals(stats, level, self._clustered))
        n_classes, n_others = stats["value"].shape
        metric = self.metric
        source = {
            metric: "value",
            f"{metric}_ci_low": "value_ci_low",
            f"{metric}_ci_high": "value_ci_high",
            f"{metric}_reference": "value_reference",
            f"{metric}_reference_ci_low": "value_reference_ci_low",
            f"{metric}_reference_ci_high": "value_reference_ci_high",
        }
        columns = {
            "class": np.repeat(self._class_column(), n_others),
            "classifier": np.tile(name_array(self.classifiers[1:]), n_classes),
            "reference": name_array([self.reference] * (n_classes * n_others)),
        }
        for col in table_columns(metric)[3:]:
            values = np.asarray(stats[source.get(col, col)]).reshape(-1)
            if col in ("n", "n_reference") and np.all(np.isfinite(values)):
                values = values.astype(np.int64)
            columns[col] = values
        return pd.DataFrame(columns)

    @property
    def table(self) -> pd.DataFrame:
        """One row per class and compared classifier (a new DataFrame each time)."""
        return self.to_frame()

    @property
    def omnibus(self) -> pd.DataFrame:
        """One row per class: all classifiers equal (a new DataFrame each time)."""
        import pandas as pd

        columns = {"class": self._class_column()}
        for col in OMNIBUS_COLUMNS[1:]:
            columns[col] = np.array(self._omnibus[col])
        return pd.DataFrame(columns)

    @property
    def _clustered(self):
        return self.n_records < self.n_rows

    def _class_column(self):
        classes = np.asarray(self.classes)
        # Integer labels stay integers; anything else is shown as objects.
        return classes.copy() if classes.dtype.kind in "iub" else classes.astype(object)

    # Access by test -------------------------------------------------------

    def __getitem__(self, test: str) -> pd.DataFrame:
        """Results of one test as a DataFrame.

        Parameters
        ----------
        test : {"gs", "wgs", "wald", "ratio", "diff"}
            ``"gs"`` and ``"wgs"`` give ``statistic`` and ``pvalue`` per class
            and classifier; ``"wald"`` adds the odds ratio and its interval;
            ``"ratio"`` (relative precision for precision) and ``"diff"`` give
            the estimate, its interval, the z statistic and its p-value.

        Returns
        -------
        pandas.DataFrame
        """
        if test not in TESTS:
            raise KeyError(f"{test!r} is not a test of this comparison; use one of {list(TESTS)}.")
        spec = TESTS[test]
        t = self.table
        out = t[["class", "classifier", "reference"]].copy()
        if spec.estimate == "odds_ratio":
            out["odds_ratio"] = np.exp(t["log_or"].to_numpy())
        elif spec.estimate is not None:
            out[spec.estimate] = t[spec.estimate].to_numpy()
        if spec.ci is not None:
            out["ci_low"] = t[spec.ci[0]].to_numpy()
            out["ci_high"] = t[spec.ci[1]].to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            if test == "ratio":
                z = np.log(t["ratio"].to_numpy()) / t["ratio_se_log"].to_numpy()
            elif test == "diff":
                z = t["diff"].to_numpy() / t["diff_se"].to_numpy()
            else:
                z = None
        out["statistic"] = t[spec.statistic].to_numpy() if z is None else z
        out["pvalue"] = (
            normal_two_sided_pvalue(z) if spec.pvalue is None else t[spec.pvalue].to_numpy()
        )
        return out

    def get(self, label: Hashable, classifier: str | None = None) -> pd.Series:
        """The table row of one class (and classifier) as a Series.

        Parameters
        ----------
        label : hashable
            The class (``"all"`` for accuracy).
        classifier : str, default=None
            The compared classifier; may be omitted when there is only one
            besides the reference.

        Returns
        -------
        pandas.Series
        """
        return self._row(self.table, label, classifier)

    # Display -------------------------------------------------------------

    def summary(self, digits: int = 4, confidence_level: float | None = None) -> Summary:
        """A terminal-friendly summary, in the spirit of statsmodels.

        Parameters
        ----------
        digits : int, default=4
            Significant digits of the estimates (0 is taken as 1), one
            fewer for the interval limits; p-values always show 4 decimals.
        confidence_level : float, default=None
            Level of the intervals; the comparison's own when None.

        Returns
        -------
        statsmodels.iolib.summary2.Summary
            Printable; ``.as_text()`` gives the string. Its tables and rules
            share one width.
        """
        import pandas as pd
        from statsmodels.iolib.summary2 import Summary

        digits = _check_digits(digits)
        level = self._level(confidence_level)
        pct = f"{100 * level:g}%"
        role = self._role
        ratio = role.ratio_abbreviation
        summ = Summary()
        summ.add_title(
            f"Paired comparison of {self.metric}"
            + (" (classes pooled)" if role.pooled else " (one-vs-rest, per class)")
        )
        info = {
            "Metric:": self.metric,
            "Reference:": str(self.reference),
            "Classifiers:": ", ".join(map(str, self.classifiers[1:])),
            "Classes:": str(len(self.classes)),
            "Rows per classifier:": str(self.n_rows),
            "Records (clusters):": str(self.n_records),
            "Engine:": self.engine,
            "Covariance:": self.cov_type,
            "CI level:": pct,
        }
        summ.add_dict(info, ncols=2)
        t = self.to_frame(level)
        main = pd.DataFrame(
            {
                "class": t["class"].astype(str),
                "classifier": t["classifier"].astype(str),
                self.metric: t[self.metric],
                "ref": t[f"{self.metric}_reference"],
                "GS": t["gs_stat"],
                "P>GS": t["gs_pvalue"],
                "WGS": t["wgs_stat"],
                "P>WGS": t["wgs_pvalue"],
                "Wald": t["wald_stat"],
                "P>Wald": t["wald_pvalue"],
            }
        )
        summ.add_df(_format_frame(main, digits), index=False)
        effect = pd.DataFrame(
            {
                "class": t["class"].astype(str),
                "classifier": t["classifier"].astype(str),
                "OR": np.exp(t["log_or"]),
                f"OR {pct} CI": _interval(t["or_ci_low"], t["or_ci_high"], digits),
                ratio: t["ratio"],
                f"{ratio} {pct} CI": _interval(t["ratio_ci_low"], t["ratio_ci_high"], digits),
                "P>|z|": t["ratio_pvalue"],
                "Diff": t["diff"],
                f"Diff {pct} CI": _interval(t["diff_ci_low"], t["diff_ci_high"], digits),
            }
        )
        summ.add_df(_format_frame(effect, digits), index=False)
        if len(self.classifiers) > 2:
            omni = self.omnibus
            omni["class"] = omni["class"].astype(str)
            summ.add_df(_format_frame(omni, digits), index=False)
            summ.add_text(
                f"Last table: omnibus robust score and Wald tests of equal "
                f"{self.metric} of all {len(self.classifiers)} classifiers per "
                "class."
            )
        summ.add_text(
            f"Comparisons are classifier vs reference ({self.reference}): "
            f"{ratio} = {role.ratio_name} (classifier / reference), OR = odds "
            "ratio, Diff = classifier - reference. GS: generalized score test "
            "(recommended for two classifiers); WGS: weighted GS; Wald: "
            "empirical Wald test of the GEE marginal model."
        )
        if self._clustered:
            summ.add_text(
                "WGS is NaN by design with repeated records (groups): it is defined "
                "for one row per record. GS holds its level with clustered rows."
            )
        return _equal_widths(summ)

    def _repr_html_(self) -> str:
        """Notebook display: a header, a compact per-class table and the omnibus tests.

        Nine narrow columns (the full table has 30): the measure of the
        classifier and of the reference, the ratio with its interval, the
        p-values of the GS, WGS and Wald tests and the difference.
        """
        import pandas as pd

        pct = f"{100 * self.confidence_level:g}%"
        role = self._role
        ratio = role.ratio_abbreviation
        metric = self.metric
        header = {
            "Measure": metric + (" (classes pooled)" if role.pooled else " (one-vs-rest)"),
            "Reference": self.reference,
            "Classifiers": ", ".join(map(str, self.classifiers[1:])),
            "Classes": len(self.classes),
            "Records": f"{self.n_records} ({self.n_rows} rows per classifier)",
            "Level": pct,
            "Covariance": self.cov_type,
            "Engine": self.engine,
        }
        t = self.table
        compact = pd.DataFrame(
            {
                "class": t["class"].astype(str),
                "classifier": t["classifier"].astype(str),
                metric: t[metric],
                "ref": t[f"{metric}_reference"],
                ratio: t["ratio"],
                f"{ratio} {pct} CI": _interval(t["ratio_ci_low"], t["ratio_ci_high"], 4),
                "P>GS": t["gs_pvalue"],
                "P>WGS": t["wgs_pvalue"],
                "P>Wald": t["wald_pvalue"],
            }
        )
        omnibus = self.omnibus.rename(
            columns={
                "gs_stat": "GS",
                "gs_pvalue": "P>GS",
                "wald_stat": "Wald",
                "wald_pvalue": "P>Wald",
            }
        )
        omnibus["class"] = omnibus["class"].astype(str)
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
            for k, v in header.items()
        )
        style = "font-size:90%; width:auto"

        def frame_html(frame):
            return (
                _format_frame(frame, 4)
                .to_html(index=False, border=0, escape=True)
                .replace("<table", f"<table style='{style}'", 1)
            )

        return (
            "<div style='max-width:100%; overflow-x:auto'>"
            f"<p><b>Paired comparison of {html.escape(metric)}</b></p>"
            f"<table style='{style}'>{rows}</table>"
            f"<p>Each classifier against {html.escape(str(self.reference))}; "
            f"ref = its {html.escape(metric)}, {html.escape(ratio)} = "
            f"{html.escape(role.ratio_name)} (classifier / reference).</p>"
            f"{frame_html(compact)}"
            f"<p>Omnibus: all {len(self.classifiers)} classifiers equal, per class.</p>"
            f"{frame_html(omnibus)}"
            "</div>"
        )

    def to_latex(self, **kwargs: Any) -> str:
        """The tables of :meth:`summary` as LaTeX, for a paper.

        Significance marks and intervals as :meth:`summary` prints them,
        written by pandas' Styler (jinja2, a dependency). Keyword arguments:
        ``tables`` (``"tests"``, ``"effects"``, ``"omnibus"`` or a list of
        them; all when None), ``digits`` (default 4), ``confidence_level``
        (the comparison's when None), ``marks`` (default ``(0.05, 0.01,
        0.001)``; None for no marks), ``caption`` and ``label`` (a caption
        or label wraps each table in a ``table`` environment labelled
        ``<label>-<table>``; LaTeX's special characters are escaped).

        Returns
        -------
        str
        """
        from ._export import to_latex

        return to_latex(self, **kwargs)

    def to_markdown(self, **kwargs: Any) -> str:
        """The tables of :meth:`summary` as Markdown pipe tables.

        Written by :meth:`pandas.DataFrame.to_markdown` (tabulate, a
        dependency); keyword arguments as for :meth:`to_latex` (without
        ``caption`` and ``label``).

        Returns
        -------
        str
        """
        from ._export import to_markdown

        return to_markdown(self, **kwargs)

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """Forest plot of the relative precision (or recall) per class.

        A shortcut for :func:`~sklearn_precision_stats.plotting.plot_relative_precision`
        (the paper's Figure 2); needs matplotlib (the ``plot`` extra).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        **kwargs : dict
            Passed on, e.g. ``classifier`` or ``log_scale``.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from ..plotting import plot_relative_precision

        return plot_relative_precision(self, ax=ax, **kwargs)

    def __repr__(self) -> str:
        classes = np.asarray(self.classes).tolist()
        shown = classes if len(classes) <= 6 else classes[:5] + ["..."]
        return (
            f"{type(self).__name__}(metric={self.metric!r}, "
            f"classifiers={list(self.classifiers)!r}, reference={self.reference!r}, "
            f"classes={shown!r}, n_rows={self.n_rows}, "
            f"n_records={self.n_records}, engine={self.engine!r})"
        )

    def __str__(self) -> str:
        return str(self.summary())

    # Across classes -------------------------------------------------------

    def global_test(
        self,
        method: str = "dai-cui",
        test: str = "gs",
        n_resamples: int = 1000,
        random_state: RandomStateLike = None,
        weights: ArrayLike | Mapping[Hashable, float] | None = None,
        resampling: str = "permutation",
    ) -> GlobalTestResult:
        """Test the global null: equal precision for every class at once.

        Combines the per-class p-values of `test` into one p-value per
        compared classifier (each one against the reference).

        Parameters
        ----------
        method : {"dai-cui", "permutation", "fisher", "simes"}, default="dai-cui"
            ``"dai-cui"``: Lancaster's statistic with Dai and Cui's
            correction for the dependence between classes, whose covariances
            come from p-values recomputed on `n_resamples` resamples;
            ``"permutation"``: Lancaster's statistic against its
            distribution over the `n_resamples` paired permutations, an
            exact test that also holds with many sparsely predicted classes
            (where Dai-Cui's uniform-p-value moments can be off);
            ``"fisher"``: Lancaster's (Fisher's) test assuming independent
            classes, which is anti-conservative when the classes' p-values
            are positively dependent; ``"simes"``: Simes' test (no
            resampling), valid under positive dependence.
        test : {"gs", "wgs", "wald", "ratio"}, default="gs"
            The per-class test whose p-values are combined; not ``"wgs"``
            with ``groups``, where WGS is NaN by design.
        n_resamples : int, default=1000
            Resamples for ``"dai-cui"``.
        random_state : None, int, numpy.random.Generator or RandomState, default=None
            An int seeds ``numpy.random.default_rng``; a Generator is used
            as it is; None (as in scikit-learn) and a RandomState seed a new
            Generator from that RandomState, NumPy's global one for None,
            whose state advances. Fix it for reproducible p-values.
        weights : array-like or dict, default=None
            Lancaster's degrees of freedom per class (in the order of
            ``classes``, or a dict class -> weight); 2 for each class
            (Fisher) when None. Not used by ``"simes"``.
        resampling : {"permutation", "bootstrap"}, default="permutation"
            How ``"dai-cui"`` resamples: ``"permutation"`` swaps the two
            classifiers' predictions within each record with probability
            1/2 (all rows of a record together), which makes the null true
            while keeping the dependence between classes; ``"bootstrap"``
            draws records with replacement (its p-values vary around the
            observed effect rather than under the null, so prefer
            permutations when the two classifiers' predictions can be
            swapped).

        Returns
        -------
        GlobalTestResult
            ``statistic``, ``pvalue``, ``df``, ``scale``, ``method``,
            ``n_tests`` (classes combined), ``n_resamples``, ``classifiers``.
            With one compared classifier the numbers are scalars; with more,
            arrays with one entry per compared classifier (``.to_frame()``
            shows them as a table).

        Warns
        -----
        UndefinedStatisticWarning
            When a class's p-value is NaN (it is left out), or when some
            resamples give NaN p-values (they are left out of the
            covariances).
        UserWarning
            When, under the permutations, Lancaster's statistic averages
            clearly more than ``sum w``: the per-class p-values are then not
            uniform under the null (many sparsely predicted classes) and the
            Dai-Cui p-value may be too small.

        See Also
        --------
        combine_pvalues_dependent : The combination for p-values you bring.
        PairedComparison.adjusted_pvalues : Holm and Benjamini-Hochberg.

        Notes
        -----
        The statistic and its degrees of freedom are those of
        :func:`combine_pvalues_dependent`; the covariances of the
        transformed p-values ``chi2.isf(p, w)`` are estimated from the
        p-values of the same test on resamples.

        Resampling never touches rows. With one row per record, the
        records that share a (true class, reference prediction, classifier
        prediction) cell are interchangeable, so a paired permutation is
        drawn per cell: for a cell ``(y, a, b)`` with ``a != b`` the number of
        its records swapped to ``(y, b, a)`` is Binomial(n_cell, 1/2),
        independently across cells, and the resampled sufficient
        statistics are linear in these numbers. A bootstrap resample is a
        multinomial draw of the cell counts. Either costs O(number of
        non-empty cells) per resample, at most ``K^3`` for ``K`` classes,
        whatever the number of records: 1000 resamples of 10^6 records
        with 10 classes take well under a second. With clustered rows
        (``groups``, stacked cross-validation), the units are records: a
        permutation swaps all of a record's rows, so each resample costs
        O(number of (record, class) pairs with a prediction), after a
        one-off O(rows log rows) grouping. Resamples are processed in
        chunks of bounded memory.

        The resampled p-values use the robust covariance. With
        ``cov_type="bias_reduced"`` the ``"permutation"`` method therefore
        combines the robust p-values of the observed data too (an exact
        test compares the same statistic on the data and on its
        permutations); the other methods combine the table's p-values.

        Dai and Cui's moments assume that each class's p-value is uniform
        under the null. The per-class tests are asymptotic: for classes with
        few predictions their p-values are not quite uniform, and over many
        such classes the excess of ``T`` adds up (with 100 classes of about 20
        records each, ``T`` averages some 7% above ``sum w``). A warning says
        so when the permutations show it. In simulations with 5 classes and
        400 records the test holds its level (5.3% at alpha = 5%) while
        Fisher's rejects 7.5%.

        References
        ----------
        .. [1] Dai, Leeder and Cui (2014). A modified generalized Fisher
           method for combining probabilities from dependent tests.
           Frontiers in Genetics 5, 32.
        .. [2] Gondara. Classifier comparison using precision.
           arXiv:1609.09471, section 3.4.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_precision_stats import compare_precision
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 3, 600)
        >>> good = np.where(rng.random(600) < 0.8, y, rng.integers(0, 3, 600))
        >>> poor = np.where(rng.random(600) < 0.6, y, rng.integers(0, 3, 600))
        >>> result = compare_precision(y, {"good": good, "poor": poor})
        >>> res = result.global_test(n_resamples=500, random_state=0)
        >>> res.method, res.n_tests, bool(res.pvalue < 0.05)
        ('dai-cui', 3, True)
        >>> bool(result.global_test(method="simes").pvalue < 0.05)
        True
        """
        from ..across_classes._global_null import global_test

        return global_test(self, method, test, n_resamples, random_state, weights, resampling)

    def adjusted_pvalues(
        self, test: str = "gs", method: str | Sequence[str] = ("holm", "bh")
    ) -> pd.DataFrame:
        """The table with per-class multiplicity-adjusted p-values added.

        Parameters
        ----------
        test : {"gs", "wgs", "wald", "ratio"}, default="gs"
            The test whose p-values (column ``<test>_pvalue``) are adjusted;
            not ``"wgs"`` with ``groups``, where WGS is NaN by design.
        method : str or list of str, default=("holm", "bh")
            ``"holm"`` (Holm's step-down, controls the family-wise error
            rate under any dependence), ``"bh"`` (Benjamini-Hochberg,
            controls the false discovery rate under independence or
            positive dependence) and ``"by"`` (Benjamini-Yekutieli, the
            false discovery rate under any dependence).

        Returns
        -------
        pandas.DataFrame
            A copy of ``table`` with a column ``<pvalue column>_<method>``
            per method, e.g. ``gs_pvalue_holm`` and ``gs_pvalue_bh``.

        Notes
        -----
        The family is the classes of one comparison: p-values are adjusted
        over classes, separately for each compared classifier, as
        :meth:`global_test` combines them. A NaN p-value stays NaN and does
        not count as a test. BH and BY use
        :func:`scipy.stats.false_discovery_control`.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_precision_stats import compare_precision
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 3, 300)
        >>> a = np.where(rng.random(300) < 0.8, y, rng.integers(0, 3, 300))
        >>> b = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
        >>> table = compare_precision(y, {"a": a, "b": b}).adjusted_pvalues()
        >>> list(table.columns[-2:])
        ['gs_pvalue_holm', 'gs_pvalue_bh']
        >>> bool((table["gs_pvalue_holm"] >= table["gs_pvalue"]).all())
        True
        """
        from ..across_classes._global_null import adjusted_pvalues

        return adjusted_pvalues(self, test, method)

    def at_prevalence(
        self,
        prevalence: float | Mapping[Hashable, float],
        ci: str = "analytic",
        n_resamples: int = 2000,
        random_state: RandomStateLike = None,
        confidence_level: float | None = None,
    ) -> pd.DataFrame:
        """Precision (or NPV) updated to a known population prevalence.

        The precision a classifier would have where class ``k`` has
        prevalence ``pi`` (Bayes' rule on its sensitivity and specificity,
        which do not depend on prevalence), for every classifier, with a
        confidence interval, and the ratio of each classifier's updated
        precision to the reference's with a bootstrap interval. For an NPV
        comparison (:func:`compare_npv`) the same for the negative
        predictive value, ``Sp (1 - pi) / (Sp (1 - pi) + (1 - Se) pi)``, whose
        analytic interval maps that of ``log LR- = log((1 - Se) / Sp)``
        (``se = sqrt(Se/FN + (1 - Sp)/TN)``). DTComPair's ``pv.prev`` divides
        by ``LR-`` where Bayes multiplies, so its NPV is ``1 -`` this one at
        prevalence ``1 - pi``.

        Parameters
        ----------
        prevalence : float or dict
            A dict class -> population prevalence (each in (0, 1), summing to
            at most 1); only these classes are reported. A number is
            accepted for binary problems with labels {0, 1} or {-1, 1}: it
            is the prevalence of class 1 (scikit-learn's ``pos_label=1``
            convention) and the other class gets ``1 - prevalence``; both
            are reported. For other labels pass a dict.
        ci : {"analytic", "bootstrap"}, default="analytic"
            Interval of the updated precision: ``"analytic"`` through the
            positive likelihood ratio (as DTComPair ``pv.prev``);
            ``"bootstrap"``: percentile interval over `n_resamples`
            resamples of records.
        n_resamples : int, default=2000
            Bootstrap resamples, for the ``ratio`` interval (always) and for
            the precision interval when ``ci="bootstrap"``.
        random_state : None, int, numpy.random.Generator or RandomState, default=None
            An int seeds ``numpy.random.default_rng``; a Generator is used
            as it is; None (as in scikit-learn) and a RandomState seed a new
            Generator from that RandomState, NumPy's global one for None,
            whose state advances. Fix it for reproducible intervals.
        confidence_level : float, default=None
            Level of the intervals; the comparison's own when None.

        Returns
        -------
        pandas.DataFrame
            One row per class and classifier (reference first), columns
            ``class, classifier, prevalence, precision`` (the observed one),
            ``precision_at_prevalence, ci_low, ci_high`` (``npv`` and
            ``npv_at_prevalence`` for NPV) and ``ratio,
            ratio_ci_low, ratio_ci_high``: the updated precision of the classifier
            divided by the reference's, with a bootstrap percentile
            interval (NaN on the reference's rows).

        Warns
        -----
        UndefinedStatisticWarning
            When a value is undefined and reported as NaN: a class absent
            from ``y_true``, a classifier that never predicts the class, or
            (analytic interval) no true or no false positives, or a
            classifier that predicts the class for every row (``LR+ = 1``
            with zero variance). For NPV the same with the predictions "not
            the class": a classifier that always predicts the class, no
            false or no true negatives, or one that never predicts it. Every
            interval is NaN when the records form a single cluster, and a
            bootstrap interval whose draws never vary (the ratio of identical
            classifiers, a precision of 1 in every resample) is NaN. One
            warning per call names every such value.

        Notes
        -----
        With sensitivity ``Se`` (recall of class ``k``) and specificity
        ``Sp`` (one-vs-rest), the updated precision is eq. (28) of [1]_,
        ``Se pi / (Se pi + (1 - Sp)(1 - pi))`` ``= 1 / (1 + (1/pi - 1) / LR+)``
        with ``LR+ = Se / (1 - Sp)``. The analytic interval maps the Wald
        interval of ``log LR+``, ``se = sqrt((1 - Se)/TP + Sp/FP)``, through
        this formula [2]_. With clustered rows (``groups``) Se and Sp are
        pooled over all rows and ``se`` is the cluster-robust (sandwich)
        delta-method standard error, which reduces to the formula above for
        one row per record. The bootstrap resamples records (clusters with
        ``groups``), drawing identical records as one cell as
        :meth:`global_test` does, so its cost does not grow with the number
        of records.

        References
        ----------
        .. [1] Gondara. Classifier comparison using precision.
           arXiv:1609.09471, section 3.6.
        .. [2] Mercaldo, Lau and Zhou (2007). Confidence intervals for
           predictive values with an emphasis to case-control studies.
           Statistics in Medicine 26(10), 2170-2183.

        Examples
        --------
        >>> from sklearn_precision_stats import compare_precision
        >>> y = [1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0]
        >>> a = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0, 1, 1]
        >>> b = [1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0]
        >>> result = compare_precision(y, {"a": a, "b": b})
        >>> out = result.at_prevalence({1: 0.1}, n_resamples=200, random_state=0)
        >>> out[["class", "classifier", "precision", "precision_at_prevalence"]]
           class classifier  precision  precision_at_prevalence
        0      1          a   0.714286                 0.217391
        1      1          b   0.800000                 0.307692
        """
        from ..across_classes._prevalence import at_prevalence

        return at_prevalence(self, prevalence, ci, n_resamples, random_state, confidence_level)


def _check_digits(digits):
    """`digits` as an int >= 0, or a ValueError naming the parameter."""
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral) or digits < 0:
        raise ValueError(
            f"digits must be a non-negative integer (significant digits), got {digits!r}."
        )
    return int(digits)


def _format_frame(frame, digits):
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype.kind in "iu":
            # statsmodels would print integers with its float format.
            out[col] = out[col].astype(str)
        if out[col].dtype.kind != "f":
            continue
        if col.startswith("P>") or col.endswith("pvalue"):
            out[col] = [_format_pvalue(v) for v in out[col]]
        else:
            out[col] = [f"{v:.{digits}g}" if np.isfinite(v) else "nan" for v in out[col]]
    return out


def _equal_widths(summary):
    """Widen the summary's narrower tables to the widest one's width.

    statsmodels spreads the missing width over a table's column gaps and
    puts the rest into its first column's values, where it is lost (cells
    are stripped), so tables end up to ``n_columns - 2`` characters
    narrower than the ``=`` rules. The rest goes into the first column's
    header here, which is kept.
    """
    from statsmodels.iolib.summary2 import Summary

    def width(table, settings):
        alone = Summary()
        alone.tables, alone.settings = [table], [settings]
        return len(alone.as_text().splitlines()[1])  # its "=" rule

    widths = [width(t, st) for t, st in zip(summary.tables, summary.settings, strict=True)]
    widest = max(widths)
    for i, (table, settings) in enumerate(zip(summary.tables, summary.settings, strict=True)):
        rest = (widest - widths[i]) % max(table.shape[1] - 1, 1)
        if not rest or not settings["header"] or settings["index"]:
            continue
        first = str(table.columns[0])
        longest = max([len(first), *(len(str(v).strip()) for v in table.iloc[:, 0])])
        summary.tables[i] = table.rename(columns={table.columns[0]: first.ljust(longest + rest)})
    return summary


def _format_pvalue(p):
    if not np.isfinite(p):
        return "nan"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _interval(low, high, digits):
    digits = max(digits - 1, 0)
    return [
        f"({lo:.{digits}g}, {hi:.{digits}g})" if np.isfinite(lo) and np.isfinite(hi) else "nan"
        for lo, hi in zip(low, high, strict=False)
    ]
