"""Uncertainty of the numbers knowforge reports: standard errors and 95% intervals.

The analytic standard error of a mean is lm-evaluation-harness's (``mean_stderr``: the sample
standard deviation, n - 1 in the denominator, over sqrt(n)), so an accuracy's ``stderr`` here
equals lm-eval's ``acc_stderr`` on the same items. Intervals are normal intervals around the
estimate. Everything here is a pure function of plain numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054   # the two-sided 95% quantile of the standard normal


def sample_stddev(values: Sequence[float]) -> float:
    """The sample standard deviation (n - 1 in the denominator), as lm-eval computes it."""
    n = len(values)
    if n < 2:
        return float("nan")
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


def mean_stderr(values: Sequence[float]) -> float | None:
    """The standard error of the mean of ``values`` (lm-eval's ``mean_stderr``); None below two
    values, where it is undefined."""
    if len(values) < 2:
        return None
    return sample_stddev(values) / math.sqrt(len(values))


def normal_ci(estimate: float | None, stderr: float | None, z: float = Z95) -> tuple[float, float] | None:
    """``estimate ± z·stderr``; None when either is missing."""
    if estimate is None or stderr is None or math.isnan(stderr):
        return None
    return (estimate - z * stderr, estimate + z * stderr)
