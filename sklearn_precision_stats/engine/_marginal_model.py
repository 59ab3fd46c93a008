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
from scipy import special, stats

__all__ = []

# Variances below this fraction of their natural scale are treated as zero:
# only degenerate data (identical predictions, a pooled precision of 0 or 1)
# come this close, while floating-point cancellation stays near 1e-16.
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


def _is_zero(variance, scale):
    return ~(variance > _RELATIVE_ZERO * scale)


def _chi2_pvalue(stat, df):
    return stats.chi2.sf(stat, df)


def _divide(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(num, den)


def pairwise_statistics(counts, alpha=0.05):
    """Two-classifier comparisons of every classifier with the reference.

    The reference is classifier 0. Each comparison uses only the rows of the
    two classifiers, as DTComPair does; for the Wald test, odds ratio and
    relative precision that is the same as the full model's contrast.

    Returns
    -------
    dict of ndarray of shape (..., n_classes, n_classifiers - 1)
    """
    T, F, G = counts.successes, counts.failures, counts.cross
    M = T + F
    with np.errstate(divide="ignore", invalid="ignore"):
        P = T / M
    z_crit = stats.norm.isf(alpha / 2)

    T0, M0, P0 = T[..., :1], M[..., :1], P[..., :1]
    Tc, Mc, Pc = T[..., 1:], M[..., 1:], P[..., 1:]
    G00 = G[..., :1, 0, :, :]
    Gcc = np.diagonal(G[..., 1:, 1:, :, :], axis1=-4, axis2=-3)
    Gcc = np.moveaxis(Gcc, -1, -3)
    Gc0 = G[..., 1:, 0, :, :]

    # Sandwich at the fitted precisions (Wald, odds ratio, relative precision).
    S00 = _residual_products(G00, P0, P0)
    Scc = _residual_products(Gcc, Pc, Pc)
    Sc0 = _residual_products(Gc0, Pc, P0)

    with np.errstate(divide="ignore", invalid="ignore"):
        # Var(logit P_c) = S_cc / (M_c P_c (1 - P_c))^2, written so that it
        # stays finite when computed on the precision scale first.
        info_c, info_0 = Mc * Pc * (1 - Pc), M0 * P0 * (1 - P0)
        var_c, var_0 = Scc / info_c**2, S00 / info_0**2
        cov_c0 = Sc0 / (info_c * info_0)
        log_or = special.logit(Pc) - special.logit(P0)
        var_b = var_c + var_0 - 2 * cov_c0
        finite_or = np.isfinite(log_or)
        var_b = np.where(finite_or & ~_is_zero(var_b, var_c + var_0), var_b, np.nan)
        log_or = np.where(finite_or, log_or, np.nan)
        log_or_se = np.sqrt(var_b)
        wald = log_or**2 / var_b

        # Relative precision by the delta method on log P, same sandwich.
        log_rp = np.log(Pc) - np.log(P0)
        lv_c, lv_0 = Scc / Tc**2, S00 / T0**2
        var_log_rp = lv_c + lv_0 - 2 * Sc0 / (Tc * T0)
        rp_defined = np.isfinite(log_rp)
        rp_se = np.sqrt(
            np.where(rp_defined & ~_is_zero(var_log_rp, lv_c + lv_0), var_log_rp, np.nan)
        )
        log_rp = np.where(rp_defined, log_rp, np.nan)
        rp_z = log_rp / rp_se

        # Generalized score test: scores at the pooled precision of the pair,
        # with the intercept projected out (Leisenring et al. 2000, eq. 9).
        Mpair = Mc + M0
        Ppool = (Tc + T0) / Mpair
        w_c, w_0 = Mc / Mpair, M0 / Mpair
        U = Tc - Mc * Ppool
        Rcc = _residual_products(Gcc, Ppool, Ppool)
        R00 = _residual_products(G00, Ppool, Ppool)
        Rc0 = _residual_products(Gc0, Ppool, Ppool)
        var_u = w_0**2 * Rcc - 2 * w_0 * w_c * Rc0 + w_c**2 * R00
        scale_u = w_0**2 * Rcc + w_c**2 * R00
        score = U**2 / np.where(_is_zero(var_u, scale_u), np.nan, var_u)

        # Weighted generalized score (Kosinski 2013): each classifier's own
        # score variance is replaced by its null model value
        # Ppool (1 - Ppool) sum_i m_ic^2; with one row per record this is
        # Kosinski's eq. (12) without the W_P term.
        nv = Ppool * (1 - Ppool)
        Qc, Q0 = Gcc.sum(axis=(-2, -1)), G00.sum(axis=(-2, -1))
        var_w = w_0**2 * nv * Qc - 2 * w_0 * w_c * Rc0 + w_c**2 * nv * Q0
        scale_w = w_0**2 * nv * Qc + w_c**2 * nv * Q0
        wgs = U**2 / np.where(_is_zero(var_w, scale_w), np.nan, var_w)

    shape = np.broadcast_shapes(Pc.shape, P0.shape)
    return {
        "precision": Pc,
        "precision_reference": np.broadcast_to(P0, shape),
        "n_predicted": Mc,
        "n_predicted_reference": np.broadcast_to(M0, shape),
        "score_stat": score,
        "score_pvalue": _chi2_pvalue(score, 1),
        "wgs_stat": wgs,
        "wgs_pvalue": _chi2_pvalue(wgs, 1),
        "wald_stat": wald,
        "wald_pvalue": _chi2_pvalue(wald, 1),
        "log_or": log_or,
        "log_or_se": log_or_se,
        "or_ci_low": np.exp(log_or - z_crit * log_or_se),
        "or_ci_high": np.exp(log_or + z_crit * log_or_se),
        "rp": np.exp(log_rp),
        "rp_se_log": rp_se,
        "rp_ci_low": np.exp(log_rp - z_crit * rp_se),
        "rp_ci_high": np.exp(log_rp + z_crit * rp_se),
        "rp_pvalue": 2 * stats.norm.sf(np.abs(rp_z)),
    }


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


def omnibus_statistics(counts):
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
        S = _residual_products(G, P[..., :, None], P[..., None, :])
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
        "score_stat": score,
        "score_pvalue": _chi2_pvalue(score, df),
        "wald_stat": wald,
        "wald_pvalue": _chi2_pvalue(wald, df),
    }


def diagnose(counts, pairwise, omnibus, classifier_names, class_names, metric="precision"):
    """Why statistics are undefined: one message per classifier and reason.

    Parameters
    ----------
    counts : MarginalCounts
        Without batch axes.
    pairwise, omnibus : dict
        Outputs of :func:`pairwise_statistics` and :func:`omnibus_statistics`.
    classifier_names, class_names : sequence
        Reference first; classes in the order of the class axis.
    metric : {"precision", "recall"}

    Returns
    -------
    list of str
    """
    T, F = counts.successes, counts.failures
    M = T + F
    with np.errstate(divide="ignore", invalid="ignore"):
        P = T / M
    messages = []
    ratio = "relative precision" if metric == "precision" else "relative recall"

    def listed(mask):
        return _fmt([class_names[k] for k in np.flatnonzero(mask)])

    empty = M == 0
    if metric == "recall":
        if empty[:, 0].any():
            messages.append(
                f"Class(es) {listed(empty[:, 0])} never occur in y_true: recall "
                "is undefined (0/0), so their statistics are NaN."
            )
    else:
        for c, name in enumerate(classifier_names):
            if empty[:, c].any():
                messages.append(
                    f"Classifier {name!r} never predicts class(es) "
                    f"{listed(empty[:, c])}: its precision is undefined (0/0), so "
                    "every comparison involving it for these classes is NaN."
                )
    for c, name in enumerate(classifier_names):
        for value in (0, 1):
            bad = P[:, c] == value
            if bad.any():
                also = f" and the {ratio}" if value == 0 else ""
                messages.append(
                    f"The {metric} of {name!r} is {value} for class(es) "
                    f"{listed(bad)}: its log odds are infinite, so the Wald "
                    f"test and odds ratio{also} against it are NaN."
                )
    explained = empty[:, :1] | empty[:, 1:] | np.isin(P[:, :1], (0, 1)) | np.isin(P[:, 1:], (0, 1))
    undefined_input = empty[:, :1] | empty[:, 1:]
    for c, name in enumerate(classifier_names[1:]):
        tests = {
            "generalized score": pairwise["score_stat"][:, c],
            "weighted generalized score": pairwise["wgs_stat"][:, c],
            "Wald": pairwise["wald_stat"][:, c],
            ratio: pairwise["rp_pvalue"][:, c],
        }
        # Group the classes by the set of tests that are NaN for them, so a
        # degenerate class gives one message rather than one per test.
        by_tests = {}
        for k in range(len(class_names)):
            failed = tuple(
                test
                for test, values in tests.items()
                if np.isnan(values[k])
                and not undefined_input[k, c]
                # Infinite log odds already explain a NaN Wald test or ratio.
                and not (test in ("Wald", ratio) and explained[k, c])
            )
            if failed:
                by_tests.setdefault(failed, []).append(k)
        for failed, ks in by_tests.items():
            mask = np.zeros(len(class_names), dtype=bool)
            mask[ks] = True
            names = ", ".join(failed[:-1]) + (" and " if len(failed) > 1 else "") + failed[-1]
            messages.append(
                f"The {names} test{'s' if len(failed) > 1 else ''} of {name!r} vs "
                f"{classifier_names[0]!r} {'are' if len(failed) > 1 else 'is'} NaN "
                f"for class(es) {listed(mask)}: the variance estimate is zero "
                "(identical predictions for the class, both "
                f"{metric}s 0 or both 1, or no record where the two disagree)."
            )
    if len(classifier_names) > 2:
        bad = (np.isnan(omnibus["score_stat"]) | np.isnan(omnibus["wald_stat"])) & ~(
            empty.any(axis=1)
        )
        if bad.any():
            messages.append(
                f"Omnibus tests are NaN for class(es) {listed(bad)}: a "
                f"{metric} of 0 or 1 makes the Wald test undefined, and a "
                "singular score covariance (identical predictions) the score test."
            )
    return messages


def _fmt(values, limit=10):
    shown = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")
