"""The precision-recall bands and the forest plot of threshold-free comparisons."""

import numpy as np
import pytest
from sklearn.metrics import precision_recall_curve

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sklearn_precision_stats import (  # noqa: E402
    compare_average_precision,
    compare_roc_auc,
    plot_precision_recall,
)

from .conftest import make_scores  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_curves_are_the_interpolated_precision_of_sklearn_curve():
    y, scores = make_scores(300)
    result = compare_average_precision(y, scores, n_resamples=100, random_state=0)
    grid = result.curves["recall"]
    for j, name in enumerate(result.classifiers):
        for k in range(3):
            p, r, _ = precision_recall_curve(y == k, scores[name][:, k])
            expected = [p[r >= level].max() for level in grid]
            np.testing.assert_allclose(result.curves["precision"][j, k], expected, atol=1e-12)
    low, high = result.curves["low"], result.curves["high"]
    assert low.shape == high.shape == (3, 3, grid.shape[0])
    assert (low <= high).all()


def test_plot_precision_recall_draws_curves_and_bands():
    y, scores = make_scores(300)
    result = compare_average_precision(y, scores, n_resamples=100, random_state=0)
    ax = plot_precision_recall(result, 1)
    assert len(ax.get_lines()) == 3
    assert len(ax.collections) == 3  # one band per classifier
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "c"]
    with pytest.raises(ValueError, match="label is needed"):
        plot_precision_recall(result)
    with pytest.raises(ValueError, match="not a class"):
        plot_precision_recall(result, 7)


def test_plot_precision_recall_needs_curves():
    y, scores = make_scores(300)
    with pytest.raises(ValueError, match="no precision-recall curves"):
        plot_precision_recall(compare_roc_auc(y, scores))


def test_forest_plot_one_row_per_class_and_classifier():
    y, scores = make_scores(300)
    result = compare_average_precision(y, scores, n_resamples=100, random_state=0)
    ax = result.plot()
    table = result.table
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == table.shape[0] == 6
    # The points are the differences, top row first.
    points = np.concatenate(
        [line.get_xdata() for line in ax.get_lines() if line.get_marker() == "o"]
    )
    np.testing.assert_allclose(np.sort(points), np.sort(table["diff"].to_numpy()))
    assert "average_precision" in ax.get_xlabel()
