"""A user's script over the documented API passes ``mypy --strict``.

The scripts are written to a temporary folder and checked as a user would,
with the installed package (its ``py.typed`` marker): calls of every
``compare_*`` function, the result's attributes, ``summary()``,
``global_test()``, ``.table``, the streaming counts, a comparator and a
diagnostic function. A third script shows that the attributes are typed
(not ``Any``): its misuses are reported, and only they.
"""

import subprocess
import sys
from pathlib import Path

import pytest

import sklearn_precision_stats

pytest.importorskip("mypy")

PACKAGE = Path(sklearn_precision_stats.__file__).resolve().parent

USER_SCRIPT = """
import numpy as np
import pandas as pd

from sklearn_precision_stats import (
    ComparisonCounts,
    PairedComparison,
    compare_accuracy,
    compare_npv,
    compare_precision,
    compare_recall,
    compare_specificity,
    mcnemar_test,
)

y_true = [0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1]
rf = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
nb = [0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0]

result: PairedComparison = compare_precision(y_true, {"rf": rf, "nb": nb}, reference="rf")
for function in (compare_npv, compare_recall, compare_specificity, compare_accuracy):
    other: PairedComparison = function(
        np.asarray(y_true), [("rf", rf), ("nb", nb)], confidence_level=0.9, cov_type="robust"
    )
    print(other.metric)

table: pd.DataFrame = result.table
omnibus: pd.DataFrame = result.omnibus
print(table["gs_pvalue"].to_numpy(), omnibus.shape)
metric: str = result.metric
classes: np.ndarray = result.classes
classifiers: tuple[str, ...] = result.classifiers
reference: str = result.reference
level: float = result.confidence_level
engine: str = result.engine
n_rows: int = result.n_rows
n_records: int = result.n_records
cov_type: str = result.cov_type
frame: pd.DataFrame = result.to_frame(confidence_level=0.99)
gs: pd.DataFrame = result["gs"]
row: pd.Series = result.get(1)
text: str = result.summary(digits=3, confidence_level=0.9).as_text()
print(str(result.summary()), metric, classes, classifiers, reference, level, engine)
print(n_rows, n_records, cov_type, frame, gs, row, text)
adjusted: pd.DataFrame = result.adjusted_pvalues(test="wald", method=["holm"])
at_prev: pd.DataFrame = result.at_prevalence({1: 0.1}, n_resamples=50, random_state=0)
latex: str = result.to_latex(tables="effects")
print(adjusted, at_prev, latex)

global_result = result.global_test(method="simes")
statistic = global_result.statistic
pvalue = global_result.pvalue
print(float(np.asarray(statistic)), float(np.asarray(pvalue)), global_result.method)
stat, p = result.global_test(method="fisher")
print(stat, p)
print(global_result.to_frame())

counts = ComparisonCounts.from_arrays(y_true, {"rf": rf, "nb": nb})
counts = counts.update(y_true, {"rf": rf, "nb": nb})
from_counts: PairedComparison = compare_precision(counts)
print(counts.n_rows, counts.n_records, counts.classes, counts.classifiers, from_counts.table)

mc = mcnemar_test(y_true, rf, nb)
print(mc.statistic, mc.pvalue)
"""

COMPARATOR_SCRIPT = """
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from sklearn_precision_stats import (
    PairedComparison,
    PairedPrecisionComparator,
    combine_pvalues_dependent,
    make_paired_predictions,
)
from sklearn_precision_stats.diagnostic import diagnostic_accuracy

X = np.random.default_rng(0).normal(size=(60, 3))
y = (X[:, 0] > 0).astype(int)
comparator = PairedPrecisionComparator(
    {"lr": LogisticRegression(), "nb": GaussianNB()}, reference="lr"
).fit(X, y)
compared: PairedComparison = comparator.compare(X, y)
print(compared.table, comparator.result_)
y_true, a, b = make_paired_predictions(200, random_state=0)
combined = combine_pvalues_dependent([0.01, 0.2, 0.5], method="fisher")
print(combined.pvalue, y_true.shape, a, b)
acc = diagnostic_accuracy(y_true, {"a": a, "b": b})
print(acc.estimate, acc.table)
"""

MISUSE_SCRIPT = """
from sklearn_precision_stats import compare_precision

result = compare_precision([0, 1, 1, 0], {"a": [0, 1, 0, 0], "b": [1, 1, 1, 0]})
total: str = result.n_records
result.no_such_attribute
result.summary(digits="4")
"""

# A user's configuration: strict, and scikit-learn has no type information.
CONFIG = """
[mypy]
strict = True
follow_imports = silent

[mypy-sklearn.*]
ignore_missing_imports = True
"""


def test_package_is_marked_typed():
    assert (PACKAGE / "py.typed").is_file()


@pytest.mark.slow
def test_users_script_passes_mypy_strict(tmp_path):
    scripts = {
        "user_script.py": USER_SCRIPT,
        "comparator.py": COMPARATOR_SCRIPT,
        "misuse.py": MISUSE_SCRIPT,
    }
    for name, text in scripts.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "mypy.ini").write_text(CONFIG)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", *scripts],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert all(line.startswith("misuse.py:") for line in errors), done.stdout + done.stderr
    assert len(errors) == 3, done.stdout
    text = "\n".join(errors)
    assert 'Incompatible types in assignment (expression has type "int"' in text
    assert 'has no attribute "no_such_attribute"' in text
    assert 'Argument "digits" to "summary" of "PairedComparison"' in text
