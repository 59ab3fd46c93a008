"""
Cross-validation with three classifiers
=======================================

:class:`~sklearn_precision_stats.CVPrecisionComparator` fits every
classifier on the same splits, stacks the out-of-fold predictions and treats
each record as a cluster, so that a record tested in every repeat of
repeated cross-validation counts as one record, not as independent rows
(the paper's Algorithm 2). With three classifiers the omnibus tests ask
whether all have the same precision for a class.
"""

# %%
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from sklearn_precision_stats import CVPrecisionComparator

X, y = load_breast_cancer(return_X_y=True)
comparator = CVPrecisionComparator(
    {
        "nb": GaussianNB(),
        "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "tree": DecisionTreeClassifier(max_depth=4, random_state=0),
    },
    reference="nb",
    cv=RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=0),
).fit(X, y)

# %%
# Each record was tested three times, once per repeat; the comparison has
# 569 clusters.
print(comparator.predictions_.head().to_string())
print(comparator.result_.n_rows, "rows per classifier,", comparator.result_.n_records, "records")

# %%
# All three equal? The omnibus generalized score and Wald tests, per class
# (2 degrees of freedom).
print(comparator.result_.omnibus.round(4).to_string())

# %%
# Each classifier against NB, with odds ratios and the relative precision.
print(comparator.result_.summary())

# %%
# Another measure, from the same stored predictions: no refit.
recall = comparator.compare(metric="recall")
print(recall.table[["class", "classifier", "recall", "recall_reference", "gs_pvalue"]].to_string())

# %%
# The forest plot of the relative precision of LR against NB.
ax = comparator.result_.plot(classifier="lr")
