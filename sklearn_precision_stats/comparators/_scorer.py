"""Scorers that turn a comparator's comparison into one number."""

import numpy as np

__all__ = ["make_comparison_scorer"]

_TESTS = ("score", "wgs", "wald", "rp")
_OUTPUTS = ("pvalue", "statistic", "rp", "precision difference")


class _ComparisonScorer:
    """Callable ``(comparator, X, y) -> float``; picklable for joblib."""

    def __init__(self, test, output, label, classifier):
        self.test = test
        self.output = output
        self.label = label
        self.classifier = classifier

    def __call__(self, comparator, X, y, **kwargs):
        result = comparator.compare(X, y)
        label = self.label
        if label is None:
            classes = np.asarray(result.classes).tolist()
            raise ValueError(
                "label is needed: the comparison is per class and has classes "
                f"{classes}; make the scorer with "
                f"make_comparison_scorer(..., label={classes[-1]!r})."
            )
        row = result.get(label, self.classifier)
        if self.output == "rp":
            return float(row["rp"])
        if self.output == "precision difference":
            return float(row["precision"] - row["precision_reference"])
        if self.test == "rp":
            if self.output == "pvalue":
                return float(row["rp_pvalue"])
            with np.errstate(divide="ignore", invalid="ignore"):
                return float(np.log(row["rp"]) / row["rp_se_log"])
        return float(row[f"{self.test}_{'pvalue' if self.output == 'pvalue' else 'stat'}"])

    def __repr__(self):
        return (
            f"make_comparison_scorer(test={self.test!r}, output={self.output!r}, "
            f"label={self.label!r}, classifier={self.classifier!r})"
        )


def make_comparison_scorer(test="score", output="pvalue", label=None, classifier=None):
    """Make a scorer that reports one number of a comparator's comparison.

    The scorer calls ``comparator.compare(X, y)`` on the test fold and
    returns the chosen output for one class and classifier, so it can be
    passed to :func:`sklearn.model_selection.cross_validate` (alone or in a
    ``scoring`` dict) with a :class:`PairedPrecisionComparator`.

    Parameters
    ----------
    test : {"score", "wgs", "wald", "rp"}, default="score"
        The test whose ``pvalue`` or ``statistic`` is reported: generalized
        score, weighted generalized score, empirical Wald, or relative
        precision (its statistic is the z value ``log(rp) / se``).
    output : {"pvalue", "statistic", "rp", "precision difference"}, default="pvalue"
        ``"rp"`` is the relative precision (classifier / reference) and
        ``"precision difference"`` is classifier minus reference; both do not
        depend on `test`.
    label : hashable
        The class whose comparison is reported. Required: every comparison
        is per class.
    classifier : str, default=None
        The compared classifier; may be omitted when the comparator has one
        besides the reference.

    Returns
    -------
    scorer : callable
        ``scorer(comparator, X, y) -> float``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import cross_validate
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from sklearn_precision_stats import (
    ...     PairedPrecisionComparator, make_comparison_scorer)
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> comparator = PairedPrecisionComparator(
    ...     {"tree": DecisionTreeClassifier(random_state=0), "nb": GaussianNB()})
    >>> scores = cross_validate(comparator, X, y, cv=3, scoring={
    ...     "p": make_comparison_scorer("score", "pvalue", label=1),
    ...     "rp": make_comparison_scorer(output="rp", label=1)})
    >>> sorted(k for k in scores if k.startswith("test_"))
    ['test_p', 'test_rp']
    """
    if test not in _TESTS:
        raise ValueError(f"test must be one of {_TESTS}, got {test!r}.")
    if output not in _OUTPUTS:
        raise ValueError(f"output must be one of {_OUTPUTS}, got {output!r}.")
    return _ComparisonScorer(test, output, label, classifier)
