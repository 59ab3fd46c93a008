"""The engine: label encoding, sufficient statistics, roles, the closed-form
GEE marginal model, diagnostics of undefined statistics, and the statsmodels
reference engine. Nothing here is public; the public functions live in
:mod:`sklearn_precision_stats.paired`."""
