"""Label encoding by hashing and offsets, chunk by chunk, without sorting records.

Every statistic of a comparison is a function of counts over (true label,
prediction, ...) cells, so records only need integer *codes*. Codes are
given in order of discovery: they stay the same when later chunks bring new
labels, which is what lets counts computed chunk by chunk (or on Dask
partitions) be added. The sorted order of the labels, used for reporting, is
a permutation of the codes applied to the small count tables at the end.

How each kind of input is encoded (O(n), no sort of the records):

* integers and bools over a compact range: ``label - min`` through a lookup
  table, no hashing at all;
* other integers, and objects (strings, Python numbers): the hash tables of
  :func:`pandas.factorize`, pandas' public, compiled hash-based factoriser
  (scikit-learn and NumPy only offer sorting encoders);
* fixed-width NumPy strings (``dtype "<U..."``): a vectorised polynomial hash
  of their characters into buckets, verified exactly against one
  representative per bucket (a collision falls back to pandas), because
  turning such arrays into Python objects first costs more than the rest;
* pyarrow arrays and pandas categoricals: their own dictionary codes.

Labels follow scikit-learn's target rules (:func:`sklearn.utils.multiclass.type_of_target`):
a mix of strings and numbers, missing values (NaN, None), infinities and
continuous floats (values that are not integral, such as
``predict_proba`` output) are rejected with a ValueError naming the argument
and the fix.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

__all__ = []

# Integer labels spanning at most this many values (or as many as the rows
# of the chunk) are encoded through a lookup table indexed by ``label - min``.
_MAX_DIRECT_RANGE = 2**16
# Hash buckets of the fixed-width string path.
_STRING_BUCKETS = 2**16
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
        self._lookup = {}  # label (Python scalar) -> code, for labels[:_n_looked_up]
        self._n_looked_up = 0
        self._labels = []  # label of each code
        self._kind = None  # "num", "str" or a NumPy dtype kind
        self._first_name = None  # argument that fixed the kind, for messages
        self._num_dtypes = []
        self._str_object = False
        self._lut = None  # lookup table of compact integer labels
        self._lut_lo = 0
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
            code = self._synced_lookup().get(self._key(label))
            if code is None:
                raise ValueError(
                    f"label {label!r} in {name} does not occur in the data; the "
                    f"classes present are {self.values[self.order].tolist()}. "
                    f"Remove it from {name}."
                )
            codes.append(code)
        return np.asarray(codes, dtype=np.intp)

    def merge(self, other: StreamingLabelEncoder) -> np.ndarray:
        """Add `other`'s labels; return the codes here of `other`'s codes."""
        if other.n_values == 0:
            return np.empty(0, dtype=np.intp)
        return self._encode_one(other.values, None)

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
        if self._kind == "str":
            if self._str_object or not labels:
                out = np.empty(len(labels), dtype=object)
                out[:] = labels
                return out
            return np.array(labels)
        out = np.empty(len(labels), dtype=object)
        out[:] = labels
        return out

    def _set_kind(self, kind, name):
        if self._kind is None:
            self._kind, self._first_name = kind, name
        elif self._kind != kind:
            what = {"num": "numbers", "str": "strings"}
            raise ValueError(
                f"{_describe(name)} holds {what.get(kind, kind)} but "
                f"{_describe(self._first_name)} holds {what.get(self._kind, self._kind)}; "
                "labels must be of one type. Convert them all to str or all to int "
                "(e.g. y.astype(str))."
            )

    def _add(self, keys):
        """Codes of the (new or known) label keys, adding the new ones in sorted order."""
        lookup = self._synced_lookup()
        new = [k for k in keys if k not in lookup]
        if new:
            try:
                new = sorted(set(new))
            except TypeError:
                new = list(dict.fromkeys(new))
            for key in new:
                lookup[key] = len(self._labels)
                self._labels.append(key)
        return np.fromiter((lookup[k] for k in keys), dtype=np.intp, count=len(keys))

    def _append_new(self, keys):
        """Codes of labels known to be new and distinct, in the order given."""
        # The dict is filled lazily: many labels (record ids) may come this way.
        start = len(self._labels)
        self._labels.extend(keys)
        return np.arange(start, start + len(keys), dtype=np.intp)

    def _synced_lookup(self):
        """The label -> code dict, brought up to date with `_labels`."""
        start = self._n_looked_up
        if start < len(self._labels):
            new = self._labels[start:]
            self._lookup.update(zip(new, range(start, len(self._labels)), strict=True))
            self._n_looked_up = len(self._labels)
        return self._lookup

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
        if kind in "biu":
            return self._encode_integers(arr, name)
        if kind == "f":
            return self._encode_floats(arr, name)
        if kind == "U":
            return self._encode_fixed_strings(arr, name)
        if kind == "c":
            raise ValueError(
                f"{_describe(name)} has complex values; class labels must be integers or strings."
            )
        if kind == "O":
            shared = _factorize_shared_objects(arr)
            if shared is not None:
                return self._encode_local(*shared, name)
        codes, uniques = pd.factorize(arr, use_na_sentinel=True)
        return self._encode_local(codes, uniques, name)

    def _encode_local(self, codes, uniques, name):
        """Map a local factorisation (codes into `uniques`) to global codes."""
        codes = np.asarray(codes)
        if codes.size and codes.min() < 0:
            row = int(np.argmax(codes < 0))
            raise ValueError(
                f"{_describe(name)} has a missing label (NaN or None) at row {row}; every "
                "row needs a label. Drop or impute the rows with missing labels first."
            )
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
        keys = [self._key(u) for u in uniques.tolist()]
        mapping = self._add(keys)
        if self._lut is not None and self._kind == "num":
            self._lut = None  # values came in without the table: rebuild lazily
        return mapping[codes] if codes.size else np.empty(0, dtype=np.intp)

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

    def _encode_floats(self, arr, name):
        if arr.size == 0:
            self._num_dtypes.append(arr.dtype)
            self._set_kind("num", name)
            return np.empty(0, dtype=np.intp)
        self._check_floats(arr, name)
        lo, hi = float(arr.min()), float(arr.max())
        self._set_kind("num", name)
        self._num_dtypes.append(arr.dtype)
        if lo > -(2.0**53) and hi < 2.0**53:
            return self._encode_integers(arr.astype(np.int64), name, record_dtype=False)
        codes, uniques = pd.factorize(arr)
        return self._encode_local(codes, uniques, name)

    def _encode_integers(self, arr, name, record_dtype=True):
        if arr.dtype.kind == "b":
            arr = arr.view(np.uint8)
            dtype = np.dtype(bool)
        else:
            dtype = arr.dtype
        self._set_kind("num", name)
        if record_dtype:
            self._num_dtypes.append(dtype)
        if arr.size == 0:
            return np.empty(0, dtype=np.intp)
        lo, hi = int(arr.min()), int(arr.max())
        if self._lut is None and self._labels:
            # Rebuild the table from known integer labels, if they are compact.
            lookup = self._synced_lookup()
            keys = [k for k in lookup if isinstance(k, int)]
            if len(keys) == len(lookup):
                lo_k, hi_k = min(keys), max(keys)
                if hi_k - lo_k < _MAX_DIRECT_RANGE:
                    self._lut_lo = lo_k
                    self._lut = np.full(hi_k - lo_k + 1, -1, dtype=np.intp)
                    index = np.array([k - lo_k for k in keys], dtype=np.intp)
                    self._lut[index] = [lookup[k] for k in keys]
        elif self._lut is None and not self._labels:
            self._lut_lo = lo
            self._lut = np.full(0, -1, dtype=np.intp)
        if self._lut is None:
            return self._encode_hashed_integers(arr, name)
        new_lo = min(lo, self._lut_lo)
        new_hi = max(hi, self._lut_lo + self._lut.shape[0] - 1)
        span = new_hi - new_lo + 1
        if span > max(_MAX_DIRECT_RANGE, arr.shape[0]):
            self._lut = None
            return self._encode_hashed_integers(arr, name)
        if new_lo != self._lut_lo or span != self._lut.shape[0]:
            lut = np.full(span, -1, dtype=np.intp)
            start = self._lut_lo - new_lo
            lut[start : start + self._lut.shape[0]] = self._lut
            self._lut, self._lut_lo = lut, new_lo
        offset = _offsets(arr, self._lut_lo)
        seen = np.bincount(offset, minlength=span).astype(bool)
        new = np.flatnonzero(seen & (self._lut < 0))
        if new.size:
            lo = self._lut_lo
            if lo >= _INT64_MIN and lo + self._lut.shape[0] <= _INT64_MAX:
                keys = (new + np.int64(lo)).tolist()
            else:  # labels beyond int64 (uint64 near 2^64): Python integers
                keys = [lo + i for i in new.tolist()]
            self._lut[new] = self._append_new(keys)
        return self._lut[offset]

    def _encode_hashed_integers(self, arr, name):
        if arr.dtype == np.uint64 and int(arr.max()) > _INT64_MAX:
            codes, uniques = pd.factorize(arr)
        else:
            codes, uniques = pd.factorize(arr.astype(np.int64, copy=False))
        keys = [int(u) for u in uniques.tolist()]
        return self._add(keys)[codes]

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
        self._set_kind("str", name)
        n = arr.shape[0]
        if n == 0:
            return np.empty(0, dtype=np.intp)
        width = arr.dtype.itemsize // 4
        if width == 0:
            return self._encode_local(np.zeros(n, dtype=np.intp), np.array([""]), name)
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        chars = arr.view(np.uint32).reshape(n, width)
        # A multiplicative hash of the characters (a dot product with odd
        # weights, wrapping mod 2^32): one vectorised pass; exactness comes
        # from the check against each bucket's representative below.
        h = chars @ _string_weights(width)
        h ^= h >> np.uint32(16)
        bucket = (h & np.uint32(_STRING_BUCKETS - 1)).astype(np.intp)
        del h
        representative = np.empty(_STRING_BUCKETS, dtype=np.intp)
        # Any row of a bucket is a valid representative: the check below
        # compares every row with its bucket's one.
        representative[bucket] = np.arange(n)
        used = np.zeros(_STRING_BUCKETS, dtype=bool)
        used[bucket] = True
        local = np.cumsum(used) - 1
        codes = local[bucket]
        uniques = arr[representative[used]]
        if not np.array_equal(chars, uniques.view(np.uint32).reshape(-1, width)[codes]):
            # Two different labels share a bucket: use pandas' hash table.
            codes, uniques = pd.factorize(arr.astype(object))
        return self._encode_local(codes, uniques, name)


# Object arrays with at most this many distinct objects are factorised by
# object identity first.
_MAX_SHARED_OBJECTS = 4096


def _factorize_shared_objects(arr):
    """Factorise an object array by the identity of its elements, if few.

    Labels held as Python objects are usually a few objects repeated (a
    classifier's ``classes_[indices]``): hashing their addresses (integers)
    is several times faster than hashing and comparing the objects, and
    equal objects at different addresses are merged afterwards through the
    vocabulary's dict. Returns None when there are too many distinct
    objects (e.g. one new string per row), for pandas' object hash table.
    """
    import ctypes

    n = arr.shape[0]
    if n == 0 or not arr.flags.c_contiguous:
        return None
    # The addresses of the elements, read in place (the array keeps them alive).
    addresses = np.ctypeslib.as_array((ctypes.c_ssize_t * n).from_address(arr.ctypes.data))
    sample = addresses[: min(n, 4 * _MAX_SHARED_OBJECTS)]
    if pd.unique(sample).shape[0] >= _MAX_SHARED_OBJECTS:
        return None
    codes = _dense_address_codes(addresses)
    if codes is None:
        codes, unique_addresses = pd.factorize(addresses)
        if unique_addresses.shape[0] > _MAX_SHARED_OBJECTS:
            return None
        n_unique = unique_addresses.shape[0]
    else:
        n_unique = int(codes.max()) + 1
    # Any element at an address is that object: whichever write wins is fine.
    first = np.empty(n_unique, dtype=np.intp)
    first[codes] = np.arange(n)
    objects = arr[first]
    # Equal objects at different addresses share one local code.
    local, uniques = pd.factorize(objects, use_na_sentinel=True)
    return local[codes], uniques


def _dense_address_codes(addresses):
    """Codes of addresses within a small span, through a lookup table, or None."""
    lo = int(addresses.min())
    offset = addresses - lo
    # Objects are aligned: dividing by the alignment keeps the table small.
    if not (offset & 15).any():
        offset >>= 4
    span = int(offset.max()) + 1
    if span > _MAX_DIRECT_RANGE * 16:
        return None
    seen = np.bincount(offset, minlength=span) > 0
    if np.count_nonzero(seen) > _MAX_SHARED_OBJECTS:
        return None
    return (np.cumsum(seen) - 1)[offset]


def _string_weights(width):
    """Fixed odd multipliers, one per character position."""
    rng = np.random.default_rng(width)
    return (rng.integers(0, 2**31, width, dtype=np.uint32) * np.uint32(2) + np.uint32(1)).astype(
        np.uint32
    )


def _offsets(arr, lo):
    """``arr - lo`` as intp, without overflow in narrow or unsigned dtypes."""
    if arr.dtype.kind == "u" and lo >= 0:
        return (arr - arr.dtype.type(lo)).astype(np.intp, copy=False)
    return np.subtract(arr, np.int64(lo), dtype=np.int64, casting="unsafe").astype(
        np.intp, copy=False
    )


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
    sorted; the arrays are hashed or offset, never sorted (only the K
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
