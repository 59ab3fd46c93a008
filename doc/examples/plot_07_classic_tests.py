"""
The classic tests
=================

For accuracy and AUC, and for scores computed on several train/test
splits, the classic tests apply:

* McNemar's test of equal accuracy on one test set;
* DeLong's test of equal AUC of two classifiers' scores;
* the corrected resampled t test (Nadeau and Bengio, 2003) of scores over
  random splits, whose overlap makes the plain t test too liberal;
* Dietterich's 5x2cv paired t test.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import ShuffleSplit, train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_precision_stats import (
    compare_accuracy,
    corrected_resampled_ttest,
    delong_test,
    mcnemar_test,
    paired_ttest_5x2cv,
)

X, y = load_breast_cancer(return_X_y=True)
lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
nb = GaussianNB()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
lr.fit(X_train, y_train)
nb.fit(X_train, y_train)

# %%
# One test set
# ------------
# McNemar's test (exact when few records disagree) and, equivalently for
# large samples, the generalized score test of the pooled accuracy.
print(mcnemar_test(y_test, lr.predict(X_test), nb.predict(X_test)))
print(
    compare_accuracy(y_test, {"lr": lr.predict(X_test), "nb": nb.predict(X_test)}).table[
        ["accuracy", "accuracy_reference", "gs_stat", "gs_pvalue"]
    ]
)

# %%
# DeLong's test compares the AUCs of the two classifiers' scores.
stat, p = delong_test(y_test, lr.predict_proba(X_test)[:, 1], nb.predict_proba(X_test)[:, 1])
print(f"DeLong: z = {stat:.3f}, p = {p:.4f}")

# %%
# Scores over random splits
# -------------------------
# Ten 70/30 random splits: the training sets overlap, so the scores are
# correlated and the corrected resampled t test widens the variance.
splits = ShuffleSplit(n_splits=10, test_size=0.3, random_state=0)
scores = {"lr": [], "nb": []}
for train, test in splits.split(X):
    for name, est in (("lr", lr), ("nb", nb)):
        scores[name].append(est.fit(X[train], y[train]).score(X[test], y[test]))
n_test = int(round(0.3 * len(y)))
res = corrected_resampled_ttest(
    np.array(scores["lr"]), np.array(scores["nb"]), n_train=len(y) - n_test, n_test=n_test
)
print(res)

# %%
# Dietterich's 5x2cv paired t test refits on five 2-fold splits.
print(paired_ttest_5x2cv(lr, nb, X, y, random_state=0))

# %%
# The accuracies over the ten splits, paired by split.
fig, ax = plt.subplots(figsize=(5, 4))
ax.plot(np.array([scores["lr"], scores["nb"]]), color="grey", alpha=0.6)
ax.set_xticks([0, 1], ["LR", "NB"])
ax.set_ylabel("accuracy on the split's test set")
fig.tight_layout()
