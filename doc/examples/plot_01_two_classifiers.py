"""
Two classifiers on one test set
===============================

The basic use: two classifiers predict the same test records, and their
precision is compared class by class with the generalized score test (GS)
and the relative precision (the ratio of the precisions, with its
confidence interval). Both were tested on the same records, so their
precisions are correlated; the marginal model accounts for it.
"""

# %%
# Fit and predict
# ---------------
# Gaussian naive Bayes against a random forest on scikit-learn's digits,
# a 70/30 split, as in the paper's section 3.
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from sklearn_precision_stats import compare_precision

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
rf = RandomForestClassifier(n_estimators=200, random_state=0).fit(X_train, y_train)
nb = GaussianNB().fit(X_train, y_train)

# %%
# Compare
# -------
# Every comparison is "classifier vs reference": here NB against RF. The
# forest makes no false positive for some digits; its precision is then 1,
# whose log odds are infinite, so for those classes the Wald test and the odds
# ratio are undefined (NaN, with a warning that names the classes). GS and the
# relative precision are defined.
result = compare_precision(
    y_test, {"rf": rf.predict(X_test), "nb": nb.predict(X_test)}, reference="rf"
)
print(result.summary())

# %%
# One test at a time
# ------------------
# ``result["gs"]`` is the generalized score test, the paper's recommendation
# for two classifiers; ``result["ratio"]`` the relative precision NB / RF.
print(result["gs"].round(4).to_string())
print(result["ratio"].round(4).to_string())

# %%
# The forest plot
# ---------------
# The relative precision per class with its 95% confidence interval (the
# paper's Figure 2): an interval left of 1 means NB is less precise than RF
# for that class.
ax = result.plot()
