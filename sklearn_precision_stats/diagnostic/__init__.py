"""Diagnostic-test statistics for classifiers, class by class (one-vs-rest).

Everything R's DTComPair offers for two binary tests on the same subjects,
for every class of a multi-class problem and for two or more classifiers
against a reference:

Tables and accuracy of each classifier
    :func:`paired_table` (the paired 2x2x2 counts),
    :func:`diagnostic_accuracy` (sensitivity, specificity, PPV, NPV and the
    likelihood ratios with intervals).
Sensitivity and specificity compared
    :func:`exact_binomial_test`, :func:`sensitivity_specificity_difference`,
    :func:`relative_sensitivity_specificity`, :func:`generalized_mcnemar`,
    :func:`relative_tpf_fpf`; McNemar's test is the ``"gs"`` test of
    :func:`~sklearn_precision_stats.compare_recall`.
Predictive values and likelihood ratios
    :func:`relative_predictive_values` (joint region of rPPV and rNPV),
    :func:`compare_likelihood_ratios`, :func:`likelihood_ratio_regression`.
Planning
    :func:`sample_size_predictive_values`, :func:`power_predictive_values`,
    :func:`sample_size_sensitivity_specificity`,
    :func:`power_sensitivity_specificity`, :func:`paired_cell_probabilities`.
"""

from ._accuracy_measures import DiagnosticAccuracy, diagnostic_accuracy
from ._counts import paired_table
from ._likelihood_ratios import (
    DLRRegressionResult,
    LikelihoodRatioComparison,
    compare_likelihood_ratios,
    likelihood_ratio_regression,
)
from ._predictive_values import RelativePredictiveValuesResult, relative_predictive_values
from ._sample_size import (
    SampleSize,
    paired_cell_probabilities,
    power_predictive_values,
    power_sensitivity_specificity,
    sample_size_predictive_values,
    sample_size_sensitivity_specificity,
)
from ._sesp import (
    ExactBinomialResult,
    GeneralizedMcNemarResult,
    RelativeAccuracyResult,
    SeSpDifference,
    exact_binomial_test,
    generalized_mcnemar,
    relative_sensitivity_specificity,
    relative_tpf_fpf,
    sensitivity_specificity_difference,
)

__all__ = [
    "DLRRegressionResult",
    "DiagnosticAccuracy",
    "ExactBinomialResult",
    "GeneralizedMcNemarResult",
    "LikelihoodRatioComparison",
    "RelativeAccuracyResult",
    "RelativePredictiveValuesResult",
    "SampleSize",
    "SeSpDifference",
    "compare_likelihood_ratios",
    "diagnostic_accuracy",
    "exact_binomial_test",
    "generalized_mcnemar",
    "likelihood_ratio_regression",
    "paired_cell_probabilities",
    "paired_table",
    "power_predictive_values",
    "power_sensitivity_specificity",
    "relative_predictive_values",
    "relative_sensitivity_specificity",
    "relative_tpf_fpf",
    "sample_size_predictive_values",
    "sample_size_sensitivity_specificity",
    "sensitivity_specificity_difference",
]
