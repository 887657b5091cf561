"""eval/stats.py against its references: lm-eval's stderr, scipy's tests, seeded simulations.

The simulations are seeded and vectorised; their tolerances are a few binomial standard
deviations of the simulated rate, so they fail when a formula is wrong, not by chance.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from knowforge.eval.metrics import balanced_accuracy
from knowforge.eval.stats import (bootstrap, bootstrap_ratio, bootstrap_totals, child_seed, cluster_mean, design_effect,
                                  group_permutation_test, intraclass_correlation, mcnemar, mean_stderr,
                                  paired_difference, paired_permutation, resample_count_chunks, resample_indices,
                                  sign_flip_test, unpaired_difference, units_for_gap)

scipy_stats = pytest.importorskip("scipy.stats")


def test_cluster_mean_of_single_values_is_lm_evals_mean_stderr():
    lm_metrics = pytest.importorskip("lm_eval.api.metrics")
    rng = np.random.default_rng(1)
    for n in (2, 7, 60, 301):
        values = [float(v) for v in rng.integers(0, 2, n)]
        est = cluster_mean(values)
        assert est.estimate == pytest.approx(sum(values) / n)
        assert abs(est.stderr - lm_metrics.mean_stderr(values)) < 1e-12
        assert est.stderr == mean_stderr(values)
        low, high = est.ci
        assert (high - low) / 2 == pytest.approx(1.959963984540054 * est.stderr)
    assert cluster_mean([1.0]).stderr is None and cluster_mean([]).estimate is None


def test_cluster_mean_is_the_ratio_with_a_cluster_robust_stderr():
    sums, sizes = [3.0, 0.0, 2.0, 5.0], [4, 2, 2, 5]
    est = cluster_mean(sums, sizes)
    p = 10 / 13
    residuals = [y - p * m for y, m in zip(sums, sizes)]
    assert est.estimate == pytest.approx(p)
    assert est.stderr == pytest.approx(math.sqrt(4 / 3 * sum(r * r for r in residuals)) / 13)
    assert est.units == 4 and est.method == "analytic"


def test_bootstrap_of_any_statistic_equals_the_vectorised_ratio():
    rng = np.random.default_rng(2)
    sums = rng.integers(0, 5, 40).astype(float)
    sizes = sums + rng.integers(0, 4, 40)
    sizes[sizes == 0] = 1
    units = list(zip(sums, sizes))
    generic = bootstrap(units, lambda us: sum(y for y, _ in us) / sum(m for _, m in us), resamples=500, seed=9)
    fast = bootstrap_ratio(sums, sizes, resamples=500, seed=9)
    assert generic.estimate == pytest.approx(fast.estimate)
    assert generic.ci == pytest.approx(fast.ci) and generic.stderr == pytest.approx(fast.stderr)
    assert generic.resamples == 500 and generic.method == "bootstrap"
    # seeded: the same seed gives the same interval, another seed another one
    assert bootstrap_ratio(sums, sizes, resamples=500, seed=9).ci == fast.ci
    assert bootstrap_ratio(sums, sizes, resamples=500, seed=10).ci != fast.ci


def test_bootstrap_of_totals_reproduces_a_balanced_accuracy_bootstrap():
    """Balanced accuracy over clusters of (gold, prediction) pairs: the generic bootstrap over
    the pairs and the vectorised one over per-cluster right/total counts per class agree."""
    rng = np.random.default_rng(5)
    clusters = [[(bool(g), bool(p)) for g, p in zip(rng.random(k) < 0.3, rng.random(k) < 0.5)]
                for k in rng.integers(1, 5, 60)]

    def statistic(units):
        pairs = [p for u in units for p in u]
        return balanced_accuracy([g for g, _ in pairs], [p for _, p in pairs])

    counts = [[sum(g == cls and p == g for g, p in u) if i == 0 else sum(g == cls for g, _ in u)
               for cls in (False, True) for i in (0, 1)] for u in clusters]

    def from_totals(t):
        right, total = t[..., 0::2], t[..., 1::2]
        return np.nanmean(np.where(total > 0, right / total, np.nan), axis=-1)

    generic = bootstrap(clusters, statistic, resamples=300, seed=4)
    fast = bootstrap_totals(counts, from_totals, resamples=300, seed=4)
    assert fast.estimate == pytest.approx(generic.estimate)
    assert fast.ci == pytest.approx(generic.ci) and fast.stderr == pytest.approx(generic.stderr)


def test_bootstrap_drops_and_counts_undefined_resamples():
    units = [1, 1, 1, 2]
    # undefined whenever a resample lacks the 2
    est = bootstrap(units, lambda us: 1.0 if 2 in us else None, resamples=400, seed=0)
    assert est.estimate == 1.0 and 0 < est.dropped < 400 and est.resamples == 400 - est.dropped
    assert bootstrap([5], lambda us: float(us[0])).ci is None


def test_bootstrap_interval_covers_the_true_mean_at_the_nominal_rate():
    """1,000 samples of 150 Bernoulli(0.3) draws: the 95% percentile interval covers 0.3 about
    950 times (binomial sd ≈ 7)."""
    rng = np.random.default_rng(20261127)
    data = rng.random((1000, 150)) < 0.3
    covered = 0
    for i, row in enumerate(data):
        est = bootstrap_ratio(row.astype(float), resamples=1000, seed=child_seed(7, i))
        covered += est.ci[0] <= 0.3 <= est.ci[1]
    print(f"bootstrap coverage {covered} / 1000")
    assert 920 <= covered <= 980


def _clustered(rng, clusters=40, size=5, rho=0.8):
    """Binary scores where each item of a cluster copies the cluster's shared outcome with
    probability ``rho``: two items of a cluster correlate by rho^2 (0.64)."""
    shared = rng.random(clusters) < 0.5
    own = rng.random((clusters, size)) < 0.5
    use_shared = rng.random((clusters, size)) < rho
    return np.where(use_shared, shared[:, None], own).astype(float)


def test_cluster_interval_is_wider_than_the_item_interval_when_items_share_units():
    scores = _clustered(np.random.default_rng(3))
    items = scores.ravel()
    item_analytic = cluster_mean(items)
    cluster_analytic = cluster_mean(scores.sum(axis=1), np.full(len(scores), scores.shape[1]))
    assert cluster_analytic.estimate == pytest.approx(item_analytic.estimate)
    assert cluster_analytic.half_width > 1.4 * item_analytic.half_width
    item_boot = bootstrap_ratio(items, seed=1)
    cluster_boot = bootstrap_ratio(scores.sum(axis=1), np.full(len(scores), 5.0), seed=1)
    assert cluster_boot.half_width > 1.4 * item_boot.half_width
    # the design effect explains the ratio of the variances
    icc = intraclass_correlation(scores.tolist())
    deff = design_effect([5] * len(scores), icc)
    assert 0.45 < icc < 0.85
    assert (cluster_analytic.stderr / item_analytic.stderr) ** 2 == pytest.approx(deff, rel=0.3)


def test_cluster_interval_keeps_its_coverage_where_the_item_interval_loses_it():
    rng = np.random.default_rng(11)
    hits = {"items": 0, "clusters": 0}
    for i in range(400):
        scores = _clustered(rng, clusters=30)
        hits["items"] += (lambda e: e.ci[0] <= 0.5 <= e.ci[1])(cluster_mean(scores.ravel()))
        hits["clusters"] += (lambda e: e.ci[0] <= 0.5 <= e.ci[1])(
            cluster_mean(scores.sum(axis=1), np.full(30, 5.0)))
    print(hits)
    assert hits["clusters"] >= 360 and hits["items"] < 340     # 95% is 380 of 400


@pytest.mark.parametrize("b,c", [(0, 0), (3, 9), (5, 5), (1, 23), (12, 12), (0, 7), (24, 0)])
def test_mcnemar_exact_matches_scipys_binomtest(b, c):
    result = mcnemar(b, c)
    assert result.exact
    expected = 1.0 if b + c == 0 else scipy_stats.binomtest(min(b, c), b + c, 0.5).pvalue
    assert result.p_value == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("b,c", [(30, 14), (40, 60), (13, 12), (100, 70), (20, 5)])
def test_mcnemar_chi_square_matches_scipys_chi2(b, c):
    result = mcnemar(b, c)
    assert not result.exact
    stat = (abs(b - c) - 1) ** 2 / (b + c)
    assert result.statistic == pytest.approx(stat)
    assert result.p_value == pytest.approx(scipy_stats.chi2.sf(stat, 1), rel=1e-10)
    # forced exact on a large table is the binomial test
    assert mcnemar(b, c, exact=True).p_value == pytest.approx(
        scipy_stats.binomtest(min(b, c), b + c, 0.5).pvalue, rel=1e-10)


def _scipy_paired(d, n_resamples, seed=0):
    d = np.asarray(d, dtype=float)
    return scipy_stats.permutation_test((d, np.zeros_like(d)), lambda x, y, axis: np.mean(x - y, axis=axis),
                                        permutation_type="samples", n_resamples=n_resamples,
                                        vectorized=True, rng=np.random.default_rng(seed)).pvalue


@pytest.mark.parametrize("d", [[0.5, 1.0, -0.25, 0.75, 0.0, 1.0, 0.5, -0.5, 0.25, 1.0],
                               [1, -1, 1, -1, 1, -1, 1, 1],            # ties in the null distribution
                               [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2],
                               [3.0, -1.0, 0.5, 2.5, -0.5, 1.5, 2.0, 0.0, 1.0, -2.0, 0.5, 1.5]])
def test_sign_flip_exact_matches_scipys_permutation_test(d):
    ours = sign_flip_test(d)
    assert ours.exact and ours.permutations == 2 ** len(d)
    assert ours.p_value == pytest.approx(_scipy_paired(d, 10_000), rel=1e-12)


def test_sign_flip_monte_carlo_is_close_to_scipys():
    rng = np.random.default_rng(4)
    d = rng.normal(0.15, 1.0, 60)
    ours = sign_flip_test(d, resamples=20_000, seed=5)
    theirs = _scipy_paired(d, 20_000, seed=6)
    assert not ours.exact and ours.permutations == 20_000
    assert abs(ours.p_value - theirs) < 0.02
    assert sign_flip_test(d, resamples=20_000, seed=5).p_value == ours.p_value     # seeded


def test_paired_difference_picks_mcnemar_for_binary_units_and_sign_flip_otherwise():
    a = [1, 1, 1, 0, 1, 0, 1, 1, 0, 1] * 3
    b = [1, 0, 0, 0, 1, 0, 0, 1, 0, 1] * 3
    result = paired_difference(a, b, resamples=300, seed=1)
    assert result.test == "mcnemar-exact" and result.discordant == (9, 0)
    assert result.difference.estimate == pytest.approx(0.3)
    assert result.p_value == pytest.approx(scipy_stats.binomtest(0, 9, 0.5).pvalue)
    assert result.difference.ci[0] > 0 and result.a == pytest.approx(0.7) and result.b == pytest.approx(0.4)
    # clusters (sums over 3 items each): a sign-flip test over clusters
    sums_a, sums_b, sizes = [3, 2, 1, 3, 0, 2, 3], [2, 2, 0, 1, 0, 1, 3], [3] * 7
    clustered = paired_difference(sums_a, sums_b, sizes, resamples=300, seed=1)
    assert clustered.test == "sign-flip"
    assert clustered.difference.estimate == pytest.approx((14 - 9) / 21)
    assert clustered.p_value == pytest.approx(_scipy_paired(np.subtract(sums_a, sums_b), 10_000))


def test_paired_permutation_of_any_statistic_is_the_sign_flip_test_for_a_mean():
    d = [0.5, 1.0, -0.25, 0.75, 0.0, 1.0, 0.5, -0.5, 0.25, 1.0]
    pairs = [(x, 0.0) for x in d]
    mean_gap = lambda a, b: float(np.mean(np.subtract(a, b)))  # noqa: E731
    assert paired_permutation(pairs, mean_gap).p_value == pytest.approx(sign_flip_test(d).p_value, rel=1e-12)
    # a statistic no sign flip can express: the difference of two balanced accuracies
    rng = np.random.default_rng(3)
    golds = [bool(g) for g in rng.integers(0, 2, 30)]
    right_a = [g if rng.random() < 0.8 else not g for g in golds]
    right_b = [g if rng.random() < 0.5 else not g for g in golds]
    units = [((g, p), (g, q)) for g, p, q in zip(golds, right_a, right_b)]
    gap = lambda a, b: balanced_accuracy(*zip(*a)) - balanced_accuracy(*zip(*b))  # noqa: E731
    ours = paired_permutation(units, gap, resamples=4000, seed=2)
    assert not ours.exact and ours.permutations == 4000
    assert ours.statistic == pytest.approx(gap([u[0] for u in units], [u[1] for u in units]))
    assert 0 <= ours.p_value < 0.05             # 80% vs 50% right on 30 items: a real difference
    assert paired_permutation(units, gap, resamples=4000, seed=2).p_value == ours.p_value     # seeded


@pytest.mark.parametrize("sizes", [(7, 6), (40, 55)])
def test_unpaired_difference_matches_scipys_independent_permutation_test(sizes):
    rng = np.random.default_rng(sum(sizes))
    a, b = rng.integers(0, 2, sizes[0]).astype(float), rng.integers(0, 2, sizes[1]).astype(float)
    ours = unpaired_difference(a, b, resamples=500, seed=1, permutations=20_000)
    theirs = scipy_stats.permutation_test((a, b), lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
                                          permutation_type="independent", n_resamples=20_000, vectorized=True,
                                          rng=np.random.default_rng(0)).pvalue
    exact = sizes == (7, 6)                   # C(13, 7) = 1716 splits: enumerated by both
    assert ours.p_value == pytest.approx(theirs, rel=1e-12) if exact else abs(ours.p_value - theirs) < 0.02
    assert ours.difference.estimate == pytest.approx(a.mean() - b.mean()) and not ours.as_dict()["paired"]
    assert ours.analytic_stderr == pytest.approx(math.hypot(mean_stderr(list(a)), mean_stderr(list(b))))
    low, high = ours.difference.ci
    assert low <= ours.difference.estimate <= high and ours.units_a == sizes[0]
    generic = group_permutation_test(list(a), list(b), lambda x, y: float(np.mean(x) - np.mean(y)),
                                     resamples=20_000, seed=child_seed(1, "permutation"))
    assert generic.p_value == pytest.approx(ours.p_value, rel=1e-9)       # the same splits, vectorised


def test_unpaired_bootstrap_covers_the_true_gap_at_the_nominal_rate():
    """Two independent groups of 60 and 90 Bernoulli draws (0.55 vs 0.40): the stratified
    bootstrap interval of the difference covers 0.15 in about 95% of 400 simulations."""
    rng = np.random.default_rng(11)
    hits = 0
    for trial in range(400):
        a, b = (rng.random(60) < 0.55).astype(float), (rng.random(90) < 0.40).astype(float)
        low, high = unpaired_difference(a, b, resamples=400, seed=trial, permutations=2).difference.ci
        hits += low <= 0.15 <= high
    assert 360 <= hits <= 396, hits           # 380 expected; ±2.5 binomial sd is about ±11


def test_units_for_gap_textbook_value_and_simulated_power():
    # p = 0.5, gap 5 points: (1.95996 + 0.84162)^2 * 2 * 0.25 / 0.05^2 = 1569.8
    assert units_for_gap(0.05, 0.25) == 1570
    assert units_for_gap(0.05, 0.25, paired=True) == 785
    assert units_for_gap(0.05, 0.0) is None
    with pytest.raises(ValueError):
        units_for_gap(0.0, 0.25)
    rng = np.random.default_rng(8)
    # independent runs at the planned size reject H0 (z-test, two-sided 5%) in about 80% of 4000 trials
    p1, p2 = 0.60, 0.65
    n = units_for_gap(p2 - p1, (p1 * (1 - p1) + p2 * (1 - p2)) / 2)
    x, y = rng.binomial(n, p1, 4000) / n, rng.binomial(n, p2, 4000) / n
    se = np.sqrt(x * (1 - x) / n + y * (1 - y) / n)
    power = np.mean(np.abs(y - x) / se > 1.959963984540054)
    assert 0.77 < power < 0.83, power
    # paired: per-unit differences with variance 0.3
    n = units_for_gap(0.04, 0.3, paired=True)
    d = rng.normal(0.04, math.sqrt(0.3), (4000, n))
    z = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
    assert 0.77 < np.mean(np.abs(z) > 1.959963984540054) < 0.83


def test_icc_and_design_effect():
    assert intraclass_correlation([[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]]) == pytest.approx(1.0)
    assert intraclass_correlation([[1], [0], [1]]) is None           # no replication within clusters
    assert design_effect([4, 4, 4], 0.5) == pytest.approx(2.5)
    assert design_effect([4, 4, 4], -0.2) == 1.0 and design_effect([4, 4], None) == 1.0
    assert design_effect([1, 9], 1.0) == pytest.approx(82 / 10)      # m~ = sum(m^2) / sum(m)


def test_resample_count_chunks_count_the_draws_of_resample_indices():
    # blocks of 3 rows (cells=21 over 7 units), the last one short: each row counts its draws
    indices = resample_indices(7, 8, 11)
    blocks = [block.copy() for block in resample_count_chunks(7, 8, 11, cells=21)]
    assert [len(b) for b in blocks] == [3, 3, 2]
    counted = np.concatenate(blocks)
    assert counted.dtype == float
    assert np.array_equal(counted, np.stack([np.bincount(row, minlength=7) for row in indices]))
