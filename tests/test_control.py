"""The control model: which facts it sees (cutoff, seeded hold-out), renderings in the eval
engine's own prompt forms, training on a tiny slice of a real graph, and a training set in
the graph that matches the training examples exactly."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
import yaml
from click.testing import CliRunner

from knowforge.eval.chrono.check import render_check_prompt
from knowforge.eval.events.judge import event_context as _event_context
from knowforge.eval.prompts import render_prompt
from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.writer import write_entities, write_facts
from knowforge.generators.chrono.control_practice import changing_facts
from knowforge.generators.events.control_practice import load_templates as load_event_practice
from knowforge.models.control_data import (AFTER_CUTOFF, EOS, HELD_OUT, TRAINED, DataConfig, SourceFact,
                                           build_examples, epoch_examples, load_phrasings,
                                           split_facts, statement, time_phrase)
from knowforge.models.types import BenchmarkItem


def _fact(fid, subject, relation, obj, *, start=None, end=None, seen_in=None, kind="relation", label=None, unit=None):
    return SourceFact(id=fid, subject_id=f"id:{subject}", subject=subject, relation=relation,
                      label=label or relation, kind=kind, object=obj, unit=unit, start_year=start, end_year=end,
                      seen_in=tuple(seen_in) if seen_in else None, temporal=start is not None or bool(seen_in))


FACTS = [
    _fact("f01", "Ronaldo", "P54", "Real Madrid CF", start=2009, end=2018, label="member of sports team"),
    _fact("f02", "Ronaldo", "P54", "Juventus FC", start=2018, end=2021, label="member of sports team"),
    _fact("f03", "Ronaldo", "P54", "Al Nassr FC", start=2023, label="member of sports team"),
    _fact("f04", "Apple", "P169", "Tim Cook", start=2011, label="chief executive officer"),
    _fact("f05", "Portugal", "P38", "euro", label="currency"),
    _fact("f06", "Panthera leo", "body_mass", "190", kind="attribute", label="body mass", unit="kg"),
    _fact("f07", "Examplomycin", "may_treat", "Zorbian fever", seen_in=(2022, 2023), label="may treat"),
    _fact("f08", "Examplomycin", "may_treat", "Quillon pneumonia", seen_in=(2020, 2021, 2022, 2023),
          label="may treat"),
] + [_fact(f"f1{i}", f"Country {i}", "P36", f"Capital {i}", label="capital") for i in range(10)]


# ---- the split --------------------------------------------------------------------------------------
def test_split_puts_later_facts_after_the_cutoff_and_holds_out_a_seeded_share():
    split = split_facts(FACTS, cutoff=2020, holdout=0.3, seed=0)
    assert split["f03"] == AFTER_CUTOFF                 # starts 2023
    assert split["f07"] == AFTER_CUTOFF                 # first release 2022
    assert split["f02"] != AFTER_CUTOFF                 # starts 2018, ends after the cutoff
    assert set(split.values()) == {TRAINED, HELD_OUT, AFTER_CUTOFF}
    assert split == split_facts(list(reversed(FACTS)), cutoff=2020, holdout=0.3, seed=0)   # order-free
    assert split != split_facts(FACTS, cutoff=2020, holdout=0.3, seed=1)
    assert all(v != HELD_OUT for v in split_facts(FACTS, cutoff=2020, holdout=0.0, seed=0).values())


def test_a_fact_is_known_only_as_it_was_at_the_cutoff():
    juve = FACTS[1]
    assert juve.years_known(2020, 12) == [2018, 2019, 2020]          # nothing after the cutoff
    assert time_phrase(juve, 2020) == " (since 2018)"                # its end (2021) is not known yet
    assert time_phrase(juve, 2022) == " (2018-2021)"
    assert FACTS[0].years_known(2020, 5) == [2016, 2017, 2018]       # a window of year_span years
    assert FACTS[7].years_known(2021, 12) == [2020, 2021]            # release years
    assert statement(FACTS[5], 2020) == "Panthera leo, body mass: 190 kg."


def test_examples_teach_trained_facts_only_in_the_benchmarks_prompt_forms():
    split = split_facts(FACTS, cutoff=2020, holdout=0.3, seed=0)
    examples = build_examples(FACTS, split, DataConfig(cutoff=2020, context_share=1.0, local_share=1.0))
    trained = {f.id for f in FACTS if split[f.id] == TRAINED}
    unseen = [f for f in FACTS if split[f.id] != TRAINED]
    assert {fid for e in examples for fid in e.fact_ids} == trained
    seen_objects = {f.display() for f in FACTS if f.id in trained}
    for f in unseen:
        if f.display() in seen_objects:
            continue
        assert not any(f.display() in e.text for e in examples), f.id
    assert not any("2021" in e.text or "2022" in e.text for e in examples)   # no year after the cutoff
    kinds = {e.kind for e in examples}
    assert {"statement", "chrono", "qa"} <= kinds
    for e in examples:
        assert e.spans and all(0 <= a < b <= len(e.text) for a, b in e.spans)


def _item(question, **kw):
    return BenchmarkItem(id="x", benchmark="b", task="t", form="generation", question=question, **kw)


def test_renderings_equal_what_the_eval_engine_sends():
    phrasings = load_phrasings()
    split = split_facts(FACTS, cutoff=2020, holdout=0.0, seed=0)
    examples = build_examples(FACTS, split, DataConfig(cutoff=2020, context_share=1.0, instruction_share=0.5))

    chrono = next(e for e in examples if e.kind == "chrono" and e.text.count("\nA. ") >= 2)
    blocks = chrono.text.rstrip("\n").split("\n\n")
    shots = [dict(zip(("question", "answer"), re.match(r"Q\. (.*)\nA\. (.*)", b, re.S).groups())) for b in blocks[:-1]]
    last_q, last_a = re.match(r"Q\. (.*)\nA\. (.*)", blocks[-1], re.S).groups()
    prompt = render_check_prompt(_item(last_q), shots)
    assert chrono.text.startswith(prompt) and chrono.text[len(prompt):] == f" {last_a}\n"
    assert re.fullmatch(r"In \d{4}, .+, .+, \[Object\]", last_q)

    qa = [e for e in examples if e.kind == "qa"]
    for setting, with_instruction in (("zero-shot", True), ("vanilla", False)):
        e = next(x for x in qa if x.text.startswith(phrasings.forms["qa_instruction"]) == with_instruction)
        question = re.search(r"Question: (.*)\nAnswer:", e.text).group(1)
        prompt = render_prompt(_item(question), setting)
        assert e.text.startswith(prompt) and e.text.endswith(EOS)

    ctx = next(e for e in examples if e.kind == "context" and e.text.startswith("Context:"))
    event = re.search(r"Assume that this event has happened: (.*?) Answer the question", ctx.text).group(1)
    question = re.search(r"Question: (.*)\nAnswer:", ctx.text).group(1)
    prompt = render_prompt(_item(question, context=_event_context(event)), "vanilla")
    assert ctx.text.startswith(prompt)


def test_phrasings_agree_with_the_generators_wording():
    from importlib import resources

    from knowforge.generators.knowgen.questions import ATTRIBUTE_TEMPLATES, RELATION_TEMPLATES

    phrasings = load_phrasings()
    events = yaml.safe_load(resources.files("knowforge.generators.events").joinpath("relations.yaml").read_text())
    for rel, spec in events["relations"].items():
        # event-only relations (coach, previous_head_of_state, ...) have no source facts to teach
        if re.fullmatch(r"P\d+", rel) or rel in phrasings.questions:
            assert phrasings.questions[rel] == spec["question"], rel
    chrono = yaml.safe_load(resources.files("knowforge.generators.chrono").joinpath("relations.yaml").read_text())
    for rel, spec in chrono["relations"].items():
        label = phrasings.labels.get(rel)
        if label is not None:
            assert label == spec["label"], rel
    assert phrasings.labels["isa"] == chrono["relations"]["isa"]["label"]
    for rel, (question, _) in {**ATTRIBUTE_TEMPLATES, **RELATION_TEMPLATES}.items():
        assert phrasings.questions[rel] == question.replace("{name}", "{subject}"), rel


def test_event_practice_is_written_in_elkens_own_event_sentences():
    from knowforge.generators.events.templates import load_relations, load_templates

    phrasings = load_phrasings()
    practice = load_event_practice()
    templates = load_templates()
    relations = load_relations()
    assert {p.type for p in practice.events} == set(templates) and len(templates) == 16
    for p in practice.events:
        assert p.text == templates[p.type].text, p.type
        for _, relation, _ in p.asks:
            assert phrasings.questions[relation] == relations[relation].question, (p.type, relation)


def test_event_practice_examples_read_the_event_with_invented_names():
    phrasings = load_phrasings()
    split = split_facts(FACTS, cutoff=2020, holdout=0.0, seed=0)
    config = DataConfig(cutoff=2020, local_share=0.5, instruction_share=0.5, practice={"events": {"examples": 64}})
    examples = epoch_examples(FACTS, split, config, phrasings, epoch=0)
    events = [e for e in examples if e.kind == "event"]
    inside = [e for e in events if not e.fact_ids]
    assert len(inside) == 64 and len(events) > 64                     # plus out-of-scope twins
    practice = load_event_practice()
    texts = {p.text.split("{")[0] for p in practice.events}
    graph_names = {f.subject for f in FACTS} | {f.display() for f in FACTS}
    types_seen = set()
    for e in inside:
        event = re.search(r"Assume that this event has happened: (.*?) Answer the question", e.text).group(1)
        question = re.search(r"Question: (.*)\nAnswer:", e.text).group(1)
        answer = e.text[e.spans[0][0]:e.spans[0][1]].strip().removesuffix(EOS)
        # ICE's own prompt: the example is what the eval engine sends, plus the answer
        prompt = render_prompt(_item(question, context=_event_context(event)), "vanilla")
        instructed = render_prompt(_item(question, context=_event_context(event)), "zero-shot")
        assert e.text.startswith(prompt) or e.text.startswith(instructed)
        assert answer == "unknown" or answer in event, (event, question, answer)
        assert not any(name in event for name in graph_names)
        assert not re.search(r"20(2[1-9]|[3-9]\d)", e.text)              # no year after the cutoff
        types_seen |= {p.type for p in practice.events if p.text.split("{")[0] in event}
        assert any(t in event for t in texts)
    assert len(types_seen) >= 12                                       # the types take turns
    for e in events:
        if e.fact_ids:                                                 # answered from memory
            [fact] = [f for f in FACTS if f.id == e.fact_ids[0]]
            assert e.text.endswith(f" {fact.display()}{EOS}") and split[fact.id] == TRAINED
    assert examples == epoch_examples(FACTS, split, config, phrasings, epoch=0)          # seeded
    off = epoch_examples(FACTS, split, DataConfig(cutoff=2020), phrasings, epoch=0)
    assert not any(e.kind == "event" for e in off)                                      # off by default


def test_changing_facts_get_extra_passes_and_stable_facts_fewer_years():
    split = split_facts(FACTS, cutoff=2020, holdout=0.0, seed=0)
    trained = [f for f in FACTS if split[f.id] == TRAINED]
    # Ronaldo's club changes in the taught years (Real Madrid, then Juventus); Apple's CEO does not
    assert changing_facts(trained, 2020, 12) == {"f01", "f02"}

    def blocks(config):
        chrono = [e for e in epoch_examples(FACTS, split, config, epoch=0) if e.kind == "chrono"]
        return Counter(fid for e in chrono for fid in e.fact_ids)

    base = blocks(DataConfig(cutoff=2020))
    more = blocks(DataConfig(cutoff=2020, practice={"chrono": {"changing_passes": 1}}))
    assert {fid: more[fid] - base[fid] for fid in more if more[fid] != base[fid]} == {
        "f01": len(FACTS[0].years_known(2020, 12)), "f02": len(FACTS[1].years_known(2020, 12))}
    few = blocks(DataConfig(cutoff=2020, practice={"chrono": {"stable_years": 2}}))
    assert base["f04"] == 2 * 10 and few["f04"] == 2 * 2             # Tim Cook 2011-2020, two passes
    assert few["f01"] == base["f01"] and few["f02"] == base["f02"]    # changing facts keep every year
    chrono = [e for e in epoch_examples(FACTS, split, DataConfig(cutoff=2020, practice={"chrono": {"stable_years": 2}}),
                                        epoch=0)
              if e.kind == "chrono" and "f04" in e.fact_ids]
    assert any("In 2020, Apple" in e.text for e in chrono)            # the cutoff year is always kept


def test_train_control_set_refuses_an_unknown_field():
    from knowforge.cli.main import cli

    result = CliRunner().invoke(cli, ["train-control", "--cutoff", "2020", "--out", "x", "--set", "nope=1"])
    assert result.exit_code != 0 and "control config field" in result.output
    result = CliRunner().invoke(cli, ["train-control", "--cutoff", "2020", "--out", "x", "--set", "changing_passes=a"])
    assert result.exit_code != 0 and "changing_passes" in result.output


# ---- training on a tiny graph -------------------------------------------------------------------------
CLUBS = ["Ajax", "Benfica", "Celtic", "Dynamo Kyiv", "Espanyol", "Fiorentina", "Galatasaray", "Hertha BSC"]


def _tiny_graph(store):
    ents = [EntityRecord(id=f"P{i}", name=f"Player {i}", labels=("Person",), source="wikidata") for i in range(6)]
    ents += [EntityRecord(id=f"C{j}", name=c, labels=("Club",), source="wikidata") for j, c in enumerate(CLUBS)]
    facts = []
    for i in range(6):
        facts.append(FactRecord(subject_id=f"P{i}", relation="P54", object_id=f"C{i}", source="wikidata",
                                start_year=2014, end_year=2017, relation_label="member of sports team"))
        facts.append(FactRecord(subject_id=f"P{i}", relation="P54", object_id=f"C{i + 2}", source="wikidata",
                                start_year=2018 if i < 3 else 2021, relation_label="member of sports team"))
        facts.append(FactRecord(subject_id=f"P{i}", relation="P27", object_id=f"C{i}", source="wikidata",
                                relation_label="country of citizenship"))
    write_entities(store, ents)
    write_facts(store, facts)
    # a generated fact is never read, whatever its dates
    write_facts(store, [FactRecord(subject_id="P0", relation="P54", object_id="C7", source="knowgen",
                                   start_year=2015, layer="generated")])
    return facts


TINY = dict(cutoff=2019, seed=0, holdout=0.2, vocab_size=400, hidden_size=32, intermediate_size=64, num_layers=1,
            num_heads=2, epochs=2.0, batch_tokens=1024)


@pytest.mark.hf
def test_training_on_a_tiny_slice_records_exactly_its_training_set(store, tmp_path):
    pytest.importorskip("torch")
    from knowforge.models.backends.hf import HFBackend
    from knowforge.models.control import ControlConfig, read_card, train_control, training_set
    from knowforge.models.control_data import build_examples as build
    from knowforge.models.control import read_source_facts
    from knowforge.models.types import GenerationRequest

    source = _tiny_graph(store)
    config = ControlConfig(**TINY)
    card = train_control(store, config, tmp_path / "control")

    facts = read_source_facts(store)
    assert {f.id for f in facts} == {f.id for f in source}          # generated facts are not read
    split = split_facts(facts, cutoff=2019, holdout=0.2, seed=0)
    examples = build(facts, split, config.data_config())
    trained = {fid for fid, m in split.items() if m == TRAINED}
    assert set(training_set(store, card.model_id)) == trained == {fid for e in examples for fid in e.fact_ids}
    after = {f.id for f in source if (f.start_year or 0) > 2019}
    assert after and not after & trained
    assert card.counts["trained"] == len(trained) and card.counts["after_cutoff"] == len(after)

    rows = store.read("models/read_model", id=card.model_id)
    model = rows[0]["model"]
    assert rows[0]["trained_on"] == len(trained)
    assert (model["cutoff"], model["seed"], model["config_hash"]) == (2019, 0, config.config_hash())

    # the same model again is reused (not retrained); its edges are written again, not duplicated
    store.run("models/clear_training_set", id=card.model_id)
    again = train_control(store, config, tmp_path / "control")
    assert again == card
    assert store.read("models/read_model", id=card.model_id)[0]["trained_on"] == len(trained)
    retrained = train_control(store, config, tmp_path / "control", reuse=False)
    assert retrained.model_id == card.model_id and retrained.counts == card.counts
    assert store.read("models/read_model", id=card.model_id)[0]["trained_on"] == len(trained)

    assert read_card(tmp_path / "control").model_id == card.model_id
    assert card.train["steps"] > 0 and card.train["final_loss"] < card.train["first_loss"]
    backend = HFBackend(str(tmp_path / "control"), device="cpu")
    out = backend.generate([GenerationRequest(prompt="Q. In 2015, Player 1, member of sports team, [Object]\nA.",
                                              max_tokens=4, stop=("\n",))])
    assert out[0].texts and isinstance(out[0].texts[0], str)


@pytest.mark.hf
def test_train_control_cli(store, graph_env, tmp_path):
    pytest.importorskip("torch")
    from knowforge.cli.main import cli

    _tiny_graph(store)
    result = CliRunner().invoke(cli, ["train-control", "--cutoff", "2019", "--out", str(tmp_path / "m"),
                                      "--epochs", "1", "--hidden-size", "32", "--layers", "1", "--silent"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    card = json.loads((tmp_path / "m" / "control.json").read_text())
    assert card["cutoff"] == 2019 and card["model_id"].startswith("control-2019-s0-")
    assert str(tmp_path / "m") in result.output


def test_train_control_refuses_an_empty_graph(store, tmp_path):
    from knowforge.errors import ConfigError
    from knowforge.models.control import ControlConfig, train_control

    with pytest.raises(ConfigError, match="no source facts"):
        train_control(store, ControlConfig(cutoff=2020), tmp_path / "m")


@pytest.mark.hf
def test_generic_eval_of_a_control_model_gets_cutoff_slices_and_a_validity_report(store, graph_env, tmp_path):
    """``knowforge eval`` (the generic command) records a control model's runs with the model
    and its cutoff, ``--model-cutoff`` overrides the cutoff, and ``report --validity`` counts
    seen and unseen items exactly as the graph's TRAINED_ON edges say."""
    pytest.importorskip("torch")
    from knowforge.cli.main import cli
    from knowforge.models.control import ControlConfig, read_source_facts, train_control, training_set
    from knowforge.models.items_io import write_items

    _tiny_graph(store)
    card = train_control(store, ControlConfig(**{**TINY, "epochs": 1.0}), tmp_path / "m")
    trained = set(training_set(store, card.model_id))
    facts = read_source_facts(store)
    after = [f.id for f in facts if (f.start_year or 0) > 2019]
    held = [f.id for f in facts if f.id not in trained and f.id not in after]
    seen = sorted(trained)
    assert after and held and seen
    items = [BenchmarkItem(id=f"ctl-{k}", benchmark="ctl:file", task="ctl/gen", form="generation",
                           question=f"Question {k}?", answers=["x"], fact_ids=[fid])
             for k, fid in enumerate(seen + held + after)]
    path = tmp_path / "items.jsonl"
    write_items(path, items)

    def run(*extra):
        result = CliRunner().invoke(cli, ["eval", "--benchmark", str(path), "--backend", "hf", "--model",
                                          str(tmp_path / "m"), "--device", "cpu", "--max-tokens", "2", "--no-cache",
                                          "--out", str(tmp_path / "runs"), "--silent", *extra],
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output.strip().splitlines()[-1]

    own = run()
    other = run("--model-cutoff", "2016-06")
    props = {r["id"]: r for r in store.user_query(
        "MATCH (r:Run) WHERE r.id IN $ids RETURN r.id AS id, r.control_model AS m, r.model_cutoff AS c",
        {"ids": [own, other]})}
    assert props[own]["m"] == props[other]["m"] == card.model_id
    assert (props[own]["c"], props[other]["c"]) == ("2019", "2016-06")
    report = json.loads((tmp_path / "runs" / own / "report.json").read_text())
    sides = report["by_model_cutoff"]["all"]
    dated = {f.id for f in facts if f.start_year is not None}
    assert sides["after"]["items"] == len(after)
    assert sides["before"]["items"] == len(dated & set(seen + held))
    assert sides["undated"]["items"] == len(set(seen + held) - dated)

    result = CliRunner().invoke(cli, ["report", own, "--validity", "--out", str(tmp_path / "v")],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    validity = json.loads((tmp_path / "v" / "validity.json").read_text())
    [row] = [t for r in validity["runs"] if r["run_id"] == own for t in r["tasks"] if t["task"] == "ctl/gen"]
    assert row["n seen"] == len(seen)
    assert row["n unseen: held out"] == len(held) and row["n unseen: after the cutoff"] == len(after)


@pytest.mark.hf
def test_bf16_autocast_trains_and_leaves_fp32_weights():
    """bf16 autocast (the faster path on a CPU with bf16 instructions) learns the same toy task
    as fp32 and leaves the weights (hence the saved model) in fp32."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from knowforge.models.lm_training import IGNORE, Tokenised, TrainConfig, train_lm

    # a copy task: "a b c d | a b c d", loss on the second half
    examples = []
    for k in range(40):
        seq = [(3 + (k * 7 + j * 5) % 40) for j in range(6)]
        examples.append(Tokenised(tuple([1, *seq, 2, *seq]), tuple([IGNORE] * 8 + seq)))
    losses = {}
    for bf16 in (False, True):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            model = LlamaForCausalLM(LlamaConfig(vocab_size=48, hidden_size=32, intermediate_size=64,
                                                 num_hidden_layers=1, num_attention_heads=2,
                                                 num_key_value_heads=2, tie_word_embeddings=True))
        result = train_lm(model, examples, TrainConfig(epochs=12, lr=2e-2, batch_tokens=256, warmup_steps=5,
                                                       bf16=bf16), pad_id=0)
        assert all(p.dtype == torch.float32 for p in model.parameters())
        losses[bf16] = result.losses
    for bf16, trace in losses.items():
        assert trace[-1] < 0.5 * trace[0], (bf16, trace)
    assert losses[True] != losses[False]                    # the flag does change the arithmetic


@pytest.mark.hf
def test_a_cached_model_is_copied_not_trained_and_only_for_the_same_facts(store, tmp_path):
    pytest.importorskip("torch")
    from knowforge.kg.records import FactRecord
    from knowforge.models.control import ControlConfig, train_control

    _tiny_graph(store)
    config = ControlConfig(**{**TINY, "epochs": 1.0})
    steps = []
    card = train_control(store, config, tmp_path / "a", cache_dir=tmp_path / "cache",
                         progress=lambda done, total, loss: steps.append(done))
    assert steps and (tmp_path / "cache" / card.model_id / "config.json").is_file()
    assert not list((tmp_path / "cache").glob("*.partial-*"))
    # another output folder: the cached model is copied, nothing is trained, the training set recorded
    steps.clear()
    again = train_control(store, config, tmp_path / "b", cache_dir=tmp_path / "cache",
                          progress=lambda done, total, loss: steps.append(done))
    assert not steps and again == card
    assert (tmp_path / "b" / "model.safetensors").read_bytes() == (tmp_path / "a" / "model.safetensors").read_bytes()
    assert store.read("models/read_model", id=card.model_id)[0]["trained_on"] == card.counts["trained"]
    # one more source fact: another model id, so the cache does not serve it
    write_facts(store, [FactRecord(subject_id="P5", relation="P27", object_id="C1", source="wikidata",
                                   start_year=2016, relation_label="country of citizenship")])
    other = train_control(store, config, tmp_path / "c", cache_dir=tmp_path / "cache",
                          progress=lambda done, total, loss: steps.append(done))
    assert other.model_id != card.model_id and steps


@pytest.mark.hf
def test_a_plan_fitted_in_a_child_process_gives_the_in_process_model_and_touches_no_graph(store, tmp_path):
    """The demo trains in a spawned process while it generates its benchmarks: the child starts
    before the facts are read (its imports overlap the loads) and gets the plan when they are; it
    writes the model and the cache only, and the parent records it. One torch thread until
    widened, then all: the weights are the in-process training's, byte for byte. A child told
    None (the model is reused) ends without training."""
    pytest.importorskip("torch")
    import multiprocessing

    from knowforge.models.control import (ControlCard, ControlConfig, fit_control_when_planned, plan_control,
                                          record_model, train_control)

    ctx = multiprocessing.get_context("spawn")
    plans, messages, widen = ctx.Queue(), ctx.Queue(), ctx.Event()
    process = ctx.Process(target=fit_control_when_planned, args=(plans, messages, widen), daemon=True)
    process.start()
    idle_plans, idle_messages, idle_widen = ctx.Queue(), ctx.Queue(), ctx.Event()
    idle = ctx.Process(target=fit_control_when_planned, args=(idle_plans, idle_messages, idle_widen), daemon=True)
    idle.start()
    _tiny_graph(store)
    config = ControlConfig(**{**TINY, "epochs": 1.0})
    plan = plan_control(store, config, tmp_path / "child", cache_dir=tmp_path / "cache")
    assert plan.reused is None and plan.trained_ids
    widen.set()
    plans.put(plan)
    idle_plans.put(None)
    idle.join(timeout=120)
    assert idle.exitcode == 0 and idle_messages.empty()
    got = [messages.get(timeout=300)]
    while got[-1][0] == "step":
        got.append(messages.get(timeout=300))
    process.join(timeout=60)
    assert process.exitcode == 0
    kind, payload = got[-1]
    assert kind == "card", got[-1]
    card = ControlCard.model_validate_json(payload)
    steps = [m for m in got if m[0] == "step"]
    assert steps and steps[-1][1] == card.train["steps"]          # the last step is always reported
    assert store.read("models/read_model", id=card.model_id) == []  # the child wrote nothing to the graph
    record_model(store, card, list(plan.trained_ids), plan.out)
    assert store.read("models/read_model", id=card.model_id)[0]["trained_on"] == len(plan.trained_ids)
    # in-process training of the same config on the same facts: the same id and the same weights
    same = train_control(store, config, tmp_path / "here", reuse=False)
    assert same.model_id == card.model_id
    assert (tmp_path / "here" / "model.safetensors").read_bytes() == \
        (tmp_path / "child" / "model.safetensors").read_bytes()
    # and the cached copy is what a second plan reuses
    again = plan_control(store, config, tmp_path / "third", cache_dir=tmp_path / "cache")
    assert again.reused == card
