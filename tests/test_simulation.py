"""The simulation module: generators hit their targets, rates are valid."""

import time

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import precision_score
from statsmodels.stats.proportion import proportions_ztest

from sklearn_precision_stats import compare_precision
from sklearn_precision_stats.engine._counts import counts_from_joint_table
from sklearn_precision_stats.engine._roles import ROLES
from sklearn_precision_stats.simulation import (
    _cell_probabilities,
    _check_precision,
    _check_prevalence,
    _naive_ztest,
    _simulated_pvalues,
    make_paired_predictions,
    rejection_rates,
)


def _model(precision, prevalence, correlation, n_classes):
    return _cell_probabilities(
        _check_precision(precision, n_classes),
        _check_prevalence(prevalence, n_classes),
        correlation,
    )


def _model_properties(cells):
    """Prevalence, each classifier's per-class precision, and the
    within-class correlation of the two correctness indicators."""
    K = cells.shape[0]
    prevalence = cells.sum(axis=(1, 2))
    precisions = []
    for axis in (2, 1):  # sum out the other classifier
        joint = cells.sum(axis=axis)  # (truth, prediction)
        precisions.append(np.diag(joint) / joint.sum(axis=0))
    corr = np.full(K, np.nan)
    for k in range(K):
        t = cells[k] / cells[k].sum()
        c1, c2, c12 = t[k, :].sum(), t[:, k].sum(), t[k, k]
        var = c1 * (1 - c1) * c2 * (1 - c2)
        if var > 1e-12:
            corr[k] = (c12 - c1 * c2) / np.sqrt(var)
    return prevalence, np.array(precisions), corr


# --- the model's cell probabilities are exact ---------------------------------


@settings(max_examples=60, deadline=None)
@given(
    n_classes=st.integers(2, 5),
    p1=st.floats(0.6, 0.9),
    p2=st.floats(0.6, 0.9),
    rho=st.floats(-0.1, 0.3),
)
def test_cells_hit_precision_and_correlation(n_classes, p1, p2, rho):
    cells = _model((p1, p2), None, rho, n_classes)
    prevalence, precisions, corr = _model_properties(cells)
    assert cells.min() >= 0
    np.testing.assert_allclose(cells.sum(), 1.0, atol=1e-12)
    np.testing.assert_allclose(prevalence, 1 / n_classes, atol=1e-12)
    np.testing.assert_allclose(precisions[0], p1, atol=1e-9)
    np.testing.assert_allclose(precisions[1], p2, atol=1e-9)
    np.testing.assert_allclose(corr, rho, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    n_classes=st.integers(2, 4),
    data=st.data(),
)
def test_cells_per_class_precision_and_prevalence(n_classes, data):
    prec = np.array(
        data.draw(st.lists(st.floats(0.5, 0.95), min_size=2 * n_classes, max_size=2 * n_classes))
    ).reshape(2, n_classes)
    weights = np.array(data.draw(st.lists(st.floats(1, 3), min_size=n_classes, max_size=n_classes)))
    prevalence = weights / weights.sum()
    rho = data.draw(st.floats(0.0, 0.2))
    try:
        cells = _model(prec, prevalence, rho, n_classes)
    except ValueError:
        assume(False)  # not every combination is reachable; said by the error
    got_prev, precisions, corr = _model_properties(cells)
    np.testing.assert_allclose(got_prev, prevalence, atol=1e-9)
    np.testing.assert_allclose(precisions, prec, atol=1e-7)
    ok = np.isfinite(corr)
    np.testing.assert_allclose(corr[ok], rho, atol=1e-7)


def test_binary_imbalanced_per_class_precision():
    # Precision 0.9/0.7 (classifier 1) and 0.85/0.6 (classifier 2) for
    # classes 0/1 at a prevalence of 0.3 for class 1.
    cells = _model([[0.9, 0.7], [0.85, 0.6]], 0.3, 0.4, 2)
    prevalence, precisions, corr = _model_properties(cells)
    np.testing.assert_allclose(prevalence, [0.7, 0.3], atol=1e-12)
    np.testing.assert_allclose(precisions, [[0.9, 0.7], [0.85, 0.6]], atol=1e-12)
    np.testing.assert_allclose(corr, 0.4, atol=1e-12)


# --- the generator, record by record ------------------------------------------


def test_generated_records_hit_targets_on_average():
    n = 200_000
    y, a, b = make_paired_predictions(n, precision=(0.8, 0.7), correlation=0.4, random_state=0)
    assert y.shape == a.shape == b.shape == (n,)
    for pred, target in ((a, 0.8), (b, 0.7)):
        for k in (0, 1):
            predicted = pred == k
            m = predicted.sum()
            prec = (y[predicted] == k).mean()
            # 4 binomial standard errors.
            assert abs(prec - target) < 4 * np.sqrt(target * (1 - target) / m)
    for k in (0, 1):
        within = y == k
        r = np.corrcoef(a[within], b[within])[0, 1]
        # The s.e. of a sample correlation is about (1 - r^2) / sqrt(n_k).
        assert abs(r - 0.4) < 4 * (1 - 0.16) / np.sqrt(within.sum())
    assert abs(y.mean() - 0.5) < 4 * 0.5 / np.sqrt(n)


def test_generated_multiclass_matches_compare_precision():
    y, a, b = make_paired_predictions(
        100_000,
        precision=(0.75, 0.7),
        n_classes=4,
        prevalence=[0.4, 0.3, 0.2, 0.1],
        correlation=0.3,
        random_state=1,
    )
    table = compare_precision(y, {"b": b, "a": a}, reference="b").table
    np.testing.assert_allclose(table["precision"], 0.75, atol=0.015)
    np.testing.assert_allclose(table["precision_reference"], 0.7, atol=0.015)
    np.testing.assert_allclose(np.bincount(y) / y.size, [0.4, 0.3, 0.2, 0.1], atol=0.01)


def test_generator_is_reproducible():
    first = make_paired_predictions(500, random_state=3)
    second = make_paired_predictions(500, random_state=3)
    other = make_paired_predictions(500, random_state=4)
    for x, z in zip(first, second, strict=False):
        np.testing.assert_array_equal(x, z)
    assert not all(np.array_equal(x, z) for x, z in zip(first, other, strict=False))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_samples": 0}, "n_samples"),
        ({"precision": (0.8, 1.0)}, "strictly between 0 and 1"),
        ({"precision": (0.8, 0.7, 0.6)}, "shape"),
        ({"prevalence": 0.3, "n_classes": 3}, "one probability per class"),
        ({"prevalence": [0.5, 0.6]}, "sum to 1"),
        ({"prevalence": 1.2}, "strictly between 0 and 1"),
        ({"correlation": 1.5}, r"\[-1, 1\]"),
        ({"correlation": 0.95, "precision": (0.9, 0.6)}, "correlations from"),
        ({"precision": (0.7, 0.7), "prevalence": 0.3}, "1 - P0 and P1"),
        ({"n_classes": 1}, "n_classes"),
    ],
)
def test_generator_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_paired_predictions(**{"n_samples": 100, **kwargs})


# --- the batched engine equals the per-data-set engine ------------------------


def test_batched_pvalues_equal_compare_precision():
    rng = np.random.RandomState(0)
    cells = _model((0.75, 0.7), None, 0.3, 3).transpose(0, 2, 1)
    tables = rng.multinomial(300, cells.ravel(), size=5).reshape((5,) + cells.shape)
    got = _simulated_pvalues(tables, ("gs", "wald", "ratio", "wgs", "z"), 0.05)
    for r in range(5):
        # Expand table r into records: axes (truth, reference, classifier).
        idx = np.repeat(np.arange(tables[r].size), tables[r].ravel())
        y, ref, clf = np.unravel_index(idx, cells.shape)
        t = compare_precision(y, {"ref": ref, "clf": clf}).table
        for test in ("gs", "wald", "ratio", "wgs"):
            np.testing.assert_allclose(got[test][r], t[f"{test}_pvalue"], rtol=1e-10)
        for k in range(3):
            counts = [np.sum((clf == k) & (y == k)), np.sum((ref == k) & (y == k))]
            nobs = [np.sum(clf == k), np.sum(ref == k)]
            _, p = proportions_ztest(counts, nobs)
            np.testing.assert_allclose(got["z"][r, k], p, rtol=1e-10)


def test_naive_ztest_equals_statsmodels_and_broadcasts():
    successes = np.array([[45, 30], [80, 70], [10, 10]])
    totals = np.array([[60, 55], [100, 100], [20, 20]])
    z, p = _naive_ztest(successes, totals)
    for i in range(3):
        z_sm, p_sm = proportions_ztest(successes[i], totals[i])
        np.testing.assert_allclose([z[i], p[i]], [z_sm, p_sm], rtol=1e-12)
    z, p = _naive_ztest([[0, 0]], [[0, 5]])
    assert np.isnan(p).all()


def test_counts_of_simulated_tables_have_the_asked_precision():
    cells = _model((0.8, 0.7), None, 0.2, 2).transpose(0, 2, 1)
    counts = counts_from_joint_table(cells * 1e6, 2, ROLES["precision"])
    precision = counts.successes / (counts.successes + counts.failures)
    np.testing.assert_allclose(precision, [[0.7, 0.8], [0.7, 0.8]], atol=1e-12)


# --- rejection rates: size and power ------------------------------------------

# With 4000 simulations the binomial s.e. of a 0.05 rate is 0.0034; the band
# 0.038..0.062 is 3.5 s.e. either side.
SIZE_BAND = (0.038, 0.062)


@pytest.mark.parametrize(
    "n, rho, n_classes",
    [(300, 0.0, 2), (1000, 0.5, 2), (2000, 0.3, 3)],
)
def test_gs_holds_its_size_under_correlated_null(n, rho, n_classes):
    rates = rejection_rates(
        ("gs", "z"),
        n_samples=n,
        precision=(0.75, 0.75),
        correlation=rho,
        n_classes=n_classes,
        n_simulations=4000,
        random_state=0,
    )
    gs = rates[rates["test"] == "gs"]
    assert len(gs) == n_classes
    assert (gs["n_defined"] == 4000).all()
    assert gs["rejection_rate"].between(*SIZE_BAND).all(), gs
    # Ignoring the positive covariance of the two precisions makes the Z
    # test conservative.
    z = rates[rates["test"] == "z"]
    assert (z["rejection_rate"] < SIZE_BAND[0]).all(), z


def test_power_rises_with_n_and_difference():
    rates = rejection_rates(
        ("gs", "wald", "ratio"),
        n_samples=[200, 800],
        precision=[(0.70, 0.70), (0.75, 0.70), (0.80, 0.70)],
        correlation=0.3,
        n_simulations=2000,
        random_state=1,
    )
    rates = rates[rates["class"] == 1]
    for test, group in rates.groupby("test"):
        power = group.pivot(
            index="percent_difference", columns="n_samples", values="rejection_rate"
        )
        # Increasing in the difference (rows) and in n (columns), beyond
        # Monte Carlo noise once away from the null.
        assert (np.diff(power.to_numpy(), axis=0) > 0.02).all(), (test, power)
        assert (power.loc[power.index > 0, 800] > power.loc[power.index > 0, 200] + 0.05).all()
        assert power.loc[power.index.max(), 800] > 0.9


def test_z_test_is_less_powerful_than_gs_under_positive_correlation():
    # The paper's Figure 1: at n = 100 and 1000 the Z test, which treats
    # the two precisions as independent, rejects far less often.
    rates = rejection_rates(
        ("gs", "z"),
        n_samples=[100, 1000],
        precision=[(0.77, 0.70), (0.84, 0.70)],
        correlation=0.4,
        n_simulations=2000,
        random_state=2,
    )
    rates = rates[rates["class"] == 1].set_index(["n_samples", "precision_1", "test"])
    se = rates["mc_se"]
    for n in (100, 1000):
        for p1 in (0.77, 0.84):
            gs, z = rates.loc[(n, p1, "gs")], rates.loc[(n, p1, "z")]
            if gs["rejection_rate"] > 0.99 and n == 1000 and p1 == 0.84:
                continue  # both saturate at 1 (Figure 1b's right half)
            gap = gs["rejection_rate"] - z["rejection_rate"]
            assert gap > 4 * np.hypot(se[(n, p1, "gs")], se[(n, p1, "z")]) + 0.02, (n, p1)


def test_without_correlation_z_is_still_conservative_but_closer():
    # Even with conditionally independent classifiers, the precisions share
    # the records both predict positive, so Z under-rejects; correlation
    # widens the gap.
    rates = rejection_rates(
        ("gs", "z"),
        n_samples=500,
        precision=(0.78, 0.70),
        correlation=[0.0, 0.4],
        n_simulations=3000,
        random_state=3,
    )
    r = rates[rates["class"] == 1].set_index(["correlation", "test"])["rejection_rate"]
    assert r[(0.0, "gs")] > r[(0.0, "z")]
    assert r[(0.4, "gs")] - r[(0.4, "z")] > r[(0.0, "gs")] - r[(0.0, "z")]


def test_rejection_rates_table_layout_and_reproducibility():
    kwargs = dict(
        n_samples=[50, 100],
        precision=[(0.7, 0.7), (0.8, 0.7)],
        correlation=[0.0, 0.2],
        n_simulations=200,
    )
    rates = rejection_rates(("gs", "z"), **kwargs, random_state=5)
    assert len(rates) == 2 * 2 * 2 * 2 * 2  # sizes x settings x rho x tests x classes
    assert list(rates.columns) == [
        "n_samples",
        "correlation",
        "class",
        "precision_1",
        "precision_2",
        "percent_difference",
        "test",
        "alpha",
        "n_simulations",
        "n_defined",
        "n_rejections",
        "rejection_rate",
        "mc_se",
    ]
    np.testing.assert_allclose(
        sorted(rates["percent_difference"].unique()), [0.0, 100 * (0.8 / 0.7 - 1)]
    )
    again = rejection_rates(("gs", "z"), **kwargs, random_state=5)
    assert rates.equals(again)
    ok = rates["n_defined"] > 0
    np.testing.assert_allclose(
        rates.loc[ok, "rejection_rate"],
        rates.loc[ok, "n_rejections"] / rates.loc[ok, "n_defined"],
    )


def test_rejection_rates_per_class_settings():
    # A 3-D precision array: one setting, per-class precisions; classes 0
    # and 2 are under the null, class 1 is not.
    prec = [[[0.75, 0.85, 0.75], [0.75, 0.70, 0.75]]]
    rates = rejection_rates(
        "gs",
        n_samples=3000,
        precision=prec,
        n_classes=3,
        correlation=0.2,
        n_simulations=1000,
        random_state=0,
    )
    r = rates.set_index("class")["rejection_rate"]
    assert r[1] > 0.95
    assert r[0] < 0.1 and r[2] < 0.1


def test_rejection_rates_is_fast():
    start = time.perf_counter()
    rejection_rates(
        n_samples=1000, precision=(0.8, 0.75), n_classes=5, n_simulations=10_000, random_state=0
    )
    # 10 000 simulated test sets, 5 classes, 4 tests: vectorised, so about
    # a second even on a slow machine.
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"tests": ("gs", "t")}, "tests must be"),
        ({"tests": ()}, "tests must be"),
        ({"n_samples": [100, 0]}, "n_samples"),
        ({"n_simulations": 0}, "n_simulations"),
        ({"alpha": 1.5}, "alpha"),
        ({"correlation": [0.1, 2.0]}, "correlation"),
        ({"precision": [(0.7, 0.7, 0.7)]}, "shape"),
    ],
)
def test_rejection_rates_validation(kwargs, match):
    args = {"n_samples": 100, "precision": (0.7, 0.7), **kwargs}
    tests = args.pop("tests", ("gs",))
    with pytest.raises(ValueError, match=match):
        rejection_rates(tests, **args)


def test_size_band_is_justified():
    # The band above is 3.5 binomial standard errors; check the arithmetic.
    se = np.sqrt(0.05 * 0.95 / 4000)
    assert SIZE_BAND[0] < 0.05 - 3 * se and SIZE_BAND[1] > 0.05 + 3 * se
    assert stats.binom.cdf(SIZE_BAND[0] * 4000, 4000, 0.05) < 0.001


# --- inputs of the wrong type, random_state, multiclass draws ----------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"precision": ("high", 0.8)}, "precision must hold numbers"),
        ({"precision": "0.8"}, "precision must hold numbers"),
        ({"prevalence": "0.3"}, "prevalence must be a number, an array"),
        ({"prevalence": ["a", "b"]}, "prevalence must hold numbers"),
        ({"prevalence": object()}, "prevalence must be a number, an array"),
    ],
)
def test_generator_and_rates_name_an_argument_of_the_wrong_type(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_paired_predictions(100, **kwargs)
    with pytest.raises(ValueError, match=match):
        rejection_rates(**{"n_samples": 100, "precision": (0.8, 0.8), **kwargs})


def test_random_state_forms_and_the_callers_generators():
    reference = make_paired_predictions(300, random_state=7)
    # An int leaves NumPy's global state alone.
    state = np.random.get_state()[1].copy()  # noqa: NPY002 (the global state itself)
    make_paired_predictions(300, random_state=7)
    rejection_rates(n_samples=50, precision=(0.8, 0.8), n_simulations=5, random_state=7)
    np.testing.assert_array_equal(np.random.get_state()[1], state)  # noqa: NPY002
    # A Generator is used as it is: its draws continue, as scikit-learn's do.
    rng = np.random.default_rng(7)
    drawn = make_paired_predictions(300, random_state=rng)
    for x, z in zip(drawn, reference, strict=True):
        np.testing.assert_array_equal(x, z)
    assert not np.array_equal(make_paired_predictions(300, random_state=rng)[0], reference[0])
    # A RandomState repeats its runs.
    first = make_paired_predictions(300, random_state=np.random.RandomState(3))
    again = make_paired_predictions(300, random_state=np.random.RandomState(3))
    np.testing.assert_array_equal(first[1], again[1])
    for bad in (-1, 1.5, "0", True):
        with pytest.raises(ValueError, match="random_state must be"):
            make_paired_predictions(10, random_state=bad)


def test_generated_multiclass_correlation_and_precision_per_class():
    n, rho = 300_000, 0.35
    precision = [[0.8, 0.7, 0.75], [0.75, 0.6, 0.55]]
    prevalence = [0.5, 0.3, 0.2]
    y, a, b = make_paired_predictions(
        n, precision=precision, prevalence=prevalence, correlation=rho, n_classes=3,
        random_state=2,
    )  # fmt: skip
    for pred, targets in ((a, precision[0]), (b, precision[1])):
        got = precision_score(y, pred, average=None)
        m = np.bincount(pred, minlength=3)
        se = np.sqrt(np.multiply(targets, np.subtract(1, targets)) / m)
        assert np.all(np.abs(got - targets) < 4 * se)
    for k in range(3):
        within = y == k
        r = np.corrcoef(a[within] == k, b[within] == k)[0, 1]
        assert abs(r - rho) < 4 * (1 - rho**2) / np.sqrt(within.sum())
    se = np.sqrt(np.multiply(prevalence, np.subtract(1, prevalence)) / n)
    assert np.all(np.abs(np.bincount(y) / n - prevalence) < 4 * se)
