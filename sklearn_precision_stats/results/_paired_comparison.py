"""Result objects of the precision (and recall) comparisons."""

from typing import NamedTuple

import numpy as np
import pandas as pd

__all__ = ["PrecisionComparison"]

PAIRWISE_COLUMNS = [
    "class",
    "classifier",
    "reference",
    "precision",
    "precision_reference",
    "n_predicted",
    "n_predicted_reference",
    "score_stat",
    "score_pvalue",
    "wgs_stat",
    "wgs_pvalue",
    "wald_stat",
    "wald_pvalue",
    "log_or",
    "log_or_se",
    "or_ci_low",
    "or_ci_high",
    "rp",
    "rp_se_log",
    "rp_ci_low",
    "rp_ci_high",
    "rp_pvalue",
]
OMNIBUS_COLUMNS = ["class", "df", "score_stat", "score_pvalue", "wald_stat", "wald_pvalue"]

# Recall tables use the same layout with these names (relative recall "rr").
_RECALL_NAMES = {
    "precision": "recall",
    "precision_reference": "recall_reference",
    "n_predicted": "n_true",
    "n_predicted_reference": "n_true_reference",
    "rp": "rr",
    "rp_se_log": "rr_se_log",
    "rp_ci_low": "rr_ci_low",
    "rp_ci_high": "rr_ci_high",
    "rp_pvalue": "rr_pvalue",
}


def _column(name, metric):
    return _RECALL_NAMES.get(name, name) if metric == "recall" else name


class ComparisonData(NamedTuple):
    """What a comparison was computed from, kept for resampling methods.

    Attributes
    ----------
    encoded : EncodedPredictions
        Truth and predictions as integer codes (reference first).
    record_codes : ndarray of int or None
        Record id code of each row; None when each row is its own record.
    n_records : int
    class_codes : ndarray of int
        Codes (indices into ``encoded.values``) of the reported classes.
    counts : MarginalCounts
        Sufficient statistics of the reported classes.
    target : {"precision", "recall"}
    """

    encoded: object
    record_codes: object
    n_records: int
    class_codes: np.ndarray
    counts: object
    target: str


class PrecisionComparison:
    """Per-class comparison of classifiers' precision with a reference.

    Returned by :func:`compare_precision` (and, with ``metric="recall"``, by
    :func:`compare_recall`); not meant to be built by hand.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per class and non-reference classifier: both precisions and
        the numbers of rows predicting the class, the generalized score test
        (``score_*``), the weighted generalized score test (``wgs_*``), the
        empirical Wald test of the GEE marginal model (``wald_*``), the log
        odds ratio with its robust standard error and the odds ratio's
        confidence interval, and the relative precision ``rp`` (classifier /
        reference) with its log-scale standard error, confidence interval
        and p-value. Each row is the two-classifier comparison of that
        classifier with the reference.
    omnibus : pandas.DataFrame
        One row per class: robust score and Wald tests that all classifiers
        have the same precision (``df`` = number of classifiers - 1).
    classes : ndarray
        The classes compared, in table order.
    classifiers : list of str
        Classifier names, reference first.
    reference : str
        Name of the reference classifier.
    alpha : float
        Confidence intervals have level ``1 - alpha``.
    metric : {"precision", "recall"}
    engine : {"closed-form", "statsmodels"}
    n_rows : int
        Rows per classifier (stacked rows under cross-validation).
    n_records : int
        Distinct records (clusters).
    """

    def __init__(
        self,
        table,
        omnibus,
        *,
        classes,
        classifiers,
        alpha,
        metric,
        engine,
        n_rows,
        n_records,
        data=None,
    ):
        self.table = table
        self.omnibus = omnibus
        self.classes = classes
        self.classifiers = list(classifiers)
        self.reference = self.classifiers[0]
        self.alpha = alpha
        self.metric = metric
        self.engine = engine
        self.n_rows = n_rows
        self.n_records = n_records
        self._data = data

    # Scorer-like access -------------------------------------------------

    _TESTS = ("gee", "score", "wald", "wgs", "rp", "rr")

    def __getitem__(self, test):
        """Results of one test as a DataFrame.

        Parameters
        ----------
        test : {"gee", "score", "wald", "wgs", "rp"}
            ``"score"``, ``"wgs"`` and ``"wald"`` give ``statistic`` and
            ``pvalue`` per class and classifier; ``"rp"`` (``"rr"`` for
            recall) the ratio with its confidence interval, z statistic and
            p-value; ``"gee"`` the marginal model's odds ratio, its
            confidence interval and the Wald test.

        Returns
        -------
        pandas.DataFrame
        """
        if test not in self._TESTS:
            raise KeyError(
                f"{test!r} is not a test of this comparison; use one of {list(self._TESTS[:-1])}."
            )
        t = self.table
        out = t[["class", "classifier", "reference"]].copy()
        if test in ("score", "wgs", "wald"):
            out["statistic"] = t[f"{test}_stat"].to_numpy()
            out["pvalue"] = t[f"{test}_pvalue"].to_numpy()
        elif test in ("rp", "rr"):
            ratio = _column("rp", self.metric)
            out["ratio"] = t[ratio].to_numpy()
            out["se_log"] = t[f"{ratio}_se_log"].to_numpy()
            out["ci_low"] = t[f"{ratio}_ci_low"].to_numpy()
            out["ci_high"] = t[f"{ratio}_ci_high"].to_numpy()
            with np.errstate(divide="ignore", invalid="ignore"):
                out["statistic"] = np.log(out["ratio"]) / out["se_log"]
            out["pvalue"] = t[f"{ratio}_pvalue"].to_numpy()
        else:
            out["odds_ratio"] = np.exp(t["log_or"].to_numpy())
            out["ci_low"] = t["or_ci_low"].to_numpy()
            out["ci_high"] = t["or_ci_high"].to_numpy()
            out["statistic"] = t["wald_stat"].to_numpy()
            out["pvalue"] = t["wald_pvalue"].to_numpy()
        return out

    def get(self, label, classifier=None):
        """The table row of one class (and classifier) as a Series.

        Parameters
        ----------
        label : hashable
            The class.
        classifier : str, default=None
            The compared classifier; may be omitted when there is only one
            besides the reference.

        Returns
        -------
        pandas.Series
        """
        classifier = self._resolve_classifier(classifier)
        rows = self.table[(self.table["class"] == label) & (self.table["classifier"] == classifier)]
        if rows.empty:
            raise KeyError(
                f"Class {label!r} is not in this comparison; its classes are "
                f"{np.asarray(self.classes).tolist()}."
            )
        return rows.iloc[0]

    def _resolve_classifier(self, classifier):
        others = self.classifiers[1:]
        if classifier is None:
            if len(others) > 1:
                raise ValueError(
                    f"classifier is needed: this comparison has {len(others)} "
                    f"classifiers besides the reference ({others}); pass one."
                )
            return others[0]
        if classifier not in others:
            raise ValueError(
                f"classifier={classifier!r} is not a compared classifier; use "
                f"one of {others} (the reference is {self.reference!r})."
            )
        return classifier

    # Display -------------------------------------------------------------

    def summary(self, digits=4):
        """A terminal-friendly summary, in the spirit of statsmodels.

        Parameters
        ----------
        digits : int, default=4
            Significant digits of the estimates.

        Returns
        -------
        statsmodels.iolib.summary2.Summary
            Printable; ``.as_text()`` gives the string.
        """
        from statsmodels.iolib.summary2 import Summary

        level = f"{100 * (1 - self.alpha):g}%"
        ratio = _column("rp", self.metric)
        summ = Summary()
        summ.add_title(f"Paired comparison of {self.metric} (one-vs-rest, per class)")
        info = {
            "Metric:": self.metric,
            "Reference:": str(self.reference),
            "Classifiers:": ", ".join(map(str, self.classifiers[1:])),
            "Classes:": str(len(self.classes)),
            "Rows per classifier:": str(self.n_rows),
            "Records (clusters):": str(self.n_records),
            "Engine:": self.engine,
            "CI level:": level,
        }
        summ.add_dict(info, ncols=2)
        t = self.table
        main = pd.DataFrame(
            {
                "class": t["class"].astype(str),
                "classifier": t["classifier"].astype(str),
                self.metric: t[_column("precision", self.metric)],
                "ref": t[_column("precision_reference", self.metric)],
                "GS": t["score_stat"],
                "P>GS": t["score_pvalue"],
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
                f"OR {level} CI": _interval(t["or_ci_low"], t["or_ci_high"], digits),
                ratio.upper(): t[ratio],
                f"{ratio.upper()} {level} CI": _interval(
                    t[f"{ratio}_ci_low"], t[f"{ratio}_ci_high"], digits
                ),
                "P>|z|": t[f"{ratio}_pvalue"],
            }
        )
        summ.add_df(_format_frame(effect, digits), index=False)
        if len(self.classifiers) > 2:
            omni = self.omnibus.assign(**{"class": self.omnibus["class"].astype(str)})
            summ.add_df(_format_frame(omni, digits), index=False)
            summ.add_text(
                f"Last table: omnibus robust score and Wald tests of equal "
                f"{self.metric} of all {len(self.classifiers)} classifiers per "
                "class."
            )
        summ.add_text(
            f"Comparisons are classifier vs reference ({self.reference}): "
            f"{ratio.upper()} = classifier / reference, OR = odds ratio. GS: "
            "generalized score test (recommended for two classifiers); WGS: "
            "weighted GS; Wald: empirical Wald test of the GEE marginal model."
        )
        return summ

    def plot(self, ax=None, **kwargs):
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

    def __repr__(self):
        classes = np.asarray(self.classes).tolist()
        shown = classes if len(classes) <= 6 else classes[:5] + ["..."]
        return (
            f"{type(self).__name__}(metric={self.metric!r}, "
            f"classifiers={self.classifiers!r}, reference={self.reference!r}, "
            f"classes={shown!r}, n_rows={self.n_rows}, "
            f"n_records={self.n_records}, engine={self.engine!r})"
        )

    def __str__(self):
        return str(self.summary())

    # --- global null and prevalence (issue 4) ---
    def global_test(
        self,
        method="dai-cui",
        test="score",
        n_resamples=1000,
        random_state=None,
        weights=None,
        resampling="permutation",
    ):
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
        test : {"score", "wgs", "wald", "gee", "rp"}, default="score"
            The per-class test whose p-values are combined (``"gee"`` is the
            Wald test; ``"rr"`` is accepted for recall comparisons).
        n_resamples : int, default=1000
            Resamples for ``"dai-cui"``.
        random_state : None, int or numpy.random.Generator, default=None
            Seed of ``numpy.random.default_rng``; fix it for reproducible
            p-values.
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
        PrecisionComparison.adjusted_pvalues : Holm and Benjamini-Hochberg.

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

    def adjusted_pvalues(self, test="score", method=("holm", "bh")):
        """The table with per-class multiplicity-adjusted p-values added.

        Parameters
        ----------
        test : {"score", "wgs", "wald", "gee", "rp"}, default="score"
            The test whose p-values (column ``<test>_pvalue``; ``wald_pvalue``
            for ``"gee"``, ``rr_pvalue`` for recall) are adjusted.
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
            per method, e.g. ``score_pvalue_holm`` and ``score_pvalue_bh``.

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
        ['score_pvalue_holm', 'score_pvalue_bh']
        >>> bool((table["score_pvalue_holm"] >= table["score_pvalue"]).all())
        True
        """
        from ..across_classes._global_null import adjusted_pvalues

        return adjusted_pvalues(self, test, method)

    def at_prevalence(self, prevalence, ci="analytic", n_resamples=2000, random_state=None):
        """Precision updated to a known population prevalence.

        The precision a classifier would have where class ``k`` has
        prevalence ``pi`` (Bayes' rule on its sensitivity and specificity,
        which do not depend on prevalence), for every classifier, with a
        confidence interval, and the ratio of each classifier's updated
        precision to the reference's with a bootstrap interval.

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
            Bootstrap resamples, for the ``rp`` interval (always) and for
            the precision interval when ``ci="bootstrap"``.
        random_state : None, int or numpy.random.Generator, default=None
            Seed of ``numpy.random.default_rng``.

        Returns
        -------
        pandas.DataFrame
            One row per class and classifier (reference first), columns
            ``class, classifier, prevalence, precision`` (the observed one),
            ``precision_at_prevalence, ci_low, ci_high`` and ``rp,
            rp_ci_low, rp_ci_high``: the updated precision of the classifier
            divided by the reference's, with a bootstrap percentile
            interval (NaN on the reference's rows). Intervals have level
            ``1 - alpha``.

        Warns
        -----
        UndefinedStatisticWarning
            When a value is undefined and reported as NaN: a class absent
            from ``y_true``, a classifier that never predicts the class, or
            (analytic interval) no true or no false positives.

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

        return at_prevalence(self, prevalence, ci, n_resamples, random_state)

    # --- end global null and prevalence ---


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


def _format_pvalue(p):
    if not np.isfinite(p):
        return "nan"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _interval(low, high, digits):
    return [
        f"({lo:.{digits - 1}g}, {hi:.{digits - 1}g})"
        if np.isfinite(lo) and np.isfinite(hi)
        else "nan"
        for lo, hi in zip(low, high, strict=False)
    ]


def build_tables(pairwise, omnibus, classes, classifiers, metric):
    """DataFrames from the engine's arrays of shape (n_classes, n_others)."""
    n_classes, n_others = pairwise["precision"].shape
    table = pd.DataFrame(
        {
            "class": np.repeat(np.asarray(classes, dtype=object), n_others),
            "classifier": np.tile(np.asarray(classifiers[1:], dtype=object), n_classes),
            "reference": classifiers[0],
        }
    )
    for col in PAIRWISE_COLUMNS[3:]:
        values = np.asarray(pairwise[col], dtype=float).reshape(-1)
        if col.startswith("n_"):
            values = values.astype(np.int64) if np.all(np.isfinite(values)) else values
        table[_column(col, metric)] = values
    omni = pd.DataFrame({"class": np.asarray(classes, dtype=object)})
    for col in OMNIBUS_COLUMNS[1:]:
        omni[col] = np.asarray(omnibus[col])
    _restore_label_dtype(table, classes)
    _restore_label_dtype(omni, classes)
    return table, omni


def _restore_label_dtype(frame, classes):
    # Keep integer labels as integers (object columns hide the type).
    classes = np.asarray(classes)
    if classes.dtype.kind in "iub":
        frame["class"] = frame["class"].astype(classes.dtype)
