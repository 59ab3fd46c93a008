"""
Precision at a known prevalence
===============================

Precision depends on prevalence: a test set balanced by design (a
case-control study, an enriched sample) shows a precision that the
population will not see. Sensitivity and specificity do not depend on
prevalence, so Bayes' rule gives the precision each classifier would have
at the population's prevalence, with a confidence interval, and the ratio
of the two classifiers' updated precisions.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from sklearn_precision_stats import compare_precision

# A balanced test set (50% positives), for a condition whose population
# prevalence is 5%.
X, y = make_classification(3000, 8, n_informative=4, weights=[0.5], flip_y=0.05, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
preds = {
    "rf": RandomForestClassifier(n_estimators=200, random_state=0)
    .fit(X_train, y_train)
    .predict(X_test),
    "nb": GaussianNB().fit(X_train, y_train).predict(X_test),
}
result = compare_precision(y_test, preds, reference="rf")
print(result.table[["class", "precision", "precision_reference", "ratio"]].to_string())
print("test-set prevalence of class 1:", np.mean(y_test == 1).round(3))

# %%
# At the population's prevalence
# ------------------------------
# Class 1 has prevalence 5% in the population (and so class 0 has 95%).
at_population = result.at_prevalence({0: 0.95, 1: 0.05}, random_state=0)
print(at_population)

# %%
# The precision for class 1 falls for both classifiers: at 5% prevalence
# most positive predictions are false positives even for a good classifier.
prevalences = np.linspace(0.01, 0.5, 25)
sens = {name: np.mean(p[y_test == 1] == 1) for name, p in preds.items()}
spec = {name: np.mean(p[y_test == 0] == 0) for name, p in preds.items()}
fig, ax = plt.subplots(figsize=(6, 4))
for name in preds:
    ppv = (
        sens[name] * prevalences / (sens[name] * prevalences + (1 - spec[name]) * (1 - prevalences))
    )
    ax.plot(prevalences, ppv, label=name)
ax.axvline(0.05, color="grey", linestyle=":")
ax.set_xlabel("prevalence of class 1")
ax.set_ylabel("precision for class 1 (Bayes' rule)")
ax.legend()
fig.tight_layout()
