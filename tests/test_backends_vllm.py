"""The vLLM backend. Runs only where ``vllm`` imports and a CUDA GPU is present; skipped elsewhere."""

from __future__ import annotations

import pytest

pytest.importorskip("vllm")
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("the vllm backend needs a CUDA GPU", allow_module_level=True)

from knowforge.models.types import GenerationRequest, LoglikelihoodRequest  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.slow]


@pytest.fixture(scope="module")
def gpu_tiny_model(tmp_path_factory):
    from knowforge.models.tiny_model import build_tiny_model

    # head size 64 (256 / 4 heads): attention kernels on GPU do not take the CPU model's 16.
    return build_tiny_model(tmp_path_factory.mktemp("vllm-tiny") / "model", seed=0, hidden_size=256)


@pytest.fixture(scope="module")
def vllm_backend(gpu_tiny_model):
    from knowforge.models.backends.vllm_backend import VLLMBackend

    return VLLMBackend(str(gpu_tiny_model), dtype="float32", gpu_memory_utilization=0.3, enforce_eager=True)


@pytest.fixture(scope="module")
def hf_backend(gpu_tiny_model):
    from knowforge.models.backends.hf import HFBackend

    return HFBackend(str(gpu_tiny_model), device="cuda", dtype="float32")


def test_greedy_is_deterministic_and_matches_hf(vllm_backend, hf_backend):
    requests = [GenerationRequest(prompt=p, max_tokens=8) for p in ["A B", "In 1999, Ada Lovelace", "Answer:"]]
    first, second = vllm_backend.generate(requests), vllm_backend.generate(requests)
    assert [r.texts for r in first] == [r.texts for r in second]
    assert [r.texts for r in first] == [r.texts for r in hf_backend.generate(requests)]


def test_seeded_samples_do_not_depend_on_n(vllm_backend):
    request = GenerationRequest(prompt="The city of", temperature=1.0, n=4, seed=3, max_tokens=8)
    four = vllm_backend.generate([request])[0].texts
    assert vllm_backend.generate([request])[0].texts == four
    from dataclasses import replace

    assert vllm_backend.generate([replace(request, n=2, sample_offset=2)])[0].texts == four[2:]
    assert vllm_backend.generate([replace(request, seed=4)])[0].texts != four


def test_chat_uses_the_tokenizer_template(vllm_backend):
    messages = (("user", "Where is Paris?"),)
    assert vllm_backend.prompt_ids(GenerationRequest(messages=messages))[-1] == \
        vllm_backend.tokenizer.convert_tokens_to_ids("<|assistant|>")
    assert len(vllm_backend.generate([GenerationRequest(messages=messages, max_tokens=4)])[0].texts) == 1


def test_loglikelihood_matches_hf(vllm_backend, hf_backend):
    requests = [LoglikelihoodRequest("The capital of France is", " Paris"), LoglikelihoodRequest("A B", " C D")]
    for ours, reference in zip(vllm_backend.loglikelihood(requests), hf_backend.loglikelihood(requests), strict=True):
        assert ours.total == pytest.approx(sum(ours.token_logprobs))
        assert ours.token_logprobs == pytest.approx(reference.token_logprobs, abs=1e-3)
        assert ours.is_greedy == reference.is_greedy
