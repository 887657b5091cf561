"""``models.items_io``: a line read by pydantic in one pass gives the item the two-step reading
(``json.loads``, then ``model_validate``) gives, and a line it refuses gets the two-step
reading's error, naming the file and line."""

from __future__ import annotations

import json

import pytest

from knowforge.errors import InputError
from knowforge.models.items_io import read_items
from knowforge.models.types import BenchmarkItem

GOOD = [
    {"id": "a", "benchmark": "b", "task": "t", "form": "generation", "question": "Who?", "answers": ["X"]},
    # non-ASCII, escapes, nested metadata, floats and big integers, a float answer_index
    {"id": "é\u2603", "benchmark": "b", "task": "t", "form": "multi-choice", "question": "Pick \"one\"\n",
     "choices": ["a", "b"], "answer_index": 1.0, "metadata": {"x": [1.5, 1e-7, 12345678901234567890, None],
                                                               "y": {"z": True}},
     "slices": {"year": 2001, "relation": "P1"}, "version": "1"},
    {"id": "c", "benchmark": "b", "task": "t", "form": "boolean", "question": "Q", "answers": ["yes"],
     "few_shot": [{"question": "q", "answer": "a"}], "fact_ids": ["f1"], "unknown": False},
]


def test_each_line_reads_as_the_two_step_reading_reads_it(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=k % 2 == 0) for k, x in enumerate(GOOD)) + "\n\n",
                    encoding="utf-8")
    assert read_items(path) == [BenchmarkItem.model_validate(json.loads(json.dumps(x))) for x in GOOD]


@pytest.mark.parametrize("line, message", [
    ("{not json", r"line 2\b.*not valid JSON \(Expecting property name enclosed in double quotes at column 2\)"),
    ("[1, 2]", r"line 2\b.*expected a JSON object"),
    (json.dumps({**GOOD[0], "id": "v", "version": "99"}), r"line 2\b.*item schema version '99' is not supported"),
    (json.dumps({**GOOD[0], "id": "v", "version": 2}), r"line 2\b.*item schema version '2' is not supported"),
    (json.dumps({**GOOD[0], "id": "v", "form": "essay"}), r"line 2\b.*not a benchmark item: form: "),
    (json.dumps({**GOOD[0], "id": "v", "extra": 1}), r"line 2\b.*not a benchmark item: extra: Extra inputs"),
    (json.dumps(GOOD[0]), r"line 2\b.*duplicate item id 'a'"),
])
def test_a_refused_line_gets_the_two_step_readings_error(tmp_path, line, message):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(GOOD[0]) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_items(path)
