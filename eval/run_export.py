"""A recorded run written as the files an official scoring script reads.

``knowforge export run RUN --format NAME --out DIR [-O key=value ...]``: the format is a
``RunExportSpec`` a method's evaluation unit declares (``knowforge methods --solvers`` lists
them with the rest); this module reads the run back from the graph (every answer, the run's
variant answers included) and hands it to the format's writer, so every sample of every
question is written, not only the first.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from knowforge.errors import ConfigError
from knowforge.eval.registry import run_export_spec
from knowforge.eval.results import load_run, run_answers, run_variant_answers
from knowforge.eval.types import describe_validation, parse_key_values
from knowforge.eval.unit import RecordedRun, RecordedSample, RunExport
from knowforge.models.types import BenchmarkItem

log = logging.getLogger(__name__)


def question_item(question: Mapping) -> BenchmarkItem:
    """The ``BenchmarkItem`` of a :Question node: its ``item_json`` (the whole item, as the
    question writer stores it), else rebuilt from the other properties."""
    if question.get("item_json"):
        return BenchmarkItem.model_validate_json(question["item_json"])
    slices = {k[len("slice_"):]: v for k, v in question.items() if k.startswith("slice_")}
    return BenchmarkItem(
        id=question["id"], benchmark=question.get("benchmark") or "", task=question.get("task") or "",
        form=question.get("form") or "generation", question=question.get("text") or "",
        context=question.get("context"), choices=list(question.get("choices") or []),
        answers=list(question.get("answers") or []), answer_index=question.get("answer_index"),
        unknown=bool(question.get("unknown")), scorer=question.get("scorer") or "fuzzy",
        slices=slices, metadata=json.loads(question.get("metadata_json") or "{}"))


def read_recorded_run(store, run_id: str) -> RecordedRun:
    """Every answer of a run (its own, then its variants) with its question."""
    run = load_run(store, run_id)
    items: dict[str, BenchmarkItem] = {}
    samples = []
    for row in [*run_answers(store, run_id), *run_variant_answers(store, run_id)]:
        q, a = row["question"], row["answer"]
        item = items.get(q["id"]) or items.setdefault(q["id"], question_item(q))
        samples.append(RecordedSample(item=item, sample_index=int(a.get("sample_index") or 0), raw=a.get("raw"),
                                      parsed=a.get("parsed"), score=a.get("score"), error=a.get("error"),
                                      variant=a.get("variant")))
    return RecordedRun(run_id=run_id, run=run, samples=samples)


def parse_export_args(pairs: Sequence[str]) -> dict[str, Any]:
    """The ``--option`` pairs as a dict (``parse_key_values``)."""
    return parse_key_values(pairs, "--option")


def export_run(store, run_id: str, out_dir: str | Path, fmt: str, args: Mapping[str, Any] | None = None,
               *, overwrite: bool = False) -> RunExport:
    """Write run ``run_id`` in format ``fmt`` into ``out_dir``.

    The files are written to a staging folder beside ``out_dir`` first and moved in only when
    none of them would replace a file already there (``overwrite`` allows it): two runs exported
    into one folder (NewTerm's 2024 run and its multilingual 2024 run both write
    ``results_2024/*``) silently replaced each other's files."""
    spec = run_export_spec(fmt)
    try:
        parsed = spec.args.model_validate(dict(args or {}))
    except ValidationError as exc:
        raise ConfigError(f"export format {fmt!r}: {describe_validation(exc, 'option')}") from None
    recorded = read_recorded_run(store, run_id)
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.export-", dir=out.parent))
    try:
        export = spec.write(recorded, staging, parsed, store)
        written = sorted(p for p in staging.rglob("*") if p.is_file())
        taken = [p.relative_to(staging) for p in written if (out / p.relative_to(staging)).exists()]
        if taken and not overwrite:
            names = ", ".join(str(out / p) for p in taken[:5]) + (f" and {len(taken) - 5} more" if len(taken) > 5 else "")
            raise ConfigError(f"the export would replace {len(taken)} existing file(s): {names}; nothing was "
                              "written. Choose another --out, or pass --overwrite to replace them")
        for path in written:
            target = out / path.relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
        for name in taken:
            log.warning("replaced %s (--overwrite)", out / name)
        export.files = [out / Path(f).relative_to(staging) if Path(f).is_relative_to(staging) else Path(f)
                        for f in export.files]
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log.info("run %s exported as %s to %s: %d files", run_id, fmt, out_dir, len(export.files))
    return export


__all__ = ["export_run", "parse_export_args", "question_item", "read_recorded_run"]
