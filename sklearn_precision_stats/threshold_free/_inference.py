"""What the bootstrap and DeLong's comparisons share: the omnibus Wald test,
class names in messages and the warnings' stack level."""

import numpy as np
from scipy import stats

# Frames between warnings.warn in _run and the caller: _run, the public
# function and scikit-learn's validate_params wrapper.
_STACKLEVEL = 4


def _omnibus(diff, covariances):
    """Wald test that every difference of a row is zero, with its covariance."""
    n_rows = diff.shape[0]
    df = np.full(n_rows, np.nan)
    stat = np.full(n_rows, np.nan)
    pvalue = np.full(n_rows, np.nan)
    for i, cov in enumerate(covariances):
        d = diff[i]
        if not (np.isfinite(d).all() and np.isfinite(cov).all()):
            continue
        # The pseudo-inverse and rank handle differences that are exactly
        # collinear (e.g. two identical classifiers); a combination of them
        # with no variance that is not zero leaves the test undefined (its
        # statistic would depend on the reference).
        eigval, eigvec = np.linalg.eigh(cov)
        keep = eigval > 1e-10 * max(eigval.max(), 0.0)
        if not keep.any():
            continue
        projected = eigvec[:, keep].T @ d
        if np.abs(d - eigvec[:, keep] @ projected).max() > 1e-8 * np.abs(d).max():
            continue
        stat[i] = float(np.sum(projected**2 / eigval[keep]))
        df[i] = int(keep.sum())
        pvalue[i] = float(stats.chi2.sf(stat[i], df[i]))
    return {"df": df, "wald_stat": stat, "wald_pvalue": pvalue}


def _class_name(label):
    return repr(label.item() if hasattr(label, "item") else label)
