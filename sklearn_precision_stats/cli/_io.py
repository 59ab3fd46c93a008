"""Prediction files read in record batches through pyarrow.

CSV, Parquet and Feather (Arrow IPC) files are read a batch of rows at a
time, keeping only the columns asked for, so the memory used depends on the
batch size, not on the file's length.
"""

import codecs
import os
import re
import sys

__all__ = []

# Rows per batch for Parquet and Feather files; CSV blocks are sized in bytes.
BATCH_ROWS = 1 << 20
CSV_BLOCK_BYTES = 16 << 20

_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".feather": "feather",
    ".arrow": "feather",
    ".ipc": "feather",
}
FORMATS = ("csv", "parquet", "feather")
OUTPUT_FORMATS = ("text", "markdown", "latex", "csv", "json")


class UsageError(Exception):
    """A problem with the command line or the input file (exit status 2)."""


class MixedColumnError(UsageError):
    """A CSV column typed from its first rows, holding a value of another type later.

    pyarrow infers a CSV column's type from its first block of rows; a
    label column with numbers first and text later (``1, 2, ..., "cat"``)
    fails in a later block. `column` names it, so that a reader can read
    its label columns again as text.
    """

    def __init__(self, message, column):
        super().__init__(message)
        self.column = column


_CONVERSION = re.compile(r"In CSV column #(\d+): CSV conversion error to (\w+): invalid value (.*)")


def check_output_path(path):
    """UsageError unless `path` (None or ``-``: stdout) can be created."""
    if path is None or os.fspath(path) == "-":
        return
    path = os.fspath(path)
    if os.path.isdir(path):
        raise UsageError(f"--output: {path!r} is a folder; give the path of a file in it.")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(
            f"--output: the folder {os.path.dirname(path) or folder!r} does not exist; "
            "create it first."
        )


def _require_pyarrow():
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise UsageError(
            "reading prediction files needs pyarrow, in the io extra: pip install "
            "'sklearn-precision-stats[io]'."
        ) from None


# The first bytes of the formats a CSV could be mistaken for.
_MAGIC = {b"PAR1": "parquet", b"ARROW1": "feather"}


# Suffixes of compressed CSV files, which pyarrow decompresses as it reads.
COMPRESSED = (".gz", ".bz2", ".zst", ".lz4")


def _head(path, size=1 << 16):
    """The first `size` bytes of a file, decompressed when its suffix says so."""
    if not path.lower().endswith(COMPRESSED):
        with open(path, "rb") as handle:
            return handle.read(size)
    import pyarrow as pa

    try:
        with pa.input_stream(path, compression="detect") as stream:
            return stream.read(size)
    except (OSError, pa.ArrowException) as exc:
        suffix = os.path.splitext(path)[1]
        raise UsageError(
            f"cannot decompress {path!r}: its suffix {suffix!r} says it is compressed "
            f"but {_reason(exc)}; rename it or pass an uncompressed file."
        ) from None


# Byte order marks of the encodings whose text holds zero bytes (UTF-32
# first: its little-endian mark starts with UTF-16's).
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _sniff_text(path, encoding):
    """UsageError when a CSV file is empty, holds binary data or text not in `encoding`."""
    head = _head(path)
    if not head:
        raise UsageError(f"{path!r} is empty: it has no header and no rows.")
    for magic, fmt in _MAGIC.items():
        if head.startswith(magic):
            raise UsageError(
                f"{path!r} is a {fmt.capitalize()} file, not CSV; pass --input-format {fmt}."
            )
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        raise UsageError(f"--encoding: unknown text encoding {encoding!r}.") from None
    # UTF-16 and UTF-32 text (Excel's "Unicode text") is mostly zero bytes.
    wide = codec.startswith(("utf-16", "utf-32"))
    for bom, name in _WIDE_BOMS:
        if not wide and head.startswith(bom):
            raise UsageError(f"{path!r} is {name.upper()} text; pass --encoding {name}.")
    if not wide and b"\x00" in head:
        raise UsageError(
            f"{path!r} is not a CSV text file (it holds binary data); pass a CSV, "
            "Parquet or Feather file."
        )
    _check_decodes(path, head, encoding)


def _check_decodes(path, data, encoding):
    try:
        data.decode(encoding)
    except LookupError:
        raise UsageError(f"--encoding: unknown text encoding {encoding!r}.") from None
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 4:
            return  # a character cut at the end of the block read
        raise UsageError(_encoding_message(path, encoding)) from None


def _reason(exc):
    """pyarrow's message without the raw row it quotes (a CSV parse error)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    match = re.match(r"(.*Expected \d+ columns, got \d+)", text)
    if match:
        return match.group(1) + " in a row; check --delimiter, the quoting and the format."
    return text


def _encoding_message(path, encoding):
    return (
        f"{path!r} is not {encoding} text; pass its encoding, e.g. --encoding latin-1 "
        "(or cp1252), or convert it to UTF-8."
    )


def detect_format(path, fmt=None):
    """The input format from `fmt` or the file's suffix."""
    if fmt is not None:
        return fmt
    name = os.fspath(path).lower()
    for compressed in COMPRESSED:
        if name.endswith(compressed):
            name = name[: -len(compressed)]
    suffix = os.path.splitext(name)[1]
    if suffix not in _SUFFIXES:
        raise UsageError(
            f"cannot tell the format of {os.fspath(path)!r} from its suffix {suffix!r}; "
            "use a .csv, .parquet or .feather file, or pass --input-format "
            "csv|parquet|feather."
        )
    return _SUFFIXES[suffix]


class TableSource:
    """A prediction file: its column names and its batches.

    Parameters
    ----------
    path : path-like
    fmt : {"csv", "parquet", "feather"} or None
        None: from the suffix.
    delimiter : str, default=None
        CSV field delimiter; a tab for ``.tsv`` files, else a comma.
    batch_size : int, default=None
        Rows per batch at most (the memory of a batch scales with it);
        ``BATCH_ROWS`` when None.
    encoding : str, default="utf-8"
        Text encoding of a CSV file. Text that is not in it is a UsageError
        that names the option, rather than labels made of raw bytes.
    """

    def __init__(self, path, fmt=None, delimiter=None, batch_size=None, encoding="utf-8"):
        self.path = os.fspath(path)
        self.batch_size = batch_size
        if os.path.isdir(self.path):
            raise UsageError(f"{self.path!r} is a folder; give the path of a file.")
        if not os.path.isfile(self.path):
            raise UsageError(f"no such file: {self.path!r}.")
        self.format = detect_format(self.path, fmt)
        _require_pyarrow()
        if delimiter is None:
            name = self.path.lower()
            if name.endswith(COMPRESSED):
                name = os.path.splitext(name)[0]
            delimiter = "\t" if name.endswith(".tsv") else ","
        self.delimiter = delimiter
        self.encoding = encoding
        # CSV columns read as text whatever their values (see MixedColumnError).
        self.text_columns = ()
        if self.format == "csv":
            _sniff_text(self.path, encoding)
        try:
            self.columns, self.num_rows = self._inspect()
        except UsageError:
            raise
        except Exception as exc:  # pyarrow's errors on unreadable files
            raise UsageError(f"cannot read {self.path!r} as {self.format}: {_reason(exc)}") from exc

    def _inspect(self):
        if self.format == "parquet":
            import pyarrow.parquet as pq

            meta = pq.ParquetFile(self.path)
            return list(meta.schema_arrow.names), meta.metadata.num_rows
        if self.format == "feather":
            import pyarrow as pa

            with pa.memory_map(self.path) as source:
                try:
                    reader = pa.ipc.open_file(source)
                    rows = sum(
                        reader.get_batch(i).num_rows for i in range(reader.num_record_batches)
                    )
                    return list(reader.schema.names), rows
                except pa.ArrowInvalid:
                    reader = pa.ipc.open_stream(source)
                    return list(reader.schema.names), None
        reader = self._open_csv(None)
        import pyarrow as pa

        for field in reader.schema:
            if pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type):
                raise UsageError(_encoding_message(self.path, self.encoding))
        return list(reader.schema.names), None

    def _open_csv(self, columns):
        import pyarrow.csv as pcsv

        # pyarrow transcodes other encodings to UTF-8 itself.
        encoding = "utf8" if self.encoding.lower().replace("-", "") == "utf8" else self.encoding
        read = pcsv.ReadOptions(block_size=CSV_BLOCK_BYTES, encoding=encoding)
        parse = pcsv.ParseOptions(delimiter=self.delimiter)
        # Text labels arrive dictionary-encoded: the label encoder then maps
        # a few dictionary entries instead of hashing every row.
        # Empty cells and NA (pyarrow's null spellings) are missing in text
        # columns too, not labels '' or 'NA': they are reported as missing.
        import pyarrow as pa

        convert = pcsv.ConvertOptions(
            include_columns=columns,
            column_types={
                name: pa.dictionary(pa.int32(), pa.string()) for name in self.text_columns
            },
            auto_dict_encode=True,
            auto_dict_max_cardinality=1 << 16,
            strings_can_be_null=True,
        )
        return pcsv.open_csv(
            self.path, read_options=read, parse_options=parse, convert_options=convert
        )

    def require(self, columns, option):
        """UsageError naming `option` when a column is not in the file."""
        for column in columns:
            if column not in self.columns:
                hint = ""
                if self.format == "csv" and len(self.columns) == 1:
                    hint = f" (one column: is its delimiter {self.delimiter!r}? see --delimiter)"
                raise UsageError(
                    f"{option}: column {column!r} is not in {self.path!r}; its columns are "
                    f"{self.columns}{hint}."
                )
            count = self.columns.count(column)
            if count > 1:
                # Reading it by name would take one of them silently.
                raise UsageError(
                    f"{option}: {self.path!r} has {count} columns named {column!r}; give "
                    "its columns unique names."
                )

    def batches(self, columns, progress=None, pre_buffer=True):
        """Yield pyarrow RecordBatches of `columns` (in that order).

        `pre_buffer`: read a Parquet row group's column chunks ahead
        (faster; False lowers the peak memory, e.g. by about 50 MB on
        10^7 rows with a 64-bit record id column).
        """
        columns = list(dict.fromkeys(columns))
        bar = _progress_bar(self.num_rows) if progress is None else progress
        size = self._batch_rows()
        try:
            for batch in self._batches(columns, pre_buffer):
                if bar is not None:
                    bar.update(batch.num_rows)
                batch = batch.select(columns)
                # Feather batches are as written and CSV blocks are sized in
                # bytes: slices (zero-copy) keep every batch within the size.
                for start in range(0, max(batch.num_rows, 1), size):
                    yield batch.slice(start, size)
        except UsageError:
            raise
        except Exception as exc:
            import pyarrow as pa

            if isinstance(exc, (pa.ArrowInvalid, pa.ArrowTypeError, OSError)):
                mixed = _CONVERSION.search(str(exc))
                if mixed and int(mixed.group(1)) < len(self.columns):
                    column = self.columns[int(mixed.group(1))]
                    raise MixedColumnError(
                        f"column {column!r} of {self.path!r} holds {mixed.group(2)} values "
                        f"in its first rows but {mixed.group(3)} in a later row; correct or "
                        "drop that row.",
                        column,
                    ) from exc
                if "UTF8" in str(exc) or "UTF-8" in str(exc):
                    raise UsageError(_encoding_message(self.path, self.encoding)) from exc
                raise UsageError(f"cannot read {self.path!r}: {_reason(exc)}") from exc
            raise
        finally:
            if bar is not None:
                bar.close()

    def _batch_rows(self):
        return BATCH_ROWS if self.batch_size is None else self.batch_size

    def _batches(self, columns, pre_buffer=True):
        if self.format == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            schema = pq.ParquetFile(self.path).schema_arrow
            text = [
                c
                for c in columns
                if pa.types.is_string(schema.field(c).type)
                or pa.types.is_large_string(schema.field(c).type)
            ]
            # Text columns are read through their dictionary pages, encoded.
            yield from pq.ParquetFile(
                self.path, read_dictionary=text, pre_buffer=pre_buffer
            ).iter_batches(batch_size=self._batch_rows(), columns=columns, use_threads=True)
        elif self.format == "feather":
            import pyarrow as pa

            with pa.memory_map(self.path) as source:
                try:
                    reader = pa.ipc.open_file(source)
                    for i in range(reader.num_record_batches):
                        yield reader.get_batch(i).select(columns)
                except pa.ArrowInvalid:
                    source.seek(0)
                    for batch in pa.ipc.open_stream(source):
                        yield batch.select(columns)
        else:
            yield from self._open_csv(columns)


def _progress_bar(total):
    """A tqdm bar on stderr when it is a terminal and tqdm is installed."""
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit=" rows", unit_scale=True, file=sys.stderr, leave=False)
