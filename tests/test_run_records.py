"""The typed records (eval/records.py): report.json's published JSON Schema is current, the
engine's run keys are reserved, the scoring mode is a closed set. No graph needed: the
reports written by the eval tests are validated by ``write_report`` itself."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from knowforge.errors import ConfigError
from knowforge.eval.records import ENGINE_KEYS, Report, RunRecord, check_solver_extra
from knowforge.eval.tasks import record_output
from knowforge.eval.types import EvalOptions, SampleResult
from knowforge.eval.unit import SolverOutput
from knowforge.models.types import BenchmarkItem

ROOT = Path(__file__).resolve().parent.parent


def test_the_published_report_schema_is_current():
    spec = importlib.util.spec_from_file_location("report_schema", ROOT / "scripts" / "report_schema.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    published = (ROOT / "docs" / "report.schema.json").read_text(encoding="utf-8")
    assert published == module.schema_text(), "run: python scripts/report_schema.py"
    schema = json.loads(published)
    assert schema["$defs"]["ReportScoring"]["properties"]["mode"]["enum"] == ["knowforge", "official", "unrecorded"]
    assert schema["$defs"]["RunRecord"]["properties"]["scoring"]["anyOf"][0]["enum"] == ["knowforge", "official"]
    assert {"run", "overall", "by_task", "uncertainty"} <= set(schema["required"])


def test_a_solver_cannot_overwrite_an_engine_key(tmp_path):
    assert {"accuracy", "samples", "scoring", "model"} <= ENGINE_KEYS
    check_solver_extra("mine", {"mine_rate": 0.5})
    with pytest.raises(ConfigError, match="solver 'mine' returns run properties accuracy, samples"):
        check_solver_extra("mine", {"samples": 3, "accuracy": 1.0, "mine_rate": 0.5})
    # the engine refuses it before anything is recorded (no graph is touched: store is None)
    item = BenchmarkItem(id="q", benchmark="b", task="b/t", form="generation", question="?", answers=["a"])
    output = SolverOutput(items=[item], samples=[SampleResult("q", 0, "a", "a", 1.0)], run_extra={"accuracy": 0.0})
    with pytest.raises(ConfigError, match="returns run properties accuracy"):
        record_output(None, EvalOptions(model="m", out_dir=tmp_path), output, benchmark="b", name="b:x")


def test_records_are_typed():
    properties = {"id": "r1", "scoring": "official", "accuracy": 0.5, "mine_rate": 0.25}
    run = RunRecord.from_properties(properties)
    assert run.scoring == "official" and run.accuracy == 0.5 and run.extra == {"mine_rate": 0.25}
    assert run.properties() == properties          # the node's properties again
    with pytest.raises(ValidationError, match="mine_rate"):
        RunRecord.model_validate(properties)       # a solver's key is never a field of its own
    assert "extra" in ENGINE_KEYS                  # nor may a solver name one "extra"
    with pytest.raises(ValidationError):
        RunRecord.model_validate({"id": "r1", "scoring": "offical"})
    with pytest.raises(ValidationError, match="unknown scoring mode"):
        EvalOptions(model="m", scoring="offical")
    with pytest.raises(ValidationError, match="surprise"):
        Report.model_validate({"surprise": 1})
