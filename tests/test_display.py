"""How results show themselves: summary text, notebook HTML and reprs."""

import io
import re
import warnings

import numpy as np
import pytest

from sklearn_precision_stats import compare_accuracy, compare_npv, compare_precision
from sklearn_precision_stats.engine._accumulator import ComparisonCounts


def _predictions(n_classifiers, n=400, n_classes=4, seed=0, names=None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    names = names or [f"clf{i}" for i in range(n_classifiers)]
    accuracies = np.linspace(0.9, 0.6, n_classifiers)
    preds = {
        name: np.where(rng.random(n) < acc, y, rng.integers(0, n_classes, n))
        for name, acc in zip(names, accuracies, strict=True)
    }
    return y, preds


def _rule_widths(text):
    return [len(line) for line in text.splitlines() if line and set(line) <= set("=-")]


@pytest.mark.parametrize("n_classifiers", [2, 3])
@pytest.mark.parametrize("function", [compare_precision, compare_npv, compare_accuracy])
@pytest.mark.parametrize("digits", [0, 1, 4, 7])
def test_summary_rules_have_one_width(function, n_classifiers, digits):
    y, preds = _predictions(
        n_classifiers, names=["rf", "nb", "a_long_classifier_name"][:n_classifiers]
    )
    result = function(y, preds)
    widths = _rule_widths(result.summary(digits=digits).as_text())
    assert len(widths) >= 4
    assert len(set(widths)) == 1, widths


def test_demo_summary_rules_have_one_width():
    from sklearn_precision_stats.__main__ import demo

    stream = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        demo(stream=stream)
    summary = stream.getvalue().split("Paired comparison of precision")[1]
    widths = _rule_widths(summary)
    assert len(widths) >= 6 and len(set(widths)) == 1, widths


def test_summary_digits():
    y, preds = _predictions(2)
    result = compare_precision(y, preds)
    text = result.summary(digits=0).as_text()
    # 0 significant digits are shown as 1, intervals too.
    assert re.search(r"\(-?\d(\.\d)?(e[-+]\d+)?, -?\d(\.\d)?(e[-+]\d+)?\)", text)
    assert result.summary(digits=np.int64(2)).as_text() != text
    for bad in (-1, 2.5, True, "4"):
        with pytest.raises(ValueError, match="digits must be a non-negative integer"):
            result.summary(digits=bad)


def test_export_columns_are_not_padded():
    from sklearn_precision_stats.results._export import summary_frames

    y, preds = _predictions(3, names=["rf", "nb", "a_long_classifier_name"])
    result = compare_precision(y, preds)
    frames = summary_frames(result)
    assert set(frames) == {"tests", "effects", "omnibus"}
    for frame in frames.values():
        assert frame.columns[0] == "class"
        assert all(name == name.strip() for name in frame.columns)
    with pytest.raises(ValueError, match="digits"):
        summary_frames(result, digits=-2)


def test_paired_comparison_html():
    y, preds = _predictions(3, names=["rf", "nb", "<b>svm</b>"])
    result = compare_precision(y, preds, confidence_level=0.9, cov_type="bias_reduced")
    page = result._repr_html_()
    for text in (
        "precision",
        "rf",
        "nb",
        "&lt;b&gt;svm&lt;/b&gt;",  # names are escaped
        "Records",
        f"{result.n_records}",
        "90%",
        "bias_reduced",
        "Omnibus",
    ):
        assert text in page, text
    assert "<b>svm</b>" not in page
    tables = page.split("<table")[1:]
    assert len(tables) == 3  # header, per-class table, omnibus tests
    per_class, omnibus = tables[1], tables[2]
    # A compact table: far fewer columns than the full one.
    assert per_class.count("<th>") <= 10 < len(result.table.columns)
    assert per_class.count("<tr") == 1 + len(result.table)
    assert omnibus.count("<tr") == 1 + len(result.omnibus)
    assert "P&gt;Wald" in omnibus


def test_comparison_counts_display():
    y = np.array([0, 1, 1, 0, 1, 2])
    a = np.array([0, 1, 0, 0, 1, 2])
    b = np.array([1, 1, 1, 0, 0, 0])
    counts = ComparisonCounts.from_arrays(y, {"a": a, "b": b})
    assert repr(counts) == (
        "ComparisonCounts(classifiers=['a', 'b'], classes=[0, 1, 2], n_rows=6, "
        "n_records=6, clustered=False)"
    )
    page = counts._repr_html_()
    assert "<table" in page and "one row each" in page
    # Rows right: a gets 5 of 6, b 3 of 6.
    assert "<td>a</td><td>5</td><td>0.8333</td>" in page
    assert "<td>b</td><td>3</td><td>0.5</td>" in page
    clustered = ComparisonCounts.from_arrays(y, {"a": a, "b": b}, groups=[0, 0, 1, 1, 2, 2])
    assert "n_records=3, clustered=True" in repr(clustered)
    assert "3 (clustered rows)" in clustered._repr_html_()
    empty = ComparisonCounts(["a", "b"])
    assert "classes=[]" in repr(empty) and "nan" in empty._repr_html_()
    many = ComparisonCounts.from_arrays(np.arange(20), {"a": np.arange(20), "b": np.zeros(20, int)})
    assert "classes=[0, 1, 2, 3, 4, '...']" in repr(many)
