"""Every private scikit-learn import of the library, in one place.

scikit-learn's declarative parameter validation and a few helpers are not
public API; importing them here alone means a change in scikit-learn is
mended in one file (imbalanced-learn does the same).
"""

import functools
import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np
from sklearn import config_context, get_config
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    Options,
    RealNotInt,
    StrOptions,
    validate_parameter_constraints,
)
from sklearn.utils.validation import (
    _check_method_params,
    _get_feature_names,
    _num_features,
    _num_samples,
)

__all__ = [
    "HasMethods",
    "Hidden",
    "Interval",
    "InvalidParameterError",
    "Options",
    "RealNotInt",
    "StrOptions",
    "_check_method_params",
    "_get_feature_names",
    "_num_features",
    "_num_samples",
    "validate_params",
]


# A value whose repr is longer than this is named by its type in errors.
_MAX_REPR = 80


_F = TypeVar("_F", bound=Callable[..., Any])


def validate_params(
    parameter_constraints: Mapping[str, Any], *, prefer_skip_nested_validation: bool
) -> Callable[[_F], _F]:
    """scikit-learn's ``validate_params``, whose errors never print a large object.

    scikit-learn's message ends with ``Got {value!r} instead.``, which for a
    DataFrame or a dict of arrays passed in the wrong place prints the whole
    object. Here such a value is named by its type. NumPy scalars are
    checked as the Python numbers they hold, so ``np.float32(0.9)`` passes
    where ``0.9`` does (scikit-learn's ``RealNotInt`` knows only ``float``);
    the function still receives the value given. The wrapper is one frame,
    as scikit-learn's, so the library's warnings keep their ``stacklevel``.
    """

    def decorator(func):
        func._skl_parameter_constraints = parameter_constraints
        signature = inspect.signature(func)
        to_ignore = {
            p.name
            for p in signature.parameters.values()
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        } | {"self", "cls"}

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            global_skip = get_config()["skip_parameter_validation"]
            if global_skip:
                return func(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            params = {k: v for k, v in bound.arguments.items() if k not in to_ignore}
            try:
                validate_parameter_constraints(
                    parameter_constraints,
                    {k: v.item() if isinstance(v, np.generic) else v for k, v in params.items()},
                    caller_name=func.__qualname__,
                )
            except InvalidParameterError as exc:
                raise InvalidParameterError(_compact_message(str(exc), params)) from None
            try:
                with config_context(
                    skip_parameter_validation=prefer_skip_nested_validation or global_skip
                ):
                    return func(*args, **kwargs)
            except InvalidParameterError as exc:
                # As scikit-learn: an inner function's name becomes this one's.
                msg = re.sub(
                    r"parameter of \w+ must be",
                    f"parameter of {func.__qualname__} must be",
                    str(exc),
                )
                raise InvalidParameterError(msg) from exc

        return wrapper

    return decorator


def _compact_message(message, params):
    """`message` with the repr of any long argument replaced by its type."""
    for value in params.values():
        try:
            text = repr(value)
        except Exception:  # a repr that fails is not in the message either
            continue
        if (len(text) > _MAX_REPR or "\n" in text) and text in message:
            message = message.replace(text, f"an object of type {type(value).__name__}")
    return message
