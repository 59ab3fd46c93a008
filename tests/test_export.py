"""LaTeX and Markdown export of a comparison's tables."""

import re

import numpy as np
import pytest

from sklearn_precision_stats import compare_accuracy, compare_precision
from sklearn_precision_stats.results._export import to_latex, to_markdown

pytest.importorskip("jinja2")
pytest.importorskip("tabulate")


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    preds = {
        name: np.where(rng.random(300) < acc, y, rng.integers(0, 3, 300))
        for name, acc in (("rf", 0.8), ("nb", 0.6), ("svm", 0.7))
    }
    return compare_precision(y, preds, reference="rf")


def _cells(markdown_table):
    """Rows of cells of a pipe table, header first, the rule left out."""
    rows = []
    for line in markdown_table.splitlines():
        if set(line) <= set("|:- "):
            continue
        cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
        rows.append([c.strip().replace(r"\|", "|").replace(r"\*", "*") for c in cells])
    return rows


def _stars(p):
    return "*" * int((p < 0.05) + (p < 0.01) + (p < 0.001))


def test_markdown_has_the_summarys_numbers_and_exact_marks(result):
    text = to_markdown(result)
    blocks = text.split("\n\n")
    assert len(blocks) == 4  # tests, effects, omnibus, legend
    assert blocks[-1] == r"\* p < 0.05, \*\* p < 0.01, \*\*\* p < 0.001"
    summary = result.summary()
    table = result.table
    for block, frame in zip(blocks[:3], summary.tables[1:], strict=True):
        rows = _cells(block)
        assert rows[0] == [str(c).rstrip() for c in frame.columns]
        for row, (_, expected) in zip(rows[1:], frame.iterrows(), strict=True):
            for cell, value, column in zip(row, expected, frame.columns, strict=True):
                if column.startswith("P>") or column.endswith("pvalue"):
                    assert cell.rstrip("*") == str(value)
                else:
                    assert cell == str(value)
    # The marks follow the exact p-values, not the rounded text.
    tests = _cells(blocks[0])
    header = tests[0]
    for row, p in zip(tests[1:], table["gs_pvalue"], strict=True):
        cell = row[header.index("P>GS")]
        assert cell[len(cell.rstrip("*")) :] == _stars(p)
    assert any(row[header.index("P>GS")].endswith("***") for row in tests[1:])


def test_latex_escapes_and_wraps(result):
    text = to_latex(result, caption="Digits data", label="tab:digits")
    assert text.count(r"\begin{tabular}") == 3 and text.count(r"\toprule") == 3
    assert r"\label{tab:digits-effects}" in text
    assert r"\caption{Digits data. precision: tests. * p $<$ 0.05" in text
    # Specials are escaped: %, _, <, >, |.
    assert r"OR 95\% CI" in text and r"gs\_pvalue" in text
    assert r"P$>$$|$z$|$" in text and r"$<$0.0001***" in text
    assert "95% CI" not in text.replace(r"95\% CI", "")
    # Without caption or label: bare tabulars, no marks when asked.
    bare = to_latex(result, tables=["tests"], marks=None)
    assert r"\begin{table}" not in bare and "*" not in bare
    assert bare.count(r"\begin{tabular}") == 1


def test_intervals_follow_the_confidence_level(result):
    narrow = to_markdown(result, tables="effects", confidence_level=0.5)
    assert "RP 50% CI" in narrow
    summary_text = result.summary(confidence_level=0.5).as_text()
    interval = re.search(r"\(\S+, \S+\)", narrow).group(0)
    assert interval in summary_text


def test_pooled_accuracy_and_errors(result):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 100)
    acc = compare_accuracy(
        y,
        {
            "a": np.where(rng.random(100) < 0.9, y, 1 - y),
            "b": np.where(rng.random(100) < 0.7, y, 1 - y),
        },
    )
    text = to_markdown(acc)
    assert len(_cells(text.split("\n\n")[0])) == 2  # header and one pooled row
    with pytest.raises(ValueError, match="omnibus tests need three or more"):
        to_latex(acc, tables="omnibus")
    with pytest.raises(ValueError, match="tables must name some of"):
        to_markdown(result, tables="main")
    with pytest.raises(ValueError, match="marks must be decreasing"):
        to_markdown(result, marks=(0.01, 0.05))
