"""Tendency-G from the command line: ``knowforge eval --benchmark events:B --judge-*``, with
the tiny local model as judge (its scores are junk: the test checks the judge path ran and the
report is consistent) and with a scripted OpenAI-compatible judge on 127.0.0.1 (known scores);
and the judge-reply parser as a pure function."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from events_subgraph import build_subgraph
from scripted_openai import serving
from test_events_llm import Handler

from knowforge.cli.main import cli
from knowforge.errors import ConfigError
from knowforge.models.backends import make_backend
from knowforge.models.cache import ResponseCache
from knowforge.eval.events.editing import JudgeArgs, make_judge
from knowforge.eval.events.judge import JUDGE_DIMENSIONS, judge_tendency, parse_judgement
from knowforge.eval.unit import SolveContext
from knowforge.models.types import GenerationResult
from knowforge.eval.types import EvalOptions
from knowforge.generators.events.build import generate_events, read_batch

JUDGE_PREFIX = "You are a fair assessor"
SCORE_KEYS = {"cases", "unparsed", "judgements", "judge"} | {
    f"{kind}_{dim}" for kind in ("mean", "full_mark") for dim in JUDGE_DIMENSIONS}


# --- the parser (pure) ---------------------------------------------------------------------------
@pytest.mark.parametrize("reply,expected", [
    ("Correctness: 4\nCoherence: 5\nComprehensiveness: 3\nOverall: 4",
     {"correctness": 4, "coherence": 5, "comprehensiveness": 3, "overall": 4}),
    ("**Correctness**: 5/5\n**Coherence**: 4/5\n**Comprehensiveness**: 4/5\n**Overall score**: 5/5",
     {"correctness": 5, "coherence": 4, "comprehensiveness": 4, "overall": 5}),
    ("correctness=5, coherence=5, comprehensiveness=5, overall=5. Correctness: 5",   # repeated, same
     {"correctness": 5, "coherence": 5, "comprehensiveness": 5, "overall": 5}),
    # the rubric's cap: overall at most 3 when correctness is 3 or less
    ("correctness: 3\ncoherence: 5\ncomprehensiveness: 5\noverall: 5",
     {"correctness": 3, "coherence": 5, "comprehensiveness": 5, "overall": 3}),
])
def test_parse_judgement_reads_the_four_scores(reply, expected):
    assert parse_judgement(reply) == expected


@pytest.mark.parametrize("reply", [
    None, "", "The answer is good.",
    "Correctness: 4\nCoherence: 5",                                              # two missing
    "Correctness: 4.5\nCoherence: 5\nComprehensiveness: 3\nOverall: 4",          # not a whole score
    "Correctness: 45\nCoherence: 5\nComprehensiveness: 3\nOverall: 4",           # not 1..5
    "Correctness: 0\nCoherence: 5\nComprehensiveness: 3\nOverall: 4",
    "Correctness: 7\nCoherence: 5\nComprehensiveness: 3\nOverall: 4",
    "Correctness: 4\nCoherence: 5\nComprehensiveness: 3\nOverall: 4\nCorrectness: 2",  # two scores
])
def test_malformed_judgements_are_unparsed(reply):
    assert parse_judgement(reply) is None


class ScriptedJudge:
    """Fixed judge replies (one failed request), to test the counting only."""

    name, model, capabilities = "scripted", "judge", frozenset({"generate"})

    def __init__(self, replies):
        self.replies = replies

    def generate(self, requests):
        return [GenerationResult(texts=(), finish_reasons=(), error="HTTP 500") if r is None
                else GenerationResult(texts=(r,), finish_reasons=("stop",))
                for r in self.replies[:len(requests)]]


def test_unparsed_and_failed_judgements_are_counted_not_dropped():
    case = {"event": "e", "question": "q", "answer": "a", "label": "Rise"}
    replies = ["Correctness: 5\nCoherence: 5\nComprehensiveness: 5\nOverall: 5",
               "Correctness: 4.5\nCoherence: 5\nComprehensiveness: 3\nOverall: 4",
               None,
               "Correctness: 2\nCoherence: 4\nComprehensiveness: 4\nOverall: 5"]
    # four different answers (identical requests would be asked once)
    result = judge_tendency(ScriptedJudge(replies), [{**case, "answer": f"a{k}"} for k in range(4)])
    assert result["cases"] == 4 and len(result["judgements"]) == 4
    assert result["unparsed"] == 2 and result["judgements"][1] is None and result["judgements"][2] is None
    assert result["full_mark_overall"] == 0.5 and result["full_mark_correctness"] == 0.5
    assert result["mean_overall"] == (5 + 3) / 2          # the second one capped at 3


def test_judge_options():
    ctx = SolveContext(backend=None, options=EvalOptions(model="m"))
    assert make_judge(JudgeArgs(), ctx) is None
    with pytest.raises(ConfigError, match="judge_model"):
        make_judge(JudgeArgs(judge_backend="openai"), ctx)


# --- through the command line --------------------------------------------------------------------
@pytest.fixture
def scripted_server():
    Handler.calls = []
    with serving(Handler) as url:
        yield url


@pytest.fixture
def tendency_batch(store, scripted_server, tmp_path, monkeypatch):
    """A batch with tendency questions (made by the scripted LLM): 6 of them."""
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    build_subgraph(store)
    llm = make_backend(EvalOptions(backend="openai", model="scripted", base_url=scripted_server,
                                   cache_dir=tmp_path / "llm-cache"))
    generate_events(store, types=["transfer-player", "IPO"], n=1, seed=0, batch="tg", llm=llm)
    tendency = [i for _, its in read_batch(store, "tg") for i in its if i.task == "events/tendency"]
    assert len(tendency) == 6
    # the judge scores the in-scope ones (ELKEN's MetricForAutoEval skips out-of-scope answers)
    return [i for i in tendency if i.slices["scope"] == "in"]


def _eval(tmp_path: Path, model: Path, *judge_args: str):
    args = ["eval", "--benchmark", "events:tg", "--backend", "hf", "--model", str(model),
            "--solver", "ice", "--max-tokens", "4", "--device", "cpu", "--cache-dir",
            str(tmp_path / "cache"), "--out", str(tmp_path / "runs"), "--silent", *judge_args]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary_dir = Path(result.stdout.strip().splitlines()[-1])
    [run] = json.loads((summary_dir / "summary.json").read_text())["runs"].values()   # ice(judge_...)
    report = json.loads((Path(run["report"]) / "report.json").read_text())
    return report["extra"]["Tendency-G (LLM judge)"]


def _consistent(g: dict) -> None:
    assert SCORE_KEYS <= set(g)
    parsed = [j for j in g["judgements"] if j is not None]
    assert len(g["judgements"]) == g["cases"] and g["unparsed"] == g["cases"] - len(parsed)
    for dim in JUDGE_DIMENSIONS:
        expected = sum(j[dim] == 5 for j in parsed) / len(parsed) if parsed else None
        assert g[f"full_mark_{dim}"] == expected
        assert g[f"mean_{dim}"] == (sum(j[dim] for j in parsed) / len(parsed) if parsed else None)


@pytest.mark.hf
def test_cli_tiny_hf_model_as_judge(store, graph_env, tendency_batch, tiny_model_dir, tmp_path):
    g = _eval(tmp_path, tiny_model_dir, "-S", "judge_backend=hf", "-S", f"judge_model={tiny_model_dir}")
    assert g["judge"] == {"backend": "hf", "model": str(tiny_model_dir)}
    assert g["cases"] == len(tendency_batch) == 4
    _consistent(g)
    # the judge was really asked, once per open answer, through the response cache
    asked = [e for e in ResponseCache(tmp_path / "cache").entries()
             if json.loads(e.request).get("prompt", "").startswith(JUDGE_PREFIX)]
    assert len(asked) == 4 and {e.backend for e in asked} == {"hf"}
    questions = {i.question for i in tendency_batch}
    assert {json.loads(e.request)["prompt"].split("Question: ", 1)[1].split("\n", 1)[0]
            for e in asked} == questions


@pytest.mark.hf
def test_cli_scripted_openai_judge(store, graph_env, tendency_batch, tiny_model_dir,
                                   scripted_server, tmp_path):
    before = len(Handler.calls)
    g = _eval(tmp_path, tiny_model_dir, "-S", "judge_backend=openai", "-S", "judge_model=scripted",
              "-S", f"judge_base_url={scripted_server}")
    judged = [p for p in Handler.calls[before:] if p.startswith(JUDGE_PREFIX)]
    assert len(judged) == 4
    _consistent(g)
    # the scripted judge says 5 / 4 / 3 / 5 every time
    assert g["unparsed"] == 0 and g["full_mark_overall"] == 1.0 and g["full_mark_coherence"] == 0.0
    assert g["mean_comprehensiveness"] == 3


@pytest.mark.hf
def test_cli_judge_option_errors(store, graph_env, tmp_path, tiny_model_dir):
    items = tmp_path / "items.jsonl"
    items.write_text("")
    result = CliRunner().invoke(cli, ["eval", "--benchmark", str(items), "--model", str(tiny_model_dir),
                                      "--solver", "zero-shot", "-S", "judge_model=x"])
    assert result.exit_code != 0 and "judge_model" in result.output and "Extra inputs" in result.output
    build_subgraph(store)
    generate_events(store, types=["IPO"], n=1, seed=0, batch="nj")
    result = CliRunner().invoke(cli, ["eval", "--benchmark", "events:nj", "--model", str(tiny_model_dir),
                                      "--solver", "ice", "-S", "judge_backend=hf", "--cache-dir", str(tmp_path / "c"),
                                      "--out", str(tmp_path / "r"), "--silent"])
    assert result.exit_code != 0 and "judge_model" in result.output
