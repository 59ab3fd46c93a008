"""Sufficient statistics: from labels to the marginal models' sums.

The paper's Algorithms 1 and 2 stack one row per (record, classifier) and,
for each class, fit a logistic GEE on a subset of the rows. The model is
saturated in the classifier indicator, so its fit, sandwich covariance and
score test depend on the data only through, per class ``k`` and classifier
``c``, the rows whose response is a success or a failure and the sums over
records of products of a record's counts (:class:`MarginalCounts`).

Which rows enter and what the response is depends on the measure (its
*role*, :mod:`._roles`), but every role reads two of the four categories of
the one-vs-rest confusion matrix (TP, FN, FP, TN). So this module computes
one statistic for all of them, :class:`CategoryCounts`: per class and
classifier the rows of each category and the per-record cross sums. With
one row per record these follow from a few additive agreement counts
(:class:`AgreementCounts`, also what a chunked or streamed count adds up);
with repeated records (stacked cross-validation) they are summed per
(record, class). Everything is O(rows) with :func:`numpy.bincount`.
"""

import collections
import functools
import itertools
from typing import NamedTuple

import numpy as np

__all__ = []

# Categories of the one-vs-rest confusion matrix, in CategoryCounts order.
TP, FN, FP, TN = 0, 1, 2, 3


class MarginalCounts(NamedTuple):
    """Sufficient statistics of the per-class marginal models.

    Arrays may carry leading batch axes (e.g. resamples) before the class
    axis.

    Attributes
    ----------
    successes : ndarray of shape (..., n_classes, n_classifiers)
    failures : ndarray of shape (..., n_classes, n_classifiers)
    cross : ndarray of shape (..., n_classes, n_classifiers, n_classifiers, 2, 2)
    """

    successes: np.ndarray
    failures: np.ndarray
    cross: np.ndarray

    def take_classes(self, index):
        """Keep the classes at `index` (an integer array) along the class axis."""
        return MarginalCounts(
            np.take(self.successes, index, axis=-2),
            np.take(self.failures, index, axis=-2),
            np.take(self.cross, index, axis=-5),
        )

    def take_classifiers(self, index):
        """Keep the classifiers at `index` (an integer array), in that order."""
        index = np.asarray(index)
        cross = np.take(self.cross, index, axis=-4)
        cross = np.take(cross, index, axis=-3)
        return MarginalCounts(
            np.take(self.successes, index, axis=-1),
            np.take(self.failures, index, axis=-1),
            cross,
        )


# ---------------------------------------------------------------------------
# Category counts: one additive statistic for every role
# ---------------------------------------------------------------------------


class CategoryCounts(NamedTuple):
    """Per-class counts of the four categories and their record cross sums.

    For class ``k`` and classifier ``c`` every row is a true positive, false
    negative, false positive or true negative (indices ``TP, FN, FP, TN``).
    A role (:mod:`._roles`) picks two of them as its response's values.
    Arrays may carry leading batch axes before the class axis.

    Attributes
    ----------
    first : ndarray of shape (..., n_classes, n_classifiers, 4)
        Rows of each category.
    second : ndarray of shape (..., n_classes, n_classifiers, n_classifiers, 4, 4)
        ``sum_i x_icu x_idv`` over records ``i``, with ``x_icu`` the rows of
        record ``i`` in category ``u`` for classifier ``c``.
    """

    first: np.ndarray
    second: np.ndarray

    def take_classes(self, index):
        """Keep the classes at `index` (an integer array) along the class axis."""
        return CategoryCounts(
            np.take(self.first, index, axis=-3), np.take(self.second, index, axis=-5)
        )


class AgreementCounts(NamedTuple):
    """Records on which labels agree on class ``k``, for one row per record.

    Additive over records, so chunks of records can be counted apart and
    summed. Leading batch axes are allowed.

    Attributes
    ----------
    n : ndarray of shape (...)
        Records.
    truth : ndarray of shape (..., n_classes)
        Records whose true label is ``k``.
    pred : ndarray of shape (..., n_classes, n_classifiers)
        Records that classifier ``c`` assigns to ``k``.
    truth_pred : ndarray of shape (..., n_classes, n_classifiers)
        Records of class ``k`` that ``c`` assigns to ``k``.
    pred_pred : ndarray of shape (..., n_classes, n_classifiers, n_classifiers)
        Records that both ``c`` and ``d`` assign to ``k``.
    truth_pred_pred : ndarray of shape (..., n_classes, n_classifiers, n_classifiers)
        Records of class ``k`` that both ``c`` and ``d`` assign to ``k``.
    """

    n: np.ndarray
    truth: np.ndarray
    pred: np.ndarray
    truth_pred: np.ndarray
    pred_pred: np.ndarray
    truth_pred_pred: np.ndarray

    def pooled(self):
        """The counts of accuracy: one pseudo-class, "predicted" = correct.

        Every record is truly positive, and classifier ``c`` predicts
        positive when it is right, so recall of the pseudo-class is accuracy.
        """
        correct = self.truth_pred.sum(axis=-2, keepdims=True)
        both = self.truth_pred_pred.sum(axis=-3, keepdims=True)
        n = np.asarray(self.n, dtype=float)
        return AgreementCounts(n, n[..., None], correct, correct, both, both)


def category_counts(agreement):
    """Category counts from agreement counts (one row per record).

    With one row per record a record is in exactly one cell of the
    (truth is k, c predicts k, d predicts k) table; the eight cells follow
    from the agreement counts by inclusion-exclusion, and each cell is one
    (category of c, category of d) pair.
    """
    a = AgreementCounts(*(np.asarray(x, dtype=float) for x in agreement))
    n = a.n[..., None, None]
    t = a.truth[..., :, None]
    tp = a.truth_pred
    first = np.stack([tp, t - tp, a.pred - tp, n - t - a.pred + tp], axis=-1)

    nt = a.truth[..., :, None, None]
    nc, nd = a.pred[..., :, :, None], a.pred[..., :, None, :]
    ntc, ntd = tp[..., :, :, None], tp[..., :, None, :]
    ncd, ntcd = a.pred_pred, a.truth_pred_pred
    second = np.zeros(ncd.shape + (4, 4))
    # Cell (truth is k, c says k, d says k) -> (category of c, category of d).
    second[..., TP, TP] = ntcd
    second[..., TP, FN] = ntc - ntcd
    second[..., FN, TP] = ntd - ntcd
    second[..., FN, FN] = nt - ntc - ntd + ntcd
    second[..., FP, FP] = ncd - ntcd
    second[..., FP, TN] = nc - ntc - ncd + ntcd
    second[..., TN, FP] = nd - ntd - ncd + ntcd
    second[..., TN, TN] = n[..., None] - nt - nc - nd + ntc + ntd + ncd - ntcd
    return CategoryCounts(first, second)


def agreement_from_joint_table(table, n_classifiers):
    """Agreement counts from joint tables of (truth, pred_1, ..., pred_C).

    Leading axes of `table` beyond the ``C + 1`` label axes are batch axes
    (resamples, for instance).
    """
    n_clf = n_classifiers
    table = np.asarray(table, dtype=float)
    batch = table.ndim - (n_clf + 1)
    axes = list(range(batch, table.ndim))

    def marginal(*keep):
        drop = tuple(ax for ax in axes if ax - batch not in keep)
        return table.sum(axis=drop) if drop else table

    n_classes = table.shape[-1]
    shape = table.shape[:batch]
    pred = np.empty(shape + (n_classes, n_clf))
    truth_pred = np.empty_like(pred)
    pred_pred = np.empty(shape + (n_classes, n_clf, n_clf))
    truth_pred_pred = np.empty_like(pred_pred)
    for c in range(n_clf):
        yc = marginal(0, c + 1)
        pred[..., c] = yc.sum(axis=-2)
        truth_pred[..., c] = np.einsum("...kk->...k", yc)
        pred_pred[..., c, c] = pred[..., c]
        truth_pred_pred[..., c, c] = truth_pred[..., c]
        for d in range(c + 1, n_clf):
            ycd = marginal(0, c + 1, d + 1)
            both = np.einsum("...jkk->...k", ycd)
            both_hit = np.einsum("...kkk->...k", ycd)
            pred_pred[..., c, d] = pred_pred[..., d, c] = both
            truth_pred_pred[..., c, d] = truth_pred_pred[..., d, c] = both_hit
    truth = marginal(0)
    n = truth.sum(axis=-1)
    return AgreementCounts(n, truth, pred, truth_pred, pred_pred, truth_pred_pred)


# Rows per block of :func:`agreement_from_pairs`: a block's codes stay in the
# CPU cache while every group of classifiers reads them.
_PAIR_BLOCK_ROWS = 2**16
# Largest (truth, pred_1, ..., pred_g) table counted per group of classifiers
# in :func:`agreement_from_pairs`: codes in uint16, and adding a block's
# counts to the table costs less than counting them.
_MAX_PAIR_CELLS = 2**16


@functools.cache
def _pair_cover(n_clf, size):
    """Groups of `size` classifiers, in increasing order, holding every pair.

    Greedy: a group starts from the first pair not yet held and takes in
    turn the classifier that completes most pairs not yet held, the first
    of those (about 10% more groups than the fewest possible, for triples).
    """
    if n_clf <= size:
        return (tuple(range(n_clf)),)
    left = [set(range(n_clf)) - {c} for c in range(n_clf)]  # whom c has yet to meet
    groups = []
    for a in range(n_clf):
        while left[a]:
            group = [a, min(left[a])]
            while len(group) < size:
                gain = collections.Counter(e for m in group for e in left[m] if e not in group)
                if gain:
                    group.append(max(gain, key=lambda e: (gain[e], -e)))
                else:
                    group.append(min(set(range(n_clf)) - set(group)))
            for m, k in itertools.combinations(group, 2):
                left[m].discard(k)
                left[k].discard(m)
            groups.append(tuple(sorted(group)))
    return tuple(groups)


def agreement_from_pairs(y, preds, n_values):
    """Agreement counts from label codes ``0..n_values - 1``, group by group.

    Every agreement count is a count of one classifier or of one pair of
    classifiers with the truth, so the joint table of all classifiers
    (exponential in their number) is never needed: the joint tables of
    the truth with a few groups of classifiers that hold every pair
    (:func:`_pair_cover`) give them all. A group has as many classifiers as
    a table of at most ``_MAX_PAIR_CELLS`` cells allows, and the rows pay
    for (three at 10 classes: three pairs for about the cost of one), and
    its table is one :func:`numpy.bincount` of uint16 codes per block of
    rows, so the cost is O(C^2 n) with a small constant. With more classes
    even a pair's table is too large; the pairs then count agreement codes
    (:func:`_agreement_codes`).

    Parameters
    ----------
    y : ndarray of int, shape (n_rows,)
    preds : list of ndarray of int
    n_values : int

    Returns
    -------
    AgreementCounts
    """
    n_clf, v = len(preds), n_values
    size = n_clf
    # Reading the pairs of a group from its table costs about its pairs times
    # its cells: at most what counting the rows costs.
    while size > 2 and (
        v ** (size + 1) > _MAX_PAIR_CELLS or size**2 * v ** (size + 1) > y.shape[0]
    ):
        size -= 1
    if v ** (size + 1) > _MAX_PAIR_CELLS:
        return _agreement_codes(y, preds, v)
    groups = _pair_cover(n_clf, size)
    weights = v ** np.arange(size, -1, -1)  # of the truth, then of each place in a group
    places = sorted({(c, i) for group in groups for i, c in enumerate(group)})
    tables = np.zeros((len(groups), v ** (size + 1)), dtype=np.int64)
    for start in range(0, y.shape[0], _PAIR_BLOCK_ROWS):
        rows = slice(start, start + _PAIR_BLOCK_ROWS)
        truth = np.multiply(y[rows], weights[0], dtype=np.uint16, casting="unsafe")
        # Each classifier's labels weighted once per block for each place it takes.
        part = {
            (c, i): np.multiply(preds[c][rows], weights[i + 1], dtype=np.uint16, casting="unsafe")
            for c, i in places
        }
        code = np.empty_like(truth)
        for table, group in zip(tables, groups, strict=True):
            np.add(truth, part[group[0], 0], out=code)
            for i, c in enumerate(group[1:], start=1):
                code += part[c, i]
            table += np.bincount(code, minlength=table.shape[0])
    shape = (len(groups),) + (v,) * (size + 1)
    counts = agreement_from_joint_table(tables.reshape(shape), size)
    # Each group's counts to its members' places (a pair in several groups
    # gets the same counts from each).
    members = np.array(groups)
    pred = np.empty((v, n_clf))
    truth_pred = np.empty_like(pred)
    pred[:, members] = np.moveaxis(counts.pred, 0, 1)
    truth_pred[:, members] = np.moveaxis(counts.truth_pred, 0, 1)
    pair = (slice(None), members[:, :, None], members[:, None, :])
    pred_pred = np.empty((v, n_clf, n_clf))
    truth_pred_pred = np.empty_like(pred_pred)
    pred_pred[pair] = np.moveaxis(counts.pred_pred, 0, 1)
    truth_pred_pred[pair] = np.moveaxis(counts.truth_pred_pred, 0, 1)
    return AgreementCounts(
        counts.n[0], counts.truth[0], pred, truth_pred, pred_pred, truth_pred_pred
    )


def _agreement_codes(y, preds, n_values):
    """Agreement counts of many classes, pair by pair, in ``4 n_values`` codes.

    A pair ``c < d`` counts ``pred_c + n_values * ([pred_c == pred_d] + 2
    [truth == pred_c])``, which tells apart what the counts need: whether
    the pair agrees, and whether ``c`` is right; a classifier alone counts
    the same code with ``pred_d = -1``.
    """
    n_clf, v = len(preds), n_values
    counts = np.zeros((n_clf, n_clf, 4 * v), dtype=np.int64)  # [c, c]: c alone
    for start in range(0, y.shape[0], _PAIR_BLOCK_ROWS):
        rows = slice(start, start + _PAIR_BLOCK_ROWS)
        block = [p[rows].astype(np.intp) for p in preds]
        for c, p in enumerate(block):
            first = (y[rows] == p) * (2 * v) + p  # c's part of its codes
            counts[c, c, : 3 * v] += np.bincount(first, minlength=3 * v)
            for d in range(c + 1, n_clf):
                code = (p == block[d]) * v
                code += first
                counts[c, d] += np.bincount(code, minlength=4 * v)
    # (agrees, c right): 0 0, 1 0, 0 1, 1 1, then the class predicted by c.
    codes = counts.reshape(n_clf, n_clf, 4, v).astype(float)
    diagonal = np.arange(n_clf)
    own = codes[diagonal, diagonal]
    pred, truth_pred = (own[:, 0] + own[:, 2]).T, own[:, 2].T
    # Counted for c < d only: the other half by symmetry, c alone on the diagonal.
    pred_pred = codes[:, :, 1] + codes[:, :, 3]
    pred_pred = np.moveaxis(pred_pred + np.swapaxes(pred_pred, 0, 1), -1, 0)
    truth_pred_pred = np.moveaxis(codes[:, :, 3] + np.swapaxes(codes[:, :, 3], 0, 1), -1, 0)
    pred_pred[:, diagonal, diagonal] = pred
    truth_pred_pred[:, diagonal, diagonal] = truth_pred
    truth = np.bincount(y, minlength=v).astype(float)
    return AgreementCounts(float(y.shape[0]), truth, pred, truth_pred, pred_pred, truth_pred_pred)


# ---------------------------------------------------------------------------
# Clustered rows: sums per (record, class), without sorting the keys
# ---------------------------------------------------------------------------

# Rows per chunk when the entries are partitioned into buckets.
_ENTRY_CHUNK_ROWS = 2**17
# Records per block: a bucket's records span at most this many codes, so its
# scratch slots stay in cache whatever the order of the rows.
_RECORD_BLOCK = 2**18
# Buckets are numbered in 16 bits when possible (NumPy's stable sort of
# 16-bit integers is a radix sort).
_MAX_RADIX_BUCKETS = 2**16


def _narrow_codes(codes, n_values):
    """Label codes in the narrowest unsigned type holding ``n_values`` codes.

    Not a copy when they are in it already.
    """
    if n_values <= 2**8:
        return codes.astype(np.uint8, copy=False)
    if n_values <= 2**16:
        return codes.astype(np.uint16, copy=False)
    return codes


def _bit_type(n_bits):
    """The narrowest unsigned type of `n_bits` bits (uint64 words beyond 64)."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if n_bits <= 8 * np.dtype(dtype).itemsize:
            return dtype
    return np.uint64


class _Buckets(NamedTuple):
    """Entries (row, class the row touches) grouped by (record block, class).

    ``local[i]`` is the entry's record less its block's first record, and
    ``bits[i]`` flags whether the row's truth (bit 0) and each classifier's
    prediction (bit ``c + 1``) is the entry's class (in words of 64 bits,
    ``bits[i, w]``, for more than 63 classifiers). The entries of bucket
    ``b = block * n_values + class`` are, chunk after chunk of rows,
    ``starts[:, b]`` to ``starts[:, b + 1]``.
    """

    local: np.ndarray
    bits: np.ndarray
    starts: np.ndarray
    shift: int
    n_values: int

    def entries(self, bucket):
        """Positions of the entries of `bucket`, chunk after chunk."""
        lo, hi = self.starts[:, bucket], self.starts[:, bucket + 1]
        lengths = hi - lo
        offsets = np.repeat(lo - np.cumsum(lengths) + lengths, lengths)
        return offsets + np.arange(offsets.shape[0])


def _bucket_entries(labels, record_codes, n_records, n_values):
    """Partition the entries by (record block, class), chunk by chunk.

    A row touches its true class and each predicted class, every class
    once. Each chunk of rows is sorted by bucket on its own (a radix sort of
    16-bit bucket numbers), so the work is linear in the rows and its
    arrays stay in cache; a bucket is then the concatenation of one slice
    per chunk.
    """
    n_rows, n_lab = labels[0].shape[0], len(labels)
    shift = max(_RECORD_BLOCK.bit_length() - 1, 0)
    while ((n_records - 1) >> shift) + 1 > max(_MAX_RADIX_BUCKETS // n_values, 1):
        shift += 1
    n_blocks = ((max(n_records, 1) - 1) >> shift) + 1
    n_buckets = n_blocks * n_values
    code_type = np.uint16 if n_buckets <= _MAX_RADIX_BUCKETS else np.intp
    bit_type = _bit_type(n_lab)
    words = (n_lab + 63) // 64
    bit_shape = () if words == 1 else (words,)
    local_type = np.int32 if shift < 31 else np.intp
    capacity = n_rows * n_lab
    local_out = np.empty(capacity, dtype=local_type)
    bits_out = np.empty((capacity, *bit_shape), dtype=bit_type)
    n_chunks = -(-n_rows // _ENTRY_CHUNK_ROWS)
    starts = np.zeros((max(n_chunks, 1), n_buckets + 1), dtype=np.intp)
    mask = (1 << shift) - 1
    pos = 0
    for i, s in enumerate(range(0, n_rows, _ENTRY_CHUNK_ROWS)):
        lab = [a[s : s + _ENTRY_CHUNK_ROWS] for a in labels]
        record = record_codes[s : s + _ENTRY_CHUNK_ROWS]
        block = (record >> shift).astype(code_type) if n_blocks > 1 else None
        local = (record & mask).astype(local_type)
        codes, locals_, bits = [], [], []
        for j in range(n_lab):
            if j == 0:
                rows, cls = slice(None), lab[0]
            else:
                new = lab[j] != lab[0]
                for m in range(1, j):
                    new &= lab[j] != lab[m]
                rows = np.flatnonzero(new)
                cls = lab[j][rows]
            flag = np.zeros((cls.shape[0], words), dtype=bit_type)
            flag[:, j // 64] = 1 << (j % 64)
            for m in range(j + 1, n_lab):
                flag[:, m // 64] |= (lab[m][rows] == cls).astype(bit_type) << bit_type(m % 64)
            flag = flag.reshape((cls.shape[0], *bit_shape))
            code = cls.astype(code_type)
            if block is not None:
                code += block[rows] * code_type(n_values)
            codes.append(code)
            locals_.append(local[rows])
            bits.append(flag)
        code = np.concatenate(codes)
        order = np.argsort(code, kind="stable")
        m_entries = code.shape[0]
        np.take(np.concatenate(locals_), order, out=local_out[pos : pos + m_entries])
        np.take(np.concatenate(bits), order, axis=0, out=bits_out[pos : pos + m_entries])
        starts[i, 1:] = np.cumsum(np.bincount(code, minlength=n_buckets))
        starts[i] += pos
        pos += m_entries
    return _Buckets(local_out[:pos], bits_out[:pos], starts, shift, n_values)


def _feature_rows(bits, c, n_clf):
    """The feature row an entry adds one to, for classifier `c`.

    Row ``1 + 3 * c + u`` for the entry's category ``u`` (TP, FN or FP) for
    ``c``, or ``1 + 3 * n_clf``, a row thrown away, for a TN (the class
    touched through another label). `bits` as in :class:`_Buckets`.
    """
    truth = (bits if bits.ndim == 1 else bits[:, 0]) & 1
    word = bits if bits.ndim == 1 else bits[:, (c + 1) // 64]
    said = (word >> word.dtype.type((c + 1) % 64)) & 1
    category = 3 - 2 * truth.astype(np.intp) - said.astype(np.intp)
    return np.where(category == TN, 1 + 3 * n_clf, 1 + 3 * c + category)


def _feature_lookup(n_clf, bit_type):
    """Per classifier, :func:`_feature_rows` of every value of 8 or 16 bits."""
    if np.dtype(bit_type).itemsize > 2:
        return None
    bits = np.arange(2 ** (8 * np.dtype(bit_type).itemsize), dtype=np.uint16)
    dtype = np.uint8 if 2 + 3 * n_clf < 2**8 else np.intp
    return [_feature_rows(bits, c, n_clf).astype(dtype) for c in range(n_clf)]


def _entry_buckets(y, preds, record_codes, n_records, n_values):
    """The entries of the rows, bucketed (see :func:`_bucket_entries`)."""
    labels = [_narrow_codes(a, n_values) for a in (y, *preds)]
    return _bucket_entries(labels, record_codes, n_records, n_values)


def _key_features(buckets, n_clf, n_records, rows_per_record):
    """Features of every touched (record, class) key, block by block.

    The entries are partitioned by (record block, class)
    (:func:`_bucket_entries`). Within a bucket, the entries of one record
    are matched through a scratch array over the block's records: each
    entry writes its position there, then reads back what its record's slot
    holds, the position of one of the record's entries (whichever write
    NumPy keeps), its representative. The array is never cleared, since
    only slots just written are read. No (record, class) key is sorted,
    hashed or looked up in a table over records times classes: O(rows) for
    any order of the rows, with memory in proportion to the rows.

    Parameters
    ----------
    buckets : _Buckets
    n_clf : int
        Number of classifiers.
    n_records : int
    rows_per_record : ndarray of float, shape (n_records,)

    Yields
    ------
    block : slice
        The block's record codes.
    k : int
        The class.
    key_record : ndarray of intp, shape (n_keys,)
        The block's records touching ``k``, each once.
    features : ndarray of float, shape (1 + 3 * n_classifiers, n_keys)
        Rows of the record, then its rows in TP, FN and FP for ``k`` per
        classifier.
    """
    n_values = buckets.n_values
    lookup = _feature_lookup(n_clf, buckets.bits.dtype)
    n_features = 1 + 3 * n_clf
    block_size = 1 << buckets.shift
    scratch = np.empty(min(block_size, max(n_records, 1)), dtype=np.intp)
    position, index = np.arange(0), np.empty(0, dtype=np.intp)
    # Buckets in order: block by block, class by class within a block.
    filled = np.flatnonzero(np.diff(buckets.starts, axis=1).sum(axis=0))
    for bucket in filled.tolist():
        block, k = divmod(bucket, n_values)
        block_start = block * block_size
        records = slice(block_start, min(block_start + block_size, n_records))
        block_rows = rows_per_record[records]
        entries = buckets.entries(bucket)
        local = buckets.local[entries]
        bits = buckets.bits[entries]
        n_entries = local.shape[0]
        if position.shape[0] < n_entries:
            position = np.arange(2 * n_entries)
            index = np.empty(2 * n_entries * n_clf, dtype=np.intp)
        here = position[:n_entries]
        scratch[local] = here
        representative = scratch[local]
        first = representative == here
        key = np.cumsum(first)
        key -= 1
        key = key[representative]
        key_local = local[first]
        n_keys = key_local.shape[0]
        # One bincount for every classifier, into the flat index
        # feature row * n_keys + key; row 0 (the record's rows) is taken
        # from rows_per_record, and one extra row takes the TN entries.
        flat = index[: n_clf * n_entries].reshape(n_clf, n_entries)
        for c in range(n_clf):
            rows = lookup[c][bits] if lookup is not None else _feature_rows(bits, c, n_clf)
            np.multiply(rows, n_keys, out=flat[c], dtype=np.intp)
            flat[c] += key
        features = np.empty((n_features, n_keys))
        np.take(block_rows, key_local, out=features[0])
        counts = np.bincount(flat.reshape(-1), minlength=(n_features + 1) * n_keys)
        features[1:] = counts[n_keys : n_features * n_keys].reshape(n_features - 1, n_keys)
        yield records, k, block_start + key_local.astype(np.intp), features


def with_true_negatives(x3, rows):
    """Per-key counts of all four categories from TP, FN and FP.

    Parameters
    ----------
    x3 : ndarray of shape (n_keys, n_classifiers, 3)
        Rows in TP, FN and FP for the key's class.
    rows : ndarray of shape (n_keys,)
        Rows of the key's record: the rest are true negatives.

    Returns
    -------
    ndarray of float, shape (n_keys, n_classifiers, 4)
    """
    x = np.empty(x3.shape[:2] + (4,))
    x[..., :TN] = x3
    x[..., TN] = rows[:, None] - x3.sum(axis=-1)
    return x


class _KeyTable:
    """Per (record, class) key counts, filled bucket by bucket.

    Made once for at most `capacity` keys (the entries), so the keys are
    never concatenated; pages past the last key are never touched. The
    counts are kept in the smallest unsigned type that holds a record's
    rows: what a comparison keeps for its resampling methods.
    """

    def __init__(self, capacity, n_clf, max_rows, n_values, n_records):
        self.x = np.empty((capacity, n_clf, 3), dtype=np.min_scalar_type(int(max_rows)))
        self.key_class = np.empty(capacity, dtype=np.min_scalar_type(max(n_values - 1, 0)))
        self.key_record = np.empty(capacity, dtype=np.min_scalar_type(max(n_records - 1, 0)))
        self.n_keys = 0

    def add(self, k, records, features):
        n_clf, start, stop = self.x.shape[1], self.n_keys, self.n_keys + records.shape[0]
        self.x[start:stop] = features[1:].reshape(n_clf, 3, -1).transpose(2, 0, 1)
        self.key_class[start:stop] = k
        self.key_record[start:stop] = records
        self.n_keys = stop

    def keys(self):
        """``(x, key_class, key_record)``, x holding TP, FN and FP."""
        n = self.n_keys
        keys = self.x[:n], self.key_class[:n], self.key_record[:n]
        if n < 0.75 * self.x.shape[0]:
            # Views would keep every entry's slot alive.
            keys = tuple(a.copy() for a in keys)
        return keys


def _key_feature_map(n_clf):
    """Categories from a key's features (rows, then TP, FN, FP per classifier).

    A matrix of shape ``(4 * n_clf, 1 + 3 * n_clf)``: TN is the rows less
    the other three.
    """
    amap = np.zeros((n_clf, 4, 1 + 3 * n_clf))
    for c in range(n_clf):
        for u in (TP, FN, FP):
            amap[c, u, 1 + 3 * c + u] = 1
            amap[c, TN, 1 + 3 * c + u] = -1
        amap[c, TN, 0] = 1
    return amap.reshape(4 * n_clf, -1)


def _categories_from_moments(sums, gram, amap, n_clf):
    """Category counts from the sums and Gram matrices of linear features.

    `amap` maps the features to the categories (``(c, u)`` flattened), so
    the categories' sums are ``amap @ sums`` and their cross sums
    ``amap @ gram @ amap.T``. Every value is an integer, so this is exact.
    """
    first = (sums @ amap.T).reshape(sums.shape[:-1] + (n_clf, 4))
    second = np.einsum("iu,...uv,jv->...ij", amap, gram, amap)
    second = second.reshape(gram.shape[:-2] + (n_clf, 4, n_clf, 4))
    return CategoryCounts(first, np.moveaxis(second, -2, -3))


def _with_untouched(sums, gram, rows_per_record):
    """Add the records that touch no key of a class: features (rows, 0, ..., 0)."""
    rows = np.asarray(rows_per_record, dtype=float)
    sums[:, 0] = rows.sum()
    gram[:, 0, 0] = np.dot(rows, rows)
    return sums, gram


def clustered_statistics(y, preds, record_codes, n_records, n_values, return_keys=False):
    """Category counts of every class and of accuracy when records repeat.

    For every touched (record, class) key the rows of each category are
    summed (:func:`_key_features`), and the products are summed per class.
    Records that do not touch ``k`` are all true negatives for it, which
    only adds to the (TN, TN) sums, through ``sum_i rows_i^2``. Accuracy's
    pseudo-class needs each record's correct rows, the sum of its keys' TP
    (:func:`pooled_counts_clustered`). One pass, O(C^2 rows) for any order
    of the rows.

    Parameters
    ----------
    y : ndarray of intp, shape (n_rows,)
        True label codes ``0..n_values - 1``.
    preds : list of ndarray of intp
        Prediction codes of each classifier.
    record_codes : ndarray of intp, shape (n_rows,)
        Record code ``0..n_records - 1`` of each row.
    n_records, n_values : int
    return_keys : bool, default=False
        Also return the per (record, class) counts, from the same pass.

    Returns
    -------
    categories : CategoryCounts
        Per class (all ``n_values`` codes).
    pooled : CategoryCounts
        The one pseudo-class of accuracy.
    keys : tuple, only with `return_keys`
        ``(x, key_class, key_record, rows_per_record)``: ``x`` of shape
        ``(n_keys, n_classifiers, 3)``, the rows of the key's record in TP,
        FN and FP for the key's class (TN follows from the record's rows),
        for each touched (record, class) key once. A record touches class
        ``k`` when one of its rows has truth or a prediction ``k``. The keys
        are grouped by blocks of records and by class within a block, and
        the arrays in the smallest integer types that hold them.
    """
    n_clf = len(preds)
    rows_per_record = np.bincount(record_codes, minlength=n_records).astype(float)
    n_features = 1 + 3 * n_clf
    sums = np.zeros((n_values, n_features))
    gram = np.zeros((n_values, n_features, n_features))
    pooled_sums = np.zeros(1 + n_clf)
    pooled_gram = np.zeros((1 + n_clf, 1 + n_clf))
    current, correct = None, None

    def add_block():
        # Accuracy's features of the block's records: rows, correct rows.
        pooled = np.vstack([rows_per_record[current], correct])
        pooled_sums[:] += pooled.sum(axis=1)
        pooled_gram[:] += pooled @ pooled.T

    buckets = _entry_buckets(y, preds, record_codes, n_records, n_values)
    table = None
    if return_keys:
        max_rows = rows_per_record.max() if n_records else 0
        table = _KeyTable(buckets.local.shape[0], n_clf, max_rows, n_values, n_records)
    for block, k, records, features in _key_features(buckets, n_clf, n_records, rows_per_record):
        if table is not None:
            table.add(k, records, features)
        if block != current:
            if current is not None:
                add_block()
            current = block
            correct = np.zeros((n_clf, block.stop - block.start))
        sums[k] += features.sum(axis=1)
        gram[k] += features @ features.T
        # Each correct row is a TP of its true class; a record is one key
        # of the class, so the update has no duplicate index.
        local = records - block.start
        for c, row in enumerate(correct):
            row[local] += features[1 + 3 * c]
    if current is not None:
        add_block()
    sums, gram = _with_untouched(sums, gram, rows_per_record)
    categories = _categories_from_moments(sums, gram, _key_feature_map(n_clf), n_clf)
    pooled = _pooled_from_moments(pooled_sums, pooled_gram, n_clf)
    if table is None:
        return categories, pooled
    return categories, pooled, (*table.keys(), rows_per_record)


def record_class_keys(y, preds, record_codes, n_records, n_values):
    """The keys of :func:`clustered_statistics` alone, without its sums.

    For counts that add chunks record by record, whose sums come later.

    Returns
    -------
    x : ndarray of shape (n_keys, n_classifiers, 3)
        Rows of the key's record in TP, FN and FP for the key's class, in
        the smallest unsigned type that holds them.
    key_class, key_record : ndarray of unsigned int, shape (n_keys,)
    """
    n_clf = len(preds)
    rows_per_record = np.bincount(record_codes, minlength=n_records).astype(float)
    buckets = _entry_buckets(y, preds, record_codes, n_records, n_values)
    max_rows = rows_per_record.max() if n_records else 0
    table = _KeyTable(buckets.local.shape[0], n_clf, max_rows, n_values, n_records)
    for _, k, records, features in _key_features(buckets, n_clf, n_records, rows_per_record):
        table.add(k, records, features)
    return table.keys()


# Keys per block in :func:`_moments_of_keys`, and runs of one class in a
# block beyond which the block is sorted by class first.
_KEY_BLOCK = 2**16
_MAX_CLASS_RUNS = 64


def categories_from_keys(x, key_class, rows_per_record, n_values, key_record=None):
    """Category counts from per (record, class) rows, keys in any order.

    With the keys of :func:`clustered_statistics` (each touched (record,
    class) pair once) this gives its category counts without another pass
    over the rows.

    Parameters
    ----------
    x : ndarray of shape (n_keys, n_classifiers, 4) or (n_keys, n_classifiers, 3)
        Rows of the key's record in TP, FN, FP (and TN) for the key's class.
    key_class : ndarray of int, shape (n_keys,)
    rows_per_record : ndarray of shape (n_records,)
        Rows of every record (those touching no class included).
    n_values : int
    key_record : ndarray of int, shape (n_keys,), default=None
        The key's record, whose rows then give the TN; required when `x`
        has no TN column.

    Returns
    -------
    CategoryCounts
    """
    n_clf = x.shape[1]
    rows = np.asarray(rows_per_record, dtype=float)
    key_rows = None if key_record is None else rows[key_record]
    sums, gram = _moments_of_keys(np.asarray(key_class), x, n_values, key_rows=key_rows)
    sums, gram = _with_untouched(sums, gram, rows)
    return _categories_from_moments(sums, gram, _key_feature_map(n_clf), n_clf)


def _moments_of_keys(key_class, counts, n_values, key_rows=None):
    """Per class, sums and Gram matrices of the features of keys in any order.

    `counts` holds each key's rows in TP, FN, FP (and TN, ignored) per
    classifier; `key_rows` the rows of its record, by default the sum of
    the four categories. Keys are taken block by block; a block's runs of
    one class are used as they are, and a block of many short runs is
    first sorted by class (a radix sort).
    """
    n_keys, n_clf = counts.shape[0], counts.shape[1]
    n_features = 1 + 3 * n_clf
    sums = np.zeros((n_values, n_features))
    gram = np.zeros((n_values, n_features, n_features))
    for start in range(0, n_keys, _KEY_BLOCK):
        part = counts[start : start + _KEY_BLOCK]
        classes = key_class[start : start + _KEY_BLOCK]
        features = np.empty((n_features, part.shape[0]))
        if key_rows is None:
            features[0] = part[:, 0].sum(axis=-1)
        else:
            features[0] = key_rows[start : start + _KEY_BLOCK]
        features[1:] = part[..., :TN].reshape(part.shape[0], -1).T
        edges = np.flatnonzero(classes[1:] != classes[:-1]) + 1
        if edges.shape[0] > _MAX_CLASS_RUNS:
            order = np.argsort(_narrow_codes(classes, n_values), kind="stable")
            features, classes = features[:, order], classes[order]
            edges = np.flatnonzero(classes[1:] != classes[:-1]) + 1
        edges = [0, *edges.tolist(), classes.shape[0]]
        for lo, hi in zip(edges[:-1], edges[1:], strict=False):
            f = features[:, lo:hi]
            sums[classes[lo]] += f.sum(axis=1)
            gram[classes[lo]] += f @ f.T
    return sums, gram


def _pooled_from_moments(sums, gram, n_clf):
    amap = np.zeros((n_clf, 4, 1 + n_clf))
    for c in range(n_clf):
        amap[c, TP, 1 + c] = 1
        amap[c, FN, 1 + c] = -1
        amap[c, FN, 0] = 1
    return _categories_from_moments(sums[None], gram[None], amap.reshape(4 * n_clf, -1), n_clf)


def pooled_counts_clustered(rows_per_record, record_correct):
    """Accuracy's pseudo-class from each record's rows and correct rows.

    Every row is truly of the pseudo-class and "predicted" as it when the
    classifier is right, so a record's TP are its correct rows and its FN
    the others (the reduction of :meth:`AgreementCounts.pooled`).

    Parameters
    ----------
    rows_per_record : ndarray of shape (n_records,)
    record_correct : ndarray of shape (n_records, n_classifiers)

    Returns
    -------
    CategoryCounts
        With one class.
    """
    correct = np.asarray(record_correct, dtype=float)
    features = np.empty((1 + correct.shape[1], correct.shape[0]))
    features[0] = rows_per_record
    features[1:] = correct.T
    return _pooled_from_moments(features.sum(axis=1), features @ features.T, correct.shape[1])


def correct_rows(x, key_record, n_records):
    """Each record's correct rows per classifier, shape (n_records, n_classifiers).

    A correct row is a TP of its true class, so they are the TP of the
    record's keys.
    """
    return np.stack(
        [
            np.bincount(key_record, weights=x[:, c, TP], minlength=n_records)
            for c in range(x.shape[1])
        ],
        axis=-1,
    )


# The code of accuracy's one pseudo-class (truth of every row; predicted when right).
POOLED_CLASS = 1


def counts_from_joint_table(table, n_classifiers, role):
    """A role's marginal-model sums from joint tables (batch axes allowed)."""
    agreement = agreement_from_joint_table(table, n_classifiers)
    if role.pooled:
        agreement = agreement.pooled()
    return role.marginal_counts(category_counts(agreement))
