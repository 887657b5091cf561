"""What a long step shows while it runs: totals announced before work, plain progress lines in a
log file, and a seeded sample of units for a quicker evaluation."""

from __future__ import annotations

import io

from knowforge.cli.common import LineProgress
from knowforge.eval.ask import ask
from knowforge.eval.tasks import limit_units, sample_units
from knowforge.models.types import BenchmarkItem, GenerationRequest, GenerationResult


def _items(groups: int, per: int) -> list[BenchmarkItem]:
    return [BenchmarkItem(id=f"i{g}-{k}", benchmark="x:y", task="x/t", form="generation", question=f"q{g}-{k}",
                          metadata={"record": f"r{g}"}) for g in range(groups) for k in range(per)]


def test_a_sample_draws_whole_units_seeded_in_the_benchmarks_order():
    items = _items(20, 3)
    drawn = sample_units(items, 5, "record", seed=0)
    units = [i.metadata["record"] for i in drawn]
    assert len(set(units)) == 5 and len(drawn) == 15                  # whole groups
    assert drawn == [i for i in items if i in drawn]                   # the benchmark's order kept
    assert sample_units(items, 5, "record", seed=0) == drawn           # seeded: the same draw again
    assert sample_units(items, 5, "record", seed=1) != drawn
    assert set(units) != {f"r{g}" for g in range(5)}                   # not the first five
    assert sample_units(items, 50, "record", seed=0) == items
    assert len(sample_units(items, 7, None, seed=0)) == 7              # no groups: items are units
    # --limit then cuts the sample, as it cuts a whole benchmark
    assert len(limit_units(drawn, 2, "record")) == 6


class _Echo:
    name = "echo"

    def generate(self, requests):
        return [GenerationResult(texts=(r.prompt,), finish_reasons=("stop",)) for r in requests]


def test_asking_announces_its_total_to_a_progress_line_before_it_asks():
    stream = io.StringIO()
    line = LineProgress("requests", unit="requests", every=0.0, stream=stream)
    seen = []

    class Progress:
        def expect(self, n):
            line.expect(n)
            seen.append(("expect", n))

        def __call__(self, n):
            seen.append(("done", n))
            line(n)

    requests = [GenerationRequest(prompt=f"p{i % 5}", max_tokens=1) for i in range(12)]
    with line.running():
        answers = ask(requests, _Echo(), progress=Progress(), chunk_size=2)
    assert [a.texts[0] for a in answers] == [r.prompt for r in requests]
    assert seen[0] == ("expect", 5)                                     # 5 distinct requests, announced first
    assert sum(n for kind, n in seen if kind == "done") == 5
    lines = stream.getvalue().splitlines()
    # one piece done says nothing of the rate yet; the next line estimates from the two
    assert lines[0].startswith("  requests: 2/5 requests (40%)") and "left" not in lines[0]
    assert "left" in lines[1]
    assert lines[-1].startswith("  requests: 5/5 requests (100%)") and lines[-1].endswith("(done)")
    assert all("\r" not in x and "\x1b" not in x for x in lines)      # plain lines for a log file


def test_the_estimate_counts_from_the_first_finished_piece(monkeypatch):
    """Set-up takes 100 s, then one piece a second: after 11 of 101 pieces, 90 s are left (not
    the "about 0s left" that counting from the first piece's start gave)."""
    clock = [0.0]
    monkeypatch.setattr("knowforge.cli.common.time.monotonic", lambda: clock[0])
    stream = io.StringIO()
    line = LineProgress("steps", total=101, unit="steps", every=0.0, stream=stream)
    clock[0] = 100.0
    line(1)
    for _ in range(10):
        clock[0] += 1.0
        line(1)
    lines = stream.getvalue().splitlines()
    assert "left" not in lines[0]
    assert lines[-1].endswith("11/101 steps (11%), 0.1 steps/s, 110s, about 90s left")


def test_work_done_before_the_line_began_is_not_in_its_rate(monkeypatch):
    """A training joined at step 500 of 1,000, then one step a second: 1.0 steps/s after 10 s,
    not the 51 that counting the 500 earlier steps gave."""
    clock = [0.0]
    monkeypatch.setattr("knowforge.cli.common.time.monotonic", lambda: clock[0])
    stream = io.StringIO()
    line = LineProgress("training", total=1000, unit="steps", every=0.0, stream=stream, initial=500)
    for _ in range(10):
        clock[0] += 1.0
        line(1)
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("  training: 510/1,000 steps (51%), 1.0 steps/s, 10s"), last
