"""Bad input gets a ValueError that names the argument and the fix."""

import re

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats import compare_precision, compare_recall

pytestmark = pytest.mark.filterwarnings("ignore::sklearn_precision_stats.UndefinedStatisticWarning")

Y = np.array([0, 1, 1, 0, 1, 2])
P = {"a": np.array([0, 1, 0, 0, 1, 2]), "b": np.array([1, 1, 1, 0, 0, 2])}


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(y_true=Y[:-1]), "y_preds\\['a'\\] has 6 rows but y_true has 5"),
        (dict(y_preds={"a": P["a"]}), "at least two classifiers"),
        (dict(y_preds=[P["a"], P["b"]]), "y_preds must be a dict"),
        (dict(y_preds={"a": P["a"], "b": P["b"][:3]}), "y_preds\\['b'\\] has 3 rows"),
        (dict(reference="c"), "reference='c' is not one of the classifiers"),
        (dict(labels=[0, 7]), "label 7 in labels does not occur"),
        (dict(labels=[0, 0]), "labels contains duplicates"),
        (dict(y_true=np.array([0, 1, np.nan, 0, 1, 2])), "y_true contains NaN"),
        (dict(y_true=np.ones((6, 2))), "y_true must be 1-D"),
        (dict(y_true=[], y_preds={"a": [], "b": []}), "y_true is empty"),
        (dict(confidence_level=1.5), "confidence_level"),
        (dict(engine="R"), "engine"),
        (dict(groups=[1, 2]), "groups has 2 entries but y_true has 6 rows"),
        (
            dict(groups=np.array([1, None, 2, 2, 3, 3], dtype=object)),
            "groups contains None or NaN at row 1; every row needs a record id",
        ),
        (
            dict(y_true=np.array(["a", None, "b", "a", "b", "a"], dtype=object)),
            "y_true has a missing label \\(NaN or None\\) at row 1",
        ),
        (dict(y_true=np.array([0, "x", 1, 0, 1, 2], dtype=object)), "mixes strings and numbers"),
    ],
)
@pytest.mark.parametrize("func", [compare_precision, compare_recall])
def test_bad_input_raises_clear_error(func, kwargs, match):
    args = dict(y_true=Y, y_preds=P)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        func(args.pop("y_true"), args.pop("y_preds"), **args)


def test_accepts_pandas_lists_and_column_vectors():
    base = compare_precision(Y, P, labels=[1])
    as_series = compare_precision(pd.Series(Y), {k: pd.Series(v) for k, v in P.items()}, labels=[1])
    as_list = compare_precision(Y.tolist(), [(k, v.tolist()) for k, v in P.items()], labels=[1])
    column = compare_precision(Y[:, None], {k: v[:, None] for k, v in P.items()}, labels=[1])
    for other in (as_series, as_list, column):
        pd.testing.assert_frame_equal(base.table, other.table)


def test_labels_select_and_order_classes():
    result = compare_precision(Y, P, labels=[2, 0])
    assert result.table["class"].tolist() == [2, 0]
    full = compare_precision(Y, P).table.set_index("class")
    np.testing.assert_allclose(
        result.table.set_index("class").loc[[2, 0], "precision"], full.loc[[2, 0], "precision"]
    )


def test_reference_is_first_column_of_comparison():
    result = compare_precision(Y, P, reference="b")
    assert result.reference == "b"
    assert set(result.table["classifier"]) == {"a"}
    assert result.classifiers == ("b", "a")


def test_get_and_getitem_errors():
    result = compare_precision(Y, P)
    with pytest.raises(KeyError, match="use one of"):
        result["auc"]
    with pytest.raises(KeyError, match=re.escape("Class 9 is not in this comparison")):
        result.get(9)
    with pytest.raises(ValueError, match="not a compared classifier"):
        result.get(1, "zzz")


@pytest.mark.parametrize("missing", [None, float("nan"), np.nan])
@pytest.mark.parametrize("where", ["y_true", "a"])
def test_missing_object_label_deep_in_a_large_array_names_the_row(missing, where):
    """Labels shared as objects (``classes_[indices]``) are encoded by address;
    a missing label past any sample of rows is still found, with its row."""
    labels = np.array(["cat", "dog", "emu"], dtype=object)
    rng = np.random.default_rng(0)
    y = labels[rng.integers(0, 3, 50_000)]
    a, b = labels[rng.integers(0, 3, 50_000)], labels[rng.integers(0, 3, 50_000)]
    target = y if where == "y_true" else a
    target[41_234] = missing
    name = "y_true" if where == "y_true" else r"y_preds\['a'\]"
    with pytest.raises(ValueError, match=rf"{name} has a missing label .* at row 41234"):
        compare_precision(y, {"ref": b, "a": a})
