"""A small graph with one benchmark and one recorded run (or more) of every built-in method, made
through the command line as a user makes them, for the viewer's tests.

The bundled samples are loaded; KnowGen, ChroKnow, ELKEN and LINK benchmarks are generated on
them; NewTerm's is generated from a partial WordNet with the scripted NewTerm server
(``newterm_llm``: related terms from the lexical graph and the LLM). Every benchmark is then
evaluated through ``knowforge eval --backend openai`` against scripted servers on 127.0.0.1, a
few units each. ``build_view_graph`` returns what the tests look for: run ids by method and
the keys each method view opens with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner

import newterm_llm
from knowforge.cli.main import cli
from scripted_openai import ScriptedCompletions, serving

NEWTERM_TERMS = [{"term": "mogaloor", "meaning": "inebriated", "type": "new word", "year": 2024},
                 {"term": "blorf", "meaning": "a joyful feeling after a long walk", "type": "new word", "year": 2024},
                 {"term": "zindle fest", "meaning": "a party held in a garden at night", "type": "new phrase",
                  "year": 2024}]


class Answers(ScriptedCompletions):
    """Yes to yes/no questions, B to lettered choices, else a fixed name: some right, most
    wrong, and some answers no scorer can parse (a name where a letter is wanted)."""

    calls: list[str] = []

    def reply(self, prompt: str) -> str:
        tail = prompt[-200:].lower()
        if "yes or no" in tail or "true or false" in tail or "right or wrong" in tail:
            return "Yes"
        if "\nb." in prompt.lower() or "b)" in tail:
            return "B"
        return "Barack Obama"


def invoke(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@dataclass
class ViewGraph:
    runs: dict[str, list[str]] = field(default_factory=dict)      # method -> run ids, oldest first
    keys: dict[str, str] = field(default_factory=dict)            # method -> a key its view opens with
    out: Path | None = None


def build_view_graph(store, tmp: Path) -> ViewGraph:
    """Load, generate and evaluate (about a minute on two cores); needs NEO4J_URI etc. set."""
    invoke("load", "samples", "--silent")
    words = tmp / "words.txt"
    words.write_text("inebriated\njoyful\nfeeling\nparty\ngarden\n", encoding="utf-8")
    invoke("load", "wordnet", "--entities", words, "--silent")
    terms = tmp / "terms.jsonl"
    terms.write_text("".join(json.dumps(t) + "\n" for t in NEWTERM_TERMS), encoding="utf-8")
    invoke("load", "newterms", terms, "--silent")

    invoke("generate", "knowgen", "--name", "v", "--n", 3, "--seed", 0, "--silent")
    invoke("generate", "chrono", "--domain", "general", "--name", "v", "--templates", "generation,mcqa",
           "--silent")
    invoke("generate", "events", "--types", "transfer-player,win-election", "--n", 1, "--name", "v", "--silent")
    invoke("generate", "link", "--n", 4, "--name", "v", "--silent")
    server, url = newterm_llm.serve()
    try:
        invoke("generate", "newterm", "--year", 2024, "--name", "v", "--backend", "openai", "--base-url", url,
               "--model", "scripted", "--similarity", "rapidfuzz", "--sentences", 1, "--per-term", 1,
               "--n", 5, "--silent")
        common = ("--backend", "openai", "--model", "scripted", "--cache-dir", tmp / "cache", "--out", tmp / "runs",
                  "--silent")
        invoke("eval", "--benchmark", "newterm:v", "--base-url", url, "--limit", 4, *common)
    finally:
        server.shutdown()
        server.server_close()
    with serving(Answers) as url:
        common = ("--backend", "openai", "--base-url", url, "--model", "scripted", "--cache-dir", tmp / "cache",
                  "--out", tmp / "runs", "--silent")
        invoke("eval", "--benchmark", "knowgen:v", "--solver", "zero-shot", "--limit", 12, *common)
        invoke("eval", "--benchmark", "chrono:v", "--limit", 1, *common)
        invoke("eval", "--benchmark", "events:v", "--solver", "ice", "--limit", 1, *common)
        invoke("eval", "--benchmark", "link:v", "--limit", 1, *common)

    graph = ViewGraph(out=tmp / "runs")
    for row in store.user_query("MATCH (r:Run) RETURN r.id AS id, r.benchmark AS benchmark ORDER BY r.started_at, r.id"):
        graph.runs.setdefault(row["benchmark"].split(":")[0], []).append(row["id"])
    graph.keys = {
        "knowgen": _one(store, "MATCH (e:Artificial) RETURN e.id AS key ORDER BY key LIMIT 1"),
        "events": _one(store, "MATCH (e:Event) RETURN e.id AS key ORDER BY key LIMIT 1"),
        "link": _one(store, "MATCH (c:Fact {op: 'conclusion', layer: 'inferred'})<-[:TESTS]-(:Question)"
                            "<-[:ANSWERS]-(:Answer) RETURN c.id AS key ORDER BY key LIMIT 1"),
        "chrono": _one(store, "MATCH (r:ChronoRecord)<-[:PART_OF]-(:Question)<-[:ANSWERS]-(:Answer) "
                              "RETURN r.id AS key ORDER BY key LIMIT 1"),
        "newterm": _one(store, "MATCH (e:TermEntry)-[:RELATED]->() RETURN e.id AS key ORDER BY key LIMIT 1"),
    }
    return graph


def _one(store, query: str) -> str:
    rows = store.user_query(query)
    assert rows, f"the view graph lacks what {query!r} looks for"
    return rows[0]["key"]
