"""The plots render, show what they should, and never load matplotlib early."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from sklearn_precision_stats import (  # noqa: E402
    compare_precision,
    plot_power,
    plot_relative_precision,
    plot_replicability,
    replicability_score,
)
from sklearn_precision_stats.across_classes._replicability import ReplicabilityResult  # noqa: E402
from sklearn_precision_stats.simulation import (  # noqa: E402
    make_paired_predictions,
    rejection_rates,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _render(ax, path):
    """Save the figure at its own dpi (so display and PNG pixels agree) and
    return the image as an (H, W, channels) float array."""
    fig = ax.figure
    fig.savefig(path, dpi=fig.dpi)
    return mpimg.imread(path)


def _assert_not_blank(img, min_ink=0.01):
    assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100
    gray = img[..., :3].mean(axis=-1)
    ink = (gray < 0.9).mean()
    assert min_ink < ink < 0.5, ink  # something drawn, not a black box


def _pixel_column(ax, x, img):
    """Column of the image at data x (the figure is rendered at its dpi)."""
    px, _ = ax.transData.transform((x, 0.0))
    assert img.shape[1] == round(ax.figure.bbox.width)
    return int(round(px))


@pytest.fixture(scope="module")
def comparisons():
    y, a, b = make_paired_predictions(
        3000,
        precision=[[0.7, 0.75, 0.8], [0.75, 0.75, 0.75]],
        n_classes=3,
        correlation=0.3,
        random_state=0,
    )
    three = compare_precision(y, {"rf": b, "nb": a}, reference="rf")
    y, a, b = make_paired_predictions(800, precision=(0.7, 0.8), random_state=1)
    binary = compare_precision(y, {"rf": b, "nb": a}, reference="rf")
    return {"three": three, "binary": binary}


# --- forest plot (Figure 2) ---------------------------------------------------


def test_forest_plot_png(comparisons, tmp_path):
    result = comparisons["three"]
    ax = plot_relative_precision(result)
    img = _render(ax, tmp_path / "forest.png")
    _assert_not_blank(img)
    t = result.table
    # One hollow estimate per row, filled over it where the CI excludes 1.
    hollow, filled = [line for line in ax.get_lines() if line.get_marker() == "s"]
    np.testing.assert_allclose(hollow.get_xdata(), t["ratio"])
    significant = (t["ratio_ci_low"] > 1) | (t["ratio_ci_high"] < 1)
    assert len(filled.get_xdata()) == significant.sum()
    # Confidence intervals: one segment per row, from low to high.
    segments = ax.collections[0].get_segments()
    assert len(segments) == len(t)
    np.testing.assert_allclose([s[0][0] for s in segments], t["ratio_ci_low"])
    np.testing.assert_allclose([s[1][0] for s in segments], t["ratio_ci_high"])
    assert [tick.get_text() for tick in ax.get_yticklabels()] == ["class 0", "class 1", "class 2"]
    assert ax.get_xscale() == "log"
    assert "95% CI" in ax.get_xlabel() and "nb / rf" in ax.get_xlabel()
    # The annotations give each row's RP and CI.
    texts = [t_.get_text() for t_ in ax.texts]
    assert f"{t['ratio'].iloc[0]:.2f} ({t['ratio_ci_low'].iloc[0]:.2f}, " in texts[0]


def test_forest_plot_reference_line_at_one(comparisons, tmp_path):
    ax = plot_relative_precision(comparisons["three"])
    ref = [line for line in ax.get_lines() if list(line.get_xdata()) == [1.0, 1.0]]
    assert len(ref) == 1 and ref[0].get_linestyle() == "--"
    img = _render(ax, tmp_path / "forest.png")
    # The dashed line at RP = 1 puts dark pixels in its column, far more
    # than in the columns beside it.
    col = _pixel_column(ax, 1.0, img)
    top, bottom = (img.shape[0] - ax.bbox.y1, img.shape[0] - ax.bbox.y0)
    gray = img[int(top) + 2 : int(bottom) - 2, :, :3].mean(axis=-1)
    dark = (gray[:, col - 1 : col + 2] < 0.5).any(axis=1).mean()
    beside = (gray[:, col + 8 : col + 11] < 0.5).any(axis=1).mean()
    assert dark > 0.3 and dark > 3 * beside + 0.1, (dark, beside)


def test_forest_plot_several_datasets_and_ax(comparisons, tmp_path):
    fig, ax = plt.subplots(figsize=(7, 4))
    out = plot_relative_precision(comparisons, ax=ax, annotate=False, log_scale=False)
    assert out is ax
    labels = [tick.get_text() for tick in ax.get_yticklabels()]
    assert labels == [
        "three, class 0",
        "three, class 1",
        "three, class 2",
        "binary, class 0",
        "binary, class 1",
    ]
    # One separator between the two data sets, no annotations.
    separators = [
        line
        for line in ax.get_lines()
        if line.get_ydata()[0] == line.get_ydata()[1] and line.get_color() == "0.85"
    ]
    assert len(separators) == 1
    assert not ax.texts
    assert ax.get_xscale() == "linear"
    _assert_not_blank(_render(ax, tmp_path / "forest2.png"))


def test_forest_plot_from_table_and_recall(comparisons):
    table = comparisons["binary"].table
    ax = plot_relative_precision(table)
    assert len(ax.get_yticks()) == 2
    from sklearn_precision_stats import compare_recall

    y, a, b = make_paired_predictions(500, precision=(0.7, 0.8), random_state=2)
    ax = plot_relative_precision(compare_recall(y, {"rf": b, "nb": a}))
    assert ax.get_xlabel().startswith("Relative recall")


def test_forest_plot_validation(comparisons):
    with pytest.raises(ValueError, match="PairedComparison"):
        plot_relative_precision([1, 2, 3])
    with pytest.raises(ValueError, match="not in the comparison"):
        plot_relative_precision(comparisons["three"], classifier="svm")
    with pytest.raises(ValueError, match="empty mapping"):
        plot_relative_precision({})


# --- replicability plot (Figure 3) --------------------------------------------


def _replicability_result():
    rng = np.random.default_rng(0)
    rows, tables = [], []
    for size in (600, 480, 240):
        for tsize in (0.2, 0.3, 0.4):
            outcomes = rng.random(10) < (0.3 + 0.5 * size / 600)
            rows += [
                {
                    "sample_size": size,
                    "test_size": tsize,
                    "repeat": r,
                    "pvalue": 0.01 if o else 0.5,
                    "defined": True,
                    "rejected": o,
                }
                for r, o in enumerate(outcomes)
            ]
            tables.append(
                {
                    "sample_size": size,
                    "sample_fraction": size / 600,
                    "test_size": tsize,
                    "n_experiments": 10,
                    "n_rejections": int(outcomes.sum()),
                    "rejection_rate": outcomes.mean(),
                    "replicability": replicability_score(outcomes),
                }
            )
    return ReplicabilityResult(
        0.9,
        0.2,
        pd.DataFrame(tables),
        pd.DataFrame(rows),
        test="gs",
        label=0,
        classifier="NB",
        reference="RF",
        alpha=0.05,
    )


def test_replicability_plot_png(tmp_path):
    res = _replicability_result()
    ax = res.plot()
    img = _render(ax, tmp_path / "replicability.png")
    _assert_not_blank(img)
    lines = ax.get_lines()
    assert len(lines) == 3  # one per sample size, largest first
    assert [line.get_label() for line in lines] == [
        "n = 600 (100%)",
        "n = 480 (80%)",
        "n = 240 (40%)",
    ]
    for line, size in zip(lines, (600, 480, 240), strict=False):
        rows = res.table[res.table["sample_size"] == size]
        np.testing.assert_allclose(line.get_xdata(), 100 * rows["test_size"])
        np.testing.assert_allclose(line.get_ydata(), rows["replicability"])
    assert ax.get_ylim()[1] <= 1.05
    assert "class 0" in ax.get_title() and "NB vs RF" in ax.get_title()
    assert len(ax.get_legend().get_texts()) == 3


def test_replicability_plot_with_rejection_rate_and_table():
    res = _replicability_result()
    fig, ax = plt.subplots()
    assert plot_replicability(res, ax=ax, rejection_rate=True) is ax
    dotted = [line for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert len(dotted) == 3
    ax2 = plot_replicability(res.table[["sample_size", "test_size", "replicability"]])
    assert len(ax2.get_lines()) == 3
    with pytest.raises(ValueError, match="rejection_rate"):
        plot_replicability(
            res.table[["sample_size", "test_size", "replicability"]], rejection_rate=True
        )
    with pytest.raises(ValueError, match="ReplicabilityResult"):
        plot_replicability(pd.DataFrame({"a": [1]}))


# --- power plot (Figure 1) ----------------------------------------------------


@pytest.fixture(scope="module")
def rates():
    return rejection_rates(
        ("gs", "z"),
        n_samples=[100, 1000],
        precision=[(0.7 * (1 + d / 100), 0.7) for d in (0, 5, 10, 15, 20)],
        correlation=0.4,
        n_simulations=300,
        random_state=0,
    )


def test_power_plot_png(rates, tmp_path):
    ax = plot_power(rates)
    img = _render(ax, tmp_path / "power.png")
    _assert_not_blank(img)
    curves = [line for line in ax.get_lines() if line.get_label().startswith(("GS", "Z"))]
    assert sorted(line.get_label() for line in curves) == [
        "GS, n = 100",
        "GS, n = 1000",
        "Z test, n = 100",
        "Z test, n = 1000",
    ]
    for line in curves:
        np.testing.assert_allclose(line.get_xdata(), [0, 5, 10, 15, 20], atol=1e-9)
    gs = next(line for line in curves if line.get_label() == "GS, n = 1000")
    expected = rates[
        (rates["test"] == "gs") & (rates["n_samples"] == 1000) & (rates["class"] == 1)
    ].sort_values("percent_difference")
    np.testing.assert_allclose(gs.get_ydata(), expected["rejection_rate"])
    level = [line for line in ax.get_lines() if line.get_label() == "alpha = 0.05"]
    assert len(level) == 1 and list(level[0].get_ydata()) == [0.05, 0.05]
    assert ax.get_xlabel() == "Difference in precision (%)"


def test_power_plot_options(rates):
    fig, ax = plt.subplots()
    assert plot_power(rates, ax=ax, label=0) is ax
    two_rho = rejection_rates(
        "gs",
        n_samples=200,
        precision=(0.75, 0.7),
        correlation=[0.0, 0.2, 0.4],
        n_simulations=100,
        random_state=0,
    )
    ax = plot_power(two_rho, x="correlation")
    assert ax.get_xlabel() == "Correlation between the classifiers"
    with pytest.raises(ValueError, match="not in rates"):
        plot_power(rates, label=5)
    three = rejection_rates(
        "gs", n_samples=200, precision=(0.75, 0.7), n_classes=3, n_simulations=50, random_state=0
    )
    with pytest.raises(ValueError, match="label is needed"):
        plot_power(three)
    with pytest.raises(ValueError, match="rejection_rates"):
        plot_power(rates.drop(columns="test"))


# --- import hygiene -----------------------------------------------------------


def test_package_import_does_not_import_matplotlib():
    code = (
        "import sys, sklearn_precision_stats as s; "
        "assert callable(s.plot_relative_precision); "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_comparison_plot_method_is_the_forest_plot(tmp_path):
    y, p1, p2 = make_paired_predictions(
        800, precision=(0.7, 0.8), prevalence=0.5, correlation=0.3, n_classes=2, random_state=0
    )
    result = compare_precision(y, {"ref": p1, "new": p2})
    fig, (left, right) = plt.subplots(1, 2)
    returned = result.plot(ax=left)
    plot_relative_precision(result, ax=right)
    assert returned is left

    # Same intervals drawn on both axes.
    def segments(ax):
        return sorted(
            tuple(np.round(np.asarray(line.get_xdata(), float), 12)) for line in ax.get_lines()
        )

    assert segments(left) == segments(right) and len(segments(left)) >= 2
    _assert_not_blank(_render(left, tmp_path / "plot.png"))


# ------------------------------------------------------------ awkward names


def _shown(text):
    """The text matplotlib draws for a Text artist (mathtext resolved)."""
    # _preprocess_math is what Text.draw uses: ``\$`` is a dollar sign,
    # an unescaped pair of ``$`` is mathtext.
    shown, is_math = text._preprocess_math(text.get_text())
    assert not is_math, text.get_text()
    return shown


@pytest.fixture(scope="module")
def odd_names():
    """Classes and classifiers whose names matplotlib reads as markup."""
    rng = np.random.default_rng(7)
    classes = np.array(["$0-$50", "$x_$", "plain"])
    y = rng.choice(classes, 900)
    preds = {}
    for name, p in (("_baseline", 0.2), ("$a$", 0.4), ("ref", 0.3)):
        pred = y.copy()
        noisy = rng.random(900) < p
        pred[noisy] = rng.choice(classes, noisy.sum())
        preds[name] = pred
    return y, preds


def test_forest_plot_shows_names_with_dollars_as_text(odd_names, tmp_path):
    y, preds = odd_names
    result = compare_precision(y, preds, reference="ref")
    ax = plot_relative_precision(result)
    _render(ax, tmp_path / "forest.png")  # "$x_$" as mathtext would not draw
    labels = [_shown(t) for t in ax.get_yticklabels()]
    assert labels == [
        f"class {c}: {k}"
        for c, k in zip(result.table["class"], result.table["classifier"], strict=True)
    ]
    assert _shown(ax.xaxis.label) == "Relative precision, classifier / ref (95% CI)"


def test_metric_forest_legend_keeps_underscore_names(odd_names, tmp_path):
    from sklearn_precision_stats import compare_metric
    from sklearn_precision_stats.plotting._forest import plot_metric_differences

    y, preds = odd_names
    result = compare_metric(y, preds, metric="f1", reference="ref")
    fig, ax = plt.subplots()
    (mine,) = ax.plot([0], [0], label="user's line")
    assert plot_metric_differences(result, ax=ax) is ax
    _render(ax, tmp_path / "metric.png")
    legend = [_shown(t) for t in ax.get_legend().get_texts()]
    # matplotlib leaves out labels starting with "_"; the classifier is shown.
    assert legend == ["user's line", "_baseline - ref", "$a$ - ref"]
    assert {_shown(t) for t in ax.get_yticklabels()} >= {"$0-$50: _baseline", "$x_$: $a$"}


def test_precision_recall_legend_keeps_underscore_names(tmp_path):
    from sklearn_precision_stats import compare_average_precision
    from sklearn_precision_stats.plotting import plot_precision_recall

    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 300)
    scores = {"_baseline": y + rng.normal(0, 1, 300), "$b$": y + rng.normal(0, 2, 300)}
    result = compare_average_precision(y, scores, n_resamples=50, random_state=0)
    ax = plot_precision_recall(result, 1)
    _render(ax, tmp_path / "pr.png")
    assert [_shown(t) for t in ax.get_legend().get_texts()] == ["_baseline", "$b$"]


def test_region_title_shows_a_numpy_label_as_the_tables_do():
    from sklearn_precision_stats.diagnostic import relative_predictive_values
    from sklearn_precision_stats.plotting import plot_predictive_value_region

    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 300)
    preds = {"rf": (y + (rng.random(300) < 0.2)) % 2, "nb": (y + (rng.random(300) < 0.3)) % 2}
    result = relative_predictive_values(y, preds)
    ax = plot_predictive_value_region(result, result.classes[1])
    assert _shown(ax.title) == "class 1"


def test_forest_plot_with_a_zero_bound_on_the_log_axis(tmp_path):
    # A precision of 0 gives a ratio (and bound) of 0, which a log axis
    # cannot show; the limits come from the other rows.
    table = pd.DataFrame(
        {
            "class": [0, 1],
            "ratio": [0.0, 1.2],
            "ratio_ci_low": [0.0, 0.9],
            "ratio_ci_high": [0.5, 1.5],
        }
    )
    ax = plot_relative_precision(table)
    _render(ax, tmp_path / "zero.png")
    low, high = ax.get_xlim()
    assert 0 < low < 0.5 and 1.5 < high < 2


def test_plots_on_a_given_ax_make_no_figure_and_leave_rcparams(comparisons, odd_names):
    from sklearn_precision_stats import compare_metric
    from sklearn_precision_stats.plotting._forest import plot_metric_differences

    y, preds = odd_names
    metric = compare_metric(y, preds, metric="f1", reference="ref")
    before = dict(matplotlib.rcParams)
    for draw in (
        lambda ax: plot_relative_precision(comparisons, ax=ax),
        lambda ax: plot_metric_differences(metric, ax=ax),
    ):
        fig, ax = plt.subplots()
        figures = plt.get_fignums()
        assert draw(ax) is ax
        assert plt.get_fignums() == figures
        assert dict(matplotlib.rcParams) == before


@pytest.mark.parametrize(
    ("low", "high", "n_ticks"), [(0.9999, 1.0001, 3), (1e-6, 1e6, 5), (0.8, 1.3, 5)]
)
def test_forest_plot_log_axis_has_distinct_ticks(low, high, n_ticks):
    table = pd.DataFrame(
        {"class": [0], "ratio": [1.0], "ratio_ci_low": [low], "ratio_ci_high": [high]}
    )
    ax = plot_relative_precision(table)
    ticks = ax.get_xticks()
    texts = [t.get_text() for t in ax.get_xticklabels()]
    assert len(ticks) >= n_ticks and len(set(texts)) == len(texts)
    lo, hi = ax.get_xlim()
    assert lo <= ticks.min() and ticks.max() <= hi
