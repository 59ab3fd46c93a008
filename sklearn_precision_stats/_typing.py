"""Type aliases of the public signatures (not part of the public API)."""

from collections.abc import Hashable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["ArrayLike", "Predictions", "RandomStateLike"]

# Classifier name -> predicted labels, (name, predictions) pairs, or a
# DataFrame with one column per classifier.
Predictions = Mapping[Hashable, ArrayLike] | Sequence[tuple[Hashable, ArrayLike]] | ArrayLike

# What the random_state parameters accept (see utils._random_state).
RandomStateLike = int | np.random.Generator | np.random.RandomState | None
