"""Bayesian comparisons of two classifiers with a region of practical equivalence.

The correlated t test for cross-validation scores on one data set (Corani
and Benavoli 2015) and the signed-rank test for one score per data set over
several data sets (Benavoli et al. 2014); both report the posterior
probabilities that ``a - b`` lies below, within or above ``[-rope, rope]``.
The hierarchical test (Corani et al. 2017) models the cross-validation
scores of several data sets at once; it needs PyMC
(``pip install sklearn-precision-stats[bayes]``). Their posteriors are
drawn by
:func:`sklearn_precision_stats.plotting.plot_posterior`.
"""

from ._correlated_ttest import BayesianCorrelatedTTestResult, bayesian_correlated_ttest
from ._hierarchical import BayesianHierarchicalResult, bayesian_hierarchical_test
from ._signed_rank import BayesianSignedRankResult, bayesian_signed_rank_test

__all__ = [
    "BayesianCorrelatedTTestResult",
    "BayesianHierarchicalResult",
    "BayesianSignedRankResult",
    "bayesian_correlated_ttest",
    "bayesian_hierarchical_test",
    "bayesian_signed_rank_test",
]
