"""``--engine-arg KEY=VALUE`` reaches ``vllm.LLM``: the CLI's parsing, the eval options, the
backend config and the keyword arguments the vLLM backend passes to the engine, checked as
pure functions (vLLM itself needs a CUDA GPU; tests/test_backends_vllm.py runs it there)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from knowforge.cli.eval_cmd import parse_engine_args
from knowforge.cli.main import cli
from knowforge.errors import ConfigError
from knowforge.eval.types import EvalOptions
from knowforge.models.backends.vllm_backend import config_llm_kwargs, llm_kwargs
from knowforge.models.items_io import write_items
from knowforge.models.types import BenchmarkItem


def options_of(*pairs: str, **kw) -> EvalOptions:
    """EvalOptions as ``knowforge eval`` builds them from its --engine-arg values."""
    return EvalOptions(backend="vllm", model="org/model", engine_args=parse_engine_args(pairs),
                       **kw)


def test_engine_args_reach_the_engine_kwargs():
    options = options_of("pipeline_parallel_size=2", "data_parallel_size=2", "max_num_seqs=256",
                         "enable_prefix_caching=false", "gpu_memory_utilization=0.85",
                         "distributed_executor_backend=ray", tensor_parallel_size=4, seed=7, revision="r1")
    assert config_llm_kwargs(options) == {
        "model": "org/model", "revision": "r1", "seed": 7, "tensor_parallel_size": 4,
        "pipeline_parallel_size": 2, "data_parallel_size": 2, "max_num_seqs": 256,
        "enable_prefix_caching": False,  # the engine argument overrides knowforge's default
        "gpu_memory_utilization": 0.85, "distributed_executor_backend": "ray"}


def test_defaults_without_engine_args():
    options = EvalOptions(backend="vllm", model="m")   # no --engine-arg at all
    assert config_llm_kwargs(options) == {"model": "m", "revision": None, "tensor_parallel_size": 1,
                                          "enable_prefix_caching": True, "seed": 0}


def test_tensor_parallel_size_from_either_option():
    assert config_llm_kwargs(options_of("tensor_parallel_size=2"))["tensor_parallel_size"] == 2
    assert config_llm_kwargs(options_of("tensor_parallel_size=2", tensor_parallel_size=2))[
        "tensor_parallel_size"] == 2
    with pytest.raises(ConfigError, match="contradicts --tensor-parallel-size 4"):
        config_llm_kwargs(options_of("tensor_parallel_size=2", tensor_parallel_size=4))


@pytest.mark.parametrize("key, option", [("model", "--model"), ("seed", "--seed"), ("revision", "--revision")])
def test_cache_key_fields_come_from_their_own_options(key, option):
    with pytest.raises(ConfigError, match=f"use {option}"):
        llm_kwargs("m", engine_args={key: "x"})


def test_parse_engine_args_reads_json_values():
    assert parse_engine_args(["a=1", "b=true", "c=0.5", "d=text", 'e={"k": [1]}', "f=a=b"]) == \
        {"a": 1, "b": True, "c": 0.5, "d": "text", "e": {"k": [1]}, "f": "a=b"}
    with pytest.raises(ConfigError, match="not KEY=VALUE"):
        parse_engine_args(["novalue"])


def test_cli_engine_arg_is_checked_before_vllm_starts(graph_env, tmp_path):
    """The CLI hands --engine-arg to the backend: a contradiction is a clean error (exit 1)
    raised while the engine's arguments are built, before vLLM would be imported."""
    items = tmp_path / "items.jsonl"
    write_items(items, [BenchmarkItem(id="q1", benchmark="engine-args", task="t/generation", form="generation",
                                      question="Capital of France?", answers=["Paris"])])
    result = CliRunner().invoke(cli, ["eval", "--benchmark", str(items), "--backend", "vllm", "--model", "m",
                                      "--tensor-parallel-size", "4", "--engine-arg", "tensor_parallel_size=2",
                                      "--no-cache", "--out", str(tmp_path / "runs"), "--silent"])
    assert result.exit_code == 1, result.output
    assert "contradicts --tensor-parallel-size 4" in result.output
    assert "Traceback" not in result.output
