"""One rule for every ``random_state`` argument of the library."""

import numbers

import numpy as np

__all__ = []

_ACCEPTED = (
    "None, an int >= 0, a numpy.random.Generator or a numpy.random.RandomState "
    "instance; e.g. random_state=0 for a reproducible run"
)


def _check_seed_type(random_state, name):
    if random_state is None or isinstance(
        random_state, (np.random.Generator, np.random.RandomState)
    ):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"{name} must be {_ACCEPTED}; got the negative int {random_state}.")
        return int(random_state)
    raise ValueError(
        f"{name} must be {_ACCEPTED}; got {random_state!r} of type {type(random_state).__name__}."
    )


def check_random_state_any(random_state, name="random_state"):
    """Turn a ``random_state`` argument into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        ``int >= 0``: a new ``numpy.random.default_rng(random_state)``, so
        the same int gives the same draws. ``Generator``: returned as it is,
        so its state advances (as scikit-learn does with a ``RandomState``).
        ``RandomState`` and None: a new Generator seeded with 128 bits drawn
        from that ``RandomState`` (None: NumPy's global one, the object
        :func:`sklearn.utils.check_random_state` returns for None), so the
        caller's state advances and ``np.random.seed`` makes a run repeat.
    name : str, default="random_state"
        The argument's name, used in the error message.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    ValueError
        For any other value (negative ints, floats, strings, bools), naming
        the argument and the accepted values.

    Examples
    --------
    >>> from sklearn_precision_stats.utils._random_state import check_random_state_any
    >>> a = check_random_state_any(0).integers(100, size=3)
    >>> b = check_random_state_any(0).integers(100, size=3)
    >>> bool((a == b).all())
    True
    >>> check_random_state_any(-1)
    Traceback (most recent call last):
    ...
    ValueError: random_state must be None, an int >= 0, ...; got the negative int -1.
    """
    random_state = _check_seed_type(random_state, name)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None:
        random_state = np.random.mtrand._rand
    if isinstance(random_state, np.random.RandomState):
        entropy = random_state.randint(0, 2**32, size=4, dtype=np.uint64)
        return np.random.default_rng(np.random.SeedSequence([int(e) for e in entropy]))
    return np.random.default_rng(random_state)


def _sklearn_random_state(random_state, name="random_state"):
    """A ``random_state`` for scikit-learn objects (splitters), validated.

    None, ints and ``RandomState`` instances pass through unchanged, so
    scikit-learn draws exactly as it would have; a ``Generator``, which
    scikit-learn does not accept, gives an int seed drawn from it.
    """
    random_state = _check_seed_type(random_state, name)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int32).max))
    if isinstance(random_state, int) and random_state >= 2**32:
        raise ValueError(
            f"{name} must be below 2**32 here (scikit-learn seeds a RandomState "
            f"with it), got {random_state}; pass a smaller int or a "
            "numpy.random.Generator."
        )
    return random_state
