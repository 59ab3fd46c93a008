"""Every private scikit-learn import of the library, in one place.

scikit-learn's declarative parameter validation and a few helpers are not
public API; importing them here alone means a change in scikit-learn is
mended in one file (imbalanced-learn does the same).
"""

from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    Options,
    RealNotInt,
    StrOptions,
    validate_params,
)
from sklearn.utils.validation import _check_method_params, _num_samples

__all__ = [
    "HasMethods",
    "Hidden",
    "Interval",
    "InvalidParameterError",
    "Options",
    "RealNotInt",
    "StrOptions",
    "_check_method_params",
    "_num_samples",
    "validate_params",
]
