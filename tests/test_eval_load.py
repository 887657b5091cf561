"""Eval under load (issue 36, item 6): 64 requests at once against a server on 127.0.0.1 that
fails at random (429, reset, hang past the client's timeout, malformed JSON). Rerunning the
evaluation, as a user would after a stopped run, ends with every item answered exactly once
and a cache that holds one right row per item. ``benchmarks/eval_faults.py`` runs it at 10k."""

from __future__ import annotations

from flaky_openai import FAULTS, eval_under_faults


def test_eval_at_concurrency_64_against_a_failing_server_answers_every_item_once(tmp_path):
    rates = {"429": 0.06, "reset": 0.03, "hang": 0.01, "malformed": 0.01}
    figures = eval_under_faults(200, tmp_path / "cache", concurrency=64, rates=rates, seed=3,
                                timeout=2.0, hang_s=2.3)
    # every kind of fault happened (the draws are a hash of seed, prompt and attempt: fixed)
    assert all(figures.faults[kind] > 0 for kind in FAULTS), figures.faults
    assert figures.stopped_runs >= 1 and figures.runs > figures.stopped_runs
    # every item answered, by its own answer, and the server answered each exactly once
    assert figures.final_correct == 200
    assert figures.answers_per_item == {1: 200}, figures.answers_per_item
    assert figures.asked_after_answer == 0
    # the cache: one row per item, each the answer to its own request, and a sound file
    assert (figures.cache_rows, figures.cache_distinct_keys, figures.cache_wrong_rows) == (200, 200, 0)
    assert figures.cache_integrity == "ok"
    # and one more run is answered from the cache alone
    assert figures.rerun_requests == 0 and figures.rerun_cached == 200
