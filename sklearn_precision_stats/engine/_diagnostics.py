"""Why statistics are undefined: one message naming every class and reason.

The engine never warns: undefined statistics come out as NaN, and
:func:`diagnose` explains them so that the public functions can issue one
:class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning` per
call, naming the classes, classifiers and reasons.
"""

import numpy as np

__all__ = []

# What an empty denominator means, for the roles whose rows depend on the
# classifier.
_EMPTY_SUBSET = {
    "precision": "never predicts class(es) {}",
    "npv": "predicts class(es) {} for every row",
}


def diagnose(counts, pairwise, omnibus, classifier_names, class_names, role, clustered=False):
    """Messages explaining every NaN statistic.

    Parameters
    ----------
    counts : MarginalCounts
        Without batch axes.
    pairwise, omnibus : dict
        Outputs of :func:`~._marginal_model.pairwise_statistics` and
        :func:`~._marginal_model.omnibus_statistics`.
    classifier_names, class_names : sequence
        Reference first; classes in the order of the class axis.
    role : Role
    clustered : bool, default=False
        Records repeat (``groups``): WGS is then NaN by design, which the
        documentation and the summary's notes say rather than a warning
        on every call (the user can do nothing about it).

    Returns
    -------
    list of str
        Empty when every statistic is defined, else one message: a
        sentence per reason, so that a degenerate class gives one warning.
    """
    T, F = counts.successes, counts.failures
    M = T + F
    with np.errstate(divide="ignore", invalid="ignore"):
        P = T / M
    messages = []
    metric, ratio = role.metric, role.ratio_name

    def listed(mask):
        return _fmt([class_names[k] for k in np.flatnonzero(mask)])

    empty = M == 0
    shared_subset = bool(np.all(empty == empty[:, :1]))
    if shared_subset and role.metric in ("recall", "specificity"):
        # The rows (of the class, or not of it) are the same for everyone.
        if empty[:, 0].any():
            messages.append(
                f"Class(es) {listed(empty[:, 0])} have no {role.subset}: the "
                f"{metric} is undefined (0/0), so their statistics are NaN."
            )
    else:
        for c, name in enumerate(classifier_names):
            if empty[:, c].any():
                what = _EMPTY_SUBSET.get(metric, "has no rows for class(es) {}")
                messages.append(
                    f"Classifier {name!r} {what.format(listed(empty[:, c]))}: its "
                    f"{metric} is undefined (0/0), so every comparison involving it "
                    "for these classes is NaN."
                )
    reference = P[:, 0]
    for c, name in enumerate(classifier_names):
        for value in (0, 1):
            bad = P[:, c] == value
            also = f" and the {ratio}" if value == 0 and c == 0 else ""
            if value == 0 and c > 0:
                # The ratio is 0 only over a reference value above 0; over 0
                # it is 0/0, and an undefined reference is explained above.
                ratio_cases = [
                    (bad & (reference > 0), f"; its {ratio} is 0, without an interval or test"),
                    (bad & (reference == 0), f"; its {ratio} is undefined (0/0)"),
                    (bad & np.isnan(reference), ""),
                ]
            else:
                ratio_cases = [(bad, "")]
            for mask, about_ratio in ratio_cases:
                if mask.any():
                    messages.append(
                        f"The {metric} of {name!r} is {value} for class(es) "
                        f"{listed(mask)}: its log odds are infinite, so the Wald "
                        f"test and odds ratio{also} against it are NaN{about_ratio}."
                    )
    explained = empty[:, :1] | empty[:, 1:] | np.isin(P[:, :1], (0, 1)) | np.isin(P[:, 1:], (0, 1))
    undefined_input = empty[:, :1] | empty[:, 1:]
    for c, name in enumerate(classifier_names[1:]):
        tests = {
            "generalized score": pairwise["gs_stat"][:, c],
            **({} if clustered else {"weighted generalized score": pairwise["wgs_stat"][:, c]}),
            "Wald": pairwise["wald_stat"][:, c],
            ratio: pairwise["ratio_pvalue"][:, c],
        }
        # Group the classes by the set of tests that are NaN for them, so a
        # degenerate class gives one message rather than one per test.
        by_tests = {}
        for k in range(len(class_names)):
            failed = tuple(
                test
                for test, values in tests.items()
                if np.isnan(values[k])
                and not undefined_input[k, c]
                # Infinite log odds already explain a NaN Wald test or ratio.
                and not (test in ("Wald", ratio) and explained[k, c])
            )
            if failed:
                by_tests.setdefault(failed, []).append(k)
        for failed, ks in by_tests.items():
            mask = np.zeros(len(class_names), dtype=bool)
            mask[ks] = True
            names = ", ".join(failed[:-1]) + (" and " if len(failed) > 1 else "") + failed[-1]
            messages.append(
                f"The {names} test{'s' if len(failed) > 1 else ''} of {name!r} vs "
                f"{classifier_names[0]!r} {'are' if len(failed) > 1 else 'is'} NaN "
                f"for class(es) {listed(mask)}: the variance estimate is zero "
                "(identical predictions for the class, both "
                f"{metric} values 0 or both 1, or no record where the two disagree)."
            )
    if len(classifier_names) > 2:
        reasons = {
            "generalized score": "identical predictions make the score covariance singular",
            "Wald": f"a {metric} of 0 or 1 (infinite log odds) or identical predictions "
            "(a singular covariance) make the Wald test undefined",
        }
        tests = {"generalized score": omnibus["gs_stat"], "Wald": omnibus["wald_stat"]}
        defined_input = ~empty.any(axis=1)
        by_tests = {}
        for k in np.flatnonzero(defined_input):
            failed = tuple(test for test, values in tests.items() if np.isnan(values[k]))
            if failed:
                by_tests.setdefault(failed, []).append(k)
        for failed, ks in by_tests.items():
            mask = np.zeros(len(class_names), dtype=bool)
            mask[ks] = True
            several = len(failed) > 1
            messages.append(
                f"The omnibus {' and '.join(failed)} test{'s' if several else ''} "
                f"{'are' if several else 'is'} NaN for class(es) {listed(mask)}: "
                f"{'; '.join(reasons[test] for test in failed)}."
            )
    # One warning per call: every reason, a sentence each, in one message.
    return [" ".join(messages)] if messages else []


def _fmt(values, limit=10):
    shown = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")
