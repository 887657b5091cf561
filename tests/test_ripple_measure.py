"""The ripple of an event measured in the model: probes of an event's k-hop subgraph, the
four-way classification of answers before and after the edit, and the probe answers an editing
run records (``knowforge ripple EVENT --run RUN``)."""

from __future__ import annotations

import json
import logging

import pytest
from click.testing import CliRunner
from events_subgraph import build_subgraph, evaluate_editing
from scripted_openai import ScriptedCompletions, serving

from knowforge.cli.main import cli
from knowforge.errors import ConfigError
from knowforge.eval.events.ripple_probe import (Probe, build_probes, classify, measure, probe_items,
                                                read_probe_answers, summarise)
from knowforge.generators.events.instantiate import Planner
from knowforge.generators.events.layering import apply_events
from knowforge.generators.events.templates import load_templates
from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.ripple import ripple_event
from knowforge.kg.writer import write_entities, write_facts
from knowforge.view.graphs import declared_views, draw_view


def _probe(event: str, key: str, hop: int, relation: str, question: str, before, after, expectation: str,
           category: str | None) -> Probe:
    return Probe(event, key, f"f:{key}", hop, "s", "S", relation, None, after[0] if after else before[0],
                 question, tuple(before), tuple(after), expectation, category,
                 "edited" if expectation == "move" else "candidate")


# A hand-built event: the player moves to Chelsea. The club question and the league (read
# through the club) should move; the retracted old club should be forgotten; the player's birth
# place and the club's city should stay.
HAND = [
    _probe("e1", "club", 0, "P54", "Which club does P play for?", ["Al Nassr"], ["Chelsea", "Chelsea F.C."],
           "move", "edit"),
    _probe("e1", "old", 0, "P54", "Which club does P play for?", ["Al Nassr"], [], "move", "forgetfulness"),
    _probe("e1", "league", 1, "P118", "Which league does P play in?", ["Saudi Pro League"], ["Premier League"],
           "move", "compositionality"),
    _probe("e1", "born", 1, "P19", "Where was P born?", ["Funchal"], ["Funchal"], "stay", "relation_specificity"),
    _probe("e1", "city", 1, "P159", "Where is Chelsea headquartered?", ["London"], ["London"], "stay", None),
]


def test_classification_of_a_hand_built_event():
    before = {"Which club does P play for?": "Al Nassr", "Which league does P play in?": "Saudi Pro League",
              "Where was P born?": "Funchal", "Where is Chelsea headquartered?": "London"}
    # the club moved (by an alias, with a period), the league did not follow, the birth place was
    # knocked over (collateral), the club's city held
    after = {"Which club does P play for?": "chelsea f.c.", "Which league does P play in?": "Saudi Pro League",
             "Where was P born?": "Lisbon", "Where is Chelsea headquartered?": "London."}
    found = {a.probe.key: a.outcome for a in classify(HAND, before, after)}
    assert found == {"club": "moved", "old": "moved", "league": "missed", "born": "collateral", "city": "kept"}
    # answering the old club again: the edit and the forgetting both missed
    again = {a.probe.key: a.outcome for a in classify(HAND, before, {**after, "Which club does P play for?": "Al Nassr"})}
    assert again["club"] == again["old"] == "missed"
    # an expected "unknown" needs the model to say so
    unknown = _probe("e1", "shirt", 0, "P1618", "What is the jersey number of P?", ["7"], ["unknown"], "move", "edit")
    [said] = classify([unknown], {unknown.question: "7"}, {unknown.question: "I do not know (unknown)."})
    assert said.outcome == "moved"

    by_hop = {r["group"]: r for r in summarise(classify(HAND, before, after), "hop", resamples=0)}
    assert (by_hop["0"]["moved"], by_hop["0"]["missed"], by_hop["0"]["should_stay"]) == (2, 0, 0)
    assert (by_hop["1"]["missed"], by_hop["1"]["collateral"], by_hop["1"]["kept"]) == (1, 1, 1)
    assert by_hop["1"]["moved_share"] == 0.0 and by_hop["1"]["collateral_share"] == 0.5
    by_category = {r["group"]: r for r in summarise(classify(HAND, before, after), "category", resamples=0)}
    assert by_category["relation_specificity"]["collateral"] == 1 and by_category["-"]["kept"] == 1
    with pytest.raises(Exception, match="no answer after"):
        classify(HAND, before, {})


def test_intervals_resample_events():
    """Two events, one edited in full and one not at all: the moved share is 0.5 and its interval
    spans both (a bootstrap over events, not over probes)."""
    second = [Probe(**{**p.__dict__, "event_id": "e2"}) for p in HAND]
    before = {"Which club does P play for?": "Al Nassr", "Which league does P play in?": "Saudi Pro League",
              "Where was P born?": "Funchal", "Where is Chelsea headquartered?": "London"}
    edited = {**before, "Which club does P play for?": "Chelsea", "Which league does P play in?": "Premier League"}
    answers = classify(HAND, before, edited) + classify(second, before, before)
    [row] = summarise(answers, resamples=400, seed=1)
    assert row["events"] == 2 and row["moved_share"] == 0.5 and row["collateral_share"] == 0.0
    assert row["moved_ci"] == [0.0, 1.0]


def _plan(store, template: str, slots: dict[str, str], batch: str):
    planner = Planner(store, load_templates(), seed=0, batch=batch)
    plan = planner.plan_fixed(planner.templates[template], slots)
    apply_events(store, [plan])
    return plan


def test_probes_of_a_transfer(store):
    build_subgraph(store)
    plan = _plan(store, "transfer-player", {"A": "Q11571", "B": "Q8682"}, "rm")
    probes = build_probes(store, plan.id, 2)
    by = {(p.relation, p.change or p.walk, p.category): p for p in probes.probes}
    club = by[("P54", "asserted", "edit")]
    assert (club.hop, club.expectation, club.question) == (0, "move", "Which club does Cristiano Ronaldo play for?")
    assert club.before == ("Al Nassr FC", "Al Nassr") and club.after == ("Real Madrid CF", "Real Madrid")
    alias = by[("P54", "asserted", "subject_aliasing")]
    assert alias.question == "Which club does CR7 play for?" and alias.after == club.after
    old = by[("P54", "retracted", "forgetfulness")]
    assert (old.hop, old.expectation, old.before, old.after) == (0, "move", ("Al Nassr FC", "Al Nassr"), ())
    # answers read through the new club: one graph fact away (league, coach, city), two (country)
    derived = {p.relation: (p.hop, p.after[0]) for p in probes.probes if p.category == "compositionality"}
    assert derived == {"P118": (1, "La Liga"), "coach": (1, "Carlo Ancelotti"), "P551": (1, "Madrid"),
                       "residence_country": (2, "Spain")}
    shirt = by[("P1618", "asserted", "edit")]
    assert shirt.after == ("unknown",) and shirt.before == ("7",)
    # the untouched facts the walk meets stay, at their distance; exactly `knowforge ripple`'s facts
    stay = {(p.subject, p.relation, p.object, p.hop, p.walk) for p in probes.probes if p.expectation == "stay"}
    assert stay == {("Real Madrid CF", "P118", "La Liga", 1, "declared"),
                    ("Real Madrid CF", "P286", "Carlo Ancelotti", 1, "declared"),
                    ("Real Madrid CF", "P159", "Madrid", 1, "declared"), ("Madrid", "P17", "Spain", 1, "declared"),
                    ("Real Madrid CF", "P17", "Spain", 1, "candidate"), ("Al Nassr FC", "P159", "Riyadh", 1, "candidate"),
                    ("Al Nassr FC", "P17", "Saudi Arabia", 1, "candidate"),
                    ("Riyadh", "P17", "Saudi Arabia", 1, "candidate")}
    assert all(p.before == p.after for p in probes.probes if p.expectation == "stay")
    # one question per distinct question: the club question serves the edit and the forgetting
    questions = [i.question for i in probe_items(probes)]
    assert len(questions) == len(set(questions)) == len({p.question for p in probes.probes})
    capped = build_probes(store, plan.id, 2, max_probes=3)
    assert len(capped.probes) == 3 and capped.left_out == len(probes.probes) - 3
    with pytest.raises(ConfigError, match="1 to 3 hops"):
        build_probes(store, plan.id, 4)


def test_the_ripple_view_walks_what_knowforge_ripple_walks(store):
    build_subgraph(store)
    # what a club is (P31): ripple analysis never walks it (kg/ripple.yaml), nor may the viewer
    write_entities(store, [EntityRecord(id="Q476028", name="association football club", labels=("Item",)),
                           EntityRecord(id="Q2736", name="association football", labels=("Item",))])
    write_facts(store, [FactRecord(subject_id="Q8682", relation="P31", object_id="Q476028", source="wikidata"),
                        FactRecord(subject_id="Q476028", relation="P641", object_id="Q2736", source="wikidata")])
    plan = _plan(store, "transfer-player", {"A": "Q11571", "B": "Q8682"}, "rv")
    # the viewer draws exactly the facts `knowforge ripple` lists, at each distance
    declared = declared_views().find("events", "ripple")
    for hops in (1, 2):                 # 2: the P31 path would reach a fact two hops away
        drawing = draw_view(store, declared, plan.id, {"hops": str(hops)})
        drawn = sorted((e["data"]["source"], e["data"]["target"]) for e in drawing.elements
                       if e["data"].get("kind") in ("declared", "candidate"))   # ripple's own two kinds
        walked = sorted((f.fact.subject_id, f.fact.object_id or f"value:{f.fact.fact_id}")
                        for f in ripple_event(store, plan.id, hops).facts)
        assert drawn == walked and walked


def test_probe_categories_of_an_acquisition(store):
    build_subgraph(store)
    # Alphabet already owns Google: after it acquires Apple that stays (preservation)
    write_facts(store, [FactRecord(subject_id="Q20800404", relation="P355", object_id="Q95", source="wikidata")])
    plan = _plan(store, "acquire", {"A": "Q20800404", "B": "Q312"}, "ra")
    probes = build_probes(store, plan.id, 1)
    cats = {(p.subject, p.relation, p.object): p.category for p in probes.probes}
    assert cats[("Apple Inc.", "P749", "Alphabet Inc.")] == "edit"
    assert cats[("Alphabet Inc.", "P355", "Apple Inc.")] == "logical_generalisation"
    assert cats[("Alphabet Inc.", "P355", "Google")] == "preservation"
    assert cats[("Apple Inc.", "P169", "Tim Cook")] == "relation_specificity"
    assert cats[("Apple Inc.", "parent_ceo", "Sundar Pichai")] == "compositionality"

    # the entry point, generic over how an edit is applied: a scripted model that learns the edit,
    # keeps Google as Alphabet's subsidiary (so misses the mirrored fact: one question, one answer)
    # and knocks over Apple's CEO
    by_category = {p.category: p for p in probes.probes}
    kept, knocked = by_category["preservation"].question, by_category["relation_specificity"].question
    moves = {}
    for p in probes.probes:
        if p.expectation == "move":
            moves.setdefault(p.question, (p.after or ("gone",))[0])

    def before(items):
        return [{kept: "Google", knocked: "Tim Cook"}.get(i.question, "no idea") for i in items]

    def after(items):
        return [{kept: "Google", knocked: "Sundar Pichai"}.get(i.question) or moves.get(i.question, "no idea")
                for i in items]

    outcomes = {(a.probe.subject, a.probe.relation, a.probe.object, a.probe.category): a.outcome
                for a in measure(probes, before, after)}
    assert outcomes[("Apple Inc.", "P169", "Tim Cook", "relation_specificity")] == "collateral"
    assert outcomes[("Apple Inc.", "P749", "Alphabet Inc.", "edit")] == "moved"
    assert outcomes[("Alphabet Inc.", "P355", "Apple Inc.", "logical_generalisation")] == "missed"
    assert outcomes[("Alphabet Inc.", "P355", "Google", "preservation")] == "kept"


@pytest.mark.hf
def test_an_ice_run_records_probe_answers_and_the_cli_prints_them(store, graph_env, tiny_model_dir, tmp_path, caplog):
    from knowforge.eval.types import EvalOptions
    from knowforge.generators.events.build import generate_events, read_batch

    build_subgraph(store)
    generate_events(store, types=["transfer-player"], n=1, seed=0, batch="rp")
    items = [i for _, its in read_batch(store, "rp") for i in its]
    [event_id] = {i.metadata["event_id"] for i in items}
    options = EvalOptions(backend="hf", model=str(tiny_model_dir), max_tokens=4, cache=False, device="cpu",
                          out_dir=tmp_path / "runs", silent=True, bootstrap=50)
    plain = evaluate_editing(store, items, options, method="ice")
    run = evaluate_editing(store, items, options, method="ice", args={"ripple_hops": 1})
    answers = read_probe_answers(store, run.run_id, event_id)
    assert len(answers) == run.run["ripple_probes"] == len(build_probes(store, event_id, 1).probes)
    assert run.run["ripple_hops"] == 1
    assert {a.outcome for a in answers} <= {"moved", "missed", "collateral", "kept"}
    # probes past the cap: one warning for the run, not one per event
    assert len(answers) > 1
    with caplog.at_level(logging.DEBUG, logger="knowforge.eval.events.ripple_probe"):
        evaluate_editing(store, items, options, method="ice", args={"ripple_hops": 1, "ripple_max_probes": 1})
    warned = [r.getMessage() for r in caplog.records
              if r.levelno >= logging.WARNING and "ripple_max_probes" in r.getMessage()]
    assert warned == [f"{len(answers) - 1} ripple probes of 1 of 1 events past ripple_max_probes=1 are left out "
                      "(counted on the run)"]
    assert all(a.answer_before is not None and a.answer_after is not None for a in answers)
    linked = store.user_query("MATCH (:Run {id: $id})-[:PROBED]->(:RippleProbe)-[:PROBES]->(f:Fact) "
                              "RETURN count(DISTINCT f) AS n", {"id": run.run_id})[0]["n"]
    assert linked == len({a.probe.fact_id for a in answers})
    # ft answers the probes with its per-event tuned copy; its "before" is the same unedited model
    tuned = evaluate_editing(store, items, options, method="ft", args={"ripple_hops": 1, "epochs": 1})
    ft_answers = read_probe_answers(store, tuned.run_id, event_id)
    assert [a.probe for a in ft_answers] == [a.probe for a in answers]
    assert [a.answer_before for a in ft_answers] == [a.answer_before for a in answers]
    report = (run.report_dir / "report.md").read_text()
    assert "## Ripple in the model" in report and "moved % [95% CI]" in report
    assert "collateral: of those, the model's answer changed anyway" in report      # its columns explained

    # the viewer colours each probed fact by what the model did, and the entities asked about
    drawing = draw_view(store, declared_views().find("events", "ripple"), event_id, {"run": run.run_id})
    kinds = sorted(e["data"]["kind"] for e in drawing.elements
                   if e["data"].get("kind") in ("moved", "missed", "collateral", "kept") and "source" in e["data"])
    assert kinds == sorted(a.outcome for a in answers if a.probe.key == a.probe.fact_id)
    asked = {e["data"]["id"]: e["data"]["kind"] for e in drawing.elements if "source" not in e["data"]}
    assert asked[answers[0].probe.subject_id] in ("moved", "missed", "collateral", "kept")

    runner = CliRunner()
    result = runner.invoke(cli, ["ripple", event_id, "--run", run.run_id], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "classification" in result.output and "Which club" not in result.output
    counts = {o: sum(a.outcome == o for a in answers) for o in ("moved", "missed", "collateral", "kept")}
    assert (f"{counts['moved']} should move, moved; {counts['missed']} should move, stayed; "
            f"{counts['collateral']} should stay, moved (collateral); {counts['kept']} should stay, stayed") in result.output
    result = runner.invoke(cli, ["ripple", event_id, "--run", run.run_id, "--format", "json"], catch_exceptions=False)
    data = json.loads(result.stdout)
    assert len(data["probes"]) == len(answers) and data["summary"]["all"][0]["probes"] == len(answers)
    result = runner.invoke(cli, ["ripple", event_id, "--run", plain.run_id])
    assert result.exit_code != 0 and "-S ripple_hops" in result.output


class _ReadsTheContext(ScriptedCompletions):
    """A model that takes an edit in context for the edited fact only: asked with a context
    that holds the event, it gives the new object of the questions in ``edited`` and knocks
    over the one question in ``knocked``; every other question (and every question asked
    without context) gets the answer before the edit."""

    calls: list[str] = []
    event = ""
    before: dict[str, str] = {}
    edited: dict[str, str] = {}
    knocked = ""

    def reply(self, prompt: str) -> str:
        question = prompt.rpartition("Question: ")[2].partition("\nAnswer:")[0]
        if "Context: " in prompt and self.event in prompt:
            if question in self.edited:
                return self.edited[question]
            if question == self.knocked:
                return "Atlantis"
        return self.before.get(question, "unknown")


@pytest.mark.parametrize("method", ["bm25", "dense", "ice", "no-edit"])
def test_retrieval_solvers_ask_the_ripple_with_the_retrieved_event(method, store, graph_env, tiny_sentence_model,
                                                                   tmp_path, monkeypatch):
    """``-S ripple_hops`` through the prompting solvers: each probe is asked without context
    before and, after, with the context the method gives a question (the event its question
    retrieves; ICE: the event itself; no edit: none), and classified from those answers."""
    from knowforge.eval.types import EvalOptions
    from knowforge.generators.events.build import generate_events, read_batch

    monkeypatch.setenv("OPENAI_API_KEY", "test")
    build_subgraph(store)
    generate_events(store, types=["transfer-player"], n=1, seed=0, batch="rr")
    items = [i for _, its in read_batch(store, "rr") for i in its]
    [event_id] = {i.metadata["event_id"] for i in items}
    probes = build_probes(store, event_id, 1).probes
    move_questions = {p.question for p in probes if p.expectation == "move"}
    stays = [p for p in probes if p.expectation == "stay" and p.question not in move_questions]
    _ReadsTheContext.calls = []
    _ReadsTheContext.event = items[0].metadata["event"]
    _ReadsTheContext.before = {p.question: (p.before or ("unknown",))[0] for p in probes}
    _ReadsTheContext.edited = {p.question: p.after[0] for p in probes if p.category == "edit"}
    _ReadsTheContext.knocked = stays[0].question
    options = EvalOptions(backend="openai", model="scripted", max_tokens=8, cache=False, out_dir=tmp_path / "runs",
                          silent=True, bootstrap=50)
    args = {"ripple_hops": 1, **({"dense_model": str(tiny_sentence_model)} if method == "dense" else {})}
    with serving(_ReadsTheContext) as url:
        run = evaluate_editing(store, items, options.but(base_url=url), method=method, args=args)
    answers = read_probe_answers(store, run.run_id, event_id)
    assert run.run["editing_method"] == {"no-edit": "none"}.get(method, method)
    assert run.run["ripple_probes"] == len(answers) == len(probes)
    # one memory entry, so every probe question retrieves the event: the edit's questions moved,
    # the alias and the facts read through the new club did not follow, the knocked fact is
    # collateral and every other untouched fact was kept
    # no edit asks after as before, so nothing moves: its moved share is the base rate (0 here)
    edited = set(_ReadsTheContext.edited) if method != "no-edit" else set()
    knocked = _ReadsTheContext.knocked if method != "no-edit" else None
    expected = {}
    for p in probes:
        if p.expectation == "move":
            expected[p.key] = "moved" if p.question in edited else "missed"
        else:
            expected[p.key] = "collateral" if p.question == knocked else "kept"
    assert {a.probe.key: a.outcome for a in answers} == expected
    assert set(expected.values()) == ({"missed", "kept"} if method == "no-edit" else
                                      {"moved", "missed", "collateral", "kept"})
    for a in answers:
        assert a.answer_before == _ReadsTheContext.before[a.probe.question]
    # the probes were asked before without context and after with the method's context (the event)
    asked = [c for c in _ReadsTheContext.calls if any(f"Question: {p.question}\n" in c for p in probes)]
    assert sum("Context: " not in c for c in asked) >= len({p.question for p in probes})
    with_context = [c for c in asked if "Context: " in c]
    assert all(_ReadsTheContext.event in c for c in with_context)
    assert len({c.rpartition("Question: ")[2] for c in with_context}) == (
        0 if method == "no-edit" else len({p.question for p in probes}))
    report = (run.report_dir / "report.md").read_text()
    assert "## Ripple in the model" in report
