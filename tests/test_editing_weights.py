"""ROME and MEMIT on small models trained here on synthetic facts ("<person> lives in <city>."):
an edit flips the model's greedy answer, leaves the other facts alone, and restore() puts the
weights back bitwise; bad requests are skipped and named; a non-finite edit is refused."""

from __future__ import annotations

import pytest
from editing_facts import CITIES, TEMPLATE, answers, build_fact_model, training_texts

pytestmark = pytest.mark.hf

torch = pytest.importorskip("torch")


@pytest.fixture(scope="session")
def fact_llama():
    torch.set_num_threads(1)
    model, tokenizer, pairs = build_fact_model("llama", hidden=128, layers=2, epochs=30, batch_tokens=512, lr=3e-3)
    base = answers(model, tokenizer, pairs)
    assert base == [o for _, o in pairs], "the fact model did not learn its facts"
    return model, tokenizer, pairs, base


def _new_city(city: str, i: int) -> str:
    return CITIES[(CITIES.index(city) + 1 + i % 3) % len(CITIES)]


def _editor(model, tokenizer, pairs, method, tmp_path, **overrides):
    from knowforge.models.editing import WeightEditor, default_hparams

    hparams = default_hparams(method, model)
    if overrides:
        hparams = hparams.model_copy(update=overrides)
    return WeightEditor(model, tokenizer, method, hparams=hparams, stats_corpus=training_texts(pairs),
                        cache_dir=tmp_path / "stats", model_revision="fact-llama")


def test_rome_flips_the_edited_fact_keeps_the_others_and_restores_bitwise(fact_llama, tmp_path):
    from knowforge.models.editing import EditRequest, weights_digest

    model, tokenizer, pairs, base = fact_llama
    editor = _editor(model, tokenizer, pairs, "rome", tmp_path)
    digest = weights_digest(model)
    edited = range(0, len(pairs), 4)        # 12 of the 48 facts, one edit at a time
    flipped = kept = others = 0
    for i in edited:
        subject, city = pairs[i]
        target = _new_city(city, i)
        result = editor.apply([EditRequest(TEMPLATE, subject, target, key=f"fact/{i}")])
        assert [r.key for r in result.applied] == [f"fact/{i}"] and not result.skipped
        after = answers(model, tokenizer, pairs)
        flipped += after[i] == target
        kept += sum(after[j] == base[j] for j in range(len(pairs)) if j != i)
        others += len(pairs) - 1
        assert weights_digest(model) != digest
        editor.restore()
        assert weights_digest(model) == digest
    assert flipped >= 0.9 * len(edited)
    assert kept >= 0.9 * others
    assert answers(model, tokenizer, pairs) == base


def test_memit_edits_twenty_facts_at_once(fact_llama, tmp_path):
    from knowforge.models.editing import EditRequest, weights_digest

    model, tokenizer, pairs, base = fact_llama
    editor = _editor(model, tokenizer, pairs, "memit", tmp_path)
    digest = weights_digest(model)
    requests = [EditRequest(TEMPLATE, s, _new_city(o, i), key=f"fact/{i}") for i, (s, o) in enumerate(pairs[:20])]
    result = editor.apply(requests)
    assert result.applied == requests and not result.skipped
    after = answers(model, tokenizer, pairs)
    assert sum(after[i] == r.target for i, r in enumerate(requests)) >= 18
    untouched = range(20, len(pairs))
    assert sum(after[j] == base[j] for j in untouched) >= 0.9 * len(untouched)
    editor.restore()
    assert weights_digest(model) == digest
    assert answers(model, tokenizer, pairs) == base


def test_bad_requests_are_skipped_counted_and_named(fact_llama, tmp_path):
    from knowforge.models.editing import EditRequest, weights_digest

    model, tokenizer, pairs, _ = fact_llama
    editor = _editor(model, tokenizer, pairs, "rome", tmp_path)
    digest = weights_digest(model)
    subject, city = pairs[1]
    good = EditRequest(TEMPLATE, subject, _new_city(city, 0), key="E1/F1")
    absent = EditRequest("Where does Greta live? In", "Hugo Novak", "Oslo", key="E1/F2")
    empty = EditRequest(TEMPLATE, "", "Oslo", key="E1/F3")
    twice = EditRequest("{} and {} live in", subject, "Oslo", key="E1/F4")
    result = editor.apply([absent, good, empty, twice])
    assert result.applied == [good]
    reasons = {s.request.key: s.reason for s in result.skipped}
    assert reasons == {"E1/F2": "subject not in prompt", "E1/F3": "subject tokens not found",
                       "E1/F4": "prompt holds '{}' 2 times (exactly once is needed)"}
    assert "E1/F2: subject not in prompt" in result.skipped[0].describe()
    editor.restore()
    assert weights_digest(model) == digest
    # only bad requests: nothing changes, nothing is kept to restore
    assert editor.apply([absent]).applied == [] and weights_digest(model) == digest


def test_a_non_finite_edit_is_refused_and_the_weights_restored(fact_llama, tmp_path, monkeypatch):
    from knowforge.models.editing import EditError, EditRequest, weights_digest
    from knowforge.models.editing import compute, rome

    model, tokenizer, pairs, base = fact_llama
    editor = _editor(model, tokenizer, pairs, "rome", tmp_path)
    digest = weights_digest(model)
    # the first edit is fine and kept (sequential editing); the second one goes wrong
    first = EditRequest(TEMPLATE, pairs[2][0], _new_city(pairs[2][1], 0), key="ok")
    editor.apply([first])
    after_first = weights_digest(model)

    def poisoned(*args, **kwargs):
        values = compute.optimise_values(*args, **kwargs)
        return compute.Values(init=values.init, delta=values.delta * float("nan"), losses=values.losses)

    monkeypatch.setattr(rome, "optimise_values", poisoned)
    with pytest.raises(EditError, match="refused, weights restored.*not finite"):
        editor.apply([EditRequest(TEMPLATE, pairs[3][0], _new_city(pairs[3][1], 0), key="bad")])
    assert weights_digest(model) == after_first
    editor.restore()
    assert weights_digest(model) == digest and answers(model, tokenizer, pairs) == base


def test_covariance_statistics_are_computed_once_and_cached(fact_llama, tmp_path, monkeypatch):
    from knowforge.models.editing import covariance_stats, stats

    model, tokenizer, pairs, _ = fact_llama
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(training_texts(pairs)) + "\n", encoding="utf-8")
    first = covariance_stats(model, tokenizer, [0, 1], corpus, cache_dir=tmp_path / "c", model_revision="r1")
    assert first[0].shape == (512, 512) and torch.allclose(first[1], first[1].T, atol=1e-5)
    assert len(list((tmp_path / "c").glob("*.pt"))) == 2

    def fail(*args, **kwargs):
        raise AssertionError("recomputed instead of read from the cache")

    monkeypatch.setattr(stats, "_accumulate", fail)
    again = covariance_stats(model, tokenizer, [1], corpus, cache_dir=tmp_path / "c", model_revision="r1")
    assert torch.equal(again[1], first[1])
    with pytest.raises(AssertionError, match="recomputed"):   # another revision is another key
        covariance_stats(model, tokenizer, [1], corpus, cache_dir=tmp_path / "c", model_revision="r2")


def test_an_unknown_architecture_is_refused_with_the_supported_list():
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

    from knowforge.errors import ConfigError
    from knowforge.models.editing import UnsupportedArchitecture, WeightEditor

    model = GPTNeoXForCausalLM(GPTNeoXConfig(vocab_size=64, hidden_size=32, num_hidden_layers=1,
                                             num_attention_heads=4, intermediate_size=64))
    with pytest.raises(UnsupportedArchitecture, match="'gpt_neox'.*supported: gpt2, gptj, llama, mistral, qwen2") as err:
        WeightEditor(model, None, "rome")
    assert isinstance(err.value, ConfigError)


def test_causal_trace_measures_each_layer(fact_llama):
    from knowforge.models.editing import causal_trace, choose_layers

    model, tokenizer, pairs, _ = fact_llama
    traces = [causal_trace(model, tokenizer, TEMPLATE, s, o, samples=4, site="last") for s, o in pairs[:4]]
    for trace in traces:
        assert len(trace.restored) == 2 and trace.clean > 0.5
        assert all(0.0 <= p <= 1.0 for p in (trace.corrupted, *trace.restored))
    assert choose_layers(traces, "rome")[0] in (0, 1)


def test_rome_on_gpt2_writes_through_the_transposed_conv1d(tmp_path):
    from knowforge.models.editing import EditRequest, WeightEditor, default_hparams, weights_digest

    model, tokenizer, pairs = build_fact_model("gpt2", hidden=128, layers=2, epochs=30, batch_tokens=512, lr=3e-3)
    base = answers(model, tokenizer, pairs)
    weight = model.transformer.h[0].mlp.c_proj.weight
    assert weight.shape == (512, 128)            # Conv1D: (in, out)
    editor = WeightEditor(model, tokenizer, "rome", hparams=default_hparams("rome", model),
                          stats_corpus=training_texts(pairs), cache_dir=tmp_path)
    digest = weights_digest(model)
    flipped = 0
    for i in (0, 5, 10, 15):
        subject, city = pairs[i]
        if base[i] != city:
            continue
        target = _new_city(city, i)
        editor.apply([EditRequest(TEMPLATE, subject, target)])
        flipped += answers(model, tokenizer, [pairs[i]])[0] == target
        editor.restore()
    assert flipped >= 3
    assert weights_digest(model) == digest
