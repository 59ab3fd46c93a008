"""
Replicability
=============

A significant result on one split may not come back on another. The
replicability of a test (Bouckaert, 2004) repeats the whole experiment
over training-set sizes and test fractions and reports how often the
decision agrees with itself; the paper's Figure 3 shows it for the
generalized score test. Here on a small data set and few repeats, so that
it runs in seconds.
"""

# %%
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_precision_stats import plot_replicability, replicability

X, y = load_breast_cancer(return_X_y=True)
result = replicability(
    {
        "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "nb": GaussianNB(),
    },
    X,
    y,
    label=1,
    test="gs",
    reference="lr",
    sample_sizes=(1.0, 0.7, 0.4),
    test_sizes=(0.3, 0.5),
    n_repeats=5,
    random_state=0,
)
print(result)

# %%
# The replicability per sample size and test fraction.
ax = plot_replicability(result)
