"""Parser and load-rate benchmark of the Wikidata JSON loader.

1. Generates a synthetic ``latest-all.json``-layout dump (default 1,000,000 entity lines) in a
   temporary directory.
2. Streams it three times in this process: plain ``json.loads`` per line (the baseline); the
   reference path (``json.loads`` + ``WikidataDocParser.parse`` on the dict, which is what the
   loader ran before the msgspec fast path); and the loader's parser
   (``WikidataDocParser.parse_line``: msgspec typed decoding of the fields we read, same
   records). All passes read the file the same way (``iter_lines``). Prints lines/s of each
   and the ratios to ``json.loads``.
3. Loads the first ``--load-entities`` documents into a running Neo4j (``open_store`` with
   ``NEO4J_URI`` or the managed server, never started here) and prints facts/s. Skipped
   cleanly when no server is running. The graph it writes to gets those entities added.

    python benchmarks/wikidata_parse.py [--lines 1000000] [--load-entities 20000] [--home DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_wikidata_dump import write_dump  # noqa: E402

from knowforge.errors import GraphUnavailable  # noqa: E402
from knowforge.kg.loaders.base import iter_lines  # noqa: E402
from knowforge.kg.loaders.wikidata_json import WikidataDocParser, load_wikidata_json, parse_line  # noqa: E402
from knowforge.kg.connection import hide_query_notifications  # noqa: E402


def baseline(path: Path) -> tuple[int, float]:
    n = 0
    start = time.perf_counter()
    for _, raw in iter_lines(path):
        line = raw.strip()
        if line in (b"[", b"]", b""):
            continue
        json.loads(line[:-1] if line.endswith(b",") else line)
        n += 1
    return n, time.perf_counter() - start


def reference(path: Path) -> tuple[int, int, float]:
    parser = WikidataDocParser()
    n = facts = 0
    start = time.perf_counter()
    for _, raw in iter_lines(path):
        doc = parse_line(raw)
        if doc is None:
            continue
        facts += len(parser.parse(doc).facts)
        n += 1
    return n, facts, time.perf_counter() - start


def ours(path: Path) -> tuple[int, int, float]:
    parser = WikidataDocParser()
    n = facts = 0
    start = time.perf_counter()
    for _, raw in iter_lines(path):
        parsed = parser.parse_line(raw)
        if parsed is None:
            continue
        facts += len(parsed.facts)
        n += 1
    return n, facts, time.perf_counter() - start


def neo4j_rate(path: Path, entities: int, home: str | None) -> None:
    from knowforge.kg.connection import open_store

    try:
        store = open_store(home=home, autostart=False)
        store.apply_schema()
    except GraphUnavailable as exc:
        print(f"neo4j load: skipped ({exc})")
        return
    slice_path = path.with_name("slice.json")
    with open(slice_path, "wb") as out:
        for lineno, raw in iter_lines(path):
            if lineno > entities + 1:
                break
            out.write(raw.rstrip(b",") + b"\n")
    with store:
        start = time.perf_counter()
        report = load_wikidata_json(store, [slice_path])
        seconds = time.perf_counter() - start
    print(f"neo4j load: {report.entities_written:,} entities, {report.facts_written:,} facts in "
          f"{seconds:.1f}s = {report.facts_written / seconds:,.0f} facts/s "
          f"({report.entities_written / seconds:,.0f} entities/s, batch {store.batch_size})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--load-entities", type=int, default=20_000)
    ap.add_argument("--home", default=None, help="managed Neo4j home (default: the user data dir)")
    ap.add_argument("--keep", type=Path, default=None, help="write the dump here and keep it")
    args = ap.parse_args()
    hide_query_notifications()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "latest-all.json"
        start = time.perf_counter()
        write_dump(path, args.lines)
        print(f"generated {args.lines:,} entity lines ({path.stat().st_size / 1e6:,.0f} MB) in "
              f"{time.perf_counter() - start:.0f}s")
        n_base, t_base = baseline(path)
        n_ref, facts_ref, t_ref = reference(path)
        n_ours, facts, t_ours = ours(path)
        assert n_base == n_ref == n_ours == args.lines and facts == facts_ref
        print(f"json.loads only      : {n_base / t_base:>10,.0f} lines/s ({t_base:.1f}s)")
        print(f"reference dict parse : {n_ref / t_ref:>10,.0f} lines/s ({t_ref:.1f}s)")
        print(f"knowforge parse_line : {n_ours / t_ours:>10,.0f} lines/s ({t_ours:.1f}s, {facts:,} facts, "
              f"{facts / t_ours:,.0f} facts/s)")
        print(f"ratio reference/json.loads : {t_base / t_ref:.2f}")
        print(f"ratio parse_line/json.loads: {t_base / t_ours:.2f}")
        if args.load_entities:
            neo4j_rate(path, args.load_entities, args.home)


if __name__ == "__main__":
    main()
