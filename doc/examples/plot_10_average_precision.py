"""
Average precision and precision at 90% recall, compared paired
==============================================================

Is the random forest's average precision for the rare class better than
logistic regression's, and at 90% recall, which has the higher precision?

Both classifiers score the same test images, so their average precisions
are correlated: the paired bootstrap draws the test records with
replacement (within each true class, as R's pROC does) and evaluates both
classifiers on every replicate.

The data are scikit-learn's handwritten digits. The rare class is the
digit 8 (about 10% of the images) against all other digits: a screening
task in which a model must find most of the 8s.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_precision_stats import (
    compare_average_precision,
    compare_precision_at_recall,
    plot_precision_recall,
)

X, digit = load_digits(return_X_y=True)
y = (digit == 8).astype(int)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.6, stratify=y, random_state=0)
lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X_train, y_train)
rf = RandomForestClassifier(n_estimators=200, random_state=0).fit(X_train, y_train)
scores = {
    "logistic regression": lr.predict_proba(X_test)[:, 1],
    "random forest": rf.predict_proba(X_test)[:, 1],
}
print(f"{y_test.size} test images, {y_test.sum()} of them 8s")

# %%
# Average precision
# -----------------
# Logistic regression is the reference: ``diff`` is the random forest's
# average precision minus logistic regression's. The p-value is pROC's
# bootstrap test; the intervals are percentile (``diff_ci_*``) and BCa
# (``diff_bca_*``) intervals.
ap = compare_average_precision(
    y_test, scores, reference="logistic regression", n_resamples=2000, random_state=0
)
print(ap.summary())

# %%
# Precision at 90% recall
# -----------------------
# The largest precision among the thresholds that find at least 90% of the
# 8s, read off scikit-learn's precision-recall curve.
par = compare_precision_at_recall(
    y_test,
    scores,
    recall=0.9,
    reference="logistic regression",
    n_resamples=2000,
    random_state=0,
)
par.table[
    [
        "classifier",
        "precision_at_recall",
        "precision_at_recall_reference",
        "diff",
        "diff_bca_low",
        "diff_bca_high",
        "diff_pvalue",
    ]
]

# %%
# The curves and their bootstrap bands
# ------------------------------------
# Each curve is the interpolated precision (the largest precision at a
# recall at least r); the bands are pointwise 95% percentile intervals over
# the same replicates. The dotted line marks the 90% recall.
ax = plot_precision_recall(ap)
ax.axvline(0.9, color="0.3", linestyle=":")
plt.show()

# %%
# Every class at once
# -------------------
# With the models' ``predict_proba`` over all ten digits, the comparison
# gives one row per class (one-vs-rest), and ``plot()`` draws the
# differences with their intervals. Both models rank every 0 above every
# other digit, in the test set and in every replicate: the difference is 0
# with no spread, so its p-value is undefined (NaN, with a warning).
X_train, X_test, d_train, d_test = train_test_split(
    X, digit, test_size=0.6, stratify=digit, random_state=0
)
lr10 = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X_train, d_train)
rf10 = RandomForestClassifier(n_estimators=200, random_state=0).fit(X_train, d_train)
per_class = compare_average_precision(
    d_test,
    {
        "logistic regression": lr10.predict_proba(X_test),
        "random forest": rf10.predict_proba(X_test),
    },
    n_resamples=1000,
    random_state=0,
)
per_class.plot()
plt.show()

# %%
# Answer
# ------
row = ap.table.iloc[0]
at90 = par.table.iloc[0]
print(
    f"average precision: random forest {row['average_precision']:.3f}, logistic "
    f"regression {row['average_precision_reference']:.3f}, difference "
    f"{row['diff']:.3f} (95% BCa interval {row['diff_bca_low']:.3f} to "
    f"{row['diff_bca_high']:.3f}, p = {row['diff_pvalue']:.2g})"
)
print(
    f"precision at 90% recall: random forest {at90['precision_at_recall']:.3f}, "
    f"logistic regression {at90['precision_at_recall_reference']:.3f}, difference "
    f"{at90['diff']:.3f} (95% BCa interval {at90['diff_bca_low']:.3f} to "
    f"{at90['diff_bca_high']:.3f})"
)
print(
    "Adjusted over the ten digits (Holm):",
    np.round(per_class.adjusted_pvalues("holm")["diff_pvalue_holm"].to_numpy(), 3),
)
