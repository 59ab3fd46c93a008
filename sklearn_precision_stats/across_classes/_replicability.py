"""Replicability of a precision test over repeated experiments (paper section 4).

Bouckaert's replicability is the probability that two experiments run on
the same data with different random partitions reach the same conclusion.
:func:`replicability` repeats a train/test experiment on subsamples of
several sizes and with several test proportions, as the paper's Figure 3
does, and reports it per setting.
"""

import numbers
import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import train_test_split
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_consistent_length

from .._typing import ArrayLike
from ..comparators._paired_comparator import PairedPrecisionComparator
from ..engine._roles import get_role
from ..exceptions import UndefinedStatisticWarning
from ..paired._compare import _compare
from ..results._base import TestResult
from ..results._registry import PVALUE_TESTS, check_test
from ..utils._random_state import check_random_state_any
from ..utils._validation import _check_alpha, _check_integer

__all__ = ["replicability", "replicability_score", "ReplicabilityResult"]


def replicability_score(outcomes: ArrayLike) -> float:
    """Bouckaert's replicability of a set of test outcomes.

    The share of pairs of experiments that reach the same conclusion:
    ``R = sum_{i<j} I(e_i = e_j) / (n (n - 1) / 2)``, which equals
    ``(p (p - 1) + q (q - 1)) / (n (n - 1))`` with ``p`` acceptances and
    ``q`` rejections of the null hypothesis among ``n`` experiments.

    Parameters
    ----------
    outcomes : array-like of shape (n_experiments,)
        The outcome of each experiment: True (or 1) when the null hypothesis
        was rejected, False (or 0) when it was not. At least two.

    Returns
    -------
    float
        Replicability in [0, 1]: 1 when every experiment agrees; its
        minimum, about 0.5, when half of them reject.

    See Also
    --------
    replicability : Run the experiments and score them.

    Notes
    -----
    The paper's eq. (30), ``p(p-1) + q(q-1)/n(n-1)``, omits the
    parentheses around the numerator; this is the form that equals the
    pairwise definition (29).

    References
    ----------
    .. [1] Bouckaert (2004). Estimating replicability of classifier learning
       experiments. Proceedings of ICML.

    Examples
    --------
    >>> from sklearn_precision_stats import replicability_score
    >>> replicability_score([True] * 4 + [False] * 6)  # (6*5 + 4*3) / (10*9)
    0.4666666666666667
    """
    e = np.asarray(outcomes)
    if e.dtype.kind == "O" and e.ndim == 1:
        # Python objects, e.g. a pandas nullable boolean array; a missing
        # outcome (None, pd.NA) becomes NaN and is refused below.
        e = pd.to_numeric(pd.Series(e), errors="coerce").to_numpy(dtype=float)
    if e.ndim != 1:
        raise ValueError(f"outcomes must be 1-D (one outcome per experiment), got shape {e.shape}.")
    if e.shape[0] < 2:
        raise ValueError(
            f"outcomes must hold at least two experiments, got {e.shape[0]}; "
            "replicability compares pairs of experiments."
        )
    if e.dtype.kind not in "biuf" or not np.isin(e, (0, 1)).all():
        raise ValueError(
            "outcomes must be booleans or 0/1 (1 = null hypothesis rejected), "
            f"without missing values; got values {np.unique(e)[:5].tolist()}."
        )
    n = e.shape[0]
    q = int(np.count_nonzero(e))
    p = n - q
    return (p * (p - 1) + q * (q - 1)) / (n * (n - 1))


@dataclass(frozen=True, repr=False)
class ReplicabilityResult(TestResult):
    """Outcome of :func:`replicability`.

    Frozen; :attr:`table` and :attr:`experiments` are new DataFrames on
    every access.

    Attributes
    ----------
    statistic : float
        Bouckaert's replicability of all defined experiments pooled (each
        setting's is in :attr:`table`); unpacks first, as scipy's results.
    pvalue : float
        The median p-value of the defined experiments.
    table : pandas.DataFrame
        One row per (sample size, test proportion): ``sample_size`` (records
        in the subsample), ``sample_fraction`` (of the data),
        ``test_size`` (test proportion), ``n_train``, ``n_test``,
        ``n_experiments`` (experiments whose test is defined),
        ``n_undefined``, ``n_rejections``, ``rejection_rate``,
        ``median_pvalue`` and ``replicability``.
    experiments : pandas.DataFrame
        One row per experiment: ``sample_size, test_size, repeat, seed,
        n_train, n_test, <metric>, <metric>_reference, statistic, pvalue,
        defined, rejected``.
    test : str
        The test whose outcomes are scored.
    label : hashable
        The class compared.
    classifier, reference : str
        The compared classifier and the reference.
    alpha : float
        Significance level of the outcomes.
    """

    statistic: float
    pvalue: float
    _table: pd.DataFrame = field(repr=False)
    _experiments: pd.DataFrame = field(repr=False)
    test: str | None = None
    metric: str = "precision"
    label: object = None
    classifier: str | None = None
    reference: str | None = None
    alpha: float = 0.05

    @property
    def table(self) -> pd.DataFrame:
        """One row per setting (a new DataFrame on each access)."""
        return self._table.copy()

    @property
    def experiments(self) -> pd.DataFrame:
        """One row per experiment (a new DataFrame on each access)."""
        return self._experiments.copy()

    def plot(self, *, ax: Any = None, **kwargs: Any) -> Any:
        """Replicability against the test proportion, one line per sample size.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        **kwargs : dict
            Passed to :func:`~sklearn_precision_stats.plot_replicability`.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from ..plotting import plot_replicability

        return plot_replicability(self, ax=ax, **kwargs)

    def __repr__(self):
        return (
            f"{type(self).__name__}(statistic={self.statistic:.6g}, "
            f"pvalue={self.pvalue:.6g}, test={self.test!r}, metric={self.metric!r}, "
            f"label={self.label!r}, "
            f"classifier={self.classifier!r}, reference={self.reference!r}, "
            f"n_settings={len(self.table)}, "
            f"n_experiments={len(self.experiments)})"
        )


def _check_sample_sizes(sample_sizes, n_records):
    """Absolute subsample sizes from fractions (floats) or counts (ints)."""
    values = np.atleast_1d(np.asarray(sample_sizes, dtype=object))
    if values.ndim != 1 or values.size == 0:
        raise ValueError("sample_sizes must be a non-empty list of sizes.")
    sizes = []
    for v in values:
        if isinstance(v, (bool, np.bool_)):
            ok, size = False, 0
        elif isinstance(v, numbers.Integral):
            ok, size = 4 <= v <= n_records, int(v)
        elif isinstance(v, numbers.Real) and 0 < v <= 1:  # also refuses NaN
            ok, size = True, int(round(float(v) * n_records))
        else:
            ok, size = False, 0
        if not ok or size < 4:
            raise ValueError(
                f"sample_sizes entries must be fractions in (0, 1] of the "
                f"{n_records} records or record counts from 4 to {n_records}, "
                f"got {v!r}."
            )
        sizes.append(size)
    return sizes


def _check_test_sizes(test_sizes):
    values = np.atleast_1d(np.asarray(test_sizes, dtype=object))
    numeric = all(
        isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values.flat
    )
    if numeric:
        values = values.astype(float)
    if (
        not numeric
        or values.ndim != 1
        or values.size == 0
        or not np.all((values > 0) & (values < 1))
    ):
        raise ValueError(
            "test_sizes must be a non-empty list of test proportions strictly "
            f"between 0 and 1, e.g. (0.2, 0.3, 0.4, 0.5); got {test_sizes!r}."
        )
    return [float(v) for v in values]


def _split_indices(y, size, test_size, stratify, seed):
    """Train and test record indices of one experiment.

    A subsample of `size` records (all of them when `size` is the number of
    records) is split into train and test; both steps draw from `seed`.
    """
    n = y.shape[0]
    index = np.arange(n)
    strata = y if stratify else None
    if size < n:
        index, _ = train_test_split(index, train_size=size, stratify=strata, random_state=seed)
    strata = y[index] if stratify else None
    train, test = train_test_split(index, test_size=test_size, stratify=strata, random_state=seed)
    return train, test


def _run_experiment(estimators, X, y, train, test, names, label, classifier, test_name, metric):
    """Fit every estimator on `train`, compare them on `test` for `label`."""
    X_train, X_test = _safe_indexing(X, train), _safe_indexing(X, test)
    preds = {}
    for name, est in estimators:
        preds[name] = clone(est).fit(X_train, y[train]).predict(X_test)
    with warnings.catch_warnings():
        # Small test sets can leave a statistic undefined; it is recorded as
        # NaN and counted in n_undefined rather than warned about per task.
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        result = _compare(
            y[test],
            {n: preds[n] for n in names},
            names[0],
            None,
            None if get_role(metric).pooled else [label],
            0.95,
            "closed-form",
            metric,
        )
    row = result.get("all" if get_role(metric).pooled else label, classifier)
    outcome = result[test_name]
    outcome = outcome[(outcome["class"] == row["class"]) & (outcome["classifier"] == classifier)]
    return (
        float(row[metric]),
        float(row[f"{metric}_reference"]),
        float(outcome["statistic"].iloc[0]),
        float(outcome["pvalue"].iloc[0]),
    )


def replicability(
    estimators: Mapping[str, Any] | Sequence[tuple[str, Any]],
    X: ArrayLike,
    y: ArrayLike,
    *,
    label: Hashable,
    test: str = "gs",
    metric: str = "precision",
    classifier: str | None = None,
    reference: str | None = None,
    sample_sizes: Sequence[float] = (1.0, 0.8, 0.6, 0.4),
    test_sizes: Sequence[float] = (0.2, 0.3, 0.4, 0.5),
    n_repeats: int = 10,
    alpha: float = 0.05,
    stratify: bool = True,
    random_state: int | np.random.Generator | np.random.RandomState | None = None,
    n_jobs: int | None = None,
    verbose: int = 0,
) -> ReplicabilityResult:
    """Replicability of a paired test over repeated train/test experiments.

    For every total sample size and test proportion, runs `n_repeats`
    experiments: draw a random subsample of the records, split it into
    train and test, fit clones of the estimators on the train part and test
    on the test part whether `classifier`'s `metric` for class `label`
    differs from the reference's. Bouckaert's replicability (see
    :func:`replicability_score`) of the outcomes "rejected at `alpha`" is
    reported per setting, as in the paper's Figure 3.

    Parameters
    ----------
    estimators : dict or list of (str, estimator)
        The classifiers, by name, as for :class:`PairedPrecisionComparator`.
    X : array-like or DataFrame of shape (n_samples, n_features)
        All the records; each experiment draws its subsample from them.
    y : array-like of shape (n_samples,)
        True labels.
    label : hashable
        The class whose measure is compared (the paper uses class 0 of the
        diabetic retinopathy data); ignored for ``metric="accuracy"``.
    test : {"gs", "wgs", "wald", "ratio"}, default="gs"
        The test: generalized score (GS), weighted GS, empirical Wald, or
        the ratio (relative precision for precision; rejects when its
        confidence interval excludes 1).
    metric : {"precision", "npv", "recall", "specificity", "accuracy"}, \
            default="precision"
        The measure compared.
    classifier : str, default=None
        The classifier compared with the reference; may be omitted with two
        estimators.
    reference : str, default=None
        The reference classifier; the first estimator when None.
    sample_sizes : sequence of float or int, default=(1.0, 0.8, 0.6, 0.4)
        Total sizes of the subsamples: floats are fractions of the records,
        ints are numbers of records.
    test_sizes : sequence of float, default=(0.2, 0.3, 0.4, 0.5)
        Proportions of each subsample held out for testing.
    n_repeats : int, default=10
        Experiments per (sample size, test proportion); at least 2.
    alpha : float, default=0.05
        Significance level at which an experiment rejects.
    stratify : bool, default=True
        Keep the class proportions of `y` in every subsample and split.
    random_state : int, Generator, RandomState instance or None, default=None
        Draws the random seeds of the subsamples and splits. Pass an int for
        reproducible output. The estimators are cloned as given: fix their
        own ``random_state`` too for a run that repeats exactly.
    n_jobs : int, default=None
        Experiments run in parallel through :class:`joblib.Parallel`, one
        task each; None means 1 unless in a :func:`joblib.parallel_config`
        context, which also chooses the backend.
    verbose : int, default=0
        Verbosity of :class:`joblib.Parallel`.

    Returns
    -------
    ReplicabilityResult
        ``.table`` (one row per setting, with ``replicability``),
        ``.experiments`` (one row per experiment) and ``.plot()``.

    See Also
    --------
    replicability_score : Replicability of outcomes you already have.
    plot_replicability : Plot the result (the paper's Figure 3).

    Notes
    -----
    Experiments whose test is undefined (for instance a classifier that
    never predicts `label` in a small test set) are left out of the score
    and counted in ``n_undefined``; a setting with fewer than two defined
    experiments has a NaN replicability, with an UndefinedStatisticWarning.
    High and low p-values replicate easily; replicability is most
    informative for a class whose p-value on the full data is moderate.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from sklearn_precision_stats import replicability
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> result = replicability(
    ...     {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)},
    ...     X, y, label=1, reference="tree", sample_sizes=(1.0, 0.5),
    ...     test_sizes=(0.3, 0.5), n_repeats=5, random_state=0)
    >>> result.table[["sample_size", "test_size", "n_rejections", "replicability"]]
       sample_size  test_size  n_rejections  replicability
    0          569        0.3             0            1.0
    1          569        0.5             0            1.0
    2          284        0.3             0            1.0
    3          284        0.5             0            1.0
    """
    items = PairedPrecisionComparator(estimators, reference=reference)._named_estimators()
    names = [name for name, _ in items]
    ref = names[0] if reference is None else reference
    names = [ref] + [n for n in names if n != ref]
    if classifier is None:
        if len(names) > 2:
            raise ValueError(
                f"classifier is needed with {len(names)} estimators: pass the "
                f"name of the one compared with {ref!r} (one of {names[1:]})."
            )
        classifier = names[1]
    elif classifier not in names[1:]:
        raise ValueError(
            f"classifier={classifier!r} must name a non-reference estimator, one of {names[1:]}."
        )
    check_test(test, PVALUE_TESTS)
    get_role(metric)
    alpha = _check_alpha(alpha)
    n_repeats = _check_integer(
        n_repeats, "n_repeats", 2, " (replicability compares pairs of experiments)"
    )
    check_consistent_length(X, y)
    y = np.asarray(y)
    if not np.any(y == label):
        raise ValueError(
            f"label={label!r} does not occur in y; its classes are {np.unique(y).tolist()}."
        )
    if not isinstance(stratify, (bool, np.bool_)):
        raise ValueError(f"stratify must be True or False, got {stratify!r}.")
    if n_jobs is not None and (
        not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs == 0
    ):
        raise ValueError(
            f"n_jobs must be None or a nonzero integer (-1 for every core), got {n_jobs!r}."
        )
    verbose = _check_integer(verbose, "verbose", 0)
    n_records = y.shape[0]
    sizes = _check_sample_sizes(sample_sizes, n_records)
    tsizes = _check_test_sizes(test_sizes)

    rng = check_random_state_any(random_state)
    settings = [(s, t, r) for s in sizes for t in tsizes for r in range(n_repeats)]
    # Seeds are drawn up front so that the result does not depend on the
    # order in which the parallel tasks run.
    seeds = rng.integers(np.iinfo(np.int32).max, size=len(settings))
    splits = [
        _split_indices(y, s, t, stratify, seed)
        for (s, t, _), seed in zip(settings, seeds, strict=True)
    ]
    outputs = Parallel(n_jobs=n_jobs, verbose=verbose)(
        delayed(_run_experiment)(
            items, X, y, train, test_idx, names, label, classifier, test, metric
        )
        for train, test_idx in splits
    )
    experiments = pd.DataFrame(
        {
            "sample_size": [s for s, _, _ in settings],
            "test_size": [t for _, t, _ in settings],
            "repeat": [r for _, _, r in settings],
            "seed": seeds,
            "n_train": [len(tr) for tr, _ in splits],
            "n_test": [len(te) for _, te in splits],
        }
    )
    out = np.array(outputs, dtype=float).reshape(len(settings), 4)
    for j, col in enumerate([metric, f"{metric}_reference", "statistic", "pvalue"]):
        experiments[col] = out[:, j]
    experiments["defined"] = np.isfinite(experiments["pvalue"])
    experiments["rejected"] = experiments["pvalue"] < alpha
    table = _summarise(experiments, n_records)
    defined = experiments[experiments["defined"]]
    undefined = table[table["replicability"].isna()]
    if len(undefined):
        settings_text = ", ".join(
            f"({size}, {tsize:g})"
            for size, tsize in zip(undefined["sample_size"], undefined["test_size"], strict=True)
        )
        pooled = " and the pooled statistic" if len(defined) < 2 else ""
        warnings.warn(
            f"The replicability of the settings (sample_size, test_size) {settings_text}"
            f"{pooled} is undefined: fewer than two of their experiments have a defined "
            f"{test} test (e.g. a classifier that never predicts label={label!r} in a "
            "test set); it is reported as NaN. Larger sample or test sizes help.",
            UndefinedStatisticWarning,
            stacklevel=2,
        )
    return ReplicabilityResult(
        replicability_score(defined["rejected"].to_numpy()) if len(defined) > 1 else np.nan,
        float(defined["pvalue"].median()) if len(defined) else np.nan,
        table,
        experiments,
        test=test,
        metric=metric,
        label=label,
        classifier=classifier,
        reference=ref,
        alpha=alpha,
    )


def _summarise(experiments, n_records):
    rows = []
    for (size, tsize), group in experiments.groupby(["sample_size", "test_size"], sort=False):
        ok = group[group["defined"]]
        rows.append(
            {
                "sample_size": size,
                "sample_fraction": size / n_records,
                "test_size": tsize,
                "n_train": int(group["n_train"].iloc[0]),
                "n_test": int(group["n_test"].iloc[0]),
                "n_experiments": len(ok),
                "n_undefined": len(group) - len(ok),
                "n_rejections": int(ok["rejected"].sum()),
                "rejection_rate": ok["rejected"].mean() if len(ok) else np.nan,
                "median_pvalue": ok["pvalue"].median() if len(ok) else np.nan,
                "replicability": (
                    replicability_score(ok["rejected"].to_numpy()) if len(ok) > 1 else np.nan
                ),
            }
        )
    return pd.DataFrame(rows)
