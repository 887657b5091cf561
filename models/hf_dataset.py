"""Any benchmark's items as a Hugging Face dataset, written with the ``datasets`` library.

The same shape for every method, so one loader reads them all::

    datasets.load_dataset("exports/knowgen-demo-hf")            # the folder (its card names the file)
    datasets.load_dataset("parquet", data_files="exports/.../data/test.parquet")

Columns: the ``BenchmarkItem`` fields, with ``few_shot``, ``slices`` and ``metadata`` as JSON
text (their keys differ between methods, and Arrow needs one type per column), plus one
``slice_<key>`` column per slice key so a user can filter without parsing JSON.
``row_to_item`` turns a row back into the item, exactly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .types import BenchmarkItem

DATA_FILE = "data/test.parquet"
_SCALARS = (bool, int, float, str)


def _slice_columns(items: Sequence[BenchmarkItem]) -> dict[str, str]:
    """slice key -> Arrow-friendly kind ("bool", "int", "float", "str" or "json")."""
    kinds: dict[str, set[type]] = {}
    for item in items:
        for key, value in item.slices.items():
            kinds.setdefault(key, set())
            if value is not None:
                kinds[key].add(type(value))
    out = {}
    for key, types in sorted(kinds.items()):
        if types <= {int} or types <= {bool} or types <= {str}:
            out[key] = next(iter(types)).__name__ if types else "str"
        elif types <= {int, float}:
            out[key] = "float"
        else:
            out[key] = "json"
    return out


def _slice_value(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == "json":
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    if kind == "float":
        return float(value)
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def item_rows(items: Sequence[BenchmarkItem]) -> list[dict[str, Any]]:
    columns = _slice_columns(items)
    rows = []
    for item in items:
        row = {"id": item.id, "version": item.version, "benchmark": item.benchmark, "task": item.task,
               "form": item.form, "question": item.question, "context": item.context,
               "choices": list(item.choices), "answers": list(item.answers),
               "answer_index": item.answer_index, "unknown": item.unknown, "scorer": item.scorer,
               "few_shot_json": _dumps(item.few_shot), "fact_ids": list(item.fact_ids),
               "entity_ids": list(item.entity_ids), "slices_json": _dumps(item.slices),
               "metadata_json": _dumps(item.metadata)}
        for key, kind in columns.items():
            row[f"slice_{key}"] = _slice_value(item.slices.get(key), kind)
        rows.append(row)
    return rows


def row_to_item(row: Mapping[str, Any]) -> BenchmarkItem:
    """The item a row was made from (``datasets`` gives lists for sequences, None for nulls)."""
    return BenchmarkItem(
        version=row["version"], id=row["id"], benchmark=row["benchmark"], task=row["task"],
        form=row["form"], question=row["question"], context=row["context"],
        choices=list(row["choices"] or []), answers=list(row["answers"] or []),
        answer_index=row["answer_index"], unknown=bool(row["unknown"]), scorer=row["scorer"],
        few_shot=json.loads(row["few_shot_json"]), fact_ids=list(row["fact_ids"] or []),
        entity_ids=list(row["entity_ids"] or []), slices=json.loads(row["slices_json"]),
        metadata=json.loads(row["metadata_json"]))


def _features():
    from datasets import Sequence as HFSequence
    from datasets import Value

    kinds = {"bool": Value("bool"), "int": Value("int64"), "float": Value("float64"), "str": Value("string"),
             "json": Value("string")}
    fixed = {"id": Value("string"), "version": Value("string"), "benchmark": Value("string"),
             "task": Value("string"), "form": Value("string"), "question": Value("string"),
             "context": Value("string"), "choices": HFSequence(Value("string")),
             "answers": HFSequence(Value("string")), "answer_index": Value("int64"),
             "unknown": Value("bool"), "scorer": Value("string"), "few_shot_json": Value("string"),
             "fact_ids": HFSequence(Value("string")), "entity_ids": HFSequence(Value("string")),
             "slices_json": Value("string"), "metadata_json": Value("string")}
    return fixed, kinds


def write_hf_dataset(items: Sequence[BenchmarkItem], out: Path, *, card: str) -> list[Path]:
    """``out/data/test.parquet`` and ``out/README.md`` (the dataset card); returns both."""
    import datasets
    from datasets import Dataset, Features

    datasets.disable_progress_bars()   # knowforge shows its own progress
    rows = item_rows(items)
    fixed, kinds = _features()
    columns = _slice_columns(items)
    features = Features({**fixed, **{f"slice_{k}": kinds[kind] for k, kind in columns.items()}})
    data = out / DATA_FILE
    data.parent.mkdir(parents=True, exist_ok=True)
    Dataset.from_list(rows, features=features).to_parquet(str(data))
    readme = out / "README.md"
    readme.write_text(card, encoding="utf-8")
    return [data, readme]


def dataset_card(*, pretty_name: str, licence: str, description: str, provenance: Mapping[str, Any],
                 statistics: Mapping[str, Mapping[str, int]], tags: Sequence[str] = ()) -> str:
    """A dataset card: YAML header (licence, configs) and a body with provenance and statistics."""
    import yaml

    header = {"pretty_name": pretty_name, "license": _hf_licence(licence), "language": ["en"],
              "tags": ["knowforge", *tags],
              "configs": [{"config_name": "default", "data_files": [{"split": "test", "path": DATA_FILE}]}]}
    lines = ["---", yaml.safe_dump(header, sort_keys=False).rstrip(), "---", "", f"# {pretty_name}", "",
             description.strip(), "", f"Licence: {licence}.", "", "## Provenance", ""]
    lines += [f"- {k}: `{v}`" for k, v in provenance.items()]
    lines += ["", "## Statistics", ""]
    for title, counts in statistics.items():
        lines.append(f"- {title}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    lines += ["", "## Loading", "", "```python", "import datasets",
              'ds = datasets.load_dataset("<this folder>", split="test")',
              "from knowforge.models.hf_dataset import row_to_item",
              "item = row_to_item(ds[0])   # the BenchmarkItem, exactly", "```", "",
              "Columns: the item fields; `few_shot_json`, `slices_json` and `metadata_json` hold "
              "JSON; `slice_<key>` columns repeat each slice for filtering.", ""]
    return "\n".join(lines)


def _hf_licence(licence: str) -> str:
    known = {"CC BY 4.0": "cc-by-4.0", "CC BY-NC-SA 4.0": "cc-by-nc-sa-4.0", "CC BY-SA 4.0": "cc-by-sa-4.0",
             "MIT": "mit", "Apache-2.0": "apache-2.0"}
    return known.get(licence, "other")
