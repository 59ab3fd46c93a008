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
                f"{test!r} is not a test of this comparison; use one of "
                f"{list(self._TESTS[:-1])}."
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
        rows = self.table[
            (self.table["class"] == label) & (self.table["classifier"] == classifier)
        ]
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
                self.metric[:4]: t[_column("precision", self.metric)],
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
                f"P>|z|": t[f"{ratio}_pvalue"],
            }
        )
        summ.add_df(_format_frame(effect, digits), index=False)
        if len(self.classifiers) > 2:
            omni = self.omnibus.assign(**{"class": self.omnibus["class"].astype(str)})
            summ.add_text(
                f"Omnibus tests of equal {self.metric} of all "
                f"{len(self.classifiers)} classifiers:"
            )
            summ.add_df(_format_frame(omni, digits), index=False)
        summ.add_text(
            f"Comparisons are classifier vs reference ({self.reference}): "
            f"{ratio.upper()} = classifier / reference, OR = odds ratio. GS: "
            "generalized score test (recommended for two classifiers); WGS: "
            "weighted GS; Wald: empirical Wald test of the GEE marginal model."
        )
        return summ

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
    # --- end global null and prevalence ---


def _format_frame(frame, digits):
    out = frame.copy()
    for col in out.columns:
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
        for lo, hi in zip(low, high)
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
