"""Per-item Python steps of `knowforge eval` outside generation, old way against new, in one
process (no server: the graph's part is measured by harness_overhead.py and answer_write.py).

  question check   a file benchmark's item against its stored question (``item_json``):
                   parse the stored JSON and compare both models (before), or compare the
                   stored JSON with the item's own first and parse only when they differ (now)
  record export    a question read's records (the fields of eval/question_benchmarks, built as
                   the driver builds them) as dicts: ``Record.data()`` (``Store.read``, before)
                   against a dict of the decoded values (``Store.read_values``, until the reads
                   collected their rows into one record: benchmarks/question_reads.py)

  file read        a JSONL benchmark read into items: ``json.loads`` then ``model_validate``
                   per line (before), or pydantic's ``model_validate_json`` of the line, the
                   two steps kept for a line it refuses (now, ``models.items_io.iter_items``)

  registry lookup  a scorer's spec (``eval.registry.scorer_spec``, three per scored sample): the
                   registry found by a key built from every loaded method and the kind's table
                   from a dict of all tables (before), or by the identity of what was loaded and
                   the table by name (now)

CPU seconds per item, best of --repeat, and the ratio.

    .venv/bin/python benchmarks/engine_steps.py [--items 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from harness_overhead import make_items

from knowforge.eval import registry
from knowforge.eval.registry import scorer_spec
from knowforge.eval.unit import EvalUnit
from knowforge.models.methods import available
from knowforge.models.items_io import read_items, write_items
from knowforge.models.types import ITEM_SCHEMA_VERSION, BenchmarkItem


def parse_and_compare(items, stored):
    for item, text in zip(items, stored):
        if BenchmarkItem.model_validate_json(text).model_dump(exclude={"version"}) != \
                item.model_dump(exclude={"version"}):
            raise AssertionError(item.id)


def text_first(items, stored):
    for item, text in zip(items, stored):
        if text != item.model_dump_json() and BenchmarkItem.model_validate_json(text).model_dump(
                exclude={"version"}) != item.model_dump(exclude={"version"}):
            raise AssertionError(item.id)


def read_two_steps(path):
    """``models.items_io.iter_items`` as it was before 2026-11-29 (engine9), for a good file."""
    out, seen = [], set()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            raw = json.loads(line)
            if not isinstance(raw, dict) or str(raw.get("version", ITEM_SCHEMA_VERSION)) != ITEM_SCHEMA_VERSION:
                raise AssertionError(line)
            item = BenchmarkItem.model_validate(raw)
            if item.id in seen:
                raise AssertionError(item.id)
            seen.add(item.id)
            out.append(item)
    return out


def exported(records):
    return [r.data() for r in records]


def values(records, keys):
    return [dict(zip(keys, r)) for r in records]


def best_cpu(fn, *args, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn(*args)
        times.append(time.process_time() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    items = make_items(args.items)
    stored = [i.model_dump_json() for i in items]          # what write_questions stored
    before = best_cpu(parse_and_compare, items, stored, repeat=args.repeat)
    after = best_cpu(text_first, items, stored, repeat=args.repeat)
    print(f"question check, {args.items:,} items: parse and compare {before:.3f} s "
          f"({1e6 * before / args.items:.1f} us/item), stored JSON first {after:.3f} s "
          f"({1e6 * after / args.items:.1f} us/item): {before / after:.1f}x")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        write_items(path, items)
        assert read_two_steps(path) == read_items(path) == items
        before = best_cpu(read_two_steps, path, repeat=args.repeat)
        after = best_cpu(read_items, path, repeat=args.repeat)
    print(f"file read, {args.items:,} items: json.loads + model_validate {before:.3f} s "
          f"({1e6 * before / args.items:.1f} us/item), model_validate_json {after:.3f} s "
          f"({1e6 * after / args.items:.1f} us/item): {before / after:.1f}x")

    import neo4j

    keys = ["id", "benchmark", "task", "form", "answers", "metadata_json", "slices"]
    records = [neo4j.Record(zip(keys, [i.id, i.benchmark, i.task, i.form, list(i.answers), "{}",
                                      [[f"slice_{k}", v] for k, v in i.slices.items()]])) for i in items]
    assert exported(records) == values(records, keys)
    before = best_cpu(exported, records, repeat=args.repeat)
    after = best_cpu(values, records, keys, repeat=args.repeat)
    print(f"record export, {args.items:,} records: Record.data() {before:.3f} s, values {after:.3f} s: "
          f"{before / after:.1f}x")

    # three lookups per scored sample (its scoring rule twice, its scorer once)
    names = [("boolean", "multi-choice", "fuzzy")[k % 3] for k in range(3 * args.items)]
    assert [old_scorer_spec(n) for n in names[:3]] == [scorer_spec(n) for n in names[:3]]
    before = best_cpu(lambda: [old_scorer_spec(n) for n in names], repeat=args.repeat)
    after = best_cpu(lambda: [scorer_spec(n) for n in names], repeat=args.repeat)
    print(f"registry lookup, {len(names):,} lookups: key and table built each time {before:.3f} s "
          f"({1e6 * before / len(names):.2f} us each), now {after:.3f} s ({1e6 * after / len(names):.2f} us): "
          f"{before / after:.1f}x")


def old_scorer_spec(name: str):
    """``registry.scorer_spec`` as it was before 2026-11-29 (engine7): the registry found by a
    key built from a copy of every loaded method, the kind's table from a dict of all tables."""
    methods = available()
    key = tuple((n, id(m)) for n, m in methods.items())
    reg = registry._BUILT.get(key) or registry.registry()
    return {k: t for k, t, _ in reg._tables(EvalUnit())}["scorer"][name]


if __name__ == "__main__":
    main()
