import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# R reference values (DTComPair, geepack) and the records they were computed
# on ship with the tests, so the whole suite runs in a plain checkout.
REFERENCE = Path(__file__).resolve().parent / "data"


def make_correlated_predictions(
    n_records,
    n_classes,
    n_classifiers,
    *,
    accuracy=0.7,
    agreement=0.5,
    repeats=1,
    seed=0,
    labels=None,
):
    """Truth and predictions of several classifiers that share errors.

    Each classifier copies a common "shared" prediction with probability
    `agreement`, else predicts on its own (correct with prob. `accuracy`).
    With ``repeats > 1`` every record is predicted `repeats` times with fresh
    noise (stacked cross-validation rows); `groups` gives the record ids.
    """
    rng = np.random.default_rng(seed)
    y_rec = rng.integers(0, n_classes, n_records)
    y = np.tile(y_rec, repeats)
    groups = np.tile(np.arange(n_records), repeats)
    n = y.shape[0]

    def noisy(acc):
        wrong = (y + rng.integers(1, n_classes, n)) % n_classes
        return np.where(rng.random(n) < acc, y, wrong)

    shared = noisy(accuracy)
    preds = {}
    for c in range(n_classifiers):
        own = noisy(accuracy - 0.05 * c)
        preds[f"clf{c}"] = np.where(rng.random(n) < agreement, shared, own)
    if labels is not None:
        labels = np.asarray(labels)
        y = labels[y]
        preds = {k: labels[v] for k, v in preds.items()}
    return y, preds, groups


@pytest.fixture
def correlated():
    return make_correlated_predictions


def assert_reciprocal_ratios(ab, ba):
    """Ratios one way are the reciprocals of the other way's, except that a
    ratio of exactly 0 one way is infinite, so NaN, the other way."""
    ab, ba = np.asarray(ab, dtype=float), np.asarray(ba, dtype=float)
    assert np.isnan(ba[ab == 0]).all() and np.isnan(ab[ba == 0]).all()
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(
            np.where(ab == 0, np.nan, ab), np.where(ba == 0, np.nan, 1 / ba), rtol=1e-9
        )


def quiet(func, *args, **kwargs):
    """``func(*args, **kwargs)`` with its warnings silenced (for comparing paths)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def assert_same_comparison(result, expected):
    """Two comparisons with the same tables to the last bit."""
    pd.testing.assert_frame_equal(result.table, expected.table, check_exact=True)
    pd.testing.assert_frame_equal(result.omnibus, expected.omnibus, check_exact=True)
    assert result.n_rows == expected.n_rows and result.n_records == expected.n_records
    assert result.classifiers == expected.classifiers


def run_cli(argv, capsys):
    """Run the command line on `argv`: its exit status, stdout and stderr."""
    from sklearn_precision_stats.__main__ import main

    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def cli_csv_table(argv, capsys):
    """The table the command line prints for `argv` as CSV (it must succeed)."""
    code, out, err = run_cli([*argv, "--format", "csv"], capsys)
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


def make_scores(n, seed=0):
    """Labels of three classes and the rounded scores of three classifiers,
    ``a`` the sharpest and ``c`` the noisiest (ties from the rounding)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    onehot = np.eye(3)[y]
    return y, {
        "a": np.round(onehot + rng.normal(size=(n, 3)), 2),
        "b": np.round(onehot + rng.normal(scale=1.5, size=(n, 3)), 2),
        "c": np.round(onehot + rng.normal(scale=2.0, size=(n, 3)), 2),
    }
