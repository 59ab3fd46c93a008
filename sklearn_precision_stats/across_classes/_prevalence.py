"""Precision at a known prevalence (the paper's partial Bayesian update).

Precision depends on the class prevalence of the test records. When the
population prevalence ``pi`` of a class is known, Bayes' rule gives the
precision the classifier would have there from its sensitivity and
specificity, which do not depend on prevalence:

    P(pi) = Se pi / (Se pi + (1 - Sp)(1 - pi)) = 1 / (1 + (1/pi - 1) / LR+)

with the positive likelihood ratio ``LR+ = Se / (1 - Sp)``.
"""

import numbers
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from ..engine._counts import FN, FP, TP
from ..engine._units import ROWS, group_sums, key_groups, resampled_group_sums
from ..exceptions import UndefinedStatisticWarning
from ..results._base import name_array
from ..utils._random_state import check_random_state_any
from ._global_null import _check_data, _check_n_resamples, resampled_sums, unit_matrix

__all__ = []

_CI_METHODS = ("analytic", "bootstrap")
# Label sets whose positive class is unambiguous (label 1), as in
# scikit-learn's pos_label convention.
_BINARY_LABEL_SETS = ({0, 1}, {-1, 1})

AT_PREVALENCE_COLUMNS = [
    "class",
    "classifier",
    "prevalence",
    "precision",
    "precision_at_prevalence",
    "ci_low",
    "ci_high",
    "ratio",
    "ratio_ci_low",
    "ratio_ci_high",
]


def at_prevalence(
    comparison,
    prevalence,
    ci="analytic",
    n_resamples=2000,
    random_state=None,
    confidence_level=None,
):
    """Precision or NPV at known prevalences; see :meth:`PairedComparison.at_prevalence`."""
    data = _check_data(comparison, "at_prevalence")
    metric = comparison.metric
    if metric not in ("precision", "npv"):
        raise ValueError(
            "at_prevalence applies to predictive values (compare_precision, "
            f"compare_npv); {metric} does not depend on prevalence."
        )
    negative = metric == "npv"
    if ci not in _CI_METHODS:
        raise ValueError(f"ci must be one of {_CI_METHODS}, got {ci!r}.")
    n_resamples = _check_n_resamples(n_resamples)
    classes = np.asarray(comparison.classes).tolist()
    chosen, pi = _check_prevalence(prevalence, classes)
    alpha = 1.0 - comparison._level(confidence_level)
    names = comparison.classifiers

    if data.records.clustered:
        units = _ClusteredPrevalence(data, chosen)
    else:
        units = _PrevalenceUnits(data, chosen)
    tp, fp, n_pos, n_rows = units.totals()
    with np.errstate(divide="ignore", invalid="ignore"):
        sens, fpr = tp / n_pos[:, None], fp / (n_rows - n_pos)[:, None]
        updated = _bayes(sens, fpr, pi[:, None], negative)
        fn, tn = n_pos[:, None] - tp, (n_rows - n_pos)[:, None] - fp
        observed = tn / (tn + fn) if negative else tp / (tp + fp)

    rng = check_random_state_any(random_state)
    boot = units.bootstrap(pi, n_resamples, rng, negative)  # (R, n_classes, n_clf)
    quantiles = [alpha / 2, 1 - alpha / 2]
    # Undefined values are warned about below; numerical warnings are
    # silenced locally (np.errstate) and all-NaN slices skipped, never by
    # changing the process-wide warning filters.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if ci == "analytic":
            with np.errstate(divide="ignore", invalid="ignore"):
                se_log_lr = np.sqrt(units.log_lr_variance(tp, fp, n_pos, n_rows, negative))
                if negative:
                    log_lr = np.log1p(-sens) - np.log1p(-fpr)
                else:
                    log_lr = np.log(sens) - np.log(fpr)
                z = stats.norm.isf(alpha / 2)
                ci_low = _from_log_lr(log_lr - z * se_log_lr, pi[:, None], negative)
                ci_high = _from_log_lr(log_lr + z * se_log_lr, pi[:, None], negative)
                if negative:
                    # NPV falls as LR- rises: the upper LR- limit gives the lower NPV.
                    ci_low, ci_high = ci_high, ci_low
            # LR = 1 by construction has a sandwich variance of zero.
            constant = _constant_ratio(tp, fp, n_pos, n_rows, negative)
            finite = np.isfinite(log_lr) & np.isfinite(se_log_lr) & ~constant
            ci_low, ci_high = np.where(finite, ci_low, np.nan), np.where(finite, ci_high, np.nan)
        else:
            ci_low, ci_high = _nan_quantiles(boot, quantiles)
            boot_constant = _constant_draws(boot)
            ci_low, ci_high = (np.where(boot_constant, np.nan, a) for a in (ci_low, ci_high))
        with np.errstate(divide="ignore", invalid="ignore"):
            rp = updated / updated[:, :1]
            rp_boot = boot / boot[..., :1]
        rp_boot = np.where(np.isfinite(rp_boot), rp_boot, np.nan)
        rp_low, rp_high = _nan_quantiles(rp_boot, quantiles)
        # The reference's own rows carry no ratio.
        ratio_constant = _constant_draws(rp_boot)
        ratio_constant[:, 0] = False
        rp_low, rp_high = (np.where(ratio_constant, np.nan, a) for a in (rp_low, rp_high))
    for arr in (rp, rp_low, rp_high):
        arr[:, 0] = np.nan
    messages = _diagnose(tp, fp, n_pos, n_rows, names, chosen, ci, metric)
    what = f"{metric} at prevalence"
    if data.n_records < 2:
        # Said once below for every interval.
        boot_constant = ratio_constant = np.zeros_like(ratio_constant)
    if ci == "bootstrap":
        counts = "negatives" if negative else "positives"
        messages += _constant_messages(
            boot_constant,
            names,
            chosen,
            f"The {what} of classifier {{}}",
            f"no false {counts}, or no true {counts}",
        )
    messages += _constant_messages(
        ratio_constant,
        names,
        chosen,
        f"The ratio of the {what} of classifier {{}} to the reference's",
        "the reference's predictions, or both perfect",
    )
    if data.n_records < 2:
        # One record: its sandwich variance is zero and every resample repeats it.
        for arr in (ci_low, ci_high, rp_low, rp_high):
            arr[...] = np.nan
        messages.append(
            "The comparison has a single record (cluster): the intervals of the "
            f"{metric} at prevalence need at least two, so they are NaN."
        )
    if messages:
        # One warning per call, every reason in it.
        warnings.warn(" ".join(messages), UndefinedStatisticWarning, stacklevel=3)

    n_classes, n_clf = tp.shape
    frame = pd.DataFrame(
        {
            "class": np.repeat(np.asarray(chosen, dtype=object), n_clf),
            "classifier": np.tile(name_array(names), n_classes),
            "prevalence": np.repeat(pi, n_clf),
            metric: observed.ravel(),
            f"{metric}_at_prevalence": updated.ravel(),
            "ci_low": ci_low.ravel(),
            "ci_high": ci_high.ravel(),
            "ratio": rp.ravel(),
            "ratio_ci_low": rp_low.ravel(),
            "ratio_ci_high": rp_high.ravel(),
        }
    )
    values = np.asarray(comparison.classes)
    if values.dtype.kind in "iub":
        frame["class"] = frame["class"].astype(values.dtype)
    return frame


def _constant_draws(samples):
    """Where every defined draw of `samples` (R, ...) is the same number.

    A percentile interval there collapses onto that number: a classifier
    without false positives keeps a precision of 1 in every resample, and
    identical classifiers a ratio of 1.
    """
    defined = ~np.isnan(samples).all(axis=0)
    constant = np.zeros(samples.shape[1:], dtype=bool)
    if defined.any():
        draws = samples[:, defined]
        constant[defined] = np.nanmax(draws, axis=0) == np.nanmin(draws, axis=0)
    return constant


def _constant_messages(mask, names, chosen, subject, example):
    """One sentence per classifier whose bootstrap interval is degenerate.

    `subject` has a ``{}`` for the classifier's name.
    """
    messages = []
    for c, name in enumerate(names):
        listed = [k for k, bad in zip(chosen, mask[:, c], strict=True) if bad]
        if listed:
            messages.append(
                f"{subject.format(repr(name))} is the same on every bootstrap resample "
                f"for class(es) {listed} (e.g. {example}): its bootstrap interval "
                "would collapse onto that value and is reported as NaN."
            )
    return messages


def _nan_quantiles(samples, quantiles):
    """``np.nanquantile(samples, quantiles, axis=0)``, NaN where all draws are NaN.

    Columns without a defined draw are left out rather than passed to
    NumPy, which would warn ("All-NaN slice") for each.
    """
    out = np.full((len(quantiles),) + samples.shape[1:], np.nan)
    defined = ~np.isnan(samples).all(axis=0)
    if defined.any():
        out[:, defined] = np.nanquantile(samples[:, defined], quantiles, axis=0)
    return out


def _bayes(sens, fpr, pi, negative=False):
    """Eq. (28): PPV = Se pi / (Se pi + (1 - Sp)(1 - pi)); with `negative`,
    NPV = Sp (1 - pi) / (Sp (1 - pi) + (1 - Se) pi)."""
    if negative:
        spec = 1 - fpr
        return spec * (1 - pi) / (spec * (1 - pi) + (1 - sens) * pi)
    return sens * pi / (sens * pi + fpr * (1 - pi))


def _from_log_lr(log_lr, pi, negative=False):
    """PPV = 1 / (1 + (1/pi - 1) / LR+) in log LR+; with `negative`,
    NPV = 1 / (1 + LR- pi / (1 - pi)) in log LR-."""
    if negative:
        return 1.0 / (1.0 + np.exp(log_lr) * pi / (1.0 - pi))
    return 1.0 / (1.0 + (1.0 / pi - 1.0) * np.exp(-log_lr))


def _check_prevalence(prevalence, classes):
    """The classes to report and their prevalences, in comparison order."""
    if isinstance(prevalence, Mapping):
        unknown = [c for c in prevalence if c not in classes]
        if unknown:
            raise ValueError(
                f"prevalence has class(es) {unknown} that are not in the "
                f"comparison; its classes are {classes}."
            )
        if not prevalence:
            raise ValueError("prevalence is an empty dict; give at least one class.")
        chosen = [c for c in classes if c in prevalence]
        values = [prevalence[c] for c in chosen]
    elif isinstance(prevalence, numbers.Real) and not isinstance(prevalence, bool):
        labels = set(classes)
        if len(classes) != 2 or labels not in _BINARY_LABEL_SETS:
            raise ValueError(
                f"A single prevalence applies to a binary problem with labels "
                f"{{0, 1}} or {{-1, 1}} (the prevalence of class 1); this "
                f"comparison has classes {classes}. Pass a dict class -> "
                f"prevalence instead, e.g. prevalence={{{classes[-1]!r}: "
                f"{prevalence!r}}}."
            )
        _check_one_prevalence(prevalence, 1)
        # Class 1 has the given prevalence, the other class the rest.
        chosen = list(classes)
        values = [prevalence if c == 1 else 1 - prevalence for c in chosen]
    else:
        raise ValueError(
            "prevalence must be a number (binary problems) or a dict class -> "
            f"prevalence, got {type(prevalence).__name__}."
        )
    for c, v in zip(chosen, values, strict=False):
        _check_one_prevalence(v, c)
    values = np.asarray(values, dtype=float)
    if values.sum() > 1 + 1e-12:
        raise ValueError(
            f"The prevalences in prevalence sum to {values.sum():.6g} > 1; the "
            "classes are disjoint, so their prevalences cannot exceed 1 in total."
        )
    return chosen, values


def _check_one_prevalence(value, label):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not 0 < value < 1:
        raise ValueError(
            f"prevalence must lie strictly between 0 and 1, got {value!r} for "
            f"class {label!r}; a prevalence of 0 or 1 leaves nothing to predict."
        )


class _PrevalenceUnits:
    """Per-unit counts of true positives, false positives and class rows.

    Units are as in :mod:`sklearn_precision_stats.engine._units`: identical
    records (one row per record) or records (clustered rows). Per key (unit, class) the features
    are, for each classifier ``c``, ``tp`` at ``2c`` and ``fp`` at ``2c + 1``,
    then the rows of the class at ``2C``; an extra pseudo-class at index
    ``n_classes`` holds each unit's number of rows.
    """

    def __init__(self, data, chosen):
        values = data.values.tolist()  # noqa: PD011 (a NumPy array)
        codes = np.array([values.index(c) for c in chosen], dtype=np.intp)
        units = data.records.units()
        n_classes, n_clf, n_units = codes.shape[0], units.x.shape[1], units.n_units
        lookup = np.full(units.n_values, -1, dtype=np.intp)
        lookup[codes] = np.arange(n_classes)
        k = lookup[units.key_class]
        keep = k >= 0
        x = units.x[keep]
        n_features = 2 * n_clf + 1
        features = np.zeros((x.shape[0] + n_units, n_features))
        features[: x.shape[0], 0 : 2 * n_clf : 2] = x[..., TP]
        features[: x.shape[0], 1 : 2 * n_clf : 2] = x[..., FP]
        features[: x.shape[0], 2 * n_clf] = x[:, 0, TP] + x[:, 0, FN]
        # Every unit's rows, in the pseudo-class after the classes.
        features[x.shape[0] :, 0] = units.unit_rows
        key_unit = np.concatenate([units.key_unit[keep], np.arange(n_units)])
        key_class = np.concatenate([k[keep], np.full(n_units, n_classes)])
        self.n_classes, self.n_clf = n_classes, n_clf
        self.multiplicity = units.multiplicity
        self.key_unit, self.key_class = key_unit, key_class
        self.per_record = features
        self.totals_ = np.zeros((n_classes + 1, n_features))
        np.add.at(self.totals_, key_class, features * self.multiplicity[key_unit][:, None])
        self.matrix = unit_matrix(key_unit, key_class, features, n_units, n_classes + 1)

    def totals(self):
        t = self.totals_
        c = self.n_clf
        return t[:-1, 0 : 2 * c : 2], t[:-1, 1 : 2 * c : 2], t[:-1, 2 * c], t[-1, 0]

    def log_lr_variance(self, tp, fp, n_pos, n_rows, negative=False):
        """Cluster-robust (sandwich) variance of log LR+ (log LR- with `negative`).

        ``log LR+ = log(TP / n1) - log(FP / n0)`` is a smooth function of
        ratios of sums over records; its delta-method variance is
        ``sum_i r_i^2`` with ``r_i = tp_i/TP - d_i/n1 - fp_i/FP + nd_i/n0``
        (``d_i``, ``nd_i``: record i's rows of and not of the class). With
        one row per record this is exactly ``(1 - Se)/TP + Sp/FP``, the
        variance of DTComPair ``pv.prev``. For ``log LR- = log(FN / n1) -
        log(TN / n0)`` the same reasoning gives ``r_i = fn_i/FN - d_i/n1 -
        tn_i/TN + nd_i/n0``, i.e. ``Se/FN + (1 - Sp)/TN`` on one row per
        record.
        """
        c = self.n_clf
        n_neg = n_rows - n_pos
        keys = self.key_class < self.n_classes
        k = self.key_class[keys]
        per = self.per_record[keys]
        m = self.multiplicity[self.key_unit[keys]][:, None]
        unit_rows = self.unit_rows()
        rows = unit_rows[self.key_unit[keys]][:, None]
        d = per[:, 2 * c][:, None]
        # r_i = q_i + rows_i / n0 with q nonzero only on keys of the class.
        tp_i, fp_i = per[:, 0 : 2 * c : 2], per[:, 1 : 2 * c : 2]
        if negative:
            # fn_i = d_i - tp_i and tn_i = rows_i - d_i - fp_i: the part in
            # rows_i is spread over every record, the rest lives on the keys.
            fn, tn = n_pos[:, None] - tp, n_neg[:, None] - fp
            q = (
                (d - tp_i) / fn[k]
                - d / n_pos[k][:, None]
                + (d + fp_i) / tn[k]
                - d / n_neg[k][:, None]
            )
            a = 1.0 / n_neg[:, None] - 1.0 / tn
        else:
            q = tp_i / tp[k] - d / n_pos[k][:, None] - fp_i / fp[k] - d / n_neg[k][:, None]
            a = np.broadcast_to(1.0 / n_neg[:, None], tp.shape)
        # r_i = q_i + a rows_i, with q nonzero only on keys of the class.
        var = np.zeros_like(tp)
        np.add.at(var, k, m * q**2 + 2 * m * q * rows * a[k])
        var += (self.multiplicity * unit_rows**2).sum() * a**2
        return var

    def unit_rows(self):
        rows = np.zeros(self.multiplicity.shape[0])
        own = self.key_class == self.n_classes
        rows[self.key_unit[own]] = self.per_record[own, 0]
        return rows

    def bootstrap(self, pi, n_resamples, rng, negative=False):
        """Updated PPV (NPV with `negative`) on bootstrap resamples, (R, n_classes, n_clf)."""
        c = self.n_clf
        n_features = 2 * c + 1
        out = []
        base = np.zeros(self.matrix.shape[1])
        for sums in resampled_sums(
            self.matrix, base, self.multiplicity, "bootstrap", n_resamples, rng
        ):
            s = sums.reshape(-1, self.n_classes + 1, n_features)
            tp, fp = s[:, :-1, 0 : 2 * c : 2], s[:, :-1, 1 : 2 * c : 2]
            n_pos, n_rows = s[:, :-1, 2 * c], s[:, -1:, 0]
            with np.errstate(divide="ignore", invalid="ignore"):
                sens = tp / n_pos[..., None]
                fpr = fp / (n_rows - n_pos)[..., None]
                out.append(_bayes(sens, fpr, pi[:, None], negative))
        return np.concatenate(out, axis=0)


class _ClusteredPrevalence:
    """What :class:`_PrevalenceUnits` gives, from clustered records.

    Each record is a unit. A (record, class) key adds to the totals, the
    sandwich variance and a bootstrap resample what its class and counts
    (tp and fp per classifier, rows of the class, and for the variance its
    record's rows) say, so keys are counted by groups of equal such digits
    (:func:`sklearn_precision_stats.engine._units.key_groups`).
    """

    def __init__(self, data, chosen):
        values = data.values.tolist()  # noqa: PD011 (a NumPy array)
        self.codes = np.array([values.index(c) for c in chosen], dtype=np.intp)
        records = data.records
        self.records, self.n_classes, self.n_clf = records, len(chosen), records.n_classifiers
        # Per classifier c: tp at 2c, fp at 2c + 1; then the rows of the class.
        self.digits = [(c, (u,)) for c in range(self.n_clf) for u in (TP, FP)] + [(0, (TP, FN))]
        sizes = records.record_sizes()
        rows = np.arange(sizes.shape[0], dtype=float)
        self.n_rows, self.squared_rows = float(rows @ sizes), float(rows**2 @ sizes)

        def features(k, digits):
            # The digits themselves; each record's own key (class
            # n_classes) carries its rows.
            f = digits.astype(float)
            f[k == self.n_classes, 1:] = 0.0
            return f

        # One reading of the keys serves the totals and the bootstrap.
        self.groups = key_groups(
            records, self.codes, self.digits, features, len(self.digits), with_rows=True
        )

    def _split(self, sums):
        c = self.n_clf
        return sums[..., 0 : 2 * c : 2], sums[..., 1 : 2 * c : 2], sums[..., 2 * c]

    def totals(self):
        return (*self._split(group_sums(self.groups)[:-1]), self.n_rows)

    def log_lr_variance(self, tp, fp, n_pos, n_rows, negative=False):
        """As :meth:`_PrevalenceUnits.log_lr_variance`, every record a unit."""
        n_neg = n_rows - n_pos
        fn, tn = n_pos[:, None] - tp, n_neg[:, None] - fp
        if negative:
            a = 1.0 / n_neg[:, None] - 1.0 / tn
        else:
            a = np.broadcast_to(1.0 / n_neg[:, None], tp.shape)
        c = self.n_clf

        def terms(k, digits):
            digits = digits.astype(float)
            tp_i, fp_i = digits[:, 0 : 2 * c : 2], digits[:, 1 : 2 * c : 2]
            d, rows = digits[:, 2 * c : 2 * c + 1], digits[:, -1:]
            if negative:
                q = (
                    (d - tp_i) / fn[k]
                    - d / n_pos[k][:, None]
                    + (d + fp_i) / tn[k]
                    - d / n_neg[k][:, None]
                )
            else:
                q = tp_i / tp[k] - d / n_pos[k][:, None] - fp_i / fp[k] - d / n_neg[k][:, None]
            # r_i = q_i + a rows_i, with q nonzero only on keys of the class.
            return q**2 + 2 * q * rows * a[k]

        groups = key_groups(self.records, self.codes, self.digits + [ROWS], terms, c)
        return group_sums(groups) + self.squared_rows * a**2

    def bootstrap(self, pi, n_resamples, rng, negative=False):
        """Updated PPV (NPV with `negative`) on bootstrap resamples, (R, n_classes, n_clf)."""
        sums = resampled_group_sums(self.groups, "bootstrap", n_resamples, rng)
        tp, fp, n_pos = self._split(sums[:, :-1])
        n_rows = sums[:, -1, :1]
        with np.errstate(divide="ignore", invalid="ignore"):
            sens = tp / n_pos[..., None]
            fpr = fp / (n_rows - n_pos)[..., None]
            return _bayes(sens, fpr, pi[:, None], negative)


def _constant_ratio(tp, fp, n_pos, n_rows, negative=False):
    """Where the likelihood ratio is 1 whatever the data: LR+ of a classifier
    that predicts the class for every row, LR- of one that never does."""
    if negative:
        return (tp == 0) & (fp == 0)
    return (tp == n_pos[:, None]) & (fp == (n_rows - n_pos)[:, None])


def _diagnose(tp, fp, n_pos, n_rows, names, chosen, ci, metric="precision"):
    """Messages for the undefined values, one per classifier and reason.

    NPV is the precision of the predictions "not the class": its 0/0 and
    its likelihood ratio LR- come from the false and true negatives.
    """
    messages = []
    negative = metric == "npv"
    what = f"{metric} at prevalence"

    def listed(mask):
        return [c for c, bad in zip(chosen, mask, strict=False) if bad]

    absent = n_pos == 0
    if absent.any():
        messages.append(
            f"Class(es) {listed(absent)} never occur in y_true: sensitivity is "
            f"undefined (0/0), so the {what} is NaN."
        )
    everywhere = n_pos == n_rows
    if everywhere.any():
        messages.append(
            f"Every row is of class(es) {listed(everywhere)}: specificity is "
            f"undefined (0/0), so the {what} is NaN."
        )
    known = ~absent & ~everywhere
    fn, tn = n_pos[:, None] - tp, (n_rows - n_pos)[:, None] - fp
    if negative:
        # The predictions "not the class" take the place of the positives.
        hits, misses, ratio, predicts = fn, tn, "LR-", "always predicts"
        reasons = ("no false negatives (LR- = 0)", "no true negatives (LR- infinite)")
        constant = "never predicts class(es) {}"
    else:
        hits, misses, ratio, predicts = tp, fp, "LR+", "never predicts"
        reasons = ("no true positives (LR+ = 0)", "no false positives (LR+ infinite)")
        constant = "predicts class(es) {} for every row"
    constant_mask = _constant_ratio(tp, fp, n_pos, n_rows, negative)
    for c, name in enumerate(names):
        never = known & (hits[:, c] == 0) & (misses[:, c] == 0)
        if never.any():
            messages.append(
                f"Classifier {name!r} {predicts} class(es) {listed(never)}: its "
                f"{what} is undefined (0/0) and reported as NaN."
            )
        if ci == "analytic":
            for mask, reason in (
                (known & (hits[:, c] == 0) & (misses[:, c] > 0), reasons[0]),
                (known & (misses[:, c] == 0) & (hits[:, c] > 0), reasons[1]),
            ):
                if mask.any():
                    messages.append(
                        f"Classifier {name!r} has {reason} for class(es) "
                        f"{listed(mask)}: the analytic confidence interval of its "
                        f"{what} is undefined and reported as NaN."
                    )
            mask = known & constant_mask[:, c]
            if mask.any():
                messages.append(
                    f"Classifier {name!r} {constant.format(listed(mask))}: its "
                    f"{ratio} is 1 with a variance of zero, so the analytic confidence "
                    f"interval of its {what} is undefined and reported as NaN."
                )
    return messages
