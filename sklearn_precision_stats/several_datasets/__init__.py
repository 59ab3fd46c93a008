"""Comparing classifiers over several data sets: one score per data set.

Friedman's test with the Iman-Davenport F, and the post-hoc tests of
Demsar (2006) and Garcia and Herrera (2008) on average ranks: Nemenyi,
Holm, Bonferroni-Dunn and Shaffer. The critical-difference diagram is
:func:`sklearn_precision_stats.plotting.plot_critical_difference`.
"""

from ._friedman import FriedmanResult, friedman_test
from ._posthoc import PosthocResult, posthoc_test

__all__ = ["FriedmanResult", "PosthocResult", "friedman_test", "posthoc_test"]
