"""The common shape of the Bayesian comparisons' results.

A Bayesian comparison reports posterior probabilities, not a test statistic
and a p-value, so its result does not subclass
:class:`~sklearn_precision_stats.results._base.TestResult`: it is a frozen
dataclass with the same repr and HTML repr, whose first three fields are the
posterior probabilities ``p_left``, ``p_rope`` and ``p_right`` of the
difference ``a - b`` lying below ``-rope``, within ``[-rope, rope]`` and
above ``rope``, and the fourth ``rope``. It unpacks as ``p_left, p_rope,
p_right = result``, like the tuple returned by baycomp.
"""

from dataclasses import dataclass

import numpy as np

from ..results._base import FrozenArrays, TestResult

__all__ = []


def _reject_bools(**values):
    """A ValueError for a bool given where a number is expected.

    ``validate_params`` takes ``True`` for the number 1; a bool there is a
    slip (e.g. a flag passed in the wrong place), not a count or a width.
    """
    for name, value in values.items():
        if isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be a number, got the bool {value!r}.")


def _check_rope(rope):
    """The half-width of the rope as a float; validate_params checked its range."""
    _reject_bools(rope=rope)
    return float(rope)


def _most_probable_region(samples):
    """Which region has the largest probability, draw by draw, and the shares.

    ``samples`` holds posterior draws of ``(theta_left, theta_rope,
    theta_right)``, one row per draw. Returns the winning region of each
    draw (0, 1 or 2; ties go to the first, as in baycomp) and the share of
    draws each region wins: baycomp's ``p_left``, ``p_rope``, ``p_right``.
    A draw in which several regions tie for the largest ``theta`` counts
    equally for each of them (baycomp gives it to the first): identical
    classifiers without a rope, where every draw has ``theta_left =
    theta_right = 1/2``, get ``p_left = p_right = 1/2``, not ``p_left = 1``.
    """
    winners = np.argmax(samples, axis=1)
    top = samples == samples.max(axis=1, keepdims=True)
    shares = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
    return winners, shares


@dataclass(frozen=True, repr=False)
class BayesianResult(FrozenArrays):
    """Base class: posterior probabilities of the three regions, then details.

    Each subclass documents what its probabilities are of.
    """

    p_left: float
    p_rope: float
    p_right: float
    rope: float

    def __iter__(self):
        return iter((self.p_left, self.p_rope, self.p_right))

    def __len__(self):
        return 3

    def __getitem__(self, index):
        return (self.p_left, self.p_rope, self.p_right)[index]

    @property
    def probabilities(self):
        """``(p_left, p_rope, p_right)`` as a tuple."""
        return (self.p_left, self.p_rope, self.p_right)

    # The same six-significant-digit repr and HTML table as the test results.
    __repr__ = TestResult.__repr__
    _repr_html_ = TestResult._repr_html_
