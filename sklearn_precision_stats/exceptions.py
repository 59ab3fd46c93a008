"""Warnings and errors raised by :mod:`sklearn_precision_stats`."""

__all__ = ["UndefinedStatisticWarning"]


class UndefinedStatisticWarning(UserWarning):
    """A statistic is undefined for some class and is reported as NaN.

    Raised, for instance, when a classifier never predicts a class (its
    precision is 0/0), when a precision is 0 or 1 (the log odds are
    infinite) or when two classifiers' predictions of a class are identical
    (the variance of their difference is zero). The message names the class,
    the classifier and the reason; every other statistic is still reported.
    """
