"""The engine: the steps every comparison goes through (:mod:`._pipeline`).

Labels to codes (:mod:`._codes`, :mod:`._labels`), codes to sufficient
statistics (:mod:`._tables`, :mod:`._counts`, :mod:`._row_pairs`), the
statistics of the closed-form GEE marginal model (:mod:`._roles`,
:mod:`._marginal_model`, :mod:`._diagnostics`), and the records the
resampling methods read (:mod:`._units`). Nothing here is public, and
nothing here imports the layers above it; the public functions live in
:mod:`sklearn_precision_stats.paired`.
"""
