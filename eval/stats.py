"""Uncertainty of the numbers knowforge reports: standard errors, intervals, paired tests, planning.

Every function here is pure: plain numbers (or any objects and a statistic) in, numbers out,
with the random draws seeded by the caller. Nothing reads the graph or a report.

**Analytic standard errors.** ``mean_stderr`` is lm-evaluation-harness's (the sample standard
deviation, n - 1 in the denominator, over sqrt(n)), so an accuracy's ``stderr`` equals lm-eval's
``acc_stderr`` on the same items. ``cluster_mean`` generalises it to items that are not
independent (several samples of one item; the questions of one ELKEN event): the estimate is
the ratio sum(scores) / sum(sizes) over clusters, its standard error the usual linearised,
cluster-robust one, ``sqrt(k / (k - 1) * sum((y_c - p * m_c)^2)) / sum(m_c)`` over k clusters
with score sum y_c and size m_c. With one value per cluster it *is* ``mean_stderr``.
Intervals around analytic standard errors are normal: ``estimate ± 1.96 * stderr``.

**Bootstrap.** ``bootstrap(units, statistic, *, resamples=1000, seed=0)`` resamples *units*
with replacement and recomputes ``statistic`` on each resampled list (duplicates included).
A unit is any object: an item, or a cluster of items with all their samples, so resampling
units keeps a cluster's items together (cluster bootstrap). The statistic recomputes the metric
from the list it is given, e.g.::

    units = [[(gold, pred), ...] for each event]                  # the event's items
    est = bootstrap(units, lambda us: balanced_accuracy(*zip(*[p for u in us for p in u])))
    est.estimate, est.stderr, est.ci                               # ci: (low, high)

The interval is the percentile interval of the resampled statistics (numpy's linear
interpolation); ``stderr`` is their sample standard deviation (lm-eval's ``bootstrap_stderr``
convention); ``estimate`` is the statistic on the original units. Percentile rather than BCa:
our statistics are means, ratios and macro averages of bounded scores over tens to thousands
of units, where the two differ little, and BCa's jackknife would cost one more statistic call
per unit for every number of a report. The seeded simulation in tests/test_stats.py shows the
percentile interval's coverage is nominal for a mean of 100 units. A resample on which the
statistic is undefined (None or NaN, e.g. a class missing) is dropped and counted
(``Estimate.dropped``). ``bootstrap_ratio`` is the same bootstrap for sum(y)/sum(m) over
clusters and ``bootstrap_totals`` the one for any statistic of per-unit totals (balanced
accuracy from right/total counts per class, a macro average), both vectorised with numpy;
with the same seed they draw the same resamples as ``bootstrap`` and give the same numbers.

**Paired comparisons** (two runs, the same units). ``paired_difference(a, b, sizes=)`` takes
each unit's score sum in run A and in run B (and its size): the difference of the two ratios,
a cluster-robust stderr, a paired bootstrap interval (both runs resampled with the *same*
units) and a p-value: McNemar's test when every unit is one binary outcome in both runs, else a
paired sign-flip permutation test. For any other paired statistic, bootstrap pairs::

    pairs = [(unit_in_a, unit_in_b) for each shared unit]
    bootstrap(pairs, lambda ps: metric([a for a, _ in ps]) - metric([b for _, b in ps]))

``mcnemar(b, c)`` follows statsmodels' ``mcnemar`` (b, c: the discordant counts): the exact
binomial test (``2 * P(X <= min(b, c))``, X ~ Binomial(b + c, 1/2), capped at 1; what
``scipy.stats.binomtest(min(b, c), b + c, 0.5)`` returns) when b + c < 25, else the chi-square
statistic with continuity correction ``(|b - c| - 1)^2 / (b + c)`` on one degree of freedom
(statsmodels' ``exact=False, correction=True``, which does not clamp ``|b - c| - 1`` at 0).
``sign_flip_test(d)`` is ``scipy.stats.permutation_test`` on paired samples with the mean
difference as statistic (``permutation_type="samples"``): every sign vector when 2^n <=
``resamples`` (exact), else ``resamples`` seeded random ones with the +1 correction; two-sided
p = 2 * min(P(null <= obs), P(null >= obs)), capped at 1, with scipy's tolerance for ties.

**Planning.** ``units_for_gap(gap, variance)`` is the number of units each run needs for a
two-sided test at ``alpha`` to detect ``gap`` with ``power``: ``(z_{1-alpha/2} + z_power)^2 *
2 * variance / gap^2`` for independent runs (``variance``: of one unit's score, p(1 - p) for an
accuracy), ``(...)^2 * variance / gap^2`` for a paired design (``variance``: of the per-unit
difference). ``intraclass_correlation`` (one-way ANOVA estimator) and ``design_effect``
(``1 + (m~ - 1) * ICC`` with m~ = sum(m^2) / sum(m), which allows unequal cluster sizes) turn
an item count into the count needed when items come in clusters.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any, TypeVar

import numpy as np

U = TypeVar("U")

Z95 = 1.959963984540054   # the two-sided 95% quantile of the standard normal
DEFAULT_RESAMPLES = 1000
DEFAULT_PERMUTATIONS = 10_000
MCNEMAR_EXACT_BELOW = 25  # discordant pairs under which McNemar's test is the exact binomial


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


def z_for(level: float) -> float:
    """The two-sided normal quantile of a confidence ``level`` (0.95 → 1.96)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    return Z95 if level == 0.95 else NormalDist().inv_cdf(0.5 + level / 2)


def child_seed(seed: int, *parts: Any) -> int:
    """A seed for one component, derived from the run's ``seed`` and the component's name, so a
    number's resamples do not depend on which other numbers were computed before it."""
    digest = hashlib.sha256(":".join(map(str, (seed, *parts))).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


# --- estimates -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Estimate:
    """A number with its uncertainty. ``method``: "analytic" (normal interval around a
    cluster-robust standard error) or "bootstrap" (percentile interval)."""

    estimate: float | None
    stderr: float | None
    ci: tuple[float, float] | None
    units: int                     # independent units the uncertainty is computed over
    method: str
    level: float = 0.95
    resamples: int | None = None   # bootstrap: resamples the interval rests on
    dropped: int = 0               # bootstrap: resamples where the statistic was undefined

    @property
    def half_width(self) -> float | None:
        return None if self.ci is None else (self.ci[1] - self.ci[0]) / 2

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``stderr``, ``ci`` ([low, high]), ``ci_method``, ``units`` (the value
        itself is stored by the caller under its own name)."""
        out: dict[str, Any] = {"stderr": self.stderr, "ci": list(self.ci) if self.ci else None,
                               "ci_method": self.method, "units": self.units}
        if self.resamples is not None:
            out["resamples"] = self.resamples
        if self.dropped:
            out["dropped_resamples"] = self.dropped
        return out


def cluster_mean(sums: Sequence[float], sizes: Sequence[float] | None = None, *,
                 level: float = 0.95) -> Estimate:
    """sum(sums) / sum(sizes) with its cluster-robust standard error and normal interval.

    ``sums[c]``: the total score of cluster c (an item's samples, an event's questions);
    ``sizes[c]``: how many scores it holds (default 1 each, which makes this lm-eval's
    ``mean`` and ``mean_stderr``). Fewer than two clusters: no standard error.
    """
    y = np.asarray(sums, dtype=float)
    m = np.ones_like(y) if sizes is None else np.asarray(sizes, dtype=float)
    if y.shape != m.shape:
        raise ValueError("sums and sizes differ in length")
    k = len(y)
    total = float(m.sum())
    if k == 0 or total <= 0:
        return Estimate(None, None, None, k, "analytic", level)
    p = float(y.sum()) / total
    if k < 2:
        return Estimate(p, None, None, k, "analytic", level)
    if np.all(m == 1):
        se = mean_stderr([float(v) for v in y])      # exactly lm-eval's arithmetic
    else:
        residual = y - p * m
        se = math.sqrt(k / (k - 1) * float(np.dot(residual, residual))) / total
    return Estimate(p, se, normal_ci(p, se, z_for(level)), k, "analytic", level)


# --- bootstrap -------------------------------------------------------------------------------------
def resample_indices(n: int, resamples: int, seed: int) -> np.ndarray:
    """``resamples`` rows of ``n`` indices drawn with replacement from range(n): the draws every
    bootstrap here uses, so two bootstraps with one seed resample the same units."""
    if resamples < 2:
        raise ValueError(f"a bootstrap needs at least 2 resamples, got {resamples}")
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def resample_index_chunks(n: int, resamples: int, seed: int, *, cells: int = 2_000_000) -> Iterator[np.ndarray]:
    """``resample_indices(n, resamples, seed)`` in consecutive blocks of rows of at most about
    ``cells`` indices each: the very same draws (one generator, drawn in order), without holding
    a (resamples, n) matrix, which is 800 MB for 1,000 resamples of 100,000 units."""
    if resamples < 2:
        raise ValueError(f"a bootstrap needs at least 2 resamples, got {resamples}")
    rng = np.random.default_rng(seed)
    chunk = max(1, cells // max(1, n))
    for start in range(0, resamples, chunk):
        yield rng.integers(0, n, size=(min(chunk, resamples - start), n))


def resample_count_chunks(n: int, resamples: int, seed: int, *, cells: int = 2_000_000) -> Iterator[np.ndarray]:
    """How often each of ``n`` units is drawn in each resample of ``resample_index_chunks`` (the
    same seed, the same blocks): float blocks of shape (rows, n), row r counting resample r's
    indices. A resample's totals are then ``block @ unit_totals``: a tenth of the memory traffic
    of gathering (rows, n, k) unit rows and summing them. Every block is the same memory, written
    over by the next: use one before asking for the next."""
    block = None
    for rows in resample_index_chunks(n, resamples, seed, cells=cells):
        if block is None:
            block = np.empty(rows.shape, dtype=float)
        counts = block[:len(rows)]
        for r, row in enumerate(rows):
            # each row's counts written into the float block as they come: stacking the integer
            # counts and converting the stack took two more passes over it (1,000 resamples of
            # 100,000 units: 0.94 -> 0.60 s of CPU with the product, the same numbers)
            counts[r] = np.bincount(row, minlength=n)
        yield counts


def percentile_estimate(estimate: float | None, replicates: Sequence[float] | np.ndarray, n: int, resamples: int,
                        level: float = 0.95) -> Estimate:
    """The percentile interval and bootstrap stderr of ``replicates`` (one statistic per
    resample; NaN where it was undefined, dropped and counted) around ``estimate``, over ``n``
    units: what every bootstrap here returns, for callers that draw their own resamples."""
    replicates = np.asarray(replicates, dtype=float)
    valid = replicates[np.isfinite(replicates)]
    dropped = resamples - len(valid)
    if estimate is None or len(valid) < 2:
        return Estimate(estimate, None, None, n, "bootstrap", level, resamples, dropped)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(valid, [tail, 100 - tail])
    se = float(np.std(valid, ddof=1))
    return Estimate(estimate, se, (float(low), float(high)), n, "bootstrap", level, len(valid), dropped)


def _finite(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def bootstrap(units: Sequence[U], statistic: Callable[[Sequence[U]], float | None], *,
              resamples: int = DEFAULT_RESAMPLES, seed: int = 0, level: float = 0.95) -> Estimate:
    """The statistic on ``units`` with a seeded percentile bootstrap over units (see the module
    docstring). Fewer than two units: the estimate alone."""
    units = list(units)
    n = len(units)
    estimate = statistic(units) if n else None
    estimate = None if estimate is None or not math.isfinite(estimate) else float(estimate)
    if n < 2:
        return Estimate(estimate, None, None, n, "bootstrap", level)
    indices = resample_indices(n, resamples, seed)
    replicates = np.array([_finite(statistic([units[i] for i in row])) for row in indices])
    return percentile_estimate(estimate, replicates, n, resamples, level)


def bootstrap_totals(counts: Sequence[Sequence[float]] | np.ndarray,
                     statistic: Callable[[np.ndarray], np.ndarray], *, resamples: int = DEFAULT_RESAMPLES,
                     seed: int = 0, level: float = 0.95) -> Estimate:
    """``bootstrap`` of a statistic of column totals, vectorised: ``counts[u]`` is unit u's row
    of k counts (score sum, size; right and total per class ...), and ``statistic`` maps an
    array of totals (shape ``(..., k)``) to values (shape ``(...)``) — accuracy, balanced
    accuracy, a macro average, a difference. The same draws as ``bootstrap`` with that seed."""
    c = np.asarray(counts, dtype=float)
    if c.ndim != 2:
        raise ValueError("counts must be one row of totals per unit")
    n = len(c)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = float(statistic(c.sum(axis=0))) if n else None
    estimate = None if estimate is None or not math.isfinite(estimate) else estimate
    if n < 2:
        return Estimate(estimate, None, None, n, "bootstrap", level)
    parts = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for drawn in resample_count_chunks(n, resamples, seed):
            # each resample's totals as how often it drew each unit times the units' rows, not a
            # gather of (chunk, n, k) rows summed: with the counts built by bincount too, a report's
            # balanced accuracy over 33,000 units took 3.1-3.2x less CPU (benchmarks/report_groups.py)
            # and gave the same interval (sums of whole counts are exact either way; fractional
            # totals may differ in the last bit)
            parts.append(np.asarray(statistic(drawn @ c), dtype=float))
    return percentile_estimate(estimate, np.concatenate(parts), n, resamples, level)


def ratio_of_totals(totals: np.ndarray) -> np.ndarray:
    """totals[..., 0] / totals[..., 1]: a score sum over a size (``bootstrap_totals``)."""
    return totals[..., 0] / totals[..., 1]


def bootstrap_ratio(sums: Sequence[float], sizes: Sequence[float] | None = None, *,
                    resamples: int = DEFAULT_RESAMPLES, seed: int = 0, level: float = 0.95) -> Estimate:
    """``bootstrap`` of sum(sums) / sum(sizes) over clusters, vectorised (the same draws, and so
    the same numbers, as ``bootstrap`` with that statistic and seed)."""
    y = np.asarray(sums, dtype=float)
    m = np.ones_like(y) if sizes is None else np.asarray(sizes, dtype=float)
    if y.shape != m.shape:
        raise ValueError("sums and sizes differ in length")
    return bootstrap_totals(np.stack([y, m], axis=1).reshape(len(y), 2), ratio_of_totals,
                            resamples=resamples, seed=seed, level=level)


# --- paired tests ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class McNemar:
    b: int                 # discordant: right in A, wrong in B
    c: int                 # discordant: wrong in A, right in B
    statistic: float       # exact: min(b, c); chi-square: (|b - c| - 1)^2 / (b + c)
    p_value: float
    exact: bool


def mcnemar(b: int, c: int, *, exact: bool | None = None) -> McNemar:
    """McNemar's test on the discordant counts of paired binary outcomes (statsmodels'
    conventions; exact by default when b + c < 25)."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    n = b + c
    if exact is None:
        exact = n < MCNEMAR_EXACT_BELOW
    if exact:
        k = min(b, c)
        tail = Fraction(sum(math.comb(n, i) for i in range(k + 1)), 2 ** n)
        return McNemar(b, c, float(k), float(min(Fraction(1), 2 * tail)), True)
    if n == 0:
        raise ValueError("the chi-square form needs discordant pairs (use the exact test)")
    stat = (abs(b - c) - 1.0) ** 2 / n
    return McNemar(b, c, stat, math.erfc(math.sqrt(stat / 2)), False)   # chi-square(1) survival


@dataclass(frozen=True)
class PermutationTest:
    statistic: float       # the observed mean difference
    p_value: float
    exact: bool            # every sign vector enumerated
    permutations: int


def sign_flip_test(differences: Sequence[float], *, resamples: int = DEFAULT_PERMUTATIONS,
                   seed: int = 0) -> PermutationTest:
    """Two-sided paired permutation test of mean(differences) = 0 by flipping the sign of each
    unit's difference (scipy.stats.permutation_test's "samples" convention, see the module
    docstring). A unit's difference may be a cluster's score sum in A minus that in B: flipping
    whole clusters keeps their sizes, so the test of the mean is the test of the ratio."""
    d = np.asarray(differences, dtype=float)
    n = len(d)
    if n == 0:
        raise ValueError("a permutation test needs at least one paired unit")
    observed = float(d.mean())
    if 2 ** n <= resamples:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        exact, count = True, len(signs)
        null = (signs * d).mean(axis=1)
    else:
        rng = np.random.default_rng(seed)
        chunk = max(1, 2_000_000 // n)            # bounds the (chunk, n) sign matrix
        null = np.concatenate([(rng.choice(np.array([1.0, -1.0]), size=(min(chunk, resamples - start), n)) * d)
                               .mean(axis=1) for start in range(0, resamples, chunk)])
        exact, count = False, resamples
    return PermutationTest(observed, two_sided_p(null, observed, exact), exact, count)


def two_sided_p(null: Sequence[float] | np.ndarray, observed: float, exact: bool) -> float:
    """scipy.stats.permutation_test's two-sided p-value of ``observed`` against a null
    distribution: 2 * min(P(null <= obs), P(null >= obs)), capped at 1, with its tolerance for
    ties and, for random (not enumerated) permutations, the +1 correction. NaN values of the
    null (a statistic undefined on that permutation) are left out."""
    values = np.asarray(null, dtype=float)
    values = values[np.isfinite(values)]
    count = len(values)
    adjustment = 0 if exact else 1
    if count + adjustment == 0:
        return float("nan")
    gamma = abs(observed) * np.finfo(float).eps * 100       # scipy's tolerance for equal values
    less = (np.count_nonzero(values <= observed + gamma) + adjustment) / (count + adjustment)
    greater = (np.count_nonzero(values >= observed - gamma) + adjustment) / (count + adjustment)
    return float(min(1.0, 2 * min(less, greater)))


def paired_permutation(pairs: Sequence[tuple[U, U]], statistic: Callable[[Sequence[U], Sequence[U]], float | None],
                       *, resamples: int = DEFAULT_PERMUTATIONS, seed: int = 0) -> PermutationTest:
    """Two-sided paired permutation test of any statistic of two paired samples, e.g. the
    difference of two balanced accuracies on the same items: ``pairs[u]`` is unit u in A and
    in B, ``statistic(a_units, b_units)`` the number compared (0 under the null). Under the
    null the two members of a pair are exchangeable, so each permutation swaps a random subset
    of pairs (every subset when 2^n <= ``resamples``). For a mean difference this is
    ``sign_flip_test``."""
    pairs = list(pairs)
    n = len(pairs)
    if n == 0:
        raise ValueError("a permutation test needs at least one paired unit")
    observed = statistic([a for a, _ in pairs], [b for _, b in pairs])
    if observed is None or not math.isfinite(observed):
        raise ValueError("the statistic is undefined on the observed samples")
    if 2 ** n <= resamples:
        swaps = np.array(list(itertools.product((False, True), repeat=n)))
        exact = True
    else:
        swaps = np.random.default_rng(seed).random((resamples, n)) < 0.5
        exact = False
    null = np.array([_finite(statistic([b if s else a for (a, b), s in zip(pairs, row)],
                                       [a if s else b for (a, b), s in zip(pairs, row)])) for row in swaps])
    return PermutationTest(float(observed), two_sided_p(null, float(observed), exact), exact, len(swaps))


def _group_splits(n: int, n_a: int, resamples: int, seed: int):
    """Chunks of rows of pooled unit indices whose first ``n_a`` form group A: every split when
    there are at most ``resamples`` of them (exact), else ``resamples`` seeded random
    permutations; yields (index rows, exact)."""
    if math.comb(n, n_a) <= resamples:
        rows = [list(chosen) + [i for i in range(n) if i not in set(chosen)]
                for chosen in itertools.combinations(range(n), n_a)]
        yield np.array(rows, dtype=np.int64).reshape(len(rows), n), True
        return
    rng = np.random.default_rng(seed)
    chunk = max(1, 2_000_000 // max(1, n))                 # bounds the (chunk, n) index matrix
    for start in range(0, resamples, chunk):
        k = min(chunk, resamples - start)
        yield rng.permuted(np.tile(np.arange(n), (k, 1)), axis=1), False


def group_permutation_test(a_units: Sequence[U], b_units: Sequence[U],
                           statistic: Callable[[Sequence[U], Sequence[U]], float | None], *,
                           resamples: int = DEFAULT_PERMUTATIONS, seed: int = 0) -> PermutationTest:
    """Two-sided permutation test of any statistic of two *independent* groups of units (not
    paired: different items, e.g. head vs long-tail statements, seen vs unseen questions):
    under the null the group labels are exchangeable, so each permutation reassigns them at
    random, keeping the group sizes (scipy.stats.permutation_test's "independent" convention:
    every split when there are at most ``resamples``)."""
    a_units, b_units = list(a_units), list(b_units)
    if not a_units or not b_units:
        raise ValueError("a two-group permutation test needs units in both groups")
    observed = statistic(a_units, b_units)
    if observed is None or not math.isfinite(observed):
        raise ValueError("the statistic is undefined on the observed groups")
    pooled = a_units + b_units
    n_a = len(a_units)
    null, exact = [], True
    for rows, exact in _group_splits(len(pooled), n_a, resamples, seed):
        null += [_finite(statistic([pooled[i] for i in row[:n_a]], [pooled[i] for i in row[n_a:]])) for row in rows]
    return PermutationTest(float(observed), two_sided_p(null, float(observed), exact), exact, len(null))


@dataclass(frozen=True)
class PairedComparison:
    """Run A minus run B over the units both answered."""

    difference: Estimate           # estimate = A - B; ci: the paired bootstrap interval
    analytic_stderr: float | None  # cluster-robust stderr of the difference
    a: float | None                # A's score over the shared units
    b: float | None
    p_value: float | None
    test: str | None               # "mcnemar-exact", "mcnemar-chi2" or "sign-flip"
    discordant: tuple[int, int] | None = None   # McNemar's (b, c)

    def as_dict(self) -> dict[str, Any]:
        out = {"difference": self.difference.estimate, **self.difference.as_dict(), "a": self.a,
               "b": self.b, "analytic_stderr": self.analytic_stderr, "p_value": self.p_value, "test": self.test}
        if self.discordant is not None:
            out["discordant"] = list(self.discordant)
        return out


def paired_difference(a: Sequence[float], b: Sequence[float], sizes: Sequence[float] | None = None, *,
                      resamples: int = DEFAULT_RESAMPLES, seed: int = 0, level: float = 0.95,
                      permutations: int = DEFAULT_PERMUTATIONS) -> PairedComparison:
    """A - B over shared units: ``a[u]``, ``b[u]`` are unit u's score sums in each run and
    ``sizes[u]`` how many scores each sum holds (default 1). McNemar when every unit is one
    0/1 outcome in both runs, else a sign-flip test on the per-unit differences."""
    ya, yb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    m = np.ones_like(ya) if sizes is None else np.asarray(sizes, dtype=float)
    if not ya.shape == yb.shape == m.shape:
        raise ValueError("a, b and sizes differ in length")
    d = ya - yb
    interval = bootstrap_ratio(d, m, resamples=resamples, seed=seed, level=level)
    analytic = cluster_mean(d, m, level=level)
    total = float(m.sum())
    rate_a = float(ya.sum()) / total if total else None
    rate_b = float(yb.sum()) / total if total else None
    if len(d) == 0:
        return PairedComparison(interval, None, None, None, None, None)
    binary = bool(np.all(m == 1) and np.all(np.isin(ya, (0.0, 1.0))) and np.all(np.isin(yb, (0.0, 1.0))))
    if binary:
        test = mcnemar(int(np.sum((ya == 1) & (yb == 0))), int(np.sum((ya == 0) & (yb == 1))))
        return PairedComparison(interval, analytic.stderr, rate_a, rate_b, test.p_value,
                                "mcnemar-exact" if test.exact else "mcnemar-chi2", (test.b, test.c))
    flip = sign_flip_test(d, resamples=permutations, seed=seed)
    return PairedComparison(interval, analytic.stderr, rate_a, rate_b, flip.p_value, "sign-flip")


@dataclass(frozen=True)
class GroupComparison:
    """Group A minus group B of one run: different units on each side, so nothing is paired."""

    difference: Estimate           # estimate = A - B; ci: bootstrap resampling each group apart
    analytic_stderr: float | None  # sqrt(se_A^2 + se_B^2), each cluster-robust
    a: float | None
    b: float | None
    units_a: int
    units_b: int
    p_value: float | None
    test: str | None               # "permutation" (group labels reassigned at random)

    def as_dict(self) -> dict[str, Any]:
        return {"difference": self.difference.estimate, **self.difference.as_dict(), "a": self.a, "b": self.b,
                "units_a": self.units_a, "units_b": self.units_b, "analytic_stderr": self.analytic_stderr,
                "p_value": self.p_value, "test": self.test, "paired": False}


def _ratios(sums: np.ndarray, sizes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """sum(sums) / sum(sizes) over each row of an index matrix, in chunks."""
    chunk = max(1, 2_000_000 // max(1, rows.shape[1]))
    return np.concatenate([sums[rows[i:i + chunk]].sum(axis=1) / sizes[rows[i:i + chunk]].sum(axis=1)
                           for i in range(0, len(rows), chunk)]) if len(rows) else np.zeros(0)


def unpaired_difference(a: Sequence[float], b: Sequence[float], a_sizes: Sequence[float] | None = None,
                        b_sizes: Sequence[float] | None = None, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                        level: float = 0.95, permutations: int = DEFAULT_PERMUTATIONS) -> GroupComparison:
    """ratio(A) - ratio(B) for two independent groups of clusters (``a[u]``: unit u's score sum,
    ``a_sizes[u]`` its size; the same for B): a bootstrap interval that resamples each group
    apart with its own seeded draws (a stratified bootstrap: the group sizes stay fixed), the
    analytic stderr, and a two-sided permutation test of the group labels over the pooled
    clusters (``group_permutation_test`` for this statistic, vectorised)."""
    ya, yb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ma = np.ones_like(ya) if a_sizes is None else np.asarray(a_sizes, dtype=float)
    mb = np.ones_like(yb) if b_sizes is None else np.asarray(b_sizes, dtype=float)
    if ya.shape != ma.shape or yb.shape != mb.shape:
        raise ValueError("sums and sizes differ in length")
    est_a, est_b = cluster_mean(ya, ma, level=level), cluster_mean(yb, mb, level=level)
    na, nb = len(ya), len(yb)
    if est_a.estimate is None or est_b.estimate is None:
        empty = Estimate(None, None, None, na + nb, "bootstrap", level)
        return GroupComparison(empty, None, est_a.estimate, est_b.estimate, na, nb, None, None)
    observed = est_a.estimate - est_b.estimate
    analytic = (math.sqrt(est_a.stderr ** 2 + est_b.stderr ** 2)
                if est_a.stderr is not None and est_b.stderr is not None else None)
    if na < 2 or nb < 2:
        only = Estimate(observed, None, None, na + nb, "bootstrap", level)
        return GroupComparison(only, analytic, est_a.estimate, est_b.estimate, na, nb, None, None)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (_ratios(ya, ma, resample_indices(na, resamples, child_seed(seed, "A")))
                - _ratios(yb, mb, resample_indices(nb, resamples, child_seed(seed, "B"))))
        interval = percentile_estimate(observed, boot, na + nb, resamples, level)
        pooled_y, pooled_m = np.concatenate([ya, yb]), np.concatenate([ma, mb])
        parts, exact = [], True
        for rows, exact in _group_splits(na + nb, na, permutations, child_seed(seed, "permutation")):
            parts.append(_ratios(pooled_y, pooled_m, rows[:, :na]) - _ratios(pooled_y, pooled_m, rows[:, na:]))
        null = np.concatenate(parts)
    return GroupComparison(interval, analytic, est_a.estimate, est_b.estimate, na, nb,
                           two_sided_p(null, observed, exact), "permutation")


# --- planning --------------------------------------------------------------------------------------
def units_for_gap(gap: float, variance: float, *, paired: bool = False, alpha: float = 0.05,
                  power: float = 0.8) -> int | None:
    """Units a run needs to detect ``gap`` (two-sided, ``alpha``) with ``power``; see the module
    docstring for the two designs. None when the variance is 0 (nothing to plan from)."""
    if gap <= 0:
        raise ValueError(f"the gap to detect must be positive, got {gap}")
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError("alpha and power must be in (0, 1)")
    if variance <= 0:
        return None
    z = NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power)
    return math.ceil(z * z * (1 if paired else 2) * variance / (gap * gap))


def power_check(gap: float | None, stderr: float | None, units: int | None, *, alpha: float = 0.05,
                power: float = 0.8) -> dict[str, Any]:
    """Whether a gap rests on enough units to be detected: the units needed to detect a gap of
    its observed size with ``power`` at two-sided ``alpha`` (``units_for_gap``'s normal
    formula, the one ``knowforge report --plan-gap`` uses, with the variance per unit read off
    the gap's own standard error: ``stderr² · units``), against the units it has.
    ``{"units_needed", "underpowered"}``; empty without a gap, a stderr or units. A gap of 0
    is underpowered. A zero standard error (every unit moved alike) gives no variance to plan
    from: the gap then needs the fewest units at which a unanimous sign can reach two-sided
    p < ``alpha`` (``2 · 0.5^n < alpha``: 6 at 0.05)."""
    if gap is None or stderr is None or not units:
        return {}
    if gap == 0 or not math.isfinite(stderr):
        return {"units_needed": None, "underpowered": True}
    if stderr < 1e-12 * max(1.0, abs(gap)):      # a bootstrap of identical units gives rounding noise, not 0
        needed = math.ceil(math.log2(2 / alpha))
        return {"units_needed": needed, "underpowered": units < needed}
    needed = units_for_gap(abs(gap), stderr * stderr * units, paired=True, alpha=alpha, power=power)
    return {"units_needed": needed, "underpowered": needed is None or units < needed}


def underpowered_text(check: Mapping[str, Any], units: int | None) -> str:
    """``underpowered: 5 units, about 23 needed for 80% power`` ("" when the gap is not)."""
    if not check.get("underpowered"):
        return ""
    needed = check.get("units_needed")
    return (f"underpowered: {units} units" + (f", about {needed} needed to detect a gap this size with 80% power"
                                               if needed else ", too few to tell a gap this size from 0"))


def intraclass_correlation(clusters: Sequence[Sequence[float]]) -> float | None:
    """The one-way ANOVA estimate of the intra-cluster correlation of scores (clusters of
    unequal size allowed); None without two clusters or any within-cluster replication. It can
    be negative (items of a cluster less alike than random pairs)."""
    groups = [np.asarray(c, dtype=float) for c in clusters if len(c)]
    k = len(groups)
    total = sum(len(g) for g in groups)
    if k < 2 or total <= k:
        return None
    grand = sum(float(g.sum()) for g in groups) / total
    between = sum(len(g) * (float(g.mean()) - grand) ** 2 for g in groups) / (k - 1)
    within = sum(float(((g - g.mean()) ** 2).sum()) for g in groups) / (total - k)
    m0 = (total - sum(len(g) ** 2 for g in groups) / total) / (k - 1)
    denominator = between + (m0 - 1) * within
    if denominator <= 0:
        return None
    return (between - within) / denominator


def design_effect(sizes: Sequence[float], icc: float | None) -> float:
    """How much clustering inflates the variance of a mean: ``1 + (m~ - 1) * ICC`` with
    m~ = sum(m^2) / sum(m). A negative or unknown ICC counts as 0 (no inflation, never a
    discount) so that plans stay conservative."""
    m = np.asarray(sizes, dtype=float)
    if len(m) == 0 or m.sum() <= 0:
        return 1.0
    effective = float((m * m).sum() / m.sum())
    return 1.0 + (effective - 1.0) * max(icc or 0.0, 0.0)


__all__ = ["DEFAULT_PERMUTATIONS", "DEFAULT_RESAMPLES", "Estimate", "GroupComparison", "McNemar",
           "PairedComparison", "PermutationTest", "Z95", "bootstrap", "bootstrap_ratio", "bootstrap_totals",
           "child_seed", "cluster_mean", "design_effect", "group_permutation_test", "intraclass_correlation", "mcnemar",
           "mean_stderr", "normal_ci", "paired_difference", "paired_permutation", "percentile_estimate",
           "ratio_of_totals", "resample_count_chunks", "resample_index_chunks", "resample_indices", "sample_stddev", "sign_flip_test",
           "power_check", "two_sided_p", "underpowered_text", "unpaired_difference", "units_for_gap", "z_for"]
