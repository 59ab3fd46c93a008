"""Agreement with R DTComPair and geepack.

The reference values in ``tests/data/precision_reference.json`` were computed
with R DTComPair 1.2.6 and geepack 1.3.9 on the records in ``tests/data``
(``paired1.csv``, ``synthetic1.csv``); the file's ``about`` entry says which R
function gives which value.
"""

import json

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats import compare_precision

from .conftest import REFERENCE

KEYS = {  # reference key -> table column
    "precision": "precision",
    "precision_ref": "precision_reference",
    "score_stat": "gs_stat",
    "score_pvalue": "gs_pvalue",
    "wgs_stat": "wgs_stat",
    "wgs_pvalue": "wgs_pvalue",
    "rp": "ratio",
    "rp_se_log": "ratio_se_log",
    "rp_ci_low": "ratio_ci_low",
    "rp_ci_high": "ratio_ci_high",
    "rp_pvalue": "ratio_pvalue",
    "log_or": "log_or",
    "log_or_se": "log_or_se",
    "wald_stat": "wald_stat",
    "wald_pvalue": "wald_pvalue",
}


@pytest.fixture(scope="module")
def reference():
    return json.loads((REFERENCE / "precision_reference.json").read_text())


@pytest.mark.parametrize("name", ["paired1", "synthetic1"])
@pytest.mark.parametrize("engine", ["closed-form", "statsmodels"])
def test_dtcompair_and_geepack_values(reference, name, engine):
    data = pd.read_csv(REFERENCE / f"{name}.csv")
    # y1 is the reference test, y2 the compared one; class of interest is 1.
    result = compare_precision(data["d"], {"y1": data["y1"], "y2": data["y2"]}, engine=engine)
    row = result.get(1, "y2")
    for key, column in KEYS.items():
        np.testing.assert_allclose(
            row[column], reference[name][key], rtol=1e-9, err_msg=f"{name}: {key}"
        )


def test_paper_wald_erratum_value(reference):
    # The paper's closed forms (8) and (34) put P1(1-P1)/T1 + P2(1-P2)/T5 in
    # the denominator; the form that equals the GEE sandwich (and geepack) is
    # P2(1-P2)/T1 + P1(1-P1)/T5 - 2C/(T1 T5). Check it by hand from the cells
    # of the paper's Table 3 on paired1.
    d = pd.read_csv(REFERENCE / "paired1.csv")
    p1 = d.d[d.y1 == 1].mean()  # reference
    p2 = d.d[d.y2 == 1].mean()
    t1, t5 = (d.y1 == 1).sum(), (d.y2 == 1).sum()
    both = (d.y1 == 1) & (d.y2 == 1)
    n5, n1 = (both & (d.d == 1)).sum(), (both & (d.d == 0)).sum()
    c = n5 * (1 - p1) * (1 - p2) + n1 * p1 * p2
    num = (np.log(p1 / (1 - p1)) - np.log(p2 / (1 - p2))) ** 2 * p1 * (1 - p1) * p2 * (1 - p2)
    den = p2 * (1 - p2) / t1 + p1 * (1 - p1) / t5 - 2 * c / (t1 * t5)
    assert num / den == pytest.approx(5.41110018683347, rel=1e-12)
    result = compare_precision(d.d, {"y1": d.y1, "y2": d.y2})
    assert result.get(1)["wald_stat"] == pytest.approx(num / den, rel=1e-12)


def test_kosinski_closed_forms_by_hand():
    # Paper eqs. (12)-(14), C_P = (n5 (1-P)^2 + n1 P^2) / (T1 + T5) with the
    # pooled precision P: GS (Leisenring et al. 2000) includes W_P, WGS
    # (Kosinski 2013) leaves it out.
    d = pd.read_csv(REFERENCE / "synthetic1.csv")
    p1, p2 = d.d[d.y1 == 1].mean(), d.d[d.y2 == 1].mean()
    t1, t5 = (d.y1 == 1).sum(), (d.y2 == 1).sum()
    pool = (d.d[d.y1 == 1].sum() + d.d[d.y2 == 1].sum()) / (t1 + t5)
    both = (d.y1 == 1) & (d.y2 == 1)
    n5, n1 = (both & (d.d == 1)).sum(), (both & (d.d == 0)).sum()
    cp = (n5 * (1 - pool) ** 2 + n1 * pool**2) / (t1 + t5)
    wp = (2 * pool - p1 - p2) * (2 * pool - 1)
    gs = (p1 - p2) ** 2 / ((pool * (1 - pool) + wp - 2 * cp) * (1 / t1 + 1 / t5))
    wgs = (p1 - p2) ** 2 / ((pool * (1 - pool) - 2 * cp) * (1 / t1 + 1 / t5))
    row = compare_precision(d.d, {"y1": d.y1, "y2": d.y2}).get(1)
    assert row["gs_stat"] == pytest.approx(gs, rel=1e-12)
    assert row["wgs_stat"] == pytest.approx(wgs, rel=1e-12)


def test_rp_moskowitz_pepe_with_cell_proportions():
    # Moskowitz and Pepe (2006): the paper's eq. (18) holds with cell
    # proportions n_k / N; with counts, as printed, the /N in (19) is wrong.
    d = pd.read_csv(REFERENCE / "paired1.csv")
    # Classifier 1 of the paper = y2 (numerator of rp), classifier 2 = y1.
    c1, c2, D = d.y2 == 1, d.y1 == 1, d.d == 1
    N = len(d)
    cell = lambda a, b, t: ((c1 == a) & (c2 == b) & (t == D)).sum() / N  # noqa: E731
    n1, n2, n3 = cell(1, 1, 0), cell(1, 0, 0), cell(0, 1, 0)
    n5, n6, n7 = cell(1, 1, 1), cell(1, 0, 1), cell(0, 1, 1)
    p1 = (n5 + n6) / (n1 + n2 + n5 + n6)
    p2 = (n5 + n7) / (n1 + n3 + n5 + n7)
    sigma2 = (n6 * (1 - p2) + n5 * (p2 - p1) + 2 * (n7 + n3) * p1 * p2 + n7 * (1 - 3 * p1)) / (
        (n5 + n7) * (n5 + n6)
    )
    row = compare_precision(d.d, {"y1": d.y1, "y2": d.y2}).get(1)
    assert row["ratio"] == pytest.approx(p1 / p2, rel=1e-12)
    assert row["ratio_se_log"] == pytest.approx(np.sqrt(sigma2 / N), rel=1e-10)
