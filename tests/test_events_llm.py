"""Paraphrases and tendency questions through the OpenAI-compatible backend, against a small
HTTP server on 127.0.0.1 started here (and the response cache in front of it)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from events_subgraph import build_subgraph
from scripted_openai import ScriptedCompletions, serving

from knowforge.cli.main import cli
from knowforge.models.backends import make_backend
from knowforge.eval.types import EvalOptions
from knowforge.generators.events.build import generate_events, read_batch
from knowforge.generators.events.elken_io import to_elken_event
from knowforge.generators.events.llm import parse_tendency_lines

TENDENCY_REPLY = "\n".join([
    "IN | Will the club's shirt sales rise? | (A) Rise (B) Fall (C) No significant change | A",
    "IN | How will the league's audience change? | (A) Grow (B) Shrink (C) No significant change | A",
    "this line is not in the format",
    "OUT | Will the height of the Alps change? | (A) Rise (B) Fall (C) No significant change | C",
    "OUT | Will rainfall in Lisbon change? | (A) More (B) Less (C) Remain the same | C",
])


class Handler(ScriptedCompletions):
    calls: list[str] = []

    def reply(self, prompt: str) -> str:
        if prompt.startswith("You are a fair assessor"):
            return "correctness: 5\ncoherence: 4\ncomprehensiveness: 3\noverall: 5"
        if "Give your judgement first" in prompt:
            return "It will rise, because the event draws attention."
        if "Answer with its letter only" in prompt:
            return "(A)"
        if prompt.startswith("Rewrite"):
            event = prompt.split("Event: ", 1)[1].split("\n", 1)[0]
            # keep the names for some events, drop them for others (rejected paraphrase)
            return f"News: {event}" if "Ronaldo" in event else "Somebody did something."
        return TENDENCY_REPLY


@pytest.fixture
def llm_server():
    Handler.calls = []
    with serving(Handler) as url:
        yield url


def test_parse_tendency_lines():
    good, bad = parse_tendency_lines(TENDENCY_REPLY)
    assert [g[0] for g in good] == ["in", "in", "out"] and bad == 2
    assert good[2][2] == ["Rise", "Fall", "No significant change"] and good[2][3] == "C"


def test_paraphrase_and_tendency_through_a_cached_backend(store, llm_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    build_subgraph(store)
    options = EvalOptions(backend="openai", model="scripted", base_url=llm_server,
                          cache_dir=tmp_path / "cache")
    summary = generate_events(store, types=["transfer-player", "IPO"], n=1, seed=0, batch="llm",
                              llm=make_backend(options))
    stats = summary.llm
    assert stats.paraphrased == 1 and stats.paraphrase_rejected == 1
    assert stats.tendency_questions == 6 and stats.tendency_lines_rejected == 4
    transfer = next(p for p in summary.plans if p.type == "transfer-player")
    assert transfer.text.startswith("News: ")
    events = read_batch(store, "llm")
    exported = [to_elken_event(e["type"], e["text"], items) for e, items in events]
    t = next(e for e in exported if e["event_type"] == "transfer-player")
    assert t["event"].startswith("News: ")
    assert len(t["tendency"]["qas"]) == 2 and len(t["tendency"]["local_qas"]) == 1
    assert t["tendency"]["local_qas"][0]["answer"] == "C"
    assert t["tendency"]["qas"][0]["candidate"] == "(A) Rise (B) Fall (C) No significant change"
    calls = len(Handler.calls)
    # the same generation again asks the server nothing: every reply comes from the cache
    store.driver.execute_query("MATCH (n) DETACH DELETE n")
    build_subgraph(store)
    again = generate_events(store, types=["transfer-player", "IPO"], n=1, seed=0, batch="llm",
                            llm=make_backend(options))
    assert len(Handler.calls) == calls and again.llm.tendency_questions == 6


def test_cli_llm_options(store, graph_env, llm_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("KNOWFORGE_CACHE_DIR", str(tmp_path / "cache"))
    build_subgraph(store)
    result = CliRunner().invoke(cli, ["generate", "events", "--types", "IPO", "--n", "1", "--name", "c",
                                      "--llm-backend", "openai", "--llm-model", "scripted",
                                      "--llm-base-url", llm_server, "--silent"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "tendency questions 3" in result.output


def test_tendency_mc_and_open_answers_judged(store, llm_server, tmp_path, monkeypatch):
    from events_subgraph import evaluate_editing

    monkeypatch.setenv("OPENAI_API_KEY", "test")
    build_subgraph(store)
    options = EvalOptions(backend="openai", model="scripted", base_url=llm_server,
                          cache_dir=tmp_path / "cache", out_dir=tmp_path / "runs")
    backend = make_backend(options)
    generate_events(store, types=["transfer-player", "IPO"], n=1, seed=0, batch="tg", llm=backend)
    items = [i for _, its in read_batch(store, "tg") for i in its]
    tendency = [i for i in items if i.task == "events/tendency"]
    outcome = evaluate_editing(store, items, options, method="ice", backend=backend,
                               args={"judge_model": "scripted", "judge_base_url": llm_server})
    m = outcome.metrics
    # the scripted model always picks (A): right on the in-scope ones (gold A); the out-of-scope
    # ones (gold C, "No significant change") are for locality, and ELKEN's accuracy leaves them out
    inside = [i for i in tendency if i.slices["scope"] == "in"]
    assert len(tendency) == 6 and len(inside) == 4 and all(i.answers == ["A"] for i in inside)
    assert m["tendency"]["questions"] == 4 and m["tendency"]["accuracy"] == 1.0
    report = json.loads((outcome.report_dir / "report.json").read_text())
    g = report["extra"]["Tendency-G (LLM judge)"]
    assert g["cases"] == 4 and g["unparsed"] == 0
    assert g["full_mark_overall"] == 1.0 and g["full_mark_coherence"] == 0.0
    assert g["events"] == 2 and g["event_full_mark_overall"] == 1.0       # the event level
    assert g["mean_comprehensiveness"] == 3
