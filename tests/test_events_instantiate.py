"""Event instantiation on a hand-built subgraph: impacted triplets against hand-computed
answers (two fillings per type), unknown answers, background flags, constraints, seeds."""

from __future__ import annotations

import pytest
from events_subgraph import build_subgraph

from knowforge.errors import ConfigError
from knowforge.generators.events.instantiate import Planner, plan_events
from knowforge.generators.events.templates import load_templates

U = "unknown"
D = "2025-01-01"

# type -> [(fillers, {(subject, relation, answer id | literal | U, needs_background)})]
# Computed by hand from tests/events_subgraph.py.
EXPECTED = {
    "transfer-player": [
        ({"A": "Q11571", "B": "Q8682"},
         {("Q11571", "P54", "Q8682", False), ("Q11571", "P118", "Q324867", True),
          ("Q11571", "coach", "Q1052", True), ("Q11571", "P551", "Q2807", True),
          ("Q11571", "residence_country", "Q29", True), ("Q11571", "P1618", U, False)}),
        ({"A": "Q615", "B": "Q9616"},
         {("Q615", "P54", "Q9616", False), ("Q615", "P118", "Q9448", True),
          ("Q615", "coach", "Q1053", True), ("Q615", "P551", "Q84", True),
          ("Q615", "residence_country", "Q145", True), ("Q615", "P1618", U, False)}),
    ],
    "win-election": [
        ({"B": "Q30", "A": "Q22686"},
         {("Q30", "P35", "Q22686", False), ("Q30", "previous_head_of_state", "Q6279", True),
          ("Q22686", "P39", "Q11696", True), ("Q22686", "P551", "Q61", True),
          ("Q22686", "P937", "Q61", True), ("Q22686", "P263", "Q35525", True),
          ("Q6279", "P263", U, False), ("Q11696", "P1308", "Q22686", True),
          # presidential republic (P1906 = P1313): the winner is also head of government
          ("Q30", "P6", "Q22686", True), ("Q30", "previous_head_of_government", "Q6279", True),
          ("Q6279", "P937", U, True)}),
        # parliamentary republic: elected head of state, head of government untouched
        ({"B": "Q183", "A": "Q61053"},
         {("Q183", "P35", "Q61053", False), ("Q183", "previous_head_of_state", "Q76658", True),
          ("Q61053", "P39", "Q25223", True), ("Q61053", "P551", "Q64", True),
          ("Q61053", "P937", "Q64", True), ("Q61053", "P263", "Q155652", True),
          ("Q76658", "P263", U, False), ("Q25223", "P1308", "Q61053", True)}),
    ],
    "loss-election": [
        ({"B": "Q30"}, {("Q30", "P35", U, False), ("Q30", "previous_head_of_state", "Q6279", False),
                        ("Q6279", "P263", U, False), ("Q6279", "P937", U, False),
                        ("Q11696", "P1308", U, True),
                        ("Q30", "P6", U, True), ("Q30", "previous_head_of_government", "Q6279", True)}),
        ({"B": "Q183"}, {("Q183", "P35", U, False), ("Q183", "previous_head_of_state", "Q76658", False),
                         ("Q76658", "P263", U, False), ("Q76658", "P937", U, False),
                         ("Q25223", "P1308", U, True)}),
    ],
    "death": [
        ({"A": "Q6279"}, {("Q6279", "P570", D, False), ("Q6279", "P39", U, False),
                          ("Q6279", "P108", U, False), ("Q30", "P35", U, True),
                          ("Q30", "P6", U, True)}),
        ({"A": "Q76"}, {("Q76", "P570", D, False), ("Q76", "P39", U, False),
                        ("Q76", "P108", U, False), ("Q13133", "P26", U, True)}),
    ],
    "end-org": [
        ({"A": "Q20800404"}, {("Q20800404", "P576", D, False), ("Q20800404", "P169", U, False),
                              ("Q3503829", "P108", U, True), ("Q95", "P749", U, True)}),
        ({"A": "Q312"}, {("Q312", "P576", D, False), ("Q312", "P169", U, False),
                         ("Q265852", "P108", U, True)}),
    ],
    "divorce": [
        ({"A": "Q76"}, {("Q76", "P26", U, False), ("Q13133", "P26", U, False)}),
        ({"A": "Q36215"}, {("Q36215", "P26", U, False), ("Q15042580", "P26", U, False)}),
    ],
    "acquire": [
        ({"A": "Q312", "B": "Q380"},
         {("Q380", "P749", "Q312", False), ("Q380", "P127", "Q312", False),
          ("Q312", "P355", "Q380", False), ("Q380", "parent_ceo", "Q265852", True)}),
        ({"A": "Q380", "B": "Q95"},
         {("Q95", "P749", "Q380", False), ("Q95", "P127", "Q380", False),
          ("Q380", "P355", "Q95", False), ("Q95", "parent_ceo", "Q36215", True)}),
    ],
    "start-position": [
        ({"B": "Q145", "A": "Q43274"},
         {("Q145", "P6", "Q43274", False), ("Q145", "previous_head_of_government", "Q6294", True),
          ("Q43274", "P39", "Q14211", True), ("Q43274", "P937", "Q84", True),
          ("Q43274", "P263", "Q169101", True), ("Q6294", "P937", U, False),
          ("Q14211", "P1308", "Q43274", True)}),
        ({"B": "Q30", "A": "Q76"},
         {("Q30", "P6", "Q76", False), ("Q30", "previous_head_of_government", "Q6279", True),
          ("Q76", "P39", "Q11696", True), ("Q76", "P937", "Q61", True),
          ("Q76", "P263", "Q35525", True), ("Q6279", "P937", U, False),
          ("Q11696", "P1308", "Q76", True)}),
    ],
    "publish": [
        ({"A": "Q76", "B": "Q380"}, {("Q76", "latest_publisher", "Q380", False),
                                     ("Q76", "P800", U, False), ("Q76", "publisher_country", "Q30", True)}),
        ({"A": "Q615", "B": "Q95"}, {("Q615", "latest_publisher", "Q95", False),
                                     ("Q615", "P800", U, False), ("Q615", "publisher_country", "Q30", True)}),
    ],
    "resign": [
        ({"B": "Q145"}, {("Q145", "P6", U, False), ("Q145", "previous_head_of_government", "Q6294", False),
                         ("Q6294", "P937", U, False), ("Q14211", "P1308", U, True)}),
        ({"B": "Q30"}, {("Q30", "P6", U, False), ("Q30", "previous_head_of_government", "Q6279", False),
                        ("Q6279", "P937", U, False), ("Q11696", "P1308", U, True)}),
    ],
    "IPO": [
        ({"A": "Q95"}, {("Q95", "P414", U, False), ("Q95", "P127", U, False)}),
        ({"A": "Q380"}, {("Q380", "P414", U, False), ("Q380", "P127", U, False)}),
    ],
    "marry": [
        ({"A": "Q11571", "B": "Q22686"}, {("Q11571", "P26", "Q22686", False), ("Q22686", "P26", "Q11571", False),
                                          ("Q22686", "P551", "Q3692", True)}),
        ({"A": "Q615", "B": "Q6294"}, {("Q615", "P26", "Q6294", False), ("Q6294", "P26", "Q615", False),
                                       ("Q6294", "P551", "Q8652", True)}),
    ],
    "dismissal": [
        ({"B": "Q95"}, {("Q95", "P169", U, False), ("Q3503829", "P108", U, False),
                        ("Q3503829", "P937", U, False)}),
        ({"B": "Q380"}, {("Q380", "P169", U, False), ("Q36215", "P108", U, False),
                         ("Q36215", "P937", U, False)}),
    ],
    "start-org": [
        ({"A": "Q76", "B": "Q84"}, {("Q76", "P108", U, False), ("Q76", "P937", "Q84", False),
                                    ("Q76", "work_country", "Q145", True)}),
        ({"A": "Q615", "B": "Q2807"}, {("Q615", "P108", U, False), ("Q615", "P937", "Q2807", False),
                                       ("Q615", "work_country", "Q29", True)}),
    ],
    "education": [
        ({"A": "Q11571", "B": "Q49088"}, {("Q11571", "P69", "Q49088", False), ("Q11571", "P551", "Q60", True),
                                          ("Q11571", "residence_country", "Q30", True)}),
        ({"A": "Q615", "B": "Q49088"}, {("Q615", "P69", "Q49088", False), ("Q615", "P551", "Q60", True),
                                        ("Q615", "residence_country", "Q30", True)}),
    ],
    "born": [
        ({"A": "Q76"}, {("Q76", "P40", U, False), ("Q13133", "P40", U, False),
                        ("Q76", "child_birthplace", "Q1297", True)}),
        ({"A": "Q36215"}, {("Q36215", "P40", U, False), ("Q15042580", "P40", U, False)}),
    ],
}


def _triplets(plan) -> set:
    out = set()
    for i in plan.impacts:
        answer = U if i.unknown else (i.answer.id or i.answer.name)
        out.add((i.subject.id, i.relation, answer, i.needs_background))
    return out


@pytest.fixture
def planner(store):
    build_subgraph(store)
    return Planner(store, load_templates(), seed=0, batch="t", date=D)


def test_every_bundled_type_has_hand_checked_cases():
    assert set(EXPECTED) == set(load_templates())
    assert len(EXPECTED) == 16
    assert all(len(cases) >= 2 for cases in EXPECTED.values())


@pytest.mark.parametrize("event_type", sorted(EXPECTED))
def test_impacted_triplets_match_hand_computed(planner, event_type):
    template = planner.templates[event_type]
    for index, (fillers, expected) in enumerate(EXPECTED[event_type]):
        plan = planner.plan_fixed(template, fillers, index)
        assert _triplets(plan) == expected, (event_type, fillers)
        # unknown answers are explicit and carry no object entity
        for impact in plan.impacts:
            if impact.unknown:
                assert impact.answer.id is None and impact.answer.name == "unknown"


def test_multi_hop_answer_records_its_path(planner):
    plan = planner.plan_fixed(planner.templates["transfer-player"], {"A": "Q11571", "B": "Q8682"})
    country = next(i for i in plan.impacts if i.relation == "residence_country")
    hops = [(h.source, h.relation, h.target) for h in country.answer.path]
    assert hops == [("Q8682", "P159", "Q2807"), ("Q2807", "P17", "Q29")]
    assert country.declared == "(A, residence_country, B→P159→P17)"
    retracted = {(r.subject_id, r.relation, r.object_id) for r in plan.retractions}
    assert retracted == {("Q11571", "P54", "Q1104"), ("Q11571", "P551", "Q3692"),
                         ("Q11571", "P1618", None)}
    assert plan.text == "Cristiano Ronaldo transferred to Real Madrid CF."


@pytest.mark.parametrize("event_type,fillers", [
    ("transfer-player", {"A": "Q99001", "B": "Q8682"}),   # a dead player does not transfer
    ("transfer-player", {"A": "Q11571", "B": "Q1104"}),   # not to the club he plays for
    ("acquire", {"A": "Q95", "B": "Q20800404"}),           # Google cannot buy its own parent
    ("marry", {"A": "Q76", "B": "Q22686"}),                # Obama is married
    ("education", {"A": "Q76", "B": "Q49088"}),            # already educated there
    ("win-election", {"B": "Q30", "A": "Q43274"}),         # not a citizen
    ("win-election", {"B": "Q30", "A": "Q6279"}),          # already head of state (C)
    ("win-election", {"B": "Q145", "A": "Q6294"}),         # a monarchy holds no such election
    ("loss-election", {"B": "Q145"}),                      # nor does a king lose one
])
def test_constraints_reject_unreasonable_edits(planner, event_type, fillers):
    with pytest.raises(ConfigError):
        planner.plan_fixed(planner.templates[event_type], fillers)


def test_every_type_instantiates_and_sampling_respects_constraints(store):
    build_subgraph(store)
    templates = load_templates()
    report = plan_events(store, templates, list(templates), 2, seed=3, batch="t")
    assert all(report.made[t] >= 1 for t in templates), report.made
    for plan in report.plans:
        if plan.type == "transfer-player":
            assert plan.slot("A").id != "Q99001"
        assert plan.impacts and plan.text


def test_same_seed_same_plans_different_seed_differs(store):
    build_subgraph(store)
    templates = load_templates()
    types = ["transfer-player", "publish", "start-org", "marry"]
    a = plan_events(store, templates, types, 3, seed=1, batch="t").plans
    b = plan_events(store, templates, types, 3, seed=1, batch="t").plans
    c = plan_events(store, templates, types, 3, seed=2, batch="t").plans
    assert a == b
    assert [p.slots for p in a] != [p.slots for p in c]


def test_popular_entities_are_sampled_more(store):
    build_subgraph(store)
    templates = load_templates()
    plans = plan_events(store, templates, ["IPO"], 1, seed=0, batch="t").plans
    counts = {}
    for seed in range(60):
        plan = plan_events(store, templates, ["IPO"], 1, seed=seed, batch="t").plans[0]
        counts[plan.slot("A").id] = counts.get(plan.slot("A").id, 0) + 1
    # Google (popularity 300) vs Alphabet (150): weights 301 vs 151
    assert plans and counts.get("Q95", 0) > counts.get("Q20800404", 0)


def test_unknown_type_is_a_clear_error(store):
    with pytest.raises(ConfigError, match="unknown event type"):
        plan_events(store, load_templates(), ["nope"], 1, seed=0, batch="t")
