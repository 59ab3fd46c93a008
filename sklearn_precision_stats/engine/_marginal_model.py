"""The marginal model: closed-form GEE for comparing precision (or recall).

For class ``k`` the paper fits, on the stacked rows that predict ``k``,

    logit Pr(D = 1) = a + sum_c b_c [classifier == c]        (reference: b = 0)

by GEE with an independence working correlation, clustered by record, with
the robust (sandwich) covariance. The model is saturated in the classifier
indicator, so with ``T_c`` successes and ``F_c`` failures among the
``M_c = T_c + F_c`` rows of classifier ``c``:

* the estimates are ``P_c = T_c / M_c`` (``b_c = logit P_c - logit P_ref``);
* in the cell-logit parametrisation the bread is ``diag(M_c P_c (1 - P_c))``
  and the meat is ``S = sum_i s_i s_i^T`` with record scores
  ``s_ic = t_ic (1 - P_c) - f_ic P_c``;
* the robust score test of ``b = 0`` evaluates the scores at the pooled
  precision and projects out the intercept.

``S`` is a quadratic form in the per-record counts, so everything follows
from the sums in :class:`~sklearn_precision_stats.engine._counts.MarginalCounts`.
All functions broadcast over leading batch axes and never warn: undefined
statistics come out as NaN and :func:`diagnose` says why.
"""

import numpy as np
from scipy import special

__all__ = []

# An omnibus covariance whose smallest eigenvalue is below this fraction of
# its natural scale is singular: only degenerate data (identical
# predictions, a pooled proportion of 0 or 1) come this close, while
# floating-point cancellation stays near 1e-16.
_RELATIVE_ZERO = 1e-10


def _residual_products(cross, p_c, p_d):
    """sum_i (t_ic - m_ic p_c)(t_id - m_id p_d) from the cross sums.

    ``cross`` has trailing axes (2, 2) for (success, failure) x (success,
    failure); ``p_c``, ``p_d`` broadcast against its leading axes.
    """
    q_c, q_d = 1.0 - p_c, 1.0 - p_d
    return (
        q_c * q_d * cross[..., 0, 0]
        - q_c * p_d * cross[..., 0, 1]
        - p_c * q_d * cross[..., 1, 0]
        + p_c * p_d * cross[..., 1, 1]
    )


def chi2_pvalue(stat, df):
    """Upper tail of chi2(df); NaN stays NaN (scipy.special, no frozen dists)."""
    return special.chdtrc(df, stat)


def normal_two_sided_pvalue(z):
    return 2.0 * special.ndtr(-np.abs(z))


def normal_quantile(confidence_level):
    """The two-sided normal critical value of `confidence_level`."""
    return special.ndtri(0.5 + confidence_level / 2.0)


def _record_differences(Gcc, G00, Gc0):
    """Sums over records of squared differences between two classifiers.

    ``(sum_i (t_ic - t_i0)^2, sum_i (m_ic - m_i0)^2, sum_i (t_ic - t_i0)(m_ic -
    m_i0))`` from the cross sums: integers, so they are exact (below 2^53),
    and a difference between the classifiers exists on some record exactly
    when one of the first two is positive. Deciding "zero variance" from
    them, rather than from a variance computed by cancellation, keeps a
    small but real difference (one record among millions) a difference.
    """
    tt = Gcc[..., 0, 0] + G00[..., 0, 0] - 2 * Gc0[..., 0, 0]
    mm = Gcc.sum(axis=(-2, -1)) + G00.sum(axis=(-2, -1)) - 2 * Gc0.sum(axis=(-2, -1))
    tm = (
        Gcc[..., 0, :].sum(axis=-1)
        - Gc0[..., 0, :].sum(axis=-1)
        - Gc0[..., :, 0].sum(axis=-1)
        + G00[..., 0, :].sum(axis=-1)
    )
    return tt, mm, tm


def pairwise_statistics(counts, meat=None, clustered=False):
    """Two-classifier comparisons of every classifier with the reference.

    The reference is classifier 0. Each comparison uses only the rows of the
    two classifiers, as DTComPair does; for the Wald test, odds ratio,
    ratio and difference that is the same as the full model's contrast.
    Intervals are left to :func:`add_intervals`, so that one set of
    statistics serves every confidence level.

    Parameters
    ----------
    counts : MarginalCounts
    meat : ndarray of shape (..., n_classes, n_classifiers, n_classifiers), default=None
        A corrected meat (Mancl and DeRouen's, :mod:`._bias_reduced`) for the
        Wald test, odds ratio, ratio and difference; the robust sandwich's
        when None. The score tests always use the robust one.
    clustered : bool, default=False
        Records repeat: WGS is then NaN (its null variance treats a record's
        rows as fully correlated, and in simulations it rejected about 1% at
        5%; GS holds its level).

    Returns
    -------
    dict of ndarray of shape (..., n_classes, n_classifiers - 1)
        ``value``, ``value_reference`` (the measure), their successes and
        denominators ``successes``, ``n`` (and ``_reference``), the
        standard errors ``value_se``, ``value_reference_se`` (sandwich),
        and the test columns ``gs_stat`` ... ``diff_se``.
    """
    T, F, G = counts.successes, counts.failures, counts.cross
    M = T + F
    with np.errstate(divide="ignore", invalid="ignore"):
        P = T / M

    T0, M0, P0 = T[..., :1], M[..., :1], P[..., :1]
    Tc, Mc, Pc = T[..., 1:], M[..., 1:], P[..., 1:]
    G00 = G[..., :1, 0, :, :]
    Gcc = np.diagonal(G[..., 1:, 1:, :, :], axis1=-4, axis2=-3)
    Gcc = np.moveaxis(Gcc, -1, -3)
    Gc0 = G[..., 1:, 0, :, :]

    # Sandwich at the fitted proportions (Wald, odds ratio, ratio, difference).
    if meat is None:
        S00 = _residual_products(G00, P0, P0)
        Scc = _residual_products(Gcc, Pc, Pc)
        Sc0 = _residual_products(Gc0, Pc, P0)
    else:
        S00 = meat[..., :1, 0]
        Scc = np.diagonal(meat, axis1=-2, axis2=-1)[..., 1:]
        Sc0 = meat[..., 1:, 0]
    diff_tt, diff_mm, diff_tm = _record_differences(Gcc, G00, Gc0)
    # Both classifiers need rows in the model, and some record must differ.
    differs = ((diff_tt > 0) | (diff_mm > 0)) & (Mc > 0) & (M0 > 0)

    with np.errstate(divide="ignore", invalid="ignore"):
        # Var(logit P_c) = S_cc / (M_c P_c (1 - P_c))^2, written so that it
        # stays finite when computed on the proportion scale first.
        info_c, info_0 = Mc * Pc * (1 - Pc), M0 * P0 * (1 - P0)
        var_c, var_0 = Scc / info_c**2, S00 / info_0**2
        cov_c0 = Sc0 / (info_c * info_0)
        log_or = special.logit(Pc) - special.logit(P0)
        var_b = var_c + var_0 - 2 * cov_c0
        finite_or = np.isfinite(log_or)
        var_b = np.where(finite_or & differs & (var_b > 0), var_b, np.nan)
        log_or = np.where(finite_or, log_or, np.nan)
        log_or_se = np.sqrt(var_b)
        wald = log_or**2 / var_b

        # Ratio (relative precision, ...) by the delta method on log P.
        log_ratio = np.log(Pc) - np.log(P0)
        lv_c, lv_0 = Scc / Tc**2, S00 / T0**2
        var_log_ratio = lv_c + lv_0 - 2 * Sc0 / (Tc * T0)
        ratio_defined = np.isfinite(log_ratio)
        ratio_se = np.sqrt(
            np.where(ratio_defined & differs & (var_log_ratio > 0), var_log_ratio, np.nan)
        )
        log_ratio = np.where(ratio_defined, log_ratio, np.nan)
        # A compared count of 0 against a positive reference is a ratio of
        # exactly 0 (scikit-learn's class_likelihood_ratios reports such a
        # ratio as 0); only its log-scale interval and test are undefined.
        # Infinite and 0/0 ratios stay NaN.
        ratio = np.where(
            ratio_defined, np.exp(log_ratio), np.where((Pc == 0) & (P0 > 0), 0.0, np.nan)
        )

        # Difference on the proportion scale: the identity-link sandwich.
        pv_c, pv_0 = Scc / Mc**2, S00 / M0**2
        var_diff = pv_c + pv_0 - 2 * Sc0 / (Mc * M0)
        diff = Pc - P0
        diff_se = np.sqrt(np.where(np.isfinite(diff) & differs & (var_diff > 0), var_diff, np.nan))

        # Generalized score test: scores at the pooled proportion of the pair,
        # with the intercept projected out (Leisenring et al. 2000, eq. 9).
        Mpair = Mc + M0
        Ppool = (Tc + T0) / Mpair
        w_c, w_0 = Mc / Mpair, M0 / Mpair
        U = Tc - Mc * Ppool
        Rcc = _residual_products(Gcc, Ppool, Ppool)
        R00 = _residual_products(G00, Ppool, Ppool)
        Rc0 = _residual_products(Gc0, Ppool, Ppool)
        # var_u = sum_i (w_0 r_ic - w_c r_i0)^2 = sum_i (alpha b_i + a_i / 2)^2
        # with a = r_c - r_0, b = r_c + r_0, alpha = (w_0 - w_c) / 2: the
        # sum of a^2, where nearly identical classifiers cancel, comes from
        # the exact record differences.
        alpha = (w_0 - w_c) / 2
        sum_a2 = diff_tt - 2 * Ppool * diff_tm + Ppool**2 * diff_mm
        var_u = alpha**2 * (Rcc + 2 * Rc0 + R00) + alpha * (Rcc - R00) + sum_a2 / 4
        gs = U**2 / np.where(differs & (var_u > 0), var_u, np.nan)

        # Weighted generalized score (Kosinski 2013): each classifier's own
        # score variance is replaced by its null model value
        # Ppool (1 - Ppool) sum_i m_ic^2; with one row per record this is
        # Kosinski's eq. (12) without the W_P term.
        nv = Ppool * (1 - Ppool)
        Qc, Q0 = Gcc.sum(axis=(-2, -1)), G00.sum(axis=(-2, -1))
        var_w = w_0**2 * nv * Qc - 2 * w_0 * w_c * Rc0 + w_c**2 * nv * Q0
        wgs = U**2 / np.where(differs & (var_w > 0) & (not clustered), var_w, np.nan)
        value_se_c, value_se_0 = np.sqrt(Scc) / Mc, np.sqrt(S00) / M0

    shape = np.broadcast_shapes(Pc.shape, P0.shape)

    def ref(x):
        return np.broadcast_to(x, shape)

    return {
        "value": Pc,
        "value_reference": ref(P0),
        "value_se": value_se_c,
        "value_reference_se": ref(value_se_0),
        "successes": Tc,
        "successes_reference": ref(T0),
        "n": Mc,
        "n_reference": ref(M0),
        "gs_stat": gs,
        "gs_pvalue": chi2_pvalue(gs, 1),
        "wgs_stat": wgs,
        "wgs_pvalue": chi2_pvalue(wgs, 1),
        "wald_stat": wald,
        "wald_pvalue": chi2_pvalue(wald, 1),
        "log_or": log_or,
        "log_or_se": log_or_se,
        "ratio": ratio,
        "ratio_se_log": ratio_se,
        "ratio_pvalue": normal_two_sided_pvalue(log_ratio / ratio_se),
        "diff": diff,
        "diff_se": diff_se,
    }


def wilson_interval(successes, n, z):
    """Wilson's score interval of a binomial proportion (vectorised)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = successes / n
        center = (p + z**2 / (2 * n)) / (1 + z**2 / n)
        half = z / (1 + z**2 / n) * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    # At p = 0 or 1 a bound is 0 or 1 up to rounding (-1e-17, 1 + 2e-16):
    # clipped, as statsmodels' proportion_confint does.
    return np.clip(center - half, 0.0, 1.0), np.clip(center + half, 0.0, 1.0)


def add_intervals(stats, confidence_level, clustered):
    """Interval columns of :func:`pairwise_statistics` at `confidence_level`.

    The measure's own interval is Wilson's with one row per record and the
    cluster-robust (sandwich) Wald interval with repeated records; the odds
    ratio's and the ratio's are Wald intervals on the log scale, the
    difference's on its own scale.

    Returns
    -------
    dict of ndarray
    """
    z = normal_quantile(confidence_level)
    out = {}
    for name in ("value", "value_reference"):
        if clustered:
            est, se = stats[name], stats[f"{name}_se"]
            low, high = est - z * se, est + z * se
        else:
            suffix = name[len("value") :]
            low, high = wilson_interval(stats["successes" + suffix], stats["n" + suffix], z)
        out[f"{name}_ci_low"], out[f"{name}_ci_high"] = low, high
    log_or, se = stats["log_or"], stats["log_or_se"]
    out["or_ci_low"], out["or_ci_high"] = np.exp(log_or - z * se), np.exp(log_or + z * se)
    with np.errstate(divide="ignore"):
        log_ratio = np.log(stats["ratio"])
    se = stats["ratio_se_log"]
    out["ratio_ci_low"] = np.exp(log_ratio - z * se)
    out["ratio_ci_high"] = np.exp(log_ratio + z * se)
    diff, se = stats["diff"], stats["diff_se"]
    out["diff_ci_low"], out["diff_ci_high"] = diff - z * se, diff + z * se
    return out


def _quadratic_form(vec, mat, scale):
    """vec^T mat^{-1} vec over batches; NaN where `mat` is (near) singular.

    ``scale`` is the natural size of the entries of `mat` before the
    cancellations that make it singular (e.g. the unprojected variances):
    an eigenvalue below ``_RELATIVE_ZERO * scale`` counts as zero, so exact
    degeneracy is detected whether rounding leaves 0 or 1e-17 behind.

    Returns
    -------
    ndarray of shape vec.shape[:-1]
    """
    finite = np.isfinite(vec).all(axis=-1) & np.isfinite(mat).all(axis=(-2, -1))
    safe = np.where(finite[..., None, None], mat, np.eye(mat.shape[-1]))
    eig = np.linalg.eigvalsh(safe)
    ok = finite & (eig[..., 0] > _RELATIVE_ZERO * np.maximum(np.abs(eig[..., -1]), scale))
    safe = np.where(ok[..., None, None], safe, np.eye(mat.shape[-1]))
    vec = np.where(ok[..., None], vec, 0.0)
    sol = np.linalg.solve(safe, vec[..., None])[..., 0]
    return np.where(ok, np.einsum("...i,...i->...", vec, sol), np.nan)


def omnibus_statistics(counts, meat=None):
    """Tests of equal precision of all classifiers at once (c - 1 df).

    Returns
    -------
    dict of ndarray of shape (..., n_classes)
    """
    T, F, G = counts.successes, counts.failures, counts.cross
    M = T + F
    n_clf = T.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        P = T / M
        # Wald: b = logit P_c - logit P_ref with the sandwich covariance.
        eta = special.logit(P)
        b = eta[..., 1:] - eta[..., :1]
        S = _residual_products(G, P[..., :, None], P[..., None, :]) if meat is None else meat
        info = M * P * (1 - P)
        V = S / (info[..., :, None] * info[..., None, :])
        cov_b = V[..., 1:, 1:] - V[..., 1:, :1] - V[..., :1, 1:] + V[..., :1, :1]
        wald = _quadratic_form(b, cov_b, np.diagonal(V, axis1=-2, axis2=-1).max(axis=-1))

        # Score: everything at the pooled precision, intercept projected out.
        Ppool = T.sum(axis=-1) / M.sum(axis=-1)
        pp = Ppool[..., None, None]
        R = _residual_products(G, pp, pp)
        w = M / M.sum(axis=-1, keepdims=True)
        U = T[..., 1:] - M[..., 1:] * Ppool[..., None]
        A = np.eye(n_clf)[1:] - w[..., 1:, None]  # (..., C-1, C)
        var_u = A @ R @ np.swapaxes(A, -1, -2)
        score = _quadratic_form(U, var_u, np.diagonal(R, axis1=-2, axis2=-1).max(axis=-1))
    df = n_clf - 1
    return {
        "df": np.full(wald.shape, df),
        "gs_stat": score,
        "gs_pvalue": chi2_pvalue(score, df),
        "wald_stat": wald,
        "wald_pvalue": chi2_pvalue(wald, df),
    }
