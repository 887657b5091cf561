"""Event templates as data: validation, allow-lists, and a 17th type without Python."""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner
from events_subgraph import build_subgraph

from knowforge.cli.main import cli
from knowforge.errors import InputError
from knowforge.generators.events.predicates import KINDS
from knowforge.generators.events.templates import (load_locality_relations, load_relations,
                                                   load_templates, parse_template)

ELKEN_TYPES = {"win-election", "death", "end-org", "divorce", "acquire", "start-position",
               "loss-election", "publish", "resign", "IPO", "marry", "dismissal", "start-org",
               "education", "born", "transfer-player"}

RETIRE = {
    "version": 1, "type": "retire", "split": "custom", "text": "{A} retired from {B}.",
    "slots": {"A": {"label": "Person", "where": [{"name": "A plays somewhere", "has_fact":
              {"subject": "A", "relation": "P54", "current": True, "include_retracted": True}}]},
              "B": {"derive": {"from": "A", "path": ["P54"]}}},
    "impacts": [{"subject": "A", "relation": "P54", "object": "unknown", "replace": True},
                {"subject": "A", "relation": "P1618", "object": "unknown", "replace": True}],
}


def test_the_sixteen_elken_types_are_bundled():
    templates = load_templates()
    assert set(templates) == ELKEN_TYPES
    assert {t.split for t in templates.values()} == {"train", "test"}
    assert sum(t.split == "train" for t in templates.values()) == 7


def test_locality_relations_are_a_configurable_set_of_32():
    ids, per_event = load_locality_relations()
    assert len(ids) == 32 and per_event == 5
    assert set(ids) <= set(load_relations())


@pytest.mark.parametrize("patch,message", [
    ({"slots": {"A": {"label": "Wizard"}}}, r"slots\.A\.label: label 'Wizard' is not allowed"),
    ({"impacts": [{"subject": "A", "relation": "P99999", "object": "unknown"}]},
     r"impacts\[0\]\.relation: relation 'P99999' is not in relations\.yaml"),
    ({"impacts": [{"subject": "A", "relation": "P54", "object": {"from": "A", "path": ["P54; DROP"]}}]}, "hop"),
    ({"slots": {"A": {"label": "Person", "where": [{"name": "x", "cypher": "EXISTS { MATCH (A) } DETACH DELETE A"}]}}},
     r"slots\.A\.where\[0\]: Cypher text is not accepted"),
    ({"slots": {"A": {"label": "Person", "where": [{"name": "x"}]}}},
     r"slots\.A\.where\[0\]: a predicate has exactly one of"),
    ({"slots": {"A": {"label": "Person", "where": [{"name": "x", "has_fact": {"subject": "A", "relation": "P54"},
                                                    "lacks_fact": {"subject": "A", "relation": "P54"}}]}}},
     "got has_fact, lacks_fact"),
    ({"slots": {"A": {"label": "Person", "where": [{"name": "x", "has_fact": {"subject": "A", "relation": "P12345"}}]}}},
     r"slots\.A\.where\[0\]\.has_fact\.relation: relation 'P12345' is not in relations\.yaml"),
    ({"slots": {"A": {"label": "Person", "where": [{"name": "x", "has_fact": {"subject": "A", "relation": "P54",
                                                                              "object": "B"}}]},
                "B": {"derive": {"from": "A", "path": ["P54"]}}}},
     r"slots\.A\.where\[0\]\.has_fact\.object: slot B is used before it is filled"),
    ({"slots": {"A": {"label": "Person", "where": [{"name": "x", "terms_within": {"subject": "A", "relation": "P35",
                                                                                  "max_years": -1}}]}}},
     r"slots\.A\.where\[0\]\.terms_within\.max_years"),
    ({"text": "{Z} retired."}, "text: mentions {Z}, which is not a slot"),
    ({"text": "{A.__class__} retired."}, "plain slot name"),
    ({"version": 2}, "version 2 is not supported"),
    ({"impacts": [{"subject": "unknown", "relation": "P54", "object": "A"}]}, "unknown"),
])
def test_invalid_templates_are_rejected_with_the_file_name(patch, message):
    data = {**RETIRE, **patch}
    with pytest.raises(InputError, match=message) as info:
        parse_template(data, "my/retire.yaml")
    assert "my/retire.yaml" in str(info.value)


def test_bundled_templates_use_the_whole_vocabulary():
    kinds = set()

    def walk(predicate):
        kinds.add(predicate.kind)
        for child in predicate.any_of or ():
            walk(child)

    for template in load_templates().values():
        for slot in template.slots.values():
            for predicate in slot.where:
                walk(predicate)
        for impact in template.impacts:
            if impact.when is not None:
                walk(impact.when)
    assert kinds == set(KINDS)
    template = load_templates()["transfer-player"]
    assert [p.kind for p in template.slots["A"].where] == ["lacks_fact", "has_fact"]
    not_there = template.slots["B"].where[0].lacks_fact
    assert (not_there.subject, not_there.relation, not_there.object, not_there.current) == ("A", ("P54",), "B", True)


def test_a_17th_type_needs_no_python(store, graph_env, tmp_path):
    build_subgraph(store)
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "retire.yaml").write_text(yaml.safe_dump(RETIRE), encoding="utf-8")
    assert "retire" in load_templates(folder)
    runner = CliRunner()
    result = runner.invoke(cli, ["generate", "events", "--types", "retire", "--n", "2", "--seed", "0",
                                 "--name", "r1", "--templates-dir", str(folder), "--silent"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = store.user_query("MATCH (e:Event {batch: 'r1'})-[:SLOT {name: 'A'}]->(a) "
                            "RETURN e.type AS type, e.text AS text, a.id AS a ORDER BY e.seq")
    assert [r["type"] for r in rows] == ["retire", "retire"]
    assert {r["a"] for r in rows} <= {"Q11571", "Q615", "Q99001"}
    out = tmp_path / "out.json"
    result = runner.invoke(cli, ["export", "events", "--name", "r1", "--format", "elken",
                                 "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    events = json.loads(out.read_text())
    assert [e["event_type"] for e in events] == ["retire", "retire"]
    assert all(qa["answer"]["id"] == "NA" for e in events for qa in e["fact"]["qas"])


def test_commands_have_help():
    runner = CliRunner()
    # (generate events --help is made by the generic method CLI; its examples are checked there)
    for args in (["ripple", "--help"], ["export", "--help"]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 0 and "Example" in result.output, args
    assert "--graphml" in runner.invoke(cli, ["ripple", "--help"]).output
