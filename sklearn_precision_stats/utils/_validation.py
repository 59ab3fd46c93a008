"""Input validation shared by the comparison functions and estimators."""

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = []


def _shown(value, limit=80):
    """`value`'s repr for an error message, or its type when the repr is long."""
    text = repr(value)
    if len(text) > limit or "\n" in text:
        return f"an object of type {type(value).__name__}"
    return text


def _check_alpha(alpha):
    if not isinstance(alpha, (int, float, np.floating)) or not 0 < alpha < 1:
        raise ValueError(
            f"alpha must be a number strictly between 0 and 1, got {_shown(alpha)}; "
            "use e.g. alpha=0.05 for 95% confidence intervals."
        )
    return float(alpha)


def _check_integer(value, name, minimum, hint=""):
    """`value` as an int, or a ValueError naming `name`, its minimum and a hint."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {_shown(value)}{hint}.")
    return int(value)


def _as_label_array(values, name, for_encoder=False):
    """Return `values` as a 1-D NumPy array of labels, with a clear error.

    `for_encoder=True` is for callers that encode the labels with the
    engine's label encoder: None and NaN among object labels are left to it
    (it rejects them naming the row, after finding the distinct objects,
    which is far cheaper than testing every row here), and pandas
    categoricals and string arrays are returned as pandas arrays, whose
    codes it reads without making a Python object per row.
    """
    if values is None:
        raise ValueError(f"{name} is None; pass an array-like of class labels.")
    columns = None if isinstance(values, Mapping) else _dataframe_columns(values)
    if isinstance(values, Mapping) or (columns is not None and len(columns) != 1):
        hint = (
            "; the predictions of several classifiers go in y_preds (the second argument)"
            if name == "y_true"
            else ""
        )
        raise ValueError(
            f"{name} must be one array of labels (one per row), got a "
            f"{type(values).__name__}{hint}."
        )
    if type(values).__module__.startswith("pyarrow"):
        values = _from_arrow(values, name, for_encoder)
    if for_encoder:
        array = values.array if isinstance(values, (pd.Series, pd.Index)) else values
        if isinstance(array, pd.Categorical) or (
            isinstance(array, pd.api.extensions.ExtensionArray)
            and isinstance(array.dtype, pd.StringDtype)
        ):
            return array
    # pandas Categorical and Series are accepted; a 1-D array is not copied,
    # which matters for 10^7-record inputs.
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    try:
        arr = np.asarray(values)
    except Exception as exc:  # ragged nested sequences and the like
        raise ValueError(f"{name} could not be converted to an array: {exc}") from exc
    if arr.ndim == 2 and arr.shape[1] == 1:
        # A column vector, as scikit-learn's column_or_1d accepts.
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D (one label per row), got an array of shape "
            f"{arr.shape}; for probabilities or one-hot scores, pass the "
            "predicted labels instead (e.g. estimator.predict(X))."
        )
    what = "a record id" if name == "groups" else "a true and a predicted label"
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(
            f"{name} contains NaN at row {int(np.argmax(np.isnan(arr)))}; every row "
            f"needs {what}. Drop or fill the rows with missing values first."
        )
    if arr.dtype.kind == "O" and not for_encoder:
        # None or NaN among object labels cannot be ordered or compared.
        mask = pd.isna(arr)
        if mask.any():
            raise ValueError(
                f"{name} contains None or NaN at row {int(np.argmax(mask))}; "
                f"every row needs {what}. Drop or fill the rows with missing values first."
            )
    if arr.dtype.kind == "c":
        raise ValueError(
            f"{name} has complex values; class labels must be "
            "integers, strings or other hashable values."
        )
    return arr


def _from_arrow(values, name, for_encoder):
    """A pyarrow array or chunked array as labels `_as_label_array` reads.

    Numbers and booleans become a NumPy array. Strings (of any width) and
    dictionary-encoded arrays are read through their dictionary codes: a
    pandas Categorical for the engine's encoder, which then makes no Python
    object per row, else a NumPy array of the labels. Dictionary entries no
    row uses are dropped, so they do not become classes.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        raise ValueError(
            f"{name} must be a 1-D array of labels, got a pyarrow {type(values).__name__}; "
            "pass one column (e.g. table.column('y'))."
        )
    if values.null_count:
        row = int(pc.index(pc.is_null(values), True).as_py())
        raise ValueError(
            f"{name} has a missing label at row {row}; every row needs a label. "
            "Drop or impute the rows with missing labels first."
        )
    if not pa.types.is_dictionary(values.type):
        # string_view exists from pyarrow 16 on.
        is_view = getattr(pa.types, "is_string_view", lambda _: False)
        string_types = (pa.types.is_string, pa.types.is_large_string, is_view)
        if not any(is_type(values.type) for is_type in string_types):
            return values.to_numpy(zero_copy_only=False)
        values = values.dictionary_encode()
    codes = values.indices.to_numpy(zero_copy_only=False).astype(np.intp, copy=False)
    categories = values.dictionary.to_numpy(zero_copy_only=False)
    used = np.bincount(codes, minlength=len(categories)).astype(bool)
    if not used.all():
        codes = (np.cumsum(used) - 1)[codes]
        categories = categories[used]
    if for_encoder:
        return pd.Categorical.from_codes(codes, categories=pd.Index(categories))
    return categories[codes]


def _dataframe_columns(obj):
    """(column name, column) pairs of a pandas, polars or pyarrow table, else None."""
    if isinstance(obj, pd.DataFrame):
        return list(obj.items())
    module = type(obj).__module__
    if module.startswith("polars") and hasattr(obj, "get_columns"):
        return [(column.name, column) for column in obj.get_columns()]
    if module.startswith("pyarrow") and hasattr(obj, "column_names"):
        return list(zip(obj.column_names, obj.columns, strict=True))
    return None


def _prediction_pairs(obj, name="y_preds"):
    """(name, predictions) pairs from a dict, a list of pairs or a DataFrame.

    A DataFrame (pandas, polars or a pyarrow Table) holds one column per
    classifier, named by its column.
    """
    if isinstance(obj, Mapping):
        return list(obj.items())
    if isinstance(obj, (list, tuple)) and all(
        isinstance(item, tuple) and len(item) == 2 for item in obj
    ):
        return list(obj)
    columns = _dataframe_columns(obj)
    if columns is not None:
        return columns
    raise ValueError(f"{name} must be {_PREDICTIONS_EXPECTED}; got {type(obj).__name__}.")


_PREDICTIONS_EXPECTED = (
    "a dict mapping classifier name to predicted labels (e.g. {'nb': "
    "nb.predict(X), 'rf': rf.predict(X)}), a list of (name, predictions) "
    "pairs or a DataFrame with one column of predictions per classifier"
)


def _named_items(obj, name, expected, fix):
    """(name, value) pairs from a dict or a list of pairs; at least two.

    Used for the comparators' ``estimators``, which accept the same two
    forms as :class:`sklearn.ensemble.VotingClassifier`.
    """
    if isinstance(obj, Mapping):
        items = list(obj.items())
    elif isinstance(obj, (list, tuple)) and all(
        isinstance(item, tuple) and len(item) == 2 for item in obj
    ):
        items = list(obj)
    else:
        raise ValueError(f"{name} must be {expected}; got {type(obj).__name__}.")
    return _check_named(items, name, fix)


def _check_named(items, name, fix):
    """`items` when they hold at least two (name, value) pairs of unique names."""
    if len(items) < 2:
        raise ValueError(
            f"{name} must hold at least two classifiers to compare, got {len(items)}; {fix}."
        )
    names = [key for key, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"the names in {name} must be unique, got {names}.")
    return items


def _check_predictions(y_true, y_preds, reference, for_encoder=False, groups=None):
    """Validate `y_true` and the mapping of classifier name -> predictions.

    `for_encoder`: see :func:`_as_label_array`. `groups` (checked by
    :func:`_check_groups`) is only checked here for an index that pairs it
    with other rows than `y_true` and the predictions.

    Returns
    -------
    y_true : ndarray of shape (n_rows,)
    names : list of str
        Classifier names with the reference first.
    preds : list of ndarray
        Predictions in the order of `names`.
    """
    raw_y_true = y_true
    y_true = _as_label_array(y_true, "y_true", for_encoder)
    items = _check_named(
        _prediction_pairs(y_preds), "y_preds", "add the predictions of a reference classifier"
    )
    names = [name for name, _ in items]
    _check_aligned_indexes(
        y_true=raw_y_true, groups=groups, **{f"y_preds[{n!r}]": p for n, p in items}
    )
    if y_true.shape[0] == 0:
        raise ValueError("y_true is empty; at least one row is needed.")
    preds = []
    for name, pred in items:
        pred = _as_label_array(pred, f"y_preds[{name!r}]", for_encoder)
        if pred.shape[0] != y_true.shape[0]:
            raise ValueError(
                f"y_preds[{name!r}] has {pred.shape[0]} rows but y_true has "
                f"{y_true.shape[0]}; every classifier must predict every row "
                "of y_true, in the same order."
            )
        preds.append(pred)
    order = reference_order(names, reference)
    return y_true, [names[i] for i in order], [preds[i] for i in order]


def reference_order(names, reference):
    """Positions of `names` with the reference first (the first name if None)."""
    if reference is None:
        ref_index = 0
    elif reference in names:
        ref_index = names.index(reference)
    else:
        raise ValueError(
            f"reference={_shown(reference)} is not one of the classifiers "
            f"{names}; pass one of these names or None for the first."
        )
    return [ref_index] + [i for i in range(len(names)) if i != ref_index]


def _check_groups(groups, n_rows):
    if groups is None:
        return None
    groups = _as_label_array(groups, "groups")
    if groups.shape[0] != n_rows:
        raise ValueError(
            f"groups has {groups.shape[0]} entries but y_true has {n_rows} rows; "
            "pass one record id per row (the record each row predicts)."
        )
    return groups


def _check_aligned_indexes(**named_arrays):
    """Raise when pandas arguments that are paired row by row have different indexes.

    The functions pair their arguments by position. A Series or DataFrame
    whose index is ordered differently from another argument's would then
    be paired with the wrong rows without a word, so indexes that differ
    (in values or order) are an error; plain arrays and lists carry no
    index and are not checked. Keyword names are the argument names used
    in the message; None values are skipped.
    """
    indexed = [
        (name, value.index)
        for name, value in named_arrays.items()
        if isinstance(value, (pd.Series, pd.DataFrame))
    ]
    if len(indexed) < 2:
        return
    first_name, first = indexed[0]
    for name, index in indexed[1:]:
        if not first.equals(index):
            raise ValueError(
                f"{first_name} and {name} are pandas objects with different "
                "indexes; their rows are paired by position, which would pair "
                "different records. Align them first, e.g. "
                f"{name} = {name}.reindex({first_name}.index), or pass "
                "NumPy arrays (.to_numpy()) if the positions already match."
            )
