"""Pure parts of KnowGen: the name index (collision rejection, filter soundness), name blending,
numeric variation, and planning determinism on small in-memory inputs (no graph needed)."""

from __future__ import annotations

import random
import re

import pytest
from rapidfuzz import fuzz, process

from knowforge.generators.knowgen.names import (NameCollisionError, NameIndex, blend_candidates,
                                                make_name, pronounceable)
from knowforge.generators.knowgen.params import KnowGenParams
from knowforge.generators.knowgen.plan import format_number, plan_entities, vary_number
from knowforge.generators.knowgen.read import ClassInfo, GraphInputs, Member, ObjectClass, SourceFact


def test_blend_like_alcuna():
    assert "alcuna" in blend_candidates("alpaca", "vicuna")
    assert all(pronounceable(c) for c in blend_candidates("alpaca", "vicuna"))


def test_collisions_rejected():
    index = NameIndex(["Vicugna pacos", "Alpaca", "Lama glama"], cutoff=85)
    assert index.find_match("Alpacas") == "alpaca"            # ratio 92.3
    assert index.find_match("Alpaka") is None                 # ratio 83.3 < 85
    assert index.find_match("Vicugnna") == "vicugna"          # a word of a binomial counts (93.3)
    assert index.find_match("Zorbulon") is None
    index.check_and_add("Zorbulon")
    with pytest.raises(NameCollisionError):
        index.check_and_add("Zorbulan")                       # near-duplicate of a generated name


def test_filters_are_sound_against_brute_force():
    rng = random.Random(0)
    letters = "abcdeilmnorstu"
    names = ["".join(rng.choice(letters) for _ in range(rng.randint(4, 11))) for _ in range(3000)]
    index = NameIndex(names, cutoff=80)
    for _ in range(300):
        query = "".join(rng.choice(letters) for _ in range(rng.randint(4, 11)))
        brute = any(fuzz.ratio(query, n) >= 80 for n in set(names))
        assert (index.find_match(query) is not None) == brute, query


def test_generated_names_index_gives_the_old_scan_answers():
    """The names added during a batch are filtered by a bigram matrix before rapidfuzz: the
    answer must be the string the old scan (every added string of the length window, by
    length then age, through extractOne) gave, and None exactly when brute force finds none."""
    rng = random.Random(1)
    letters = "abcdeilmnorstuy"   # 225 possible bigrams: the matrix grows past its first 64 rows
    index = NameIndex([], cutoff=80)
    added: list[str] = []
    for _ in range(2500):         # past the first 1,024 columns too
        name = "".join(rng.choice(letters) for _ in range(rng.randint(4, 11)))
        index.add(name)
        if name not in added:
            added.append(name)
    for _ in range(400):
        query = "".join(rng.choice(letters) for _ in range(rng.randint(4, 11)))
        lo, hi = index._length_window(len(query))
        window = [k for n in range(lo, hi + 1) for k in added if len(k) == n]
        old = process.extractOne(query, window, scorer=fuzz.ratio, score_cutoff=80, processor=None)
        assert index.find_match(query) == (old[0] if old else None), query
        brute = any(fuzz.ratio(query, n) >= 80 for n in added)
        assert (index.find_match(query) is not None) == brute, query


def test_make_name_is_deterministic_and_new():
    existing = ["Lama glama", "Lama guanicoe", "Vicugna pacos", "Vicugna vicugna", "Alpaca", "Vicuna"]
    names_a = [make_name(random.Random(f"1:{i}"), ["Alpaca"], ["Vicuna", "Guanaco"], NameIndex(existing))
               for i in range(20)]
    names_b = [make_name(random.Random(f"1:{i}"), ["Alpaca"], ["Vicuna", "Guanaco"], NameIndex(existing))
               for i in range(20)]
    assert names_a == names_b
    index = NameIndex(existing)
    for n in names_a:
        assert index.find_match(n) is None and n[0].isupper() and pronounceable(n.lower())


def test_make_name_falls_back_to_syllable_strings_when_blends_run_out():
    """The last resort of ``make_name`` (syllable strings, still checked against the index):
    a 1,000-entity batch from the bundled taxonomy reaches it; ``attempts=0`` reaches it here."""
    existing = ["Alpaca", "Vicuna"]
    index = NameIndex(existing)
    names = [make_name(random.Random(f"2:{i}"), ["Alpaca"], ["Vicuna"], index, attempts=0) for i in range(30)]
    again = NameIndex(existing)
    assert names == [make_name(random.Random(f"2:{i}"), ["Alpaca"], ["Vicuna"], again, attempts=0)
                     for i in range(30)]
    syllables = re.compile(r"^(?:ba|ca|da|fe|ga|ki|lo|ma|ne|po|ra|su|ta|vi|zo|lu|me|ni|ro|sa){3,5}$")
    assert len(set(names)) == 30
    for name in names:
        assert syllables.match(name.lower()) and name[0].isupper() and pronounceable(name.lower())
        assert NameIndex(existing).find_match(name) is None        # no collision with the source names
    fresh = NameIndex(existing)
    for name in names:                                             # and none among themselves
        assert fresh.find_match(name) is None
        fresh.add(name)
    assert index.find_match(names[0]) is not None                  # each was reserved in the index


def test_vary_number_bound_and_validity():
    rng = random.Random("noise")
    for v in (0.004, 1.0, 60.0, 25.8, 390.0, 12345.0):
        for _ in range(300):
            new = vary_number(rng, v)
            assert new > 0 and new != v
            assert 0.6 * v * 0.995 <= new <= 1.4 * v * 1.005
            assert float(format_number(new)) == new


def small_inputs() -> GraphInputs:
    members = tuple(Member(id=f"ncbi:{i}", name=n, rank="species", labels=("Entity", "Taxon"),
                           class_fact_id=f"f:c{i}")
                    for i, n in ((1, "Lama glama"), (2, "Lama guanicoe"), (3, "Vicugna pacos")))
    prey = tuple(Member(id=f"ncbi:{i}", name=n) for i, n in ((10, "Festuca"), (11, "Stipa"), (12, "Poa")))
    facts = {}
    for m, mass, prey_id in ((members[0], 140.0, "ncbi:10"), (members[1], 120.0, "ncbi:11"),
                             (members[2], 60.0, "ncbi:12")):
        facts[m.id] = (
            SourceFact(id=f"f:{m.id}:m", subject_id=m.id, kind="attribute", relation="body_mass",
                       relation_label="body mass", value=f"{mass:g}", value_num=mass, unit="kg"),
            SourceFact(id=f"f:{m.id}:d", subject_id=m.id, kind="attribute", relation="diet",
                       relation_label="diet", value="grasses" if m.id != "ncbi:3" else "leaves"),
            SourceFact(id=f"f:{m.id}:e", subject_id=m.id, kind="relation", relation="eats",
                       relation_label="eats", object_id=prey_id, object_name=prey_id),
        )
    oc = {p.id: ObjectClass(object_id=p.id, class_id="ncbi:100",
                            siblings=tuple(x for x in prey if x.id != p.id)) for p in prey}
    return GraphInputs(classes=(ClassInfo(id="ncbi:9835", name="Camelidae", rank="family", members=members),),
                       facts=facts, object_classes=oc)


def test_plan_is_deterministic_and_covers_every_parent_fact():
    inputs = small_inputs()
    params = KnowGenParams(batch="u", seed=4, n=12, max_extension=2)
    a = plan_entities(inputs, params, NameIndex(["Lama glama", "Lama guanicoe", "Vicugna pacos"]))
    b = plan_entities(inputs, params, NameIndex(["Lama glama", "Lama guanicoe", "Vicugna pacos"]))
    assert a == b
    assert len({e.name for e in a}) == 12
    # each parent used 4 times before any fifth time
    assert sorted(e.parent.id for e in a).count("ncbi:1") == 4
    for e in a:
        parent_fact_ids = {f.id for f in inputs.facts[e.parent.id]}
        covered = {s for f in e.facts if f.op in ("heredity", "variation") and not f.class_level
                   for s, role in f.sources if role in ("inherited", "varied")}
        assert covered | {d.id for d in e.dropout} == parent_fact_ids
        assert not covered & {d.id for d in e.dropout}
        for f in e.facts:
            if f.op == "variation" and f.relation == "eats":
                assert f.object_id in {s.id for s in inputs.object_classes[f.old.object_id].siblings}
            if f.op == "variation" and f.relation == "diet":
                assert f.value != f.old.value
    c = plan_entities(inputs, params.model_copy(update={"seed": 5}), NameIndex([]))
    assert [e.name for e in c] != [e.name for e in a]


def test_passage_states_every_fact_and_nothing_dropped():
    from knowforge.generators.knowgen.render import knowledge_passage

    inputs = small_inputs()
    entities = plan_entities(inputs, KnowGenParams(batch="u", seed=2, n=9, dropout_ratio=0.5),
                             NameIndex([]))
    assert any(e.dropout for e in entities)
    for e in entities:
        text = knowledge_passage(e)
        assert text.startswith(f"{e.name} is a species of the family Camelidae.")
        for f in e.facts:
            assert f.display() in text
        have = {f.relation for f in e.facts}
        for d in e.dropout:
            if d.relation not in have:
                label = d.relation_label
                assert f"The {label} of" not in text and f" {label} " not in text.replace("The ", "")


def test_gc_paused_restores_the_collector():
    import gc

    from knowforge.generators.knowgen.generate import gc_paused

    assert gc.isenabled()
    with pytest.raises(ValueError):
        with gc_paused():
            assert not gc.isenabled()
            raise ValueError("stage failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()      # a caller that had it off keeps it off
    finally:
        gc.enable()
