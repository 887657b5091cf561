"""Any benchmark's items as a Hugging Face dataset, written with the ``datasets`` library.

The same shape for every method, so one loader reads them all::

    datasets.load_dataset("exports/knowgen-demo-hf")            # the folder (its card names the file)
    datasets.load_dataset("parquet", data_files="exports/.../data/test.parquet")

Columns: the ``BenchmarkItem`` fields, with ``few_shot``, ``slices`` and ``metadata`` as JSON
text (their keys differ between methods, and Arrow needs one type per column), plus one
``slice_<key>`` column per slice key so a user can filter without parsing JSON.
``row_to_item`` turns a row back into the item, exactly (tests/test_exports_hf.py checks it on
every method's export read with ``datasets.load_dataset``).

The dataset card (README.md) carries what the Hub shows and a reader needs: licence, size and
task categories, the parquet config, provenance (benchmark, seed, source-graph hash, knowforge
version, git revision), the generation parameters, counts by task, form, gold "unknown" and the
method's report slices, and the columns. Same items, same bytes: parquet and card are
deterministic.
"""

from __future__ import annotations

import json
from collections import Counter
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


def dataset_statistics(items: Sequence[BenchmarkItem], slices: Sequence[str] = (),
                       max_values: int = 30) -> dict[str, dict[str, int]]:
    """Counts for the card: items by task and by form, gold "unknown", and by each of ``slices``
    that has at most ``max_values`` values (a per-entity slice would be a wall of ones)."""
    stats = {"items by task": dict(Counter(i.task for i in items)),
             "items by form": dict(Counter(i.form for i in items)),
             "gold answer": {"unknown": sum(i.unknown for i in items),
                             "known": sum(not i.unknown for i in items)}}
    for key in slices:
        counts = Counter(str(i.slices[key]) for i in items if key in i.slices)
        if 0 < len(counts) <= max_values:
            stats[f"items by {key}"] = dict(counts)
    return stats


def dataset_card(*, pretty_name: str, licence: str, description: str, provenance: Mapping[str, Any],
                 statistics: Mapping[str, Mapping[str, int]], tags: Sequence[str] = (),
                 params: Mapping[str, Any] | None = None, items: Sequence[BenchmarkItem] = ()) -> str:
    """A dataset card: YAML header (licence, size, task categories, the parquet config) and a body
    with provenance, generation parameters, statistics, the columns and how to load it."""
    import yaml

    header: dict[str, Any] = {"pretty_name": pretty_name, "license": _hf_licence(licence)}
    if header["license"] == "other":
        header["license_name"] = licence
    header |= {"language": ["en"], "size_categories": [_size_category(len(items))],
               "task_categories": _task_categories(items), "tags": ["knowforge", *tags],
               "configs": [{"config_name": "default", "data_files": [{"split": "test", "path": DATA_FILE}]}]}
    lines = ["---", yaml.safe_dump(header, sort_keys=False, allow_unicode=True).rstrip(), "---", "",
             f"# {pretty_name}", "", description.strip(), "", f"Licence: {licence}.", "", "## Provenance", ""]
    lines += [f"- {k}: `{v}`" for k, v in provenance.items() if v is not None]
    if params:
        lines += ["", "Generation parameters:", "", "```json",
                  json.dumps(params, indent=2, sort_keys=True, ensure_ascii=False, default=str), "```"]
    lines += ["", "## Statistics", "", f"{len(items)} items, one split (`test`).", ""]
    for title, counts in statistics.items():
        lines.append(f"- {title}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    lines += ["", "## Columns", "", "| column | type | meaning |", "|---|---|---|"]
    lines += [f"| `{name}` | {kind} | {meaning} |" for name, kind, meaning in _COLUMN_DOCS]
    slice_columns = _slice_columns(items)
    if slice_columns:
        lines.append("| " + ", ".join(f"`slice_{k}`" for k in slice_columns)
                     + " | per column | one slice each, repeated from `slices_json` for filtering |")
    lines += ["", "## Loading", "", "```python", "import datasets",
              'ds = datasets.load_dataset("<this folder>", split="test")',
              "from knowforge.models.hf_dataset import row_to_item",
              "item = row_to_item(ds[0])   # the BenchmarkItem, exactly", "```", "",
              "This folder is the Hub's layout (parquet files and this card): `load_dataset` reads it, "
              "`datasets.load_from_disk` does not (it reads only `save_to_disk`'s Arrow layout; "
              '`datasets.load_dataset("<this folder>", split="test").save_to_disk(DIR)` makes one).', ""]
    return "\n".join(lines)


_COLUMN_DOCS = (
    ("id", "string", "stable item id"),
    ("version", "string", "item schema version"),
    ("benchmark", "string", "`method:name` of the benchmark in the graph"),
    ("task", "string", "the knowforge task (`method/TASK`)"),
    ("form", "string", "generation, fill-in-blank, boolean, multi-choice or true-false"),
    ("question", "string", "the question"),
    ("context", "string", "a passage given with the question, or null"),
    ("choices", "list of string", "options of a multiple-choice item"),
    ("answers", "list of string", "every acceptable answer (aliases too)"),
    ("answer_index", "int", "gold option of a multiple-choice item, or null"),
    ("unknown", "bool", "the gold answer is \"unknown\""),
    ("scorer", "string", "the knowforge scorer of the item"),
    ("few_shot_json", "string (JSON)", "the item's own exemplars: [{question, answer}]"),
    ("fact_ids", "list of string", "ids of the graph facts the item tests"),
    ("entity_ids", "list of string", "ids of the graph entities it is about"),
    ("slices_json", "string (JSON)", "slice key → value (relation, year, hop count, ...)"),
    ("metadata_json", "string (JSON)", "method-specific details"),
)


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"


def _task_categories(items: Sequence[BenchmarkItem]) -> list[str]:
    forms = {i.form for i in items}
    out = []
    if forms & {"multi-choice", "boolean", "true-false"}:
        out.append("multiple-choice")
    if forms & {"generation", "fill-in-blank"}:
        out.append("question-answering")
    return out or ["question-answering"]


def _hf_licence(licence: str) -> str:
    known = {"CC BY 4.0": "cc-by-4.0", "CC BY-NC-SA 4.0": "cc-by-nc-sa-4.0", "CC BY-SA 4.0": "cc-by-sa-4.0",
             "MIT": "mit", "Apache-2.0": "apache-2.0"}
    return known.get(licence, "other")
