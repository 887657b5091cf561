"""CFR loader: versioned paragraphs, small-change detection, broken XML."""

from __future__ import annotations

import pytest

from knowforge.errors import InputError
from knowforge.kg.loaders.cfr import describe_change, load_cfr

PART = """<?xml version="1.0" encoding="UTF-8"?>
<ECFR><DIV1 N="14" TYPE="TITLE"><DIV5 N="107" TYPE="PART">
<HEAD>PART 107—SMALL UNMANNED AIRCRAFT SYSTEMS</HEAD>
<DIV8 N="107.51" TYPE="SECTION">
<HEAD>§ 107.51 Operating limitations for small unmanned aircraft.</HEAD>
<P>(a) The groundspeed of the small unmanned aircraft may not exceed {speed}.</P>
<P>(b) The altitude of the small unmanned aircraft cannot be higher than 400 feet above ground level.</P>
<P>(1) {extra}</P>
</DIV8>
</DIV5></DIV1></ECFR>
"""


def write_editions(root):
    texts = {2019: ("100 miles per hour", "unless flown within a 400-foot radius of a structure."),
             2020: ("100 miles per hour", "unless flown within a 400-foot radius of a structure."),
             2021: ("87 knots", "unless flown within a 400-foot radius of a structure."),
             2022: ("87 knots",
                    "unless the aircraft is flown within a 400-foot radius of a structure and does not "
                    "fly higher than 400 feet above the structure's immediate uppermost limit.")}
    for year, (speed, extra) in texts.items():
        (root / str(year)).mkdir()
        (root / str(year) / "title-14-part-107.xml").write_text(PART.format(speed=speed, extra=extra),
                                                                encoding="utf-8")
    return root


def test_describe_change_small_and_large():
    small = describe_change("may not exceed 100 miles per hour.", "may not exceed 87 knots per hour.")
    assert small["small_change"] and small["change_old"] == "100 miles" and small["change_new"] == "87 knots"
    assert small["blank_text"] == "may not exceed ____ per hour."
    large = describe_change("a b c d e f g h", "a x y z w v u t s r q")
    assert not large["small_change"]


def test_versions_and_changes(store, tmp_path):
    report = load_cfr(store, [write_editions(tmp_path)])
    assert report.errors == 0 and report.records_read == 12
    rows = store.user_query(
        "MATCH (p:LegalProvision {id:'cfr:14/107/107.51/a'})-[:HAS_FACT]->(f:Fact {relation:'text'}) "
        "RETURN f ORDER BY f.first_seen")
    versions = [r["f"] for r in rows]
    assert [v["seen_in"] for v in versions] == [[2019, 2020], [2021, 2022]]
    assert versions[0]["start_year"] == 2019 and versions[0]["end_year"] == 2020
    newer = versions[1]
    assert newer["small_change"] is True and newer["change_year"] == 2021
    assert newer["change_old"] == "100 miles per hour" and newer["change_new"] == "87 knots"
    assert newer["changed_from"] == versions[0]["value"]
    assert newer["blank_text"] == ("(a) The groundspeed of the small unmanned aircraft may not "
                                   "exceed ____.")
    # the nested paragraph (b)(1) gets its own id and a large change is recorded but not small
    nested = store.user_query(
        "MATCH (f:Fact {subject_id:'cfr:14/107/107.51/b/1', relation:'text'}) WHERE f.change_year = 2022 "
        "RETURN f.small_change AS small")
    assert nested == [{"small": False}]
    name = store.user_query("MATCH (p {id:'cfr:14/107/107.51/b/1'}) RETURN p.name AS n, p.domain AS d")
    assert name == [{"n": "14 CFR 107.51(b)(1)", "d": "legal"}]
    # a fill-in-the-blank item whose answer differs by year is one read
    cloze = store.user_query(
        "MATCH (new:Fact {relation:'text', small_change: true}), (old:Fact {relation:'text'}) "
        "WHERE old.subject_id = new.subject_id AND old.value = new.changed_from "
        "RETURN new.blank_text AS q, old.seen_in AS old_years, new.change_old AS old_answer, "
        "new.seen_in AS new_years, new.change_new AS new_answer")
    assert len(cloze) == 1 and cloze[0]["old_years"] == [2019, 2020] and cloze[0]["new_answer"] == "87 knots"


def test_reload_changes_nothing(store, tmp_path):
    root = write_editions(tmp_path)
    load_cfr(store, [root])
    q = "MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r, sum(size(keys(n))) AS p"
    before = store.user_query(q)
    load_cfr(store, [root])
    assert store.user_query(q) == before


def test_xml_that_does_not_parse(store, tmp_path):
    root = write_editions(tmp_path)
    broken = root / "2020" / "title-14-part-107.xml"
    broken.write_text(broken.read_text().replace("</DIV8>", "</DIV9>"), encoding="utf-8")
    report = load_cfr(store, [root])
    problem = [p for p in report.problems if p.reason == "xml_parse_error"]
    assert len(problem) == 1 and problem[0].path == str(broken) and problem[0].line == 9
    assert report.errors == 1
    # the other editions are loaded; 2020 is absent rather than half-read
    seen = store.user_query("MATCH (f:Fact {subject_id:'cfr:14/107/107.51/a'}) RETURN f.seen_in AS s ORDER BY s")
    assert seen == [{"s": [2019]}, {"s": [2021, 2022]}]
    with pytest.raises(InputError, match=r"title-14-part-107.xml:line 9"):
        load_cfr(store, [root], strict=True)
