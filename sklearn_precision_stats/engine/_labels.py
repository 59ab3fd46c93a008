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
* fixed-width NumPy strings (``dtype "<U..."``): the characters at the
  positions where the labels differ, read as the digits of one mixed-radix
  integer (the other positions are checked to be the same in every row),
  which is a collision-free key: ``"class_0"`` .. ``"class_9"`` cost one
  pass over the characters, where turning them into Python objects for
  pandas would cost 20x more. Labels that differ in too many positions for
  one 64-bit key (e.g. random ids) go to :func:`pandas.factorize`;
* object arrays of a few shared objects (a classifier's
  ``classes_[indices]``): a small table keyed by the objects' addresses,
  every row verified against its slot;
* other integers, and other objects (e.g. one new string per row): the hash
  tables of :func:`pandas.factorize`, pandas' public, compiled hash-based
  factoriser (scikit-learn and NumPy only offer sorting encoders);
* pyarrow arrays and pandas categoricals: their own dictionary codes.

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

# Integer labels spanning at most this many values (or as many as the rows
# of the chunk) are encoded through a lookup table indexed by ``label - min``.
_MAX_DIRECT_RANGE = 2**16
# Fixed-width strings whose varying characters allow more combinations than
# this are hashed into buckets instead of read as one mixed-radix key.
_MAX_STRING_KEYS = 2**62
# Rows sampled to find the keys present without counting every row.
_KEY_SAMPLE = 4096
# Bytes of fixed-width strings scanned at a time (kept in the cache).
_SCAN_BYTES = 1 << 20
# Object arrays with at most this many distinct objects (in a sample) are
# encoded by object address first.
_MAX_SHARED_OBJECTS = 4096
# Rows of object addresses looked up at a time (kept in the cache).
_OBJECT_ROWS = 2**16
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
        lut = self._lut
        if self._kind == "num" and lut is not None:
            # The table lists the codes in increasing label order already
            # (record ids: no array of labels to build and sort).
            codes = lut[lut >= 0]
            if codes.shape[0] == self.n_values:
                return codes
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
            return self._encode_objects(arr, name)
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
        mapping = self._global_codes(uniques, name)
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
        keys = [self._key(u) for u in uniques.tolist()]
        mapping = self._add(keys)
        if self._lut is not None and self._kind == "num":
            self._lut = None  # values came in without the table: rebuild lazily
        return mapping

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
        # Hand-written (a lookup table over the range): 15x faster than
        # pandas.factorize and a dictionary of the labels for 10^6 record
        # ids, which counts and files stream (benchmarks/bench_architecture.py).
        # A table over the labels' range costs memory in proportion to the
        # chunk or to the labels already known (record ids streaming in):
        # either way no more than the codes themselves.
        limit = max(_MAX_DIRECT_RANGE, arr.shape[0], 2 * len(self._labels))
        if self._lut is None and self._labels:
            # Rebuild the table from known integer labels, if they are compact.
            lookup = self._synced_lookup()
            keys = [k for k in lookup if isinstance(k, int)]
            if len(keys) == len(lookup):
                lo_k, hi_k = min(keys), max(keys)
                if hi_k - lo_k < limit:
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
        if span > limit:
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
        # Hand-written (mixed-radix keys of the varying characters): 20x
        # faster than pandas.factorize, which makes a Python object of every
        # row first, on 10^6 rows of "class_k" labels; 5x on words of
        # different lengths (benchmarks/bench_architecture.py).
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
        key = np.empty(n, dtype=np.intp)
        scan = _guessed_scan(chars)
        _scan_strings(scan, key)
        lo = scan.ranges()[0]
        retry = _confirmed_scan(scan)
        n_keys = (scan if retry is None else retry).n_keys
        if n_keys > _MAX_STRING_KEYS:
            # Labels differing in many characters (e.g. random ids): pandas'
            # hash table.
            codes, uniques = pd.factorize(arr)
            return self._encode_local(codes, uniques, name)
        if retry is not None:  # the sample missed a character: again
            scan = retry
            _scan_strings(scan, key)

        def labels_of(keys):
            return scan.labels_of(keys, lo, arr.dtype)

        if n_keys > max(_MAX_DIRECT_RANGE, n):
            local, keys = pd.factorize(key)
            return self._global_codes(labels_of(keys), name)[local]
        # Keys lie in [0, n_keys): when a sample of rows already holds
        # every key, all are present without counting the rows.
        if pd.unique(key[:: max(1, n // _KEY_SAMPLE)]).shape[0] == n_keys:
            present = np.arange(n_keys)
        else:
            present = np.flatnonzero(np.bincount(key, minlength=n_keys))
        codes = self._global_codes(labels_of(present), name)
        if present.shape[0] == n_keys and np.array_equal(codes, present):
            return key  # the key is the code (the usual first chunk)
        lut = np.empty(n_keys, dtype=np.intp)
        lut[present] = codes
        # In place: each row's key is read before its code is written.
        return np.take(lut, key, out=key, mode="clip")

    def _encode_objects(self, arr, name):
        codes = self._encode_shared_objects(arr, name)
        if codes is not None:
            return codes
        codes, uniques = pd.factorize(arr, use_na_sentinel=True)
        return self._encode_local(codes, uniques, name)

    def _encode_shared_objects(self, arr, name):
        # Hand-written (a table of object addresses): 8x faster than
        # pandas.factorize of the object array on 10^6 rows of a
        # classifier's classes_[indices] (benchmarks/bench_architecture.py).
        """Codes of an object array holding few distinct objects, or None.

        Every row is looked up in the :class:`_SharedObjects` table of a
        sample's objects; rows whose object is not in the sample go through
        pandas' hash table. Equal objects at different addresses share a
        code through the vocabulary's dict. Returns None for arrays of many
        distinct objects (e.g. one new string per row) and when a label is
        missing (for the messages of the general path).
        """
        shared = _SharedObjects.of(arr)
        if shared is None:
            return None
        n = shared.addresses.shape[0]
        local = np.empty(n, dtype=np.intp)
        missed = []
        for start in range(0, n, _OBJECT_ROWS):
            stop = min(start + _OBJECT_ROWS, n)
            missing = shared.codes(start, stop, local[start:stop])
            if missing.size:
                missed.append(start + missing)
        uniques = objects = shared.objects
        n_sampled = objects.shape[0]
        if missed:
            missed = np.concatenate(missed)
            missed_codes, missed_objects = pd.factorize(shared.array[missed], use_na_sentinel=True)
            if missed_codes.min() < 0:
                return None
            local[missed] = missed_codes + n_sampled
            uniques = np.empty(n_sampled + missed_objects.shape[0], dtype=object)
            uniques[:n_sampled] = objects
            uniques[n_sampled:] = missed_objects
        mapping = self._global_codes(uniques, name)
        if np.array_equal(mapping, np.arange(mapping.shape[0])):
            return local
        return np.take(mapping, local, out=local, mode="clip")


class _SharedObjects:
    """Codes of the rows of an object array of a few objects, by their addresses.

    Labels held as Python objects are usually a few objects repeated (a
    classifier's ``classes_[indices]``, a pandas object column). The
    distinct objects of a sample of rows, in sorted order, go into a small
    open-addressing table keyed by their addresses; a row is looked up by
    its address and checked against the address stored in its slot, which
    is exact (one address is one object).
    """

    def __init__(self, array, addresses, objects, distinct, table):
        self.array, self.addresses, self.objects = array, addresses, objects
        self.shift, self.mask, size = table
        slots = (distinct >> self.shift) & self.mask
        self.slot_address = np.zeros(size, dtype=addresses.dtype)
        self.slot_address[slots] = distinct
        self.slot_code = np.zeros(size, dtype=np.intp)
        self.slot_code[slots] = np.arange(distinct.shape[0])
        rows = min(addresses.shape[0], _OBJECT_ROWS)
        self._slot, self._found = np.empty(rows, np.intp), np.empty(rows, np.intp)
        self._hit = np.empty(rows, bool)

    @classmethod
    def of(cls, arr):
        """The table of `arr` (1-D, object), or None: many distinct objects, or a missing one."""
        n = arr.shape[0]
        if n == 0:
            return None
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)  # copies pointers, not objects
        # The addresses of the elements, read in place (the array keeps them alive).
        addresses = np.ctypeslib.as_array((ctypes.c_ssize_t * n).from_address(arr.ctypes.data))
        step = max(1, n // (4 * _MAX_SHARED_OBJECTS))
        sample_codes, distinct = pd.factorize(addresses[::step])
        if distinct.shape[0] >= _MAX_SHARED_OBJECTS:
            return None
        first = np.empty(distinct.shape[0], dtype=np.intp)
        first[sample_codes] = np.arange(sample_codes.shape[0]) * step
        objects = arr[first]
        if pd.isna(objects).any():
            return None
        # Objects in sorted order: codes are then the global codes of a new
        # vocabulary (or of one that saw the same labels first).
        try:
            order = sorted(range(objects.shape[0]), key=objects.__getitem__)
        except TypeError:  # unorderable labels: mixed types are reported later
            order = list(range(objects.shape[0]))
        objects, distinct = objects[order], distinct[order]
        table = _address_table(distinct)
        if table is None:
            return None
        return cls(arr, addresses, objects, distinct, table)

    def codes(self, start, stop, out):
        """Write the codes of rows `start` to `stop` to `out`; return the rows not found.

        At most ``_OBJECT_ROWS`` rows at a time, so that the passes read
        them from the cache. Rows not found (their object is not in the
        table) are returned relative to `start`; their codes are not set.
        """
        part = self.addresses[start:stop]
        m = part.shape[0]
        slot, found, hit = self._slot[:m], self._found[:m], self._hit[:m]
        np.right_shift(part, self.shift, out=slot)
        np.bitwise_and(slot, self.mask, out=slot)
        np.take(self.slot_address, slot, out=found, mode="clip")
        np.equal(found, part, out=hit)
        np.take(self.slot_code, slot, out=out, mode="clip")
        return np.empty(0, dtype=np.intp) if hit.all() else np.flatnonzero(~hit)


def _address_table(addresses):
    """``(shift, mask, size)`` of a table where ``(address >> shift) & mask`` is one-to-one.

    Object addresses are aligned (to 16 bytes on 64-bit CPython), so the low
    bits above the alignment usually tell a few objects apart in a table
    of twice their number; None if no table of at most 2**16 slots does.
    """
    n = addresses.shape[0]
    for bits in range(max(1, int(n).bit_length() + 1), 17):
        mask = (1 << bits) - 1
        for shift in (4, 3, 5, 6, 7, 8, 2, 1, 0, 9, 10, 11, 12):
            if np.unique((addresses >> shift) & mask).shape[0] == n:
                return shift, mask, 1 << bits
    return None


def _varying_columns(lo, hi):
    """Columns whose smallest and largest values differ, and their spans."""
    columns = np.flatnonzero(lo != hi).tolist()
    return columns, [int(hi[j]) - int(lo[j]) + 1 for j in columns]


def _key_offset(lo, columns, spans):
    """``sum_j lo[j] * (product of the later spans)`` as an int64 (mod 2**64)."""
    offset = 0
    for j, span in zip(columns, spans, strict=True):
        offset = offset * span + int(lo[j])
    return np.int64((offset + 2**63) % 2**64 - 2**63)


class _StringScan:
    """Column ranges of fixed-width strings and their mixed-radix key, slice by slice.

    :meth:`scan` writes ``sum_j chars[:, j] * (product of the later
    spans)`` over `columns`, minus `offset`, for a range of rows: with the
    offset of the columns' minima, ``sum_j (chars[:, j] - lo[j]) * (...)``,
    which lies in ``[0, product of the spans)``, so the wrap-around int64
    arithmetic on the way is exact. On the way it updates the smallest and
    largest value of every column, which :meth:`ranges` returns: they
    confirm (or refute) `columns` and `spans`. Slices of :attr:`rows` rows
    (about a megabyte) are read from memory once; the ranges and the key
    then read them from the cache. A reduction along the rows of the narrow
    array is slow in NumPy (one short inner loop per row); blocks of rows
    laid side by side make the inner loop long.
    """

    def __init__(self, chars, columns, spans, offset):
        self.chars, self.columns, self.spans, self.offset = chars, columns, spans, offset
        width = chars.shape[1]
        per_block = self.per_block = max(1, 4096 // width)
        self.rows = max(per_block, _SCAN_BYTES // (4 * width) // per_block * per_block)
        # Running minimum and maximum of each column of a block of rows.
        top = np.iinfo(chars.dtype).max
        self._block_lo = np.full(self.per_block * width, top, dtype=chars.dtype)
        self._block_hi = np.zeros(self.per_block * width, dtype=chars.dtype)
        self._lo = np.full(width, top, dtype=chars.dtype)
        self._hi = np.zeros(width, dtype=chars.dtype)

    @property
    def n_keys(self):
        return math.prod(self.spans)

    def scan(self, start, stop, out, subtract=True, horner=False):
        """Update the ranges with rows `start` to `stop` and write their keys to `out`.

        With `horner`, ``out`` becomes ``out * n_keys + key`` instead (the
        next digit of a joint key); without `subtract`, the offset is left
        for the caller to subtract once.
        """
        part = self.chars[start:stop]
        per_block, width = self.per_block, part.shape[1]
        m = part.shape[0] - part.shape[0] % per_block
        if m:
            blocks = part[:m].reshape(m // per_block, per_block * width)
            np.minimum(self._block_lo, blocks.min(axis=0), out=self._block_lo)
            np.maximum(self._block_hi, blocks.max(axis=0), out=self._block_hi)
        if m < part.shape[0]:
            np.minimum(self._lo, part[m:].min(axis=0), out=self._lo)
            np.maximum(self._hi, part[m:].max(axis=0), out=self._hi)
        columns = self.columns
        if not columns:
            if not horner:
                out[:] = 0
            return
        if horner:
            out *= self.spans[0]
            out += part[:, columns[0]]
        else:
            out[:] = part[:, columns[0]]
        for j, span in zip(columns[1:], self.spans[1:], strict=True):
            out *= span
            out += part[:, j]
        if subtract:
            out -= self.offset

    def ranges(self):
        """Smallest and largest value of each column over the rows scanned."""
        width = self._lo.shape[0]
        lo = np.minimum(self._lo, self._block_lo.reshape(self.per_block, width).min(axis=0))
        hi = np.maximum(self._hi, self._block_hi.reshape(self.per_block, width).max(axis=0))
        return lo, hi

    def labels_of(self, keys, lo, dtype):
        """The strings of `keys` (ints in ``[0, n_keys)``), given the columns' minima `lo`."""
        rows = np.repeat(lo[np.newaxis, :], keys.shape[0], axis=0)
        rest = np.array(keys, dtype=np.int64)
        for j, span in zip(self.columns[::-1], self.spans[::-1], strict=True):
            rows[:, j] += (rest % span).astype(np.uint32)
            rest //= span
        return rows.view(dtype).ravel()


def _guessed_scan(chars):
    """A :class:`_StringScan` whose columns are guessed from a sample of rows.

    Class labels share most characters ("class_0" .. "class_9" differ in
    one): the characters at the positions that vary, read as the digits of
    a mixed-radix number, are a collision-free key of the label, so no row
    needs to be checked against a representative. Guessing the varying
    positions from a sample lets the key be built in the same pass over the
    rows as the ranges that confirm the guess: when it holds, the columns'
    true ranges are the sample's (same spans, and the sample's rows are
    rows), hence the offset.
    """
    sample = chars[:: max(1, chars.shape[0] // _KEY_SAMPLE)]
    sample_lo = sample.min(axis=0)
    columns, spans = _varying_columns(sample_lo, sample.max(axis=0))
    if math.prod(spans) > _MAX_STRING_KEYS:
        columns, spans = [], []
    return _StringScan(chars, columns, spans, _key_offset(sample_lo, columns, spans))


def _confirmed_scan(scan):
    """None when the scan's ranges confirm its columns, else a scan with the true ones."""
    lo, hi = scan.ranges()
    columns, spans = _varying_columns(lo, hi)
    if (columns, spans) == (scan.columns, scan.spans):
        return None
    return _StringScan(scan.chars, columns, spans, _key_offset(lo, columns, spans))


def _scan_strings(scan, key):
    """Run `scan` over all its rows, writing the keys to `key`."""
    n = scan.chars.shape[0]
    for start in range(0, n, scan.rows):
        stop = min(start + scan.rows, n)
        scan.scan(start, stop, key[start:stop])


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
