"""The base of every test result: scipy-style, frozen, unpackable.

Every test returns a frozen dataclass in the style of :mod:`scipy.stats`
results: ``statistic`` and ``pvalue`` first (so ``stat, p = result`` works
as with scipy's), then the degrees of freedom and the estimates that apply,
and a ``confidence_interval(confidence_level=0.95)`` method where an
interval for the compared quantity exists.
"""

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, NamedTuple, NoReturn, TypeVar

import numpy as np

__all__ = ["ConfidenceInterval"]


def name_array(names: Any) -> np.ndarray:
    """Classifier names as a 1-D object array.

    ``np.asarray`` would turn tuple names (a DataFrame's MultiIndex
    columns) into a 2-D array.
    """
    return np.fromiter(names, dtype=object, count=len(names))


def read_only(array: Any, dtype: Any = None) -> np.ndarray:
    """A read-only copy of `array`."""
    out = np.array(array, dtype=dtype, copy=True)
    out.flags.writeable = False
    return out


def read_only_mapping(arrays: Mapping[str, Any]) -> Mapping[str, np.ndarray]:
    """A read-only view of a new dict of read-only copies of `arrays`."""
    return MappingProxyType({name: read_only(value) for name, value in arrays.items()})


def freeze(result: Any) -> None:
    """Make every ndarray field of a frozen dataclass a read-only copy."""
    for f in fields(result):
        value = getattr(result, f.name)
        if isinstance(value, np.ndarray):
            object.__setattr__(result, f.name, read_only(value))


class FrozenArrays:
    """Mixin of the frozen result dataclasses: their ndarray fields are read-only."""

    def __post_init__(self) -> None:
        freeze(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Pickle and copy.deepcopy rebuild the arrays writeable.
        self.__dict__.update(state)
        freeze(self)


_Result = TypeVar("_Result", bound=type)


class _CopiedOnAccess:
    """A frozen result's DataFrame or Series field, a new copy on every access.

    pandas objects cannot be made read-only, so the result keeps its own
    and hands out copies: editing one changes nothing. As a data
    descriptor it is found before the instance's ``__dict__``, where the
    dataclass's ``__init__`` (through :meth:`__set__`), pickle and
    :func:`copy.deepcopy` store the value under the field's own name.
    """

    def __init__(self, name: str, doc: str) -> None:
        self._name = name
        self.__doc__ = doc

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = vars(obj)[self._name]
        return None if value is None else value.copy()

    def __set__(self, obj: object, value: Any) -> None:
        # Reached only from __init__: the frozen dataclass's __setattr__
        # raises on any later assignment. A copy, so that the caller's
        # object and the result's do not alias.
        vars(obj)[self._name] = None if value is None else value.copy()


def copied_on_access(**docs: str) -> Callable[[_Result], _Result]:
    """Class decorator: each named field of a frozen dataclass is copied on access.

    Applied over ``@dataclass``, so the fields, the generated ``__init__``
    (with its defaults), ``__eq__`` and ``__repr__`` are unchanged.
    """

    def decorate(cls: _Result) -> _Result:
        for name, doc in docs.items():
            setattr(cls, name, _CopiedOnAccess(name, doc))
        return cls

    return decorate


class ConfidenceInterval(NamedTuple):
    """Lower and upper bound of a confidence interval."""

    low: float
    high: float


def _format_value(value):
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, tuple):
        inner = ", ".join(_format_value(v) for v in value)
        # A one-element tuple keeps its comma, as Python writes it.
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


@dataclass(frozen=True, repr=False)
class TestResult:
    """Base class: a short repr with six significant digits per number."""

    __test__ = False  # not a pytest test class, despite the name

    def __iter__(self):
        # Unpacks as ``statistic, pvalue = result``, like scipy's results.
        return iter((self.statistic, self.pvalue))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index):
        return (self.statistic, self.pvalue)[index]

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th>{f.name}</th><td>{_format_value(getattr(self, f.name))}</td></tr>"
            for f in fields(self)
            if f.repr
        )
        return f"<table><caption>{type(self).__name__}</caption>{rows}</table>"

    def __repr__(self) -> str:
        parts = [f"{f.name}={_format_value(getattr(self, f.name))}" for f in fields(self) if f.repr]
        return f"{type(self).__name__}({', '.join(parts)})"


@dataclass(frozen=True, repr=False)
class IntervalResult(TestResult):
    """Base class for results with a confidence interval.

    Subclasses give the estimate, standard error, alternative and null
    distribution of a Wald-type interval in ``_interval_inputs``, or
    override ``_interval(level)`` for another kind of interval.
    """

    def _interval_inputs(self):
        raise NotImplementedError

    def _interval(self, level):
        estimate, standard_error, alternative, distribution = self._interval_inputs()
        if not (np.isfinite(estimate) and np.isfinite(standard_error)):
            return ConfidenceInterval(math.nan, math.nan)
        if alternative == "two-sided":
            half = distribution.ppf(0.5 + level / 2) * standard_error
            return ConfidenceInterval(float(estimate - half), float(estimate + half))
        half = distribution.ppf(level) * standard_error
        if alternative == "greater":
            return ConfidenceInterval(float(estimate - half), math.inf)
        return ConfidenceInterval(-math.inf, float(estimate + half))

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Confidence interval for the estimate named in the class docstring.

        Unless the class docstring says otherwise, ``estimate -/+ q *
        standard_error`` with ``q`` a quantile of the test's null
        distribution (normal or t). As in :func:`scipy.stats.ttest_rel`, a
        one-sided ``alternative`` gives a one-sided interval with an infinite
        bound.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Confidence level of the interval.

        Returns
        -------
        ci : ConfidenceInterval
            Named tuple with fields ``low`` and ``high`` (NaN when the
            statistic is undefined).
        """
        return self._interval(_check_confidence_level(confidence_level))


class _FrozenComparison:
    """Base of the comparison tables: frozen, with a reference and compared classifiers.

    Subclasses set their attributes once, with ``_freeze``; any later
    assignment or deletion raises.
    """

    classes: np.ndarray
    classifiers: tuple[str, ...]
    reference: str
    confidence_level: float

    # Attributes held as read-only mappings of read-only arrays (or None).
    _ARRAY_MAPPINGS: tuple[str, ...] = ()

    def _freeze(self, values: Mapping[str, Any]) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __getstate__(self) -> dict[str, Any]:
        # MappingProxyType does not pickle: hand pickle and copy.deepcopy
        # plain dicts, made read-only again by __setstate__.
        state = dict(vars(self))
        for key in self._ARRAY_MAPPINGS:
            if state[key] is not None:
                state[key] = dict(state[key])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickle and copy.deepcopy also rebuild NumPy arrays writeable.
        state = dict(state, classes=read_only(state["classes"]))
        for key in self._ARRAY_MAPPINGS:
            if state[key] is not None:
                state[key] = read_only_mapping(state[key])
        self._freeze(state)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(
            f"{type(self).__name__} is frozen: {name!r} cannot be assigned. Compute a "
            "new comparison instead (e.g. with another confidence_level)."
        )

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is frozen: {name!r} cannot be deleted.")

    def _level(self, confidence_level: float | None) -> float:
        if confidence_level is None:
            return self.confidence_level
        return float(_check_confidence_level(confidence_level))

    def _resolve_classifier(self, classifier: str | None) -> str:
        """The compared classifier named `classifier`, or the only one when None."""
        others = list(self.classifiers[1:])
        if classifier is None:
            if len(others) > 1:
                raise ValueError(
                    f"classifier is needed: this comparison has {len(others)} "
                    f"classifiers besides the reference ({others}); pass one."
                )
            return others[0]
        if classifier not in others:
            raise ValueError(
                f"classifier={classifier!r} is not a compared classifier; use "
                f"one of {others} (the reference is {self.reference!r})."
            )
        return classifier

    def _row(self, table: Any, label: Any, classifier: str | None) -> Any:
        """The row of `table` for one class and compared classifier."""
        classifier = self._resolve_classifier(classifier)
        rows = table[(table["class"] == label) & (table["classifier"] == classifier)]
        if rows.empty:
            raise self._no_class(label)
        return rows.iloc[0]

    def _no_class(self, label: Any) -> KeyError:
        classes = np.asarray(self.classes).tolist()
        return KeyError(f"Class {label!r} is not in this comparison; its classes are {classes}.")


def _check_confidence_level(confidence_level):
    if not isinstance(confidence_level, (int, float, np.floating)) or not (
        0 < confidence_level < 1
    ):
        raise ValueError(
            "confidence_level must be a number strictly between 0 and 1, got "
            f"{confidence_level!r}; use e.g. confidence_level=0.95."
        )
    return float(confidence_level)
