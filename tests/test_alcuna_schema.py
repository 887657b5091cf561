"""The ALCUNA record schema: a valid export passes; each kind of bad record is an InputError
that names the file, the line (or entity and question) and the field."""

from __future__ import annotations

import copy
import json

import pytest

from knowforge.errors import InputError
from knowforge.generators.knowgen.alcuna_schema import validate_alcuna_export


def prop(name="color", values=("red",), kind="attribute"):
    return {"name": name, "type": kind, "values": list(values)}


def meta(aid=-101):
    return {"artificial_entity": {"name": "Zorblat", "id": aid, "rank": "species",
                                  "property": [prop(), prop("size", ["2 m"])]},
            "parent_entity": {"name": "Panthera", "id": -aid, "rank": None,
                              "property": [prop(), prop("size", ["1 m"]), prop("eats", ["meat"], "relation")]},
            "difference": {"extension": [], "variation": [[prop("size", ["1 m"]), prop("size", ["2 m"])]],
                           "heredity": [prop()], "dropout": [prop("eats", ["meat"], "relation")]}}


def question(**changes):
    q = {"question": "What color is Zorblat?", "answers": ["red"], "form": "fill-in-blank",
         "type": "Knowledge Understanding", "meta_data": {"related_property": "color", "difference": "heredity"}}
    q.update(changes)
    return q


def ka():
    return question(type="Knowledge Association", meta_data={
        "related_property": "eats", "difference": "heredity",
        "hop_triplets": [["Zorblat", "eats", "meat"], ["meat", "is", "food"]]})


def write(folder, metas, id2q):
    folder.mkdir(exist_ok=True)
    (folder / "meta_data.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metas), encoding="utf-8")
    (folder / "id2question.json").write_text(json.dumps(id2q, indent=1), encoding="utf-8")


def test_a_valid_export_counts(tmp_path):
    write(tmp_path, [meta(-101), meta(-102)], {"-101": [question(), ka()], "-102": [question(form="boolean",
                                                                                      answers=["yes"])]})
    assert validate_alcuna_export(tmp_path) == {"entities": 2, "questions": 3}


def _bad_meta(change):
    m = meta(-102)
    change(m)
    return m


@pytest.mark.parametrize("change,field", [
    (lambda m: m["artificial_entity"].update(id=102), "artificial_entity.id"),
    (lambda m: m["artificial_entity"].update(id="-102"), "artificial_entity.id"),
    (lambda m: m["artificial_entity"].pop("rank"), "artificial_entity.rank"),
    (lambda m: m["parent_entity"].update(extra=1), "parent_entity.extra"),
    (lambda m: m["parent_entity"]["property"][0].update(values=[]), "parent_entity.property[0].values"),
    (lambda m: m["parent_entity"]["property"][0].update(type="fact"), "parent_entity.property[0].type"),
    (lambda m: m["parent_entity"]["property"][0].update(name=""), "parent_entity.property[0].name"),
    (lambda m: m["difference"].update(variation=[["only-one"]]), "difference.variation[0]"),
    (lambda m: m["difference"].pop("dropout"), "difference.dropout"),
])
def test_bad_meta_line_names_file_line_and_field(tmp_path, change, field):
    write(tmp_path, [meta(-101), _bad_meta(change)], {"-101": [question()]})
    with pytest.raises(InputError) as info:
        validate_alcuna_export(tmp_path)
    assert f"meta_data.jsonl:line 2: field {field}" in str(info.value), str(info.value)
    assert info.value.line == 2 and info.value.path.endswith("meta_data.jsonl")


def test_meta_lines_that_are_not_json_or_repeat_an_id(tmp_path):
    write(tmp_path, [meta(-101)], {})
    with open(tmp_path / "meta_data.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"artificial_entity": \n')
    with pytest.raises(InputError, match=r"meta_data.jsonl:line 2: Invalid JSON"):
        validate_alcuna_export(tmp_path)
    write(tmp_path, [meta(-101), meta(-101)], {})
    with pytest.raises(InputError, match=r"meta_data.jsonl:line 2: duplicate artificial entity id -101"):
        validate_alcuna_export(tmp_path)


@pytest.mark.parametrize("bad,field", [
    (question(form="essay"), "-101[1].form"),
    (question(answers=[]), "-101[1].answers"),
    (question(answers=[7]), "-101[1].answers[0]"),
    (question(question=""), "-101[1].question"),
    (question(meta_data={"related_property": "color", "difference": "mutation"}), "-101[1].meta_data.difference"),
    (question(meta_data={"related_property": "color", "difference": "heredity", "why": 1}), "-101[1].meta_data.why"),
    ({**ka(), "meta_data": {"related_property": "eats", "difference": "heredity",
                            "hop_triplets": [["a", "b", "c"]]}}, "-101[1]"),
    ({**ka(), "meta_data": {"related_property": "eats", "difference": "heredity",
                            "hop_triplets": [["a", "b"], ["c", "d", "e"]]}}, "-101[1].meta_data.hop_triplets[0]"),
])
def test_bad_question_names_entity_index_and_field(tmp_path, bad, field):
    write(tmp_path, [meta(-101)], {"-101": [question(), copy.deepcopy(bad)]})
    with pytest.raises(InputError) as info:
        validate_alcuna_export(tmp_path)
    assert "id2question.json" in str(info.value) and f"field {field}" in str(info.value), str(info.value)


def test_question_file_structure(tmp_path):
    write(tmp_path, [meta(-101)], {"-999": [question()]})
    with pytest.raises(InputError, match=r"entity id -999 is not in meta_data.jsonl"):
        validate_alcuna_export(tmp_path)
    write(tmp_path, [meta(-101)], [question()])
    with pytest.raises(InputError, match=r"id2question.json: Input should be an object"):
        validate_alcuna_export(tmp_path)
    (tmp_path / "id2question.json").write_text('{"-101": [\n{"question": ', encoding="utf-8")
    with pytest.raises(InputError, match=r"id2question.json:line 2: Invalid JSON"):
        validate_alcuna_export(tmp_path)
    (tmp_path / "id2question.json").unlink()
    with pytest.raises(InputError, match=r"id2question.json: missing"):
        validate_alcuna_export(tmp_path)
