"""The transformers backend on a tiny random llama built in the test session (no download)."""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import replace

import pytest

from knowforge.errors import BackendError
from knowforge.models.types import Backend, GenerationRequest, LoglikelihoodRequest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

pytestmark = pytest.mark.hf

PROMPTS = ["Question: Where was Marie Curie born? Answer:", "A B", "In 1999, Ada Lovelace",
           "True or false: the club Ajax plays for London.", "Which option is right? (A) France (B) Berlin"]
LL_PAIRS = [("Question: Where was Paris born? Answer:", " France"), ("A B", " C D"),
            ("In 1999, the company Acme", " was founded in Germany."), ("Q: Is it true?", " Yes"),
            ("", "Paris is located in France."), ("Answer: ", "B")]


@pytest.fixture(scope="module")
def batched(tiny_model_dir):
    from knowforge.models.backends.hf import HFBackend

    return HFBackend(str(tiny_model_dir), device="cpu", batch_size=4)


@pytest.fixture(scope="module")
def single(tiny_model_dir):
    from knowforge.models.backends.hf import HFBackend

    return HFBackend(str(tiny_model_dir), device="cpu", batch_size=1)


def test_backend_follows_the_protocol(batched):
    assert isinstance(batched, Backend)
    assert batched.name == "hf"
    assert {"generate", "chat", "loglikelihood", "seed"} <= batched.capabilities
    assert batched.revision.startswith("sha256:")


def test_tiny_model_is_deterministic_under_its_seed(tiny_model_dir, tmp_path):
    from knowforge.models.tiny_model import build_tiny_model

    again = build_tiny_model(tmp_path / "again", seed=0)
    other = build_tiny_model(tmp_path / "other", seed=1)
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        assert (again / name).read_bytes() == (tiny_model_dir / name).read_bytes()
    assert (other / "model.safetensors").read_bytes() != (tiny_model_dir / "model.safetensors").read_bytes()


def test_tokenizer_covers_answer_letters_and_digits(batched):
    tok = batched.tokenizer
    for text in ["Answer: B", "(A) (B) (C) (D)", "1999", "0 1 2 3 4 5 6 7 8 9"]:
        ids = tok(text, add_special_tokens=False).input_ids
        assert tok.unk_token_id not in ids
        assert tok.decode(ids) == text


def test_greedy_is_deterministic(batched, tiny_model_dir):
    from knowforge.models.backends.hf import HFBackend

    requests = [GenerationRequest(prompt=p, max_tokens=10) for p in PROMPTS]
    first = batched.generate(requests)
    second = batched.generate(requests)
    fresh = HFBackend(str(tiny_model_dir), device="cpu", batch_size=3).generate(requests)
    assert [r.texts for r in first] == [r.texts for r in second] == [r.texts for r in fresh]
    assert all(len(r.texts) == 1 and r.texts[0] for r in first)
    assert all(r.finish_reasons == ("length",) for r in first)


def test_greedy_with_n_returns_n_identical_samples(batched):
    result = batched.generate([GenerationRequest(prompt="A B", n=3, max_tokens=6)])[0]
    assert len(result.texts) == 3 and len(set(result.texts)) == 1


def test_seeded_sampling_is_reproducible(batched, single):
    def sample(backend, seed, n=4, offset=0):
        request = GenerationRequest(prompt="The city of", temperature=1.0, top_p=0.95, n=n, seed=seed,
                                    max_tokens=12, sample_offset=offset)
        return backend.generate([request])[0].texts

    same_a, same_b = sample(batched, 7), sample(batched, 7)
    assert same_a == same_b
    assert len(set(same_a)) > 1, "the n samples of one request differ from each other"
    assert sample(batched, 8) != same_a
    # Sample i does not depend on n, on the offset it was asked from or on batching.
    assert sample(batched, 7, n=2, offset=2) == same_a[2:]
    assert sample(single, 7) == same_a


def test_unseeded_sampling_draws_fresh_samples(batched):
    request = GenerationRequest(prompt="The city of", temperature=1.5, n=6, max_tokens=12)
    assert len(set(batched.generate([request])[0].texts + batched.generate([request])[0].texts)) > 1


def test_batched_and_one_by_one_agree(batched, single):
    requests = [GenerationRequest(prompt=p, max_tokens=8 + i) for i, p in enumerate(PROMPTS)]
    assert [r.texts for r in batched.generate(requests)] == [r.texts for r in single.generate(requests)]
    ll_requests = [LoglikelihoodRequest(c, x) for c, x in LL_PAIRS]
    for a, b in zip(batched.loglikelihood(ll_requests), single.loglikelihood(ll_requests), strict=True):
        assert a.total == pytest.approx(b.total, abs=1e-4)
        assert len(a.token_logprobs) == len(b.token_logprobs)
        assert all(x == pytest.approx(y, abs=1e-4) for x, y in zip(a.token_logprobs, b.token_logprobs))
        assert a.is_greedy == b.is_greedy


def test_loglikelihood_matches_a_manual_forward_pass(batched):
    requests = [LoglikelihoodRequest(c, x) for c, x in LL_PAIRS]
    results = batched.loglikelihood(requests)
    for request, result in zip(requests, results, strict=True):
        ctx, cont = batched.encode_pair(request.context, request.continuation)
        assert len(result.token_logprobs) == len(cont) > 0
        assert result.total == pytest.approx(sum(result.token_logprobs), abs=1e-9)
        with torch.no_grad():
            logits = batched.lm(torch.tensor([ctx + cont])).logits[0].float()
        logprobs = torch.log_softmax(logits, dim=-1)
        manual = [float(logprobs[len(ctx) - 1 + i, token]) for i, token in enumerate(cont)]
        assert result.token_logprobs == pytest.approx(manual, abs=1e-4)
        greedy = all(int(logprobs[len(ctx) - 1 + i].argmax()) == t for i, t in enumerate(cont))
        assert result.is_greedy is greedy
        assert result.total < 0


def test_options_after_one_context_share_a_row_and_match_a_manual_forward_pass(batched):
    # A multiple-choice question scored by likelihood: one-token options after the same context
    # are read from one row (the context once), beside a longer option and another question; each
    # log-probability equals the one of its own forward pass over the whole sequence.
    context = "Which option is right? (A) France (B) Berlin (C) Rome (D) Oslo\nAnswer:"
    options = [" A", " B", " C", " D"]
    requests = [LoglikelihoodRequest(context, o) for o in options]
    assert all(len(batched.encode_pair(context, o)[1]) == 1 for o in options)
    requests += [LoglikelihoodRequest(context, " France and Berlin"), LoglikelihoodRequest("A B", " C D")]
    results = batched.loglikelihood(requests)
    for request, result in zip(requests, results, strict=True):
        ctx, cont = batched.encode_pair(request.context, request.continuation)
        with torch.no_grad():
            logprobs = torch.log_softmax(batched.lm(torch.tensor([ctx + cont])).logits[0].float(), dim=-1)
        manual = [float(logprobs[len(ctx) - 1 + i, token]) for i, token in enumerate(cont)]
        assert result.token_logprobs == pytest.approx(manual, abs=1e-4)
        assert result.is_greedy is all(int(logprobs[len(ctx) - 1 + i].argmax()) == t for i, t in enumerate(cont))
    # the four options are four different numbers, not one row's first answer copied
    assert len({r.total for r in results[:4]}) == 4


def test_greedy_continuation_has_is_greedy_true(batched):
    # A random byte-level model may pick half a UTF-8 character; use contexts whose greedy
    # tokens survive a decode/encode round trip (deterministic for the seed-0 tiny model).
    checked = 0
    for context in PROMPTS + [c for c, _ in LL_PAIRS if c]:
        ids = batched.tokenizer(context).input_ids
        greedy_ids: list[int] = []
        with torch.no_grad():
            for _ in range(3):
                logits = batched.lm(torch.tensor([ids + greedy_ids])).logits[0, -1]
                greedy_ids.append(int(logits.argmax()))
        continuation = batched.tokenizer.decode(greedy_ids)
        if batched.encode_pair(context, continuation)[1] != greedy_ids:
            continue
        result = batched.loglikelihood([LoglikelihoodRequest(context, continuation)])[0]
        assert result.is_greedy is True
        assert len(result.token_logprobs) == 3
        checked += 1
    assert checked >= 1


def test_chat_messages_use_the_tokenizer_template(batched):
    messages = (("system", "Be brief."), ("user", "Where is Paris?"))
    rendered = batched.format_chat(messages)
    assert rendered == "<s><|system|>Be brief.</s><|user|>Where is Paris?</s><|assistant|>"
    ids = batched.prompt_ids(GenerationRequest(messages=messages))
    tok = batched.tokenizer
    assert ids[0] == tok.bos_token_id and ids.count(tok.bos_token_id) == 1
    assert tok.convert_tokens_to_ids("<|assistant|>") == ids[-1]
    chat = batched.generate([GenerationRequest(messages=messages, max_tokens=6)])[0]
    as_prompt = batched.generate([GenerationRequest(prompt=rendered[len("<s>"):], max_tokens=6)])[0]
    assert chat.texts == as_prompt.texts


def test_missing_chat_template_falls_back_with_a_warning(tiny_model_dir, tmp_path, caplog):
    from knowforge.models.backends.hf import HFBackend

    plain = tmp_path / "no-template"
    shutil.copytree(tiny_model_dir, plain)
    (plain / "chat_template.jinja").unlink(missing_ok=True)
    config = json.loads((plain / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (plain / "tokenizer_config.json").write_text(json.dumps(config))
    backend = HFBackend(str(plain), device="cpu")
    with caplog.at_level(logging.WARNING):
        rendered = backend.format_chat((("user", "Hi"),))
        result = backend.generate([GenerationRequest(messages=(("user", "Hi"),), max_tokens=3)])[0]
    assert rendered == "user: Hi\nassistant:"
    assert any("no chat template" in r.message for r in caplog.records)
    assert len(result.texts) == 1


def test_stop_strings_cut_the_text(batched):
    prompt = "Question: Where was Marie Curie born? Answer:"
    full = batched.generate([GenerationRequest(prompt=prompt, max_tokens=16)])[0]
    text = full.texts[0]
    stop_at = next(i for i, ch in enumerate(text) if i > 0 and ch.isascii() and ch.isalnum())
    stop = text[stop_at]
    cut = batched.generate([GenerationRequest(prompt=prompt, max_tokens=16, stop=(stop, "never-there"))])[0]
    assert cut.texts[0] == text[:text.index(stop)]
    assert cut.finish_reasons == ("stop",)
    assert full.finish_reasons == ("length",)


def test_zero_max_tokens_and_bad_parameters(batched):
    result = batched.generate([GenerationRequest(prompt="A", max_tokens=0)])[0]
    assert result.texts == ("",) and result.finish_reasons == ("length",)
    with pytest.raises(BackendError, match="top_p"):
        batched.generate([GenerationRequest(prompt="A", temperature=1.0, top_p=0.0, seed=1)])


def test_unloadable_model_is_a_backend_error(tmp_path):
    from knowforge.errors import ConfigError
    from knowforge.models.backends.hf import HFBackend

    with pytest.raises(ConfigError, match="missing-model: the folder does not exist"):
        HFBackend(str(tmp_path / "missing-model"), device="cpu")
    broken = tmp_path / "broken-model"
    broken.mkdir()
    (broken / "config.json").write_text("{}")
    with pytest.raises(BackendError, match="cannot load hf model"):
        HFBackend(str(broken), device="cpu")


def test_cached_hf_tops_up_samples_and_resumes(tiny_model_dir, tmp_path):
    from knowforge.models.backends import CachedBackend, make_backend
    from knowforge.eval.types import EvalOptions

    options = EvalOptions(backend="hf", model=str(tiny_model_dir), device="cpu", cache_dir=tmp_path,
                          batch_size=4)
    first = make_backend(options)
    assert isinstance(first, CachedBackend) and first.revision.startswith("sha256:")
    request = GenerationRequest(prompt="The city of", temperature=1.0, n=3, seed=11, max_tokens=8)
    three = first.generate([request])[0]
    five = first.generate([replace(request, n=5)])[0]
    assert five.cached == (True, True, True, False, False) and five.texts[:3] == three.texts
    direct = make_backend(options.but(cache=False)).generate([replace(request, n=5)])[0]
    assert direct.texts == five.texts
    ll = [LoglikelihoodRequest(c, x) for c, x in LL_PAIRS]
    scored = first.loglikelihood(ll)
    again = make_backend(options)
    assert [r.total for r in again.loglikelihood(ll)] == [r.total for r in scored]
    assert again.generate([replace(request, n=5)])[0].texts == five.texts
    assert again.backend_calls == 0 and again.cache.stats.hit_rate == 1.0

