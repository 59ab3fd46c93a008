"""Label encoding by hashing, chunk by chunk, without sorting records.

Every statistic of a comparison is a function of counts over (true label,
prediction, ...) cells, so records only need integer *codes*. Codes are
given in order of discovery: they stay the same when later chunks bring new
labels, which is what lets counts computed chunk by chunk (or on Dask
partitions) be added. The sorted order of the labels, used for reporting, is
a permutation of the codes applied to the small count tables at the end.

Each array is factorised into local codes and its distinct labels, which a
dictionary of the labels seen maps to the global codes:

* numbers and objects: :func:`pandas.factorize`, pandas' compiled hash
  table (scikit-learn and NumPy only offer sorting encoders);
* pyarrow arrays and pandas categoricals: their own dictionary codes;
* fixed-width NumPy strings (``dtype "<U..."``) and object arrays of a few
  shared objects (a classifier's ``classes_[indices]``): an integer key per
  row that :func:`pandas.factorize` hashes without making or reading a
  Python object per row (the two hand-written steps, each with its measured
  gain at its definition).

Labels follow scikit-learn's target rules (:func:`sklearn.utils.multiclass.type_of_target`):
a mix of strings and numbers, missing values (NaN, None), infinities and
continuous floats (values that are not integral, such as
``predict_proba`` output) are rejected with a ValueError naming the argument
and the fix.
"""

from __future__ import annotations

import ctypes
import math
import numbers

import numpy as np
import pandas as pd

__all__ = []

# Fixed-width strings whose varying characters allow more combinations than
# this go to pandas.factorize of the strings (one 64-bit key cannot hold them).
_MAX_STRING_KEYS = 2**62
# Object arrays whose sample of rows holds fewer distinct objects than this
# are hashed by address.
_MAX_SHARED_OBJECTS = 4096
_SAMPLE = 4096
# Rows of fixed-width strings read at a time (their key stays in the cache).
_SLICE_ROWS = 2**15
_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min


def _describe(name):
    return name if name else "the labels"


class StreamingLabelEncoder:
    """Encode class labels as stable integer codes, one chunk at a time.

    Codes are assigned in order of discovery (within a chunk, in sorted
    order of the new labels), so the codes of labels already seen never
    change when a later chunk is encoded.

    Attributes
    ----------
    values : ndarray of shape (n_values,)
        The label of each code.
    order : ndarray of shape (n_values,)
        Permutation of the codes that sorts the labels:
        ``values[order]`` is sorted.
    n_values : int
        Number of distinct labels seen.

    Examples
    --------
    >>> from sklearn_precision_stats.engine._labels import StreamingLabelEncoder
    >>> enc = StreamingLabelEncoder()
    >>> y, p = enc.encode(["b", "a", "b"], ["a", "a", "c"], names=("y_true", "y_pred"))
    >>> y.tolist(), p.tolist()
    ([1, 0, 1], [0, 0, 2])
    >>> enc.encode(["d", "a"])[0].tolist()
    [3, 0]
    >>> enc.values.tolist(), enc.order.tolist()
    (['a', 'b', 'c', 'd'], [0, 1, 2, 3])
    """

    def __init__(self):
        self._lookup = {}  # label (Python scalar) -> code
        self._labels = []  # label of each code
        self._kind = None  # "num", "str" or a NumPy dtype kind
        self._first_name = None  # argument that fixed the kind, for messages
        self._num_dtypes = []
        self._str_object = False
        self._values_cache = None

    # ------------------------------------------------------------------ API
    @property
    def n_values(self) -> int:
        return len(self._labels)

    @property
    def values(self) -> np.ndarray:
        if self._values_cache is None or len(self._values_cache) != len(self._labels):
            self._values_cache = self._build_values()
        return self._values_cache

    @property
    def order(self) -> np.ndarray:
        try:
            return np.argsort(self.values, kind="stable").astype(np.intp, copy=False)
        except TypeError:  # labels without an order (arbitrary objects)
            return np.arange(self.n_values, dtype=np.intp)

    def encode(self, *arrays, names=None) -> list:
        """Codes of each array, extending the vocabulary with new labels.

        Parameters
        ----------
        *arrays : array-like of shape (n_rows,)
            Label arrays (NumPy, pandas, pyarrow or lists).
        names : sequence of str, default=None
            Argument name of each array, used in error messages.

        Returns
        -------
        list of ndarray of intp
            One code array per input.
        """
        if names is None:
            names = [None] * len(arrays)
        if len(names) != len(arrays):
            raise ValueError("names must have one entry per array.")
        return [self._encode_one(arr, name) for arr, name in zip(arrays, names, strict=True)]

    def codes_of(self, labels, name="labels") -> np.ndarray:
        """Codes of given labels, which must all have been seen."""
        codes = []
        for label in np.asarray(labels).tolist():
            code = self._lookup.get(self._key(label))
            if code is None:
                raise ValueError(
                    f"label {label!r} in {name} does not occur in the data; the "
                    f"classes present are {self.values[self.order].tolist()}. "
                    f"Remove it from {name}."
                )
            codes.append(code)
        return np.asarray(codes, dtype=np.intp)

    def merge(self, other: StreamingLabelEncoder, name=None) -> np.ndarray:
        """Add `other`'s labels; return the codes here of `other`'s codes.

        `name` describes `other`'s labels in error messages.
        """
        if other.n_values == 0:
            return np.empty(0, dtype=np.intp)
        return self._encode_one(other.values, name)

    def checkpoint(self) -> tuple:
        """The state to :meth:`restore` when an encoding fails part-way.

        Codes are only ever added, so the state is the number of labels and
        the few attributes the labels' type sets.
        """
        return (
            len(self._labels),
            len(self._num_dtypes),
            self._kind,
            self._first_name,
            self._str_object,
        )

    def restore(self, state: tuple) -> None:
        """Forget the labels added since :meth:`checkpoint` gave `state`."""
        n_labels, n_dtypes, self._kind, self._first_name, self._str_object = state
        for label in self._labels[n_labels:]:
            del self._lookup[label]
        del self._labels[n_labels:]
        del self._num_dtypes[n_dtypes:]
        self._values_cache = None

    # ------------------------------------------------------------ internals
    @staticmethod
    def _key(label):
        if isinstance(label, (bool, np.bool_)):
            return int(label)
        if isinstance(label, numbers.Integral):
            return int(label)
        if isinstance(label, numbers.Real):
            value = float(label)
            return int(value) if value.is_integer() else value
        if isinstance(label, np.str_):
            return str(label)
        return label

    def _build_values(self):
        labels = self._labels
        if self._kind == "num":
            dtype = _common_numeric_dtype(self._num_dtypes, labels)
            return np.array(labels, dtype=dtype)
        if self._kind == "str" and not self._str_object and labels:
            return np.array(labels)
        out = np.empty(len(labels), dtype=object)
        out[:] = labels
        return out

    def _set_kind(self, kind, name):
        if self._kind is None:
            self._kind, self._first_name = kind, name
        elif self._kind != kind:
            what = {"num": "numbers", "str": "strings", "O": "other objects"}
            # The same name twice: a later chunk of the same argument.
            first = _describe(self._first_name)
            first = f"an earlier chunk's {first}" if name == self._first_name else first
            raise ValueError(
                f"{_describe(name)} holds {what.get(kind, kind)} but "
                f"{first} holds {what.get(self._kind, self._kind)}; "
                "labels must be of one type. Convert them all to str or all to int "
                "(e.g. y.astype(str))."
            )

    def _add(self, keys):
        """Codes of the (new or known) label keys, adding the new ones in sorted order."""
        lookup = self._lookup
        new = set(keys).difference(lookup)
        if new:
            try:
                new = sorted(new)
            except TypeError:  # labels without an order: in order of appearance
                new = [k for k in dict.fromkeys(keys) if k in new]
            start = len(self._labels)
            lookup.update(zip(new, range(start, start + len(new)), strict=True))
            self._labels.extend(new)
        return np.fromiter(map(lookup.__getitem__, keys), dtype=np.intp, count=len(keys))

    def _encode_one(self, arr, name):
        # pyarrow arrays (the command line's record batches) and pandas
        # categoricals bring their own dictionary codes.
        if type(arr).__module__.startswith("pyarrow"):
            return self._encode_arrow(arr, name)
        if isinstance(arr, (pd.Series, pd.Index)) and isinstance(arr.dtype, pd.CategoricalDtype):
            arr = arr.array
        if isinstance(arr, pd.Categorical):
            return self._encode_local(np.asarray(arr.codes), arr.categories.to_numpy(), name)
        if isinstance(arr, (pd.Series, pd.Index, pd.api.extensions.ExtensionArray)):
            if isinstance(arr.dtype, np.dtype) and arr.dtype.kind != "O":
                arr = arr.to_numpy()
            else:
                codes, uniques = pd.factorize(arr, use_na_sentinel=True)
                return self._encode_local(codes, np.asarray(uniques, dtype=object), name)
        arr = np.asarray(arr)
        if arr.ndim != 1:
            raise ValueError(
                f"{_describe(name)} must be 1-D (one label per row), got shape {arr.shape}; "
                "pass predicted labels (estimator.predict(X)), not scores."
            )
        kind = arr.dtype.kind
        if kind == "c":
            raise ValueError(
                f"{_describe(name)} has complex values; class labels must be integers or strings."
            )
        if kind == "U":
            return self._encode_fixed_strings(arr, name)
        if kind == "O":
            return self._encode_objects(arr, name)
        # Numbers: NaN is a distinct value, which the checks of the distinct
        # values reject with the argument's name.
        codes, uniques = pd.factorize(arr, use_na_sentinel=kind not in "biuf")
        return self._encode_local(codes, uniques, name, own=True)

    def _encode_local(self, codes, uniques, name, own=False):
        """Map a local factorisation (codes into `uniques`) to global codes.

        With `own`, the codes (intp) are this encoder's to overwrite: no new
        array of the rows' size, whose first writes cost as much as the map.
        """
        codes = np.asarray(codes)
        if codes.size and codes.min() < 0:
            row = int(np.argmax(codes < 0))
            raise ValueError(
                f"{_describe(name)} has a missing label (NaN or None) at row {row}; every "
                "row needs a label. Drop or impute the rows with missing labels first."
            )
        mapping = self._global_codes(uniques, name)
        if own:
            return np.take(mapping, codes, out=codes, mode="clip")
        return mapping[codes] if codes.size else np.empty(0, dtype=np.intp)

    def _global_codes(self, uniques, name):
        """Codes of distinct local labels (checked), adding the new ones."""
        uniques = np.asarray(uniques)
        if uniques.dtype.kind == "f":
            self._check_floats(uniques, name)
            self._num_dtypes.append(uniques.dtype)
            self._set_kind("num", name)
        elif uniques.dtype.kind in "biu":
            self._num_dtypes.append(uniques.dtype)
            self._set_kind("num", name)
        elif uniques.dtype.kind in "US":
            self._set_kind("str", name)
        else:
            self._check_objects(uniques, name)
        keys = uniques.tolist()
        if uniques.dtype.kind not in "biuU":  # e.g. 1.0 and 1 are one label
            keys = [self._key(u) for u in keys]
        return self._add(keys)

    def _check_objects(self, uniques, name):
        has_str = has_num = False
        for u in uniques.tolist():
            if isinstance(u, str):
                has_str = True
            elif isinstance(u, numbers.Number) and not isinstance(u, complex):
                has_num = True
                if isinstance(u, numbers.Real) and not isinstance(u, numbers.Integral):
                    self._check_floats(np.array([float(u)]), name)
            elif u is None:
                raise ValueError(
                    f"{_describe(name)} has a missing label (None); every row needs a label. "
                    "Drop or impute the rows with missing labels first."
                )
            else:
                self._set_kind("O", name)
                return
        if has_str and has_num:
            raise ValueError(
                f"{_describe(name)} mixes strings and numbers; labels must be of one type. "
                "Convert them all to str (e.g. y.astype(str)) or all to int."
            )
        if has_str:
            self._str_object = True
            self._set_kind("str", name)
        elif has_num:
            self._num_dtypes.append(np.asarray(uniques.tolist()).dtype)
            self._set_kind("num", name)

    @staticmethod
    def _check_floats(values, name):
        finite = np.isfinite(values)
        if not finite.all():
            bad = values[~finite][0]
            if np.isnan(bad):
                raise ValueError(
                    f"{_describe(name)} contains NaN; every row needs a label. Drop or "
                    "impute the rows with missing labels first."
                )
            raise ValueError(
                f"{_describe(name)} contains {bad}; class labels must be finite. Drop "
                "those rows or map them to a class."
            )
        if not (values == np.trunc(values)).all():
            raise ValueError(
                f"{_describe(name)} has continuous values (e.g. "
                f"{float(values[values != np.trunc(values)][0])!r}), like predicted "
                "probabilities or scores; pass predicted class labels instead (e.g. "
                "estimator.predict(X), or (proba >= 0.5).astype(int))."
            )

    def _encode_arrow(self, arr, name):
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        if arr.null_count:
            row = int(pc.index(pc.is_null(arr), True).as_py())
            raise ValueError(
                f"{_describe(name)} has a missing label at row {row}; every row needs a "
                "label. Drop or impute the rows with missing labels first."
            )
        typ = arr.type
        if pa.types.is_integer(typ) or pa.types.is_boolean(typ) or pa.types.is_floating(typ):
            return self._encode_one(arr.to_numpy(zero_copy_only=False), name)
        if not pa.types.is_dictionary(typ):
            arr = arr.dictionary_encode()
        indices = arr.indices.to_numpy(zero_copy_only=False)
        dictionary = arr.dictionary.to_numpy(zero_copy_only=False)
        used = np.bincount(indices, minlength=len(dictionary)).astype(bool)
        if not used.all():
            # Unused dictionary entries must not become classes.
            lut = np.cumsum(used) - 1
            return self._encode_local(lut[indices], dictionary[used], name)
        return self._encode_local(indices, dictionary, name)

    def _encode_fixed_strings(self, arr, name):
        # Hand-written (the characters that vary between the labels, read as
        # the digits of one integer key): compare_precision of "class_k"
        # labels is 10x faster than through pandas.factorize of the strings,
        # which makes a Python object of every row; 4x for words of different
        # lengths (10^6 and 10^7 rows, benchmarks/bench_architecture.py).
        self._set_kind("str", name)
        n, width = arr.shape[0], arr.dtype.itemsize // 4
        if n == 0:
            return np.empty(0, dtype=np.intp)
        if width == 0:  # every label is ""
            return self._encode_local(np.zeros(n, dtype=np.intp), np.array([""]), name)
        chars = np.ascontiguousarray(arr).view(np.uint32).reshape(n, width)
        lo, hi = _column_ranges(chars)
        columns = np.flatnonzero(lo != hi).tolist()
        spans = [int(hi[j]) - int(lo[j]) + 1 for j in columns]
        n_keys = math.prod(spans)
        if n_keys > _MAX_STRING_KEYS:  # e.g. random ids
            return self._encode_local(*pd.factorize(arr), name, own=True)
        # sum_j (chars[:, j] - lo[j]) * (product of the later spans), which
        # lies in [0, n_keys): the int64 sums on the way may wrap around, the
        # result is exact.
        offset = 0
        for j, span in zip(columns, spans, strict=True):
            offset = offset * span + int(lo[j])
        offset = np.int64((offset + 2**63) % 2**64 - 2**63)
        key = np.zeros(n, dtype=np.int64)
        for start in range(0, n, _SLICE_ROWS):  # slices that stay in the cache
            part, out = chars[start : start + _SLICE_ROWS], key[start : start + _SLICE_ROWS]
            for j, span in zip(columns, spans, strict=True):
                out *= span
                out += part[:, j]
            out -= offset

        def labels_of(keys):  # the columns' minima plus the keys' digits
            labels = np.repeat(lo[np.newaxis, :], keys.shape[0], axis=0)
            for j, span in zip(columns[::-1], spans[::-1], strict=True):
                labels[:, j] += (keys % span).astype(np.uint32)
                keys = keys // span
            return labels.view(arr.dtype).ravel()

        if n_keys > n:
            codes, keys = pd.factorize(key)
            return self._encode_local(codes, labels_of(keys), name, own=True)
        # Few keys (class labels): when a sample of rows holds all of them,
        # there is no need to count the rows to know which are present.
        present = np.arange(n_keys)
        if pd.unique(key[:: max(1, n // _SAMPLE)]).shape[0] < n_keys:
            present = np.flatnonzero(np.bincount(key, minlength=n_keys))
        codes = self._global_codes(labels_of(present), name)
        if np.array_equal(codes, np.arange(n_keys)):
            return key  # the key is the code (the usual first array)
        lookup = np.zeros(n_keys, dtype=np.intp)
        lookup[present] = codes
        return np.take(lookup, key, out=key, mode="clip")  # each key is read, then written

    def _encode_objects(self, arr, name):
        # Hand-written (the objects' addresses, read in place through ctypes,
        # hashed by pandas.factorize): compare_precision of labels held as a
        # classifier's classes_[indices] is 3.5x faster than through
        # pandas.factorize of the objects (10^6 and 10^7 rows,
        # benchmarks/bench_architecture.py). Equal objects at different
        # addresses share a code through the dictionary of labels; arrays of
        # many distinct objects (one new string per row) and missing labels
        # take pandas.factorize.
        n = arr.shape[0]
        step = max(1, n // _SAMPLE)
        if n:
            arr = np.ascontiguousarray(arr)  # copies pointers, not objects
            addresses = np.ctypeslib.as_array((ctypes.c_ssize_t * n).from_address(arr.ctypes.data))
            if pd.unique(addresses[::step]).shape[0] < _MAX_SHARED_OBJECTS:
                codes, distinct = pd.factorize(addresses)
                rows = np.full(distinct.shape[0], -1, dtype=np.intp)
                rows[codes[::step]] = np.arange(0, n, step)  # a row of each object
                if rows.min() < 0:  # objects the sample missed
                    rows[codes] = np.arange(n)
                objects = arr[rows]
                if not pd.isna(objects).any():
                    return self._encode_local(codes, objects, name, own=True)
        return self._encode_local(*pd.factorize(arr, use_na_sentinel=True), name, own=True)


def _column_ranges(chars):
    """Smallest and largest value of each column of the 2-D array `chars`.

    NumPy reduces a narrow array along its rows one short inner loop per
    row; blocks of rows laid side by side make the loop long (25x faster),
    and slices of about a megabyte are read from memory once for both.
    """
    n, width = chars.shape
    per_block = max(1, 4096 // width)
    top = np.iinfo(chars.dtype).max
    lo = np.full(per_block * width, top, dtype=chars.dtype)
    hi = np.zeros(per_block * width, dtype=chars.dtype)
    rows = per_block * max(1, 2**18 // (per_block * width))
    for start in range(0, n - n % per_block, rows):
        stop = min(start + rows, n - n % per_block)
        blocks = chars[start:stop].reshape(-1, per_block * width)
        np.minimum(lo, blocks.min(axis=0), out=lo)
        np.maximum(hi, blocks.max(axis=0), out=hi)
    rest = chars[n - n % per_block :]
    lo = np.minimum(lo.reshape(per_block, width).min(axis=0), rest.min(axis=0, initial=top))
    hi = np.maximum(hi.reshape(per_block, width).max(axis=0), rest.max(axis=0, initial=0))
    return lo, hi


def _common_numeric_dtype(dtypes, labels):
    """A dtype holding every numeric label exactly (object when none does)."""
    dtype = np.result_type(*dtypes) if dtypes else np.dtype(np.int64)
    if dtype.kind == "f" and all(d.kind in "biu" for d in dtypes):
        # int64 with uint64 promotes to float64, which would round labels.
        lo, hi = min(labels), max(labels)
        if lo >= _INT64_MIN and hi <= _INT64_MAX:
            return np.dtype(np.int64)
        if lo >= 0:
            return np.dtype(np.uint64)
        return np.dtype(object)
    if dtype.kind == "f" and labels and max(abs(v) for v in labels) >= 2**53:
        return np.dtype(object)
    return dtype


def encode_sorted(*arrays, names=None):
    """Encode label arrays with codes in sorted label order, as :func:`numpy.unique` would.

    Codes are ``0..K-1`` with ``values[code]`` the label and `values`
    sorted; the arrays are hashed, never sorted (only the K
    labels are).

    Returns
    -------
    codes : list of ndarray of intp
    values : ndarray of shape (K,)

    Examples
    --------
    >>> from sklearn_precision_stats.engine._labels import encode_sorted
    >>> codes, values = encode_sorted(["b", "c", "b"], ["a", "b", "c"])
    >>> [c.tolist() for c in codes], values.tolist()
    ([[1, 2, 1], [0, 1, 2]], ['a', 'b', 'c'])
    """
    codes, encoder = encode_labels(*arrays, names=names)
    order = encoder.order
    values = encoder.values  # noqa: PD011 (the encoder's labels, not pandas)
    if np.array_equal(order, np.arange(order.shape[0])):
        return codes, values
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    return [rank[c] for c in codes], values[order]


def encode_labels(*arrays, names=None):
    """Encode label arrays in one call.

    Returns
    -------
    codes : list of ndarray of intp
    encoder : StreamingLabelEncoder

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats.engine._labels import encode_labels
    >>> codes, encoder = encode_labels(np.array([3, 1, 3], dtype=np.int8), [1, 2, 2])
    >>> [c.tolist() for c in codes], encoder.values.tolist()
    ([[1, 0, 1], [0, 2, 2]], [1, 3, 2])
    """
    encoder = StreamingLabelEncoder()
    codes = encoder.encode(*arrays, names=names)
    return codes, encoder
