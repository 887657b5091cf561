"""The unit table of ``wikidata_vocab.json``: currency units resolve to the right labels and
agree with the bundled Wikidata sample wherever both name the same QID."""

from __future__ import annotations

import json
from pathlib import Path

from knowforge.kg.loaders.wikidata_common import vocabulary
from knowforge.kg.loaders.wikidata_json import WikidataDocParser

SAMPLE = Path(__file__).resolve().parents[1] / "kg" / "samples" / "wikidata" / "entities.json"


def quantity_doc(unit_qid: str) -> dict:
    snak = {"snaktype": "value", "property": "P1082", "datatype": "quantity",
            "datavalue": {"type": "quantity", "value": {
                "amount": "+1500", "unit": f"http://www.wikidata.org/entity/{unit_qid}"}}}
    return {"type": "item", "id": "Q17", "labels": {"en": {"language": "en", "value": "Japan"}},
            "claims": {"P1082": [{"id": "Q17$u1", "rank": "normal", "mainsnak": snak}]}}


def test_currency_units_resolve_to_their_labels():
    parser = WikidataDocParser(["P1082"])
    units = {qid: parser.parse(quantity_doc(qid)).facts[0].unit for qid in ("Q8146", "Q39099", "Q4917")}
    assert units == {"Q8146": "Japanese yen", "Q39099": "renminbi", "Q4917": "United States dollar"}


def test_unit_labels_agree_with_the_sample():
    units = vocabulary().units
    checked = 0
    with SAMPLE.open(encoding="utf-8") as f:
        for line in f:
            line = line.strip().rstrip(",")
            if line in ("", "[", "]"):
                continue
            doc = json.loads(line)
            if doc.get("id") in units:
                assert doc["labels"]["en"]["value"] == units[doc["id"]], doc["id"]
                checked += 1
    assert checked >= 6  # kilogram and five currencies are in the sample
