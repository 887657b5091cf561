"""Write a synthetic Wikidata JSON dump (``latest-all.json`` layout) for the parser benchmark.

Entity documents look like the real ones: English and other-language labels, descriptions
and aliases, sitelinks, and claims of the default allow-list (and some that are not on it)
with ranks, references-free statements, time/quantity/string/item values and P580/P582/P585
qualifiers at day/month/year precision. Deterministic for a given seed.

    python benchmarks/make_wikidata_dump.py /tmp/dump.json --lines 1000000
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
import zlib
from pathlib import Path

ITEM_PROPS = ["P39", "P54", "P108", "P69", "P463", "P27", "P19", "P106", "P102", "P26", "P551",
              "P17", "P131", "P910", "P1343", "P135"]  # the last three are not allow-listed
LANGS = ["en", "de", "fr", "es", "it", "ja", "ru"]


def _time(rng: random.Random) -> dict:
    precision = rng.choice((9, 10, 11, 11, 11))
    year = rng.randint(1900, 2024)
    month = rng.randint(1, 12) if precision >= 10 else 0
    day = rng.randint(1, 28) if precision >= 11 else 0
    return {"time": f"+{year:04d}-{month:02d}-{day:02d}T00:00:00Z", "timezone": 0, "before": 0,
            "after": 0, "precision": precision, "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}


def _snak(pid: str, datatype: str, datavalue: dict) -> dict:
    return {"snaktype": "value", "property": pid, "hash": f"{zlib.crc32(pid.encode()):040x}",
            "datatype": datatype, "datavalue": datavalue}


def _statement(qid: str, pid: str, rng: random.Random, *, datatype: str = "wikibase-item") -> dict:
    if datatype == "wikibase-item":
        target = rng.randint(1, 5_000_000)
        value = {"value": {"entity-type": "item", "numeric-id": target, "id": f"Q{target}"},
                 "type": "wikibase-entityid"}
    elif datatype == "time":
        value = {"value": _time(rng), "type": "time"}
    elif datatype == "quantity":
        value = {"value": {"amount": f"+{rng.randint(1, 10**9)}", "unit": "1"}, "type": "quantity"}
    else:
        value = {"value": str(rng.randint(1, 99)), "type": "string"}
    st = {"mainsnak": _snak(pid, datatype, value), "type": "statement",
          "id": f"{qid}${uuid.UUID(int=rng.getrandbits(128))}".upper(),
          "rank": rng.choices(("normal", "preferred", "deprecated"), (90, 8, 2))[0]}
    if datatype == "wikibase-item" and rng.random() < 0.6:
        qualifiers = {"P580": [_snak("P580", "time", {"value": _time(rng), "type": "time"})]}
        if rng.random() < 0.6:
            qualifiers["P582"] = [_snak("P582", "time", {"value": _time(rng), "type": "time"})]
        if rng.random() < 0.1:
            qualifiers["P585"] = [_snak("P585", "time", {"value": _time(rng), "type": "time"})]
        st["qualifiers"] = qualifiers
        st["qualifiers-order"] = list(qualifiers)
    return st


def entity_document(i: int, rng: random.Random) -> dict:
    qid = f"Q{i + 1}"
    langs = rng.sample(LANGS, rng.randint(1, 3))
    if "en" not in langs:
        langs.append("en")
    claims: dict[str, list] = {"P31": [_statement(qid, "P31", rng)]}
    for pid in rng.sample(ITEM_PROPS, rng.randint(1, 6)):
        claims[pid] = [_statement(qid, pid, rng) for _ in range(rng.randint(1, 2))]
    claims["P569"] = [_statement(qid, "P569", rng, datatype="time")]
    if rng.random() < 0.3:
        claims["P1082"] = [_statement(qid, "P1082", rng, datatype="quantity")]
    if rng.random() < 0.3:
        claims["P1618"] = [_statement(qid, "P1618", rng, datatype="string")]
    return {
        "type": "item", "id": qid,
        "labels": {lang: {"language": lang, "value": f"Entity {i} ({lang})"} for lang in langs},
        "descriptions": {lang: {"language": lang, "value": f"synthetic entity number {i}"} for lang in langs},
        "aliases": {"en": [{"language": "en", "value": f"E{i} alias {k}"} for k in range(rng.randint(0, 3))]},
        "claims": claims,
        "sitelinks": {f"{lang}wiki": {"site": f"{lang}wiki", "title": f"Entity {i}", "badges": []}
                      for lang in langs[: rng.randint(0, len(langs))]},
        "lastrevid": 1_000_000 + i,
    }


def write_dump(path: Path, lines: int, seed: int = 0) -> Path:
    """``lines`` entity documents between ``[`` and ``]`` (so the file has lines + 2 lines)."""
    rng = random.Random(f"{seed}:synthetic-wikidata")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("[\n")
        for i in range(lines):
            fh.write(json.dumps(entity_document(i, rng), separators=(",", ":"), ensure_ascii=False))
            fh.write(",\n" if i < lines - 1 else "\n")
        fh.write("]\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    write_dump(args.path, args.lines, args.seed)
    print(f"wrote {args.lines:,} entity documents ({args.path.stat().st_size / 1e6:,.1f} MB) to {args.path}")


if __name__ == "__main__":
    main()
