"""
The global null and multiplicity
================================

With ten classes there are ten per-class p-values. Two different questions
follow:

* does the classifier differ from the reference in *any* class? One
  p-value for the global null, combining the classes' p-values with their
  dependence taken into account (Dai and Cui's correction of Lancaster's
  statistic, estimated from paired permutations), or Simes' test;
* *which* classes differ? Per-class p-values adjusted for multiplicity
  (Holm's family-wise error rate, Benjamini-Hochberg's false discovery
  rate).
"""

# %%
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_precision_stats import PairedPrecisionComparator

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
comparator = PairedPrecisionComparator(
    {
        "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "nb": GaussianNB(),
    },
    reference="lr",
).fit(X_train, y_train)
result = comparator.compare(X_test, y_test)

# %%
# One p-value for all classes
# ---------------------------
# Dai-Cui estimates the dependence between the classes' statistics from 500
# paired permutations (fix the seed for a reproducible p-value); Simes' test
# needs no resampling and holds under positive dependence.
dai_cui = result.global_test(method="dai-cui", n_resamples=500, random_state=0)
simes = result.global_test(method="simes")
print(dai_cui)
print(simes)

# %%
# Which classes differ
# --------------------
# Holm controls the family-wise error rate, Benjamini-Hochberg the false
# discovery rate.
adjusted = result.adjusted_pvalues(method=("holm", "bh"))
print(adjusted.round(4).to_string())

# %%
# The per-class picture: the relative precision NB / LR with its interval.
ax = result.plot()
ax.set_title("NB / LR, digits")
