"""Elections only where the head of state is elected, and presidential republics: the
win-election / loss-election slot constraint, the conditional impacts (``when:``), on the
hand-built subgraph and on the Wikidata sample loaded by ``knowforge load wikidata``."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from events_subgraph import build_subgraph

from knowforge.cli.main import cli
from knowforge.errors import ConfigError, InputError
from knowforge.generators.events.instantiate import Planner
from knowforge.generators.events.layering import apply_events
from knowforge.kg.ripple import ripple_event
from knowforge.generators.events.templates import load_templates, parse_template
from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.writer import write_entities, write_facts

SAMPLE = Path(__file__).resolve().parents[1] / "kg" / "samples" / "wikidata" / "entities.json"

# A 17th type: a leader change that also makes A head of government in a presidential
# republic; the condition is the same predicate as the bundled win-election's.
COUP = {
    "version": 1, "type": "coup", "split": "custom", "text": "{A} took power in {B}.",
    "slots": {"B": {"label": "Country"}, "A": {"label": "Person"}},
    "impacts": [{"subject": "B", "relation": "P35", "object": "A", "replace": True},
                {"subject": "B", "relation": "P6", "object": "A", "replace": True,
                 "when": {"name": "presidential",
                          "shares_object": {"subject": "B", "relations": ["P35", "P6"],
                                            "include_retracted": True}}}],
}


def _facts(store, rows):
    write_facts(store, [FactRecord(subject_id=s, relation=r, object_id=o, source="wikidata",
                                   start=f"{sy}-01-01" if sy else None, start_year=sy,
                                   end=f"{ey}-01-01" if ey else None, end_year=ey)
                        for s, r, o, sy, ey in rows])


def _countries(store, template) -> set[str]:
    return set(Planner(store, {template.type: template}, seed=0, batch="c").candidates(template, "B"))


def test_when_is_a_predicate_from_the_vocabulary_not_cypher():
    template = parse_template(COUP, "coup.yaml")
    when = template.impacts[1].when
    assert when.name == "presidential" and when.kind == "shares_object"
    assert when.slot_names() == ("B",)
    bad = {**COUP, "impacts": [{**COUP["impacts"][1], "when": {"name": "x", "cypher": "true} DETACH DELETE B"}}]}
    with pytest.raises(InputError, match=r"bad\.yaml.*field impacts\[0\]\.when: Cypher text is not accepted"):
        parse_template(bad, "bad.yaml")
    unknown_key = {**COUP, "impacts": [{**COUP["impacts"][0], "if": "x"}]}
    with pytest.raises(InputError, match=r"coup\.yaml.*impacts\[0\]\.if"):
        parse_template(unknown_key, "coup.yaml")
    # a when may read any slot, but only slots the template has
    stray = {**COUP, "impacts": [{**COUP["impacts"][1], "when": {
        "name": "x", "has_fact": {"subject": "C", "relation": "P6"}}}]}
    with pytest.raises(InputError, match=r"impacts\[0\]\.when\.has_fact\.subject: 'C' is not a slot"):
        parse_template(stray, "coup.yaml")


def test_when_gates_an_impact(store):
    build_subgraph(store)
    template = parse_template(COUP, "coup.yaml")
    planner = Planner(store, {"coup": template}, seed=0, batch="w")
    usa = planner.plan_fixed(template, {"B": "Q30", "A": "Q22686"})       # Biden is P35 and P6
    uk = planner.plan_fixed(template, {"B": "Q145", "A": "Q6294"})        # king vs prime minister
    usa_p6 = [i for i in usa.impacts if i.relation == "P6"]
    assert [(i.subject.id, i.answer.id, i.needs_background) for i in usa_p6] == [("Q30", "Q22686", True)]
    assert {r.object_id for r in usa.retractions if r.relation == "P6"} == {"Q6279"}
    assert not [i for i in uk.impacts if i.relation == "P6"]
    assert not [r for r in uk.retractions if r.relation == "P6"]


def test_only_countries_with_elected_heads_of_state(store):
    build_subgraph(store)
    templates = load_templates()
    # the UK has no ended reign on record: the graph cannot tell, so it is left out
    assert _countries(store, templates["win-election"]) == {"Q30", "Q183"}
    assert _countries(store, templates["loss-election"]) == {"Q30", "Q183"}
    # a 70-year reign on record: a monarchy, still left out
    write_entities(store, [EntityRecord(id="Q9682", name="Elizabeth II", labels=("Person",))])
    _facts(store, [("Q145", "P35", "Q9682", 1952, 2022)])
    assert _countries(store, templates["win-election"]) == {"Q30", "Q183"}
    # a republic whose president once served 20 years is not taken for an elective office either
    _facts(store, [("Q183", "P35", "Q2485", 1990, 2010)])
    assert _countries(store, templates["win-election"]) == {"Q30"}
    planner = Planner(store, templates, seed=0, batch="e")
    with pytest.raises(ConfigError, match="slot B"):
        planner.plan_fixed(templates["win-election"], {"B": "Q145", "A": "Q6294"})


@pytest.fixture
def sample(store, graph_env):
    assert SAMPLE.is_file(), f"the bundled Wikidata sample is missing: {SAMPLE}"
    result = CliRunner().invoke(cli, ["load", "wikidata", str(SAMPLE), "--silent"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return store


def test_elections_on_the_wikidata_sample(sample):
    store = sample
    templates = load_templates()
    elective = _countries(store, templates["win-election"])
    # presidents serve terms; Elizabeth II (70 years), Juan Carlos I (39), Beatrix (33) and
    # Akihito (30) reigned
    assert {"Q414", "Q30", "Q38", "Q142", "Q183", "Q96", "Q155"} <= elective
    assert not elective & {"Q145", "Q16", "Q408", "Q664", "Q29", "Q17", "Q55"}
    assert _countries(store, templates["loss-election"]) == elective
    planner = Planner(store, templates, seed=0, batch="x")
    with pytest.raises(ConfigError, match="slot B"):
        planner.plan_fixed(templates["win-election"], {"B": "Q145", "A": "Q990424801"})
    with pytest.raises(ConfigError, match="slot B"):
        planner.plan_fixed(templates["loss-election"], {"B": "Q145"})
    # Argentina is a presidential republic: Macri's win makes him head of government too
    argentina = planner.plan_fixed(templates["win-election"], {"B": "Q414", "A": "Q994432566"})
    got = {(i.subject.name, i.relation, i.answer.name) for i in argentina.impacts}
    assert {("Argentina", "P35", "Mauricio Macri"), ("Argentina", "P6", "Mauricio Macri"),
            ("Argentina", "previous_head_of_government", "Javier Milei"),
            ("Javier Milei", "P937", "unknown"), ("Javier Milei", "P263", "unknown")} <= got
    assert {(r.subject_id, r.relation, r.object_id) for r in argentina.retractions
            if r.relation in ("P6", "P35")} == {("Q414", "P6", "Q990032802"),
                                                ("Q414", "P35", "Q990032802")}
    # Italy is a parliamentary republic: Draghi's win leaves the head of government alone
    italy = planner.plan_fixed(templates["win-election"], {"B": "Q38", "A": "Q994636842"})
    assert ("Q38", "P35", "Q994636842") in {(i.subject.id, i.relation, i.answer.id) for i in italy.impacts}
    assert not [i for i in italy.impacts if i.relation in ("P6", "previous_head_of_government")]
    loss = planner.plan_fixed(templates["loss-election"], {"B": "Q414"})
    got = {(i.subject.id, i.relation, "unknown" if i.unknown else i.answer.id) for i in loss.impacts}
    assert {("Q414", "P6", "unknown"), ("Q414", "previous_head_of_government", "Q990032802")} <= got
    # ripple: (Argentina, P6, Milei) is now a declared change, no longer a missed candidate
    apply_events(store, [argentina])
    report = ripple_event(store, argentina.id, hops=2)
    assert ("retracted", "Argentina", "P6", "Javier Milei") in {
        (c, f.subject, f.relation, f.object) for c, f in report.edited}
    assert not [f for f in report.candidates if f.fact.relation == "P6"]
