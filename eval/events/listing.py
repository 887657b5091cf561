"""ELKEN's listing of a benchmark's events (``knowforge results --units events:NAME``)."""

from __future__ import annotations

from knowforge.errors import ConfigError
from knowforge.eval.unit import ListingSpec


def benchmark_events(store, benchmark: str) -> list[dict]:
    """The events the questions of ``benchmark`` test, in stacking order: ``id``, ``type``,
    ``date``, ``text``, ``slots`` ("slot: entity") and ``questions`` (how many test it). An
    unknown benchmark, or one whose questions test no event, is a ConfigError that says so."""
    if not store.read("benchmark/read_benchmark", id=benchmark):
        raise ConfigError(f"no benchmark {benchmark!r} in the graph: give its id as METHOD:NAME (e.g. "
                          "events:demo), as `knowforge results --list` shows it")
    rows = store.read("benchmark/list_events", benchmark=benchmark)
    if not rows:
        raise ConfigError(f"benchmark {benchmark!r} has no events: none of its questions tests an :Event")
    return rows


LISTING = ListingSpec("events", "the events a benchmark's questions test: id, type, date, slots, questions, text",
                      benchmark_events, ("id", "type", "date", "slots", "questions", "text"),
                      "events in stacking order; questions: how many of its questions test each")

__all__ = ["LISTING", "benchmark_events"]
