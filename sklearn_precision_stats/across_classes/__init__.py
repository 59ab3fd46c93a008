"""Across classes: the global null, multiplicity, prevalence and replicability."""

from ._global_null import GlobalTestResult, combine_pvalues_dependent
from ._replicability import ReplicabilityResult, replicability, replicability_score

__all__ = [
    "GlobalTestResult",
    "ReplicabilityResult",
    "combine_pvalues_dependent",
    "replicability",
    "replicability_score",
]
