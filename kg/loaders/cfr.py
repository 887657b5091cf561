"""Code of Federal Regulations: one eCFR/GPO-style XML file per annual edition of a title/part
(``<year>/title-<T>-part-<P>.xml``), paragraphs stored as versioned text.

Each ``<P>`` of a section (``DIV8``) is one ``LegalProvision`` entity
(``cfr:<title>/<part>/<section>/<a>/<1>``: the section number plus the paragraph's label path).
Each distinct text of a paragraph is one attribute fact ``text`` with ``seen_in`` = the
edition years it appears in. Between adjacent editions the changed paragraphs are diffed
word by word (difflib); the newer version fact records ``changed_from`` (the previous text),
``change_old``/``change_new`` (the differing spans), ``change_year`` and ``small_change``
(a changed span of at most ``SMALL_CHANGE_WORDS`` words on each side, the changes
ChroKnowBench keeps). For small changes ``blank_text`` is the text with the span replaced by
``____``: the same cloze for both years, answered ``change_old`` before and ``change_new``
after.
"""

from __future__ import annotations

import difflib
import logging
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from knowforge.errors import InputError
from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, PendingRecord,
                                       RecordProgress)
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store

log = logging.getLogger(__name__)

SOURCE = "cfr"
DOMAIN = "legal"
SMALL_CHANGE_WORDS = 5
_FILE = re.compile(r"title-(\w+)-part-([\w.]+)\.xml$", re.I)
_LABEL = re.compile(r"^\(([A-Za-z0-9]{1,6})\)")
_ROMAN = re.compile(r"^(?=[ivxlc])(c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Paragraph:
    key: str           # cfr:<title>/<part>/<section>/<label path>
    name: str          # "14 CFR 107.51(a)(1)"
    section: str
    heading: str | None
    text: str
    path: str = ""     # the edition file it was read from (where a problem is reported)


def load_cfr(store: Store, paths: Iterable[str | Path], *, strict: bool = False,
             progress: RecordProgress | None = None,
             batch_size: int = DEFAULT_BATCH_SIZE) -> LoadReport:
    """Load CFR editions. ``paths``: a folder of ``<year>/`` folders, year folders, or files."""
    ctx = LoadContext(store, SOURCE, strict=strict, progress=progress, batch_size=batch_size)
    groups = _group_files(paths)
    with ctx.record() as out:
        out.relation(RelationRecord(id="text", label="text", source=SOURCE,
                                    description="the text of a CFR paragraph in an edition"))
    for (_, _), editions in sorted(groups.items()):
        per_year: dict[int, dict[str, Paragraph]] = {}
        for year, path in sorted(editions):
            ctx.report.files.append(str(path))
            paragraphs = _parse_file(ctx, path)
            if paragraphs is not None:
                per_year[year] = paragraphs
        _emit_part(ctx, per_year)
    return ctx.finish()


def _group_files(paths: Iterable[str | Path]) -> dict[tuple[str, str], list[tuple[int, Path]]]:
    groups: dict[tuple[str, str], list[tuple[int, Path]]] = defaultdict(list)
    for p in map(Path, paths):
        if not p.exists():
            raise InputError("no such file or directory", path=str(p))
        files = sorted(p.rglob("*.xml")) if p.is_dir() else [p]
        for f in files:
            year = _year_of(f)
            m = _FILE.search(f.name)
            if year is None or m is None:
                raise InputError("expected <year>/title-<T>-part-<P>.xml", path=str(f))
            groups[(m.group(1), m.group(2))].append((year, f))
    return groups


def _year_of(path: Path) -> int | None:
    for part in (path.parent.name, path.stem):
        m = re.search(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)", part)
        if m:
            return int(m.group(1))
    return None


def _parse_file(ctx: LoadContext, path: Path) -> dict[str, Paragraph] | None:
    """Paragraphs of one edition, or None (reported) when the XML does not parse.

    A file that breaks off is dropped whole: half an edition would look like deleted paragraphs.
    """
    m = _FILE.search(path.name)
    title, part = m.group(1), m.group(2)
    out: dict[str, Paragraph] = {}
    try:
        for event, elem in ET.iterparse(path, events=("start", "end")):
            if event == "start":
                if elem.get("TYPE") == "TITLE" and elem.get("N"):
                    title = elem.get("N")
                elif elem.get("TYPE") == "PART" and elem.get("N"):
                    part = elem.get("N")
                continue
            if elem.tag == "DIV8" or elem.get("TYPE") == "SECTION":
                for para in _section_paragraphs(elem, title, part, path):
                    ctx.read()
                    if para.key in out:
                        ctx.skip("duplicate_paragraph", f"paragraph {para.name} appears twice",
                                 path=path)
                        continue
                    out[para.key] = para
                elem.clear()
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        ctx.fail_file("xml_parse_error", f"XML does not parse: {exc}", path=path, line=line)
        return None
    return out


def _section_paragraphs(section: ET.Element, title: str, part: str, path: Path):
    number = section.get("N") or ""
    head = section.find("HEAD")
    heading = _text(head) if head is not None else None
    labels: list[str] = []
    for index, p in enumerate(section.iter("P"), 1):
        text = _text(p)
        if not text:
            continue
        m = _LABEL.match(text)
        if m:
            labels = _label_path(labels, m.group(1))
            path_labels = list(labels)
        else:
            path_labels = [f"p{index}"]
        key = f"cfr:{title}/{part}/{number}/" + "/".join(path_labels)
        name = f"{title} CFR {number}" + "".join(f"({x})" for x in path_labels if not x.startswith("p"))
        if path_labels[0].startswith("p"):
            name += f" ¶{index}"
        yield Paragraph(key=key, name=name, section=number, heading=heading, text=text, path=str(path))


def _label_path(current: list[str], label: str) -> list[str]:
    """Where a paragraph label sits in the CFR outline: (a) → (1) → (i) → (A)."""
    if label.isdigit():
        level = 1
    elif label.isupper():
        level = 3
    elif _ROMAN.match(label) and len(current) >= 2:
        level = 2  # (i) under (a)(1) is roman; a lone (i) at the top is a letter
    else:
        level = 0
    return current[:level] + [label] if len(current) >= level else current + [label]


def _text(elem: ET.Element) -> str:
    return _SPACE.sub(" ", "".join(elem.itertext())).strip()


# Words keep inner punctuation ("0.5", "107.65", "(IU)", "400-foot"); a trailing . , ; : is
# its own token, so a changed sentence end does not count as a changed word.
_TOKEN = re.compile(r"[^\s.,;:]+(?:[.,;:][^\s.,;:]+)*|[.,;:]")


def describe_change(old: str, new: str) -> dict:
    """The word-level difference between two versions of a paragraph.

    The changed span runs from the first to the last differing token (equal words in between
    are part of it). A pure insertion or deletion is anchored on the word before it, so both
    years have a non-empty answer ("size and prominence" → "size and of equal prominence"
    is the change "and" → "and of equal"). The spans are cut from the texts by character
    offsets, so ``blank_text`` keeps the paragraph's own spacing.
    """
    a = [m.span() for m in _TOKEN.finditer(old)]
    b = [m.span() for m in _TOKEN.finditer(new)]
    ops = [op for op in difflib.SequenceMatcher(None, [old[x:y] for x, y in a],
                                                [new[x:y] for x, y in b], autojunk=False).get_opcodes()
           if op[0] != "equal"]
    change: dict = {"changed_from": old, "small_change": False}
    if not ops:
        return change
    i1, i2, j1, j2 = ops[0][1], ops[-1][2], ops[0][3], ops[-1][4]
    if i1 == i2 or j1 == j2:
        if i1 > 0 and j1 > 0:
            i1, j1 = i1 - 1, j1 - 1
        elif i2 < len(a) and j2 < len(b):
            i2, j2 = i2 + 1, j2 + 1
    change["change_old"] = old[a[i1][0]:a[i2 - 1][1]] if i2 > i1 else ""
    change["change_new"] = new[b[j1][0]:b[j2 - 1][1]] if j2 > j1 else ""
    # Both answers must hold a word: a change of punctuation alone makes no question.
    if (0 < i2 - i1 <= SMALL_CHANGE_WORDS and 0 < j2 - j1 <= SMALL_CHANGE_WORDS
            and _has_word(change["change_old"]) and _has_word(change["change_new"])):
        change["small_change"] = True
        change["blank_text"] = new[:b[j1][0]] + "____" + new[b[j2 - 1][1]:]
    return change


def _has_word(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _emit_part(ctx: LoadContext, per_year: dict[int, dict[str, Paragraph]]) -> None:
    years = sorted(per_year)
    keys = sorted({k for y in years for k in per_year[y]})
    for key in keys:
        latest = next(per_year[y][key] for y in reversed(years) if key in per_year[y])
        with ctx.record(latest.path) as out:
            _emit_paragraph(out, key, latest, years, per_year)


def _emit_paragraph(out: PendingRecord, key: str, latest: Paragraph, years: list[int],
                    per_year: dict[int, dict[str, Paragraph]]) -> None:
    """One paragraph's entity and a fact per distinct text, with the changes between editions."""
    out.entity(EntityRecord(
        id=key, name=latest.name, labels=("LegalProvision",), description=latest.heading,
        domain=DOMAIN, source=SOURCE, extra={"section": latest.section}))
    versions: dict[str, list[int]] = {}
    changes: dict[str, dict] = {}
    previous: Paragraph | None = None
    for year in years:
        para = per_year[year].get(key)
        if para is not None:
            versions.setdefault(para.text, []).append(year)
            if previous is not None and previous.text != para.text and para.text not in changes:
                changes[para.text] = {**describe_change(previous.text, para.text),
                                      "change_year": year}
        previous = para
    for text, seen in versions.items():
        out.fact(FactRecord(subject_id=key, relation="text", value=text, datatype="string",
                            seen_in=tuple(seen), source=SOURCE, relation_label="text",
                            subject_name=latest.name, extra=changes.get(text)))
