"""Timings of the classic tests: DeLong's O(n log n) algorithm against brute force.

Prints the wall time of :func:`delong_test` on 10^6 scores (target: under
2 s), the times of the fast and a brute-force O(n^2) DeLong on 10^4 scores
measured in the same run, their ratio, and the largest difference between
the two results. Also times McNemar (plain and clustered) and
Hosmer-Lemeshow on 10^6 rows.

Run with ``python benchmarks/bench_classic.py``.
"""

import time

import numpy as np
from scipy import stats

from sklearn_precision_stats import delong_test, hosmer_lemeshow_test, mcnemar_test


def brute_force_delong(y, scores_a, scores_b, chunk=2000):
    """DeLong et al. (1988) from all m * n pairs, in row chunks to cap memory."""
    pos = y == 1
    m, n = int(pos.sum()), int((~pos).sum())
    v10, v01 = np.zeros((2, m)), np.zeros((2, n))
    for r, s in enumerate((scores_a, scores_b)):
        x, z = s[pos], s[~pos]
        for start in range(0, m, chunk):
            block = x[start : start + chunk, None]
            psi = (block > z) + 0.5 * (block == z)
            v10[r, start : start + chunk] = psi.mean(axis=1)
            v01[r] += psi.sum(axis=0)
    v01 /= m
    auc = v10.mean(axis=1)
    cov = np.cov(v10) / m + np.cov(v01) / n
    z = (auc[0] - auc[1]) / np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    return auc, cov, z, 2 * stats.norm.sf(abs(z))


def make_scores(rng, n):
    y = rng.integers(0, 2, n)
    common = rng.standard_normal(n)
    a = 1.0 * y + common + rng.standard_normal(n)
    b = 0.8 * y + common + rng.standard_normal(n)
    # Three decimals: realistic probability-like scores with ties.
    return y, np.round(a, 3), np.round(b, 3)


def best_of(repeats, func, *args):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = func(*args)
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    rng = np.random.default_rng(0)

    y, a, b = make_scores(rng, 10**6)
    t_big, res_big = best_of(3, delong_test, y, a, b)
    print(
        f"delong_test, 10^6 scores:        {t_big:8.3f} s  (target < 2 s)"
        f"  AUCs {res_big.auc_a:.4f} vs {res_big.auc_b:.4f}, z = {res_big.statistic:.2f}"
    )

    y, a, b = make_scores(rng, 10**4)
    t_fast, res = best_of(5, delong_test, y, a, b)
    t_brute, (auc, cov, z, p) = best_of(1, brute_force_delong, y, a, b)
    diff = max(
        abs(res.auc_a - auc[0]),
        abs(res.auc_b - auc[1]),
        np.abs(res.covariance - cov).max(),
        abs(res.statistic - z),
        abs(res.pvalue - p),
    )
    print(f"delong_test, 10^4 scores:        {t_fast:8.4f} s")
    print(f"brute-force O(n^2), 10^4 scores: {t_brute:8.3f} s")
    print(
        f"speed-up at 10^4 (brute / fast): {t_brute / t_fast:8.0f} x"
        f"   max |difference| = {diff:.1e}"
    )

    n = 10**6
    groups = rng.integers(0, n // 10, n)
    y = rng.integers(0, 5, n)
    pred_a = np.where(rng.random(n) < 0.8, y, (y + 1) % 5)
    pred_b = np.where(rng.random(n) < 0.79, y, (y + 2) % 5)
    t, _ = best_of(3, mcnemar_test, y, pred_a, pred_b)
    print(f"mcnemar_test exact, 10^6 rows:   {t:8.3f} s")
    t, _ = best_of(3, lambda: mcnemar_test(y, pred_a, pred_b, groups=groups))
    print(f"mcnemar_test clustered, 10^6:    {t:8.3f} s")
    prob = rng.random(n)
    outcome = (rng.random(n) < prob).astype(int)
    t, _ = best_of(3, hosmer_lemeshow_test, outcome, prob)
    print(f"hosmer_lemeshow_test, 10^6 rows: {t:8.3f} s")


if __name__ == "__main__":
    main()
