"""Roles: which rows a measure's marginal model uses, and what its response is.

For class ``k`` (one-vs-rest) each row falls, for each classifier, into one
of four categories of the confusion matrix: true positive (truth ``k``,
prediction ``k``), false negative, false positive or true negative. Every
measure compared here is a proportion ``successes / (successes +
failures)`` over two of these categories:

============  =========  ========  ===================================
measure       success    failure   rows in the model (the denominator)
============  =========  ========  ===================================
precision     TP         FP        the classifier predicts ``k``
npv           TN         FN        the classifier does not predict ``k``
recall        TP         FN        the truth is ``k``
specificity   TN         FP        the truth is not ``k``
accuracy      correct    wrong     all rows, classes pooled
============  =========  ========  ===================================

So the engine computes, once, the per-category counts and their
cross-products over records (:class:`~._counts.CategoryCounts`), and a role
only selects two categories. Accuracy pools the classes: it is the recall
of one pseudo-class whose every row is "truly positive" and "predicted
positive" when the classifier is right.
"""

from typing import NamedTuple

from ._counts import FN, FP, TN, TP, CategoryCounts, MarginalCounts

__all__ = []


class Role(NamedTuple):
    """How a measure is read off the category counts.

    Attributes
    ----------
    metric : str
        The measure's name, which is also its column name.
    success, failure : int
        Category indices (TP, FN, FP, TN) of the response's two values.
    ratio_name : str
        The name of ``measure / measure_reference`` in messages.
    ratio_abbreviation : str
        Its abbreviation in summaries (the paper's ``RP`` for precision).
    subset : str
        The rows in the measure's denominator, for docs and messages.
    pooled : bool
        True for accuracy, whose classes are pooled into one row.
    """

    metric: str
    success: int
    failure: int
    ratio_name: str
    ratio_abbreviation: str
    subset: str
    pooled: bool = False

    def marginal_counts(self, counts: CategoryCounts) -> MarginalCounts:
        """The marginal model's sums for this role (batch axes kept)."""
        pick = [self.success, self.failure]
        cross = counts.second[..., pick, :][..., pick]
        return MarginalCounts(
            counts.first[..., self.success], counts.first[..., self.failure], cross
        )


ROLES = {
    "precision": Role("precision", TP, FP, "relative precision", "RP", "rows predicting the class"),
    "npv": Role("npv", TN, FN, "relative NPV", "RNPV", "rows not predicting the class"),
    "recall": Role("recall", TP, FN, "relative recall", "RR", "rows of the class"),
    "specificity": Role(
        "specificity", TN, FP, "relative specificity", "RS", "rows not of the class"
    ),
    "accuracy": Role("accuracy", TP, FN, "relative accuracy", "RA", "all rows", pooled=True),
}

METRICS = tuple(ROLES)


def get_role(metric: str) -> Role:
    """The role of `metric`; a ValueError naming the choices otherwise."""
    try:
        return ROLES[metric]
    except (KeyError, TypeError):
        raise ValueError(f"metric must be one of {list(METRICS)}, got {metric!r}.") from None
