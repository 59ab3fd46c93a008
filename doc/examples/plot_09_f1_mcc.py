"""
Comparing macro-F1, MCC and kappa on one test set
=================================================

Papers report macro-F1, MCC or Cohen's kappa, and the question is then
"is model B's macro-F1 better than model A's on the same test set?".
:func:`~sklearn_precision_stats.compare_metric` answers it for any measure
of the confusion matrix, pairing the classifiers through the joint table
of (truth, prediction A, prediction B) cells.
"""

# %%
# Three classifiers on scikit-learn's digits
# ------------------------------------------
import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_precision_stats import compare_metric

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
models = {
    "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
    "forest": RandomForestClassifier(n_estimators=200, random_state=0),
    "nb": GaussianNB(),
}
preds = {name: model.fit(X_train, y_train).predict(X_test) for name, model in models.items()}

# %%
# Macro-F1 by the delta method
# ----------------------------
# Each row compares a classifier with the reference (the logistic
# regression); with three classifiers the omnibus Wald test asks whether
# all three have the same macro-F1.
result = compare_metric(y_test, preds, metric="f1", average="macro", reference="logreg")
print(result.summary())

# %%
# Per class, with multiplicity-adjusted p-values
# -----------------------------------------------
per_class = compare_metric(y_test, preds, metric="f1", reference="logreg")
print(per_class.adjusted_pvalues()[["class", "classifier", "f1", "diff", "diff_pvalue_holm"]])

# %%
# MCC by the paired bootstrap
# ---------------------------
# The bootstrap draws the joint cells' counts from a multinomial, so 9999
# replicates cost the same whatever the size of the test set. It adds the
# BCa interval of the difference.
boot = compare_metric(
    y_test, preds, metric="mcc", reference="logreg", method="bootstrap", random_state=0
)
print(
    boot.table[
        [
            "classifier",
            "mcc",
            "mcc_reference",
            "diff",
            "diff_ci_low",
            "diff_ci_high",
            "diff_bca_low",
            "diff_bca_high",
            "diff_pvalue",
        ]
    ]
)

# %%
# Any function of the confusion matrix
# ------------------------------------
# A callable gets the K x K matrix of counts (rows truth, columns
# predictions); its gradient is taken numerically. Here the geometric
# mean of the recalls.


def gmean_recall(confusion):
    return float(np.prod(np.diag(confusion) / confusion.sum(axis=1)) ** (1 / len(confusion)))


print(compare_metric(y_test, preds, metric=gmean_recall, reference="logreg").table)
