"""NewTerm end to end through the command line: lexical graph → related terms → items → filter →
evaluation, with a scripted OpenAI-compatible server on 127.0.0.1 (``newterm_llm``) whose
answers fix every decision in advance, and with the tiny local transformers model (junk
text: the pipeline must run and its counts must account for every candidate)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import newterm_llm
from knowforge.cli.main import cli
from knowforge.generators.newterm.method import METHOD
from knowforge.kg.cypher import load_cypher

NORMAL = ("mogaloor", "blorf", "zindle fest", "bad")
TERMS = [{"term": "mogaloor", "meaning": "inebriated", "type": "new word"},
         {"term": "blorf", "meaning": "a joyful feeling after a long walk", "type": "new word"},
         {"term": "quibbet", "meaning": "a small argument about nothing", "type": "new word"},
         {"term": "snarple", "meaning": "to eat noisily", "type": "new word"},
         {"term": "zindle fest", "meaning": "a party held in a garden at night", "type": "new phrase"},
         {"term": "bad", "meaning": "excellent, impressive", "type": "new meaning"},
         {"term": "oldword", "meaning": "a term of another year", "type": "new word", "year": 2023}]


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def llm():
    server, url = newterm_llm.serve()
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture
def terms_2024(store, graph_env, tmp_path, monkeypatch):
    """WordNet around the meanings (a partial load) and the term list, in the graph."""
    pytest.importorskip("wordfreq")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("KNOWFORGE_CACHE_DIR", str(tmp_path / "cache"))
    words = tmp_path / "words.txt"
    words.write_text("inebriated\njoyful\nfeeling\nargument\nparty\nexcellent\n", encoding="utf-8")
    invoke("load", "wordnet", "--entities", words, "--silent")
    path = tmp_path / "terms.jsonl"
    path.write_text("".join(json.dumps({"year": 2024, **t}) + "\n" for t in TERMS), encoding="utf-8")
    invoke("load", "newterms", path, "--silent")
    return path


def test_scripted_llm_end_to_end(store, terms_2024, llm, tmp_path):
    result = invoke("generate", "newterm", "--year", 2024, "--backend", "openai", "--base-url", llm,
                    "--model", "scripted", "--similarity", "rapidfuzz", "--sentences", 1, "--per-term", 2,
                    "--n", 5, "--silent")
    assert result.output.strip().splitlines()[-1] == "newterm:2024"
    run = store.user_query("MATCH (g:GenerationRun {id: 'newterm:2024:run'}) RETURN g")[0]["g"]
    # the filter's decisions, as the scripted filter makes them (see newterm_llm)
    assert json.loads(run["filter_json"]) == {
        "COMA": {"fewer than 3 unpicked distractors": 2, "gold not picked": 2, "kept": 8},
        "COST": {"fewer than 3 unpicked distractors": 1, "gold not picked": 3, "kept": 12,
                 "new term picked as a distractor": 2},
        "CSJ": {"kept": 11, "true sentence rated 5 <= 7": 1}}
    # six batched round trips: deduce, related, sentences, completions, filter, hardness
    assert json.loads(run["calls_json"]) == {"completions": 1, "deduce": 1, "filter": 1, "hardness": 1,
                                             "related": 1, "sentences": 1}
    requests = json.loads(run["requests_json"])
    # one guess per candidate term; one filter request per candidate item: COMA 6 terms x 2 splits,
    # COST 6 x (the term + the 2 related terms least like the meaning), CSJ 12 (1 true + 1 false
    # per term, but quibbet's and snarple's pairs too)
    assert requests["deduce"] == 6 and requests["filter"] == 12 + 18 + 12
    items = METHOD.items(store, "2024")
    per_task = Counter(i.task for i in items)
    assert per_task == {"newterm/COMA": 8, "newterm/COST": 8, "newterm/CSJ": 11}
    per_term = Counter((i.task, i.metadata["term"]) for i in items)
    assert all(per_term[("newterm/COMA", t)] == 2 and per_term[("newterm/COST", t)] == 2 for t in NORMAL)
    assert "oldword" not in {i.metadata["term"] for i in items}            # another year's term
    assert per_term[("newterm/CSJ", "quibbet")] == 1 and ("newterm/COMA", "quibbet") not in per_term
    for item in items:
        if item.form == "multi-choice":
            assert len(item.choices) == 4
    verdicts = store.user_query(
        "MATCH (q:Question {benchmark: 'newterm:2024', task: 'newterm/CSJ'})-[m:MADE_BY]->(:GenerationRun) "
        "RETURN q.answers[0] AS gold, m.filter_rating AS rating, m.filter_verdict AS verdict")
    assert {(r["gold"], r["rating"], r["verdict"]) for r in verdicts} == {("true", 9, "kept"), ("false", 1, "kept")}
    # COST keeps the hardest two of each term's three candidates (by the server's log-likelihoods)
    cost = [i for i in items if i.task == "newterm/COST"]
    assert all(i.metadata["perplexity"] is not None for i in cost)

    # related terms: the lexical graph first (mogaloor = inebriated: drunk, intoxicated, sober ...)
    related = store.user_query(
        "MATCH (e:TermEntry {benchmark: 'newterm:2024', term: 'mogaloor'})-[r:RELATED]->(n) "
        "RETURN r.text AS text, r.kind AS kind, r.origin AS origin, r.via AS via, labels(n) AS labels "
        "ORDER BY r.rank")
    graph_terms = {(r["text"], r["kind"]) for r in related if r["origin"] == "graph"}
    assert {("drunk", "synonym"), ("intoxicated", "synonym"), ("sober", "antonym")} <= graph_terms
    assert all("Lemma" in r["labels"] for r in related if r["origin"] == "graph")
    assert all("Phrase" in r["labels"] for r in related if r["origin"] == "llm")
    recipe = store.read("queries/newterm_related_terms", benchmark="newterm:2024", term="mogaloor")
    assert [(r["related"], r["kind"], r["origin"]) for r in recipe] == \
        [(r["text"], r["kind"], r["origin"]) for r in related]
    assert sum(1 for r in recipe if r["kept"]) == 5
    selected = store.user_query(
        "MATCH (e:TermEntry {benchmark: 'newterm:2024'}) RETURN e.term AS t, e.selected AS s, e.frequency_bucket "
        "AS f, e.similarity_model AS m ORDER BY t")
    assert [r["t"] for r in selected] == sorted(t["term"] for t in TERMS[:-1])
    assert all(r["s"] and r["m"] == "rapidfuzz.token_sort_ratio" for r in selected)

    # the official layout, and export -> import -> export unchanged
    first = tmp_path / "first"
    invoke("export", "newterm", "--name", "2024", "--format", "newterm", "--out", first)
    assert sorted(p.name for p in first.glob("*.jsonl")) == ["COMA.jsonl", "COST.jsonl", "CSJ.jsonl",
                                                             "new_terms.jsonl", "term_generation.jsonl"]
    generation = [json.loads(line) for line in (first / "term_generation.jsonl").read_text().splitlines()]
    assert all(len(r["phrases"]) == 5 for r in generation) and len(generation) == 6
    # the same graph, seed and response cache: the server is asked nothing and the benchmark,
    # replaced in the graph, exports byte for byte the same
    asked = len(newterm_llm.Handler.prompts)
    invoke("generate", "newterm", "--year", 2024, "--backend", "openai", "--base-url", llm, "--model", "scripted",
           "--similarity", "rapidfuzz", "--sentences", 1, "--per-term", 2, "--n", 5, "--silent")
    assert len(newterm_llm.Handler.prompts) == asked
    rerun = tmp_path / "rerun"
    invoke("export", "newterm", "--name", "2024", "--format", "newterm", "--out", rerun)
    for path in first.glob("*.jsonl"):
        assert (rerun / path.name).read_bytes() == path.read_bytes(), path.name
    assert [i.id for i in METHOD.items(store, "2024")] == [i.id for i in items]
    invoke("generate", "newterm", "--import", first, "--name", "copy", "--year", 2024, "--silent")
    second = tmp_path / "second"
    invoke("export", "newterm", "--name", "copy", "--format", "newterm", "--out", second)
    for path in first.glob("*.jsonl"):
        assert (second / path.name).read_bytes() == path.read_bytes(), path.name

    # evaluation: Base answers "A" / "YES" to everything, Gold answers right
    out = tmp_path / "runs"
    summary_dir = Path(invoke("eval", "--benchmark", "newterm:2024", "--task", "COMA", "--task", "COST",
                              "--task", "CSJ", "--backend", "openai", "--base-url", llm, "--model", "scripted",
                              "--out", out, "--silent").output.strip().splitlines()[-1])
    summary = json.loads((summary_dir / "summary.json").read_text())
    base, gold = summary["runs"]["newterm(setting=base)"], summary["runs"]["newterm(setting=gold)"]
    for task in ("COMA", "COST"):
        mine = [i for i in items if i.task == f"newterm/{task}"]
        expected = sum(i.answer_index == 0 for i in mine) / len(mine)
        assert base["metrics"][f"newterm/{task}"]["newterm_score"] == pytest.approx(expected)
        assert gold["metrics"][f"newterm/{task}"]["newterm_score"] == 1.0
        assert gold["metrics"][f"newterm/{task}"]["newterm_base"] == pytest.approx(expected)
        assert gold["metrics"][f"newterm/{task}"]["newterm_gap"] == pytest.approx(expected - 1.0)
    assert base["metrics"]["newterm/CSJ"]["newterm_score"] == 0.5          # all YES: balanced accuracy 0.5
    assert gold["metrics"]["newterm/CSJ"]["newterm_gold"] == 1.0
    assert gold["metrics"]["newterm/CSJ"]["newterm_gap"] == -0.5
    assert base["samples"] == 3 * len(items) and gold["samples"] == 3 * len(items)
    report = (Path(gold["report"]) / "report.md").read_text()
    assert "NewTerm: Base vs Gold by year" in report
    assert (Path(gold["report"]) / "plots" / "newterm_base_vs_gold_by_year.svg").is_file()
    by_category = {r["category"]: r for r in gold["metrics"]["newterm/CSJ"]["newterm_breakdown"]["category"]}
    assert by_category["new word"]["gold"] == 1.0
    # report --compare: Gold against Base per task, category and year, with the difference
    compared = Path(invoke("report", gold["run_id"], "--compare", base["run_id"], "--out", tmp_path / "cmp")
                    .output.strip().splitlines()[-1])
    text = (compared / "report.md").read_text()
    assert "## By year" in text and "## By category" in text and "| compared | Δ (paired) | p |" in text
    assert "## Paired comparison with" in text
    assert (compared / "plots" / "comparison.svg").is_file()

    # the docs' Cypher recipe: which distractor kinds fooled the Base run
    rows = store.user_query(load_cypher("queries/newterm_accuracy_by_distractor_kind"), {"run_id": base["run_id"]})
    expected = Counter()
    offered = Counter()
    for item in items:
        for position, source in enumerate(item.metadata.get("choice_sources", [])):
            if source["source"] == "related" and position != item.answer_index:
                offered[source["kind"]] += 3
                expected[source["kind"]] += 3 if position == 0 else 0
    assert {r["kind"]: (r["offered"], r["chosen"]) for r in rows} == \
        {k: (offered[k], expected[k]) for k in offered}

    invoke("generate", "newterm", "--drop", "2024")
    assert store.user_query("MATCH (q:Question {benchmark: 'newterm:2024'}) RETURN count(q) AS n") == [{"n": 0}]


@pytest.mark.slow
def test_tiny_model_runs_and_counts_every_candidate(store, terms_2024, tiny_model_dir):
    result = invoke("generate", "newterm", "--year", 2024, "--name", "tiny", "--backend", "hf", "--model",
                    tiny_model_dir, "--similarity", "rapidfuzz", "--n", 1, "--sentences", 1, "--max-tokens", 16,
                    "--categories", "new word", "--no-deduce", "--silent")
    assert result.output.strip().splitlines()[-1] == "newterm:tiny"
    run = store.user_query("MATCH (g:GenerationRun {id: 'newterm:tiny:run'}) RETURN g")[0]["g"]
    made, filtered = json.loads(run["made_json"]), json.loads(run["filter_json"])
    for task in ("COMA", "COST", "CSJ"):
        # every candidate the replies gave went through the filter and has a verdict
        assert sum(filtered.get(task, {}).values()) == made.get(f"{task} candidates", 0)
    questions = store.user_query("MATCH (q:Question {benchmark: 'newterm:tiny'}) RETURN count(q) AS n")[0]["n"]
    kept = sum(counts.get("kept", 0) for counts in filtered.values())
    assert questions <= kept
    output = " ".join(result.output.split())          # the console wraps long lines
    assert f"{questions} questions" in output and "LLM round trips" in output
    if questions == 0:
        assert "no item survived the filter" in output
    entries = store.user_query("MATCH (e:TermEntry {benchmark: 'newterm:tiny', selected: true}) RETURN count(e) AS n")
    assert entries == [{"n": 1}]
