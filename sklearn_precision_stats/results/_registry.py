"""The names of the paired comparisons' tests and columns, defined once.

Every measure (precision, NPV, recall, specificity, accuracy) shares the
test columns; only the measure's own columns carry its name.
"""

from typing import NamedTuple

__all__ = []


class TestColumns(NamedTuple):
    """Where one test's numbers live in a comparison's table.

    ``estimate`` and the interval bounds are None for pure tests;
    ``statistic`` is None when the statistic is derived on access (the z of
    the ratio and of the difference).
    """

    label: str
    statistic: str | None
    pvalue: str | None
    estimate: str | None
    ci: tuple[str, str] | None


TESTS = {
    "gs": TestColumns("GS", "gs_stat", "gs_pvalue", None, None),
    "wgs": TestColumns("WGS", "wgs_stat", "wgs_pvalue", None, None),
    "wald": TestColumns(
        "Wald", "wald_stat", "wald_pvalue", "odds_ratio", ("or_ci_low", "or_ci_high")
    ),
    "ratio": TestColumns("ratio", None, "ratio_pvalue", "ratio", ("ratio_ci_low", "ratio_ci_high")),
    "diff": TestColumns("difference", None, None, "diff", ("diff_ci_low", "diff_ci_high")),
}

# Tests whose p-values are columns of the table (combinable across classes).
PVALUE_TESTS = tuple(name for name, spec in TESTS.items() if spec.pvalue is not None)

TEST_COLUMNS = [
    "gs_stat",
    "gs_pvalue",
    "wgs_stat",
    "wgs_pvalue",
    "wald_stat",
    "wald_pvalue",
    "log_or",
    "log_or_se",
    "or_ci_low",
    "or_ci_high",
    "ratio",
    "ratio_se_log",
    "ratio_ci_low",
    "ratio_ci_high",
    "ratio_pvalue",
    "diff",
    "diff_se",
    "diff_ci_low",
    "diff_ci_high",
]

OMNIBUS_COLUMNS = ["class", "df", "gs_stat", "gs_pvalue", "wald_stat", "wald_pvalue"]


def measure_columns(metric):
    """The measure's own columns, named after it."""
    return [
        metric,
        f"{metric}_ci_low",
        f"{metric}_ci_high",
        f"{metric}_reference",
        f"{metric}_reference_ci_low",
        f"{metric}_reference_ci_high",
        "n",
        "n_reference",
    ]


def table_columns(metric):
    """Every column of a comparison's table, in order."""
    return ["class", "classifier", "reference", *measure_columns(metric), *TEST_COLUMNS]


def check_test(test, allowed=tuple(TESTS)):
    """`test` if it is one of `allowed`; a ValueError naming them otherwise."""
    if test not in allowed:
        raise ValueError(f"test must be one of {list(allowed)}, got {test!r}.")
    return test
