"""LINK generation cost: round trips per statement and statements/s.

Run after `knowforge load samples` (uses NEO4J_URI etc. or the managed server):

    python benchmarks/link_rate.py --n 30 --repeats 3
    python benchmarks/link_rate.py --n 10 --repeats 1 --model      # + a scoring model and a knowledge model

Two settings:

* **graph**: the bundled rules the samples ground completely, no model. Every variable is
  bound by a batched Cypher pattern; the reranker ranks by popularity. Reported: statements/s,
  Bolt round trips per statement (every driver call: grounding reads, the writes of the
  inferred layer and the questions, the benchmark's bookkeeping) and grounding queries per
  statement. The baseline, measured in the same process, is one trivial named read: the ratio
  says how many round trips' worth of time one statement costs.
* **model** (``--model``): the same rules with the tiny local transformers model scoring
  (reranker log-likelihoods, the distribution check), plus one rule the graph cannot ground
  searched with a scripted knowledge model on 127.0.0.1 (proposals) and the tiny model as its
  critic. Reported: model requests (generate, log-likelihood) per statement, on a cold cache and
  again on a warm one (a rerun asks the model nothing).

Every batch is dropped afterwards, so the graph is left as it was.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from knowforge.generators.link.generate import drop_link, generate_link
from knowforge.generators.link.params import LinkParams
from knowforge.kg.connection import hide_query_notifications, open_store

GROUNDED = ("outcome_allergy_dish", "locational_currency", "locational_official_language", "locational_price_tag",
            "temporal_contemporary_invention", "temporal_contemporary_company", "outcome_treatment",
            "outcome_side_effect", "natural_material_property")

UNGROUNDED = """
version: 1
rules:
  bench_garden:
    domain: plants and climate
    constraint: locational
    centre: person
    premise_map:
      "lives_in(P, A)": "[P] lives in [A]"
      "is_too_cold_for(A, Y)": "[A] is too cold for [Y]"
    conclusion_map: {"cannot_grow(P, Y)": "[P] cannot grow [Y] outdoors"}
    negation_map: {"cannot_grow(P, Y)": "[P] can grow [Y] outdoors"}
    question_map: {"cannot_grow(P, Y)": "Can [P] grow [Y] outdoors?"}
    variables:
      P: [P, Person, true, null]
      A: [A, Region, false, null]
      Y: [Y, Plant, false, null]
"""
POOLS = {"A": ["Lapland", "Siberia", "Yukon", "Greenland", "Svalbard", "Iceland", "Patagonia", "Tibet"],
         "Y": ["banana", "mango", "pineapple", "coconut palm", "papaya", "cacao", "vanilla", "durian"]}


class Knowledge(BaseHTTPRequestHandler):
    """A scripted knowledge model: the pool of the asked variable, minus the excluded values."""

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body.get("prompt") or ""
        var = "A" if " values of A " in prompt else "Y"
        excluded = prompt.split("Do not generate these values: ", 1)[1].rstrip(".").split(", ") \
            if "Do not generate" in prompt else []
        text = "\n".join(f"{i}. {v}." for i, v in enumerate((v for v in POOLS[var] if v not in excluded), 1))
        data = json.dumps({"id": "x", "object": "text_completion", "created": 0, "model": body["model"],
                           "choices": [{"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        return


class CountingDriver:
    """The store's driver, counting what goes over Bolt (query calls and opened sessions)."""

    def __init__(self, driver):
        self._driver = driver
        self.calls = 0

    def execute_query(self, *args, **kwargs):
        self.calls += 1
        return self._driver.execute_query(*args, **kwargs)

    def session(self, *args, **kwargs):
        self.calls += 1
        return self._driver.session(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._driver, name)


def run(store, params, **models):
    driver = store.driver
    counting = CountingDriver(driver)
    store.driver = counting
    try:
        t0 = time.perf_counter()
        result = generate_link(store, params, **models)
        seconds = time.perf_counter() - t0
    finally:
        store.driver = driver
    drop_link(store, params.name)
    return result, seconds, counting.calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=30, help="statements per rule and distribution")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--round-trips", type=int, default=200,
                        help="named reads timed for the baseline round trip")
    parser.add_argument("--model", action="store_true", help="also measure with the tiny model and a scripted "
                                                             "knowledge model")
    args = parser.parse_args()
    hide_query_notifications()
    med = statistics.median
    with open_store() as store:
        t0 = time.perf_counter()
        trips = args.round_trips
        for _ in range(trips):
            store.read("link/read_batch", benchmark="link:none", batch="none")
        round_trip = (time.perf_counter() - t0) / trips
        print(f"baseline: one named read round trip = {1000 * round_trip:.2f} ms")

        rates, per_statement, trips_per, queries_per = [], [], [], []
        for r in range(args.repeats):
            params = LinkParams(name=f"bench-{r}", n=args.n, seed=r, rule_ids=GROUNDED)
            result, seconds, calls = run(store, params)
            statements = len(result.statements)
            rates.append(statements / seconds)
            per_statement.append(seconds / statements / round_trip)
            trips_per.append(calls / statements)
            queries_per.append(result.stats.graph_queries / statements)
        print(f"graph  : {len(GROUNDED)} rules, n={args.n}: {statements} statements, {result.items} questions/batch, "
              f"repeats={args.repeats}")
        print(f"         {med(rates):7.1f} statements/s; one statement = {med(per_statement):5.1f} "
              f"round trips of time; "
              f"{med(trips_per):.3f} Bolt round trips and {med(queries_per):.3f} grounding queries per statement; "
              f"0 model requests")

        if args.model:
            from knowforge.models.backends import make_backend
            from knowforge.models.config import BackendConfig
            from knowforge.models.tiny_model import build_tiny_model

            with tempfile.TemporaryDirectory() as tmp:
                tiny = build_tiny_model(Path(tmp) / "tiny", seed=0)
                rules = Path(tmp) / "bench.yaml"
                rules.write_text(UNGROUNDED, encoding="utf-8")
                os.environ.setdefault("OPENAI_API_KEY", "benchmark")   # the scripted server ignores it
                server = ThreadingHTTPServer(("127.0.0.1", 0), Knowledge)
                threading.Thread(target=server.serve_forever, daemon=True).start()
                url = f"http://127.0.0.1:{server.server_address[1]}/v1"
                try:
                    for label, extra in (("model, graph rules", {"rule_ids": GROUNDED[:4]}),
                                         ("model, LLM rule  ", {"rules": (str(rules),), "datatype_threshold": 0.02,
                                                                "datatype_floor": 0.001, "beam_size": 10,
                                                                "values_per_call": 5, "parse_retries": 1})):
                        for cache in ("cold", "warm"):
                            scorer = make_backend(BackendConfig(backend="hf", model=str(tiny), device="cpu",
                                                                cache_dir=Path(tmp) / "cache"))
                            knowledge = make_backend(BackendConfig(backend="openai", model="scripted", base_url=url,
                                                                   cache_dir=Path(tmp) / "cache"))
                            params = LinkParams(name="bench-model", n=args.n, seed=0, **extra)
                            result, seconds, calls = run(store, params, knowledge=knowledge, scorer=scorer)
                            statements = max(1, len(result.statements))
                            sent = scorer.backend_calls + knowledge.backend_calls
                            stats = result.stats
                            print(f"{label} ({cache} cache): {len(result.statements)} statements in {seconds:.1f}s "
                                  f"({len(result.statements) / seconds:.1f}/s); per statement: "
                                  f"{stats.generate_requests / statements:.2f} generate + "
                                  f"{stats.loglikelihood_requests / statements:.2f} log-likelihood requests, "
                                  f"{sent / statements:.2f} sent to a model, {calls / statements:.2f} Bolt round trips")
                finally:
                    server.shutdown()


if __name__ == "__main__":
    main()
