"""Markdown and LaTeX export of names holding markup characters, NaN
values and p-values too small to print.

The Markdown is read back by markdown-it-py (a CommonMark parser with
GitHub's tables), an implementation independent of the writer: every name
must come back as itself, not as emphasis, a link, code or a split cell.
"""

import html
import re
import warnings

import numpy as np
import pytest

from sklearn_precision_stats import compare_metric, compare_precision
from sklearn_precision_stats.__main__ import main
from sklearn_precision_stats.results._export import _LATEX_SPECIALS

pytest.importorskip("jinja2")
pytest.importorskip("tabulate")

# Class and classifier names with characters that mean something in
# Markdown or LaTeX.
CLASSES = ["_a_", "*b*", "c\\|d", "e\\f", "<g>", "`h`", "[i](j)", "k~~l~~", "50% & $x$", "#{m}"]
CLASSIFIERS = ["x_1_", "|b|", "R&D [v2]"]


def _rendered_cells(markdown):
    markdown_it = pytest.importorskip("markdown_it")
    parser = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    rendered = parser.render(markdown)
    tables = re.findall(r"<table>(.*?)</table>", rendered, flags=re.S)
    out = []
    for table in tables:
        rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
        out.append(
            [
                [html.unescape(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
                for row in rows
            ]
        )
    return out


@pytest.fixture(scope="module")
def names_data():
    rng = np.random.default_rng(0)
    n = 600
    y = rng.choice(CLASSES, n)
    preds = {}
    for name, p in zip(CLASSIFIERS, (0.2, 0.4, 0.3), strict=True):
        pred = y.copy()
        noisy = rng.random(n) < p
        pred[noisy] = rng.choice(CLASSES, noisy.sum())
        preds[name] = pred
    return y, preds


@pytest.fixture(
    scope="module",
    params=["precision", "f1"],
)
def result(request, names_data):
    y, preds = names_data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if request.param == "precision":
            return compare_precision(y, preds, reference=CLASSIFIERS[0])
        return compare_metric(y, preds, metric="f1", reference=CLASSIFIERS[0])


def test_markdown_shows_every_name_as_itself(result):
    tables = _rendered_cells(result.to_markdown(marks=None))
    # Per class and classifier (two tables for precision), then the omnibus.
    assert len(tables) == (3 if "gs_pvalue" in result.table else 2)
    for rows in tables:
        header, body = rows[0], rows[1:]
        assert header[0] == "class"
        assert {row[0] for row in body} == set(CLASSES)
        if "classifier" in header:
            assert [row[1] for row in body] == result.table["classifier"].tolist()


def test_markdown_column_names_and_marks_survive(result):
    rows = _rendered_cells(result.to_markdown())[0]
    assert "P>|z|" in rows[0] or "P>GS" in rows[0]
    pvalues = [cell for row in rows[1:] for cell in row if cell.endswith("*")]
    assert pvalues and all(not cell.startswith("\\") for cell in pvalues)


def _unescape_latex(text):
    reverse = sorted(
        ((c, e) for c, e in _LATEX_SPECIALS.items() if c not in "\r\n"),
        key=lambda item: -len(item[1]),
    )
    out, i = [], 0
    while i < len(text):
        for char, escaped in reverse:
            if escaped and text.startswith(escaped, i):
                out.append(char)
                i += len(escaped)
                break
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def test_latex_cells_round_trip_and_rows_never_open_with_a_bracket(result):
    latex = result.to_latex(marks=None)
    body = re.findall(r"\\midrule\n(.*?)\\bottomrule", latex, flags=re.S)
    assert body
    for block in body:
        for line in block.strip().splitlines():
            assert line.endswith(r" \\")
            # \\ followed by [ would be read as the row's spacing argument.
            assert not line.startswith("[")
            cells = line[: -len(r" \\")].split(" & ")
            assert _unescape_latex(cells[0]) in CLASSES
            # No special character is left unescaped in a cell.
            for cell in cells:
                stripped = re.sub(r"\\textbackslash\{\}|\\textasciitilde\{\}|\\[&%$#_{}]", "", cell)
                stripped = stripped.replace("$<$", "").replace("$>$", "").replace("$|$", "")
                stripped = stripped.replace("{[}", "").replace("{]}", "")
                assert not re.search(r"[&%$#_{}\\\[\]]", stripped), cell


def test_latex_caption_escapes_the_measure_name():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    preds = {name: np.where(rng.random(300) < p, y, 1 - y) for name, p in (("a", 0.8), ("b", 0.7))}
    result = compare_metric(y, preds, metric="balanced_accuracy")
    captions = re.findall(r"\\caption\{(.*)\}", result.to_latex(caption="Table"))
    assert captions and all(r"balanced\_accuracy" in c for c in captions)
    assert all("balanced_accuracy" not in c for c in captions)


def test_tiny_and_undefined_pvalues():
    # One class is predicted perfectly by both (undefined tests), one class
    # differs hugely (p-value far below 1e-300, printed as <0.0001).
    y = np.array([0] * 5000 + [1] * 5000)
    a = y.copy()
    b = y.copy()
    b[:3000] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare_precision(y, {"a": a, "b": b}, reference="a")
    assert result.table["gs_pvalue"].iloc[1] < 1e-300
    assert np.isnan(result.table["wald_pvalue"]).all()
    rows = _rendered_cells(result.to_markdown(tables="tests"))[0]
    header = rows[0]
    cell = dict(zip(header, rows[2], strict=True))
    assert cell["P>GS"] == "<0.0001***"
    assert cell["P>Wald"] == "nan"  # no marks on an undefined p-value
    latex = result.to_latex(tables="tests")
    assert r"$<$0.0001***" in latex and "nan***" not in latex


def test_cli_markdown_tables_escape_names(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    import pandas as pd

    rng = np.random.default_rng(2)
    n = 200
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "truth": y,
            "_x_": np.where(rng.random(n) < 0.8, y, 1 - y),
            "a|b": np.where(rng.random(n) < 0.6, y, 1 - y),
        }
    )
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    code = main(["mcnemar", str(path), "--truth", "truth", "--format", "markdown"])
    out = capsys.readouterr().out
    assert code == 0
    rows = _rendered_cells(out)[0]
    cell = dict(zip(rows[0], rows[1], strict=True))
    assert cell["classifier_a"] == "_x_" and cell["classifier_b"] == "a|b"


@pytest.mark.parametrize("digits", [2.5, True, -1])
def test_metric_comparison_export_checks_digits(result, digits):
    for export in (result.summary, result.to_markdown, result.to_latex):
        with pytest.raises(ValueError, match="digits must be a non-negative integer"):
            export(digits=digits)


@pytest.mark.parametrize("option", ["caption", "label"])
def test_latex_caption_and_label_must_be_text(result, option):
    with pytest.raises(ValueError, match=f"{option} must be a str or None"):
        result.to_latex(**{option: 5})


def test_latex_caption_is_text(result):
    # As in the user guide's example: a % would comment out the rest.
    latex = result.to_latex(caption="Digits, 30% test split & {x}_1", label="tab:digits")
    captions = re.findall(r"\\caption\{(.*)\}", latex)
    assert captions
    for caption in captions:
        assert caption.startswith(r"Digits, 30\% test split \& \{x\}\_1. ")


@pytest.mark.parametrize("tables", [5, [], ()])
def test_export_tables_must_name_a_table(tables, names_data):
    y, preds = names_data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare_precision(y, preds)
    for export in (result.to_markdown, result.to_latex):
        with pytest.raises(ValueError, match="tables must name one or more of"):
            export(tables=tables)


@pytest.mark.parametrize("marks", [(0.05, 0.05), (0.01, 0.05), (0.05, 1.0), (0.05, np.nan)])
def test_marks_must_be_strictly_decreasing_levels(result, marks):
    with pytest.raises(ValueError, match="marks must be decreasing significance levels"):
        result.to_markdown(marks=marks)
