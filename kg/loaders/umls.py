"""UMLS Metathesaurus releases: ``MRCONSO.RRF``, ``MRSTY.RRF`` and ``MRREL.RRF`` per release.

A release directory is named after the release (``2021AA``) and holds the RRF files directly
or under ``META/``. Time comes from the release: a relation seen in 2021AA and 2022AA is one
fact with ``seen_in=[2021, 2022]`` (the store accumulates the years across loads).

Direction: UMLS documents REL/RELA as the relationship of the SECOND concept to the FIRST, so
a row ``C1|..|RO|C2|..|may_treat|..`` states (C2, may_treat, C1); that is what is stored.
MRCONSO is read in CUI order as released, so one concept's strings are consecutive and the
loader keeps only the current concept in memory.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from knowforge.errors import InputError
from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, RecordProgress,
                                       read_text_lines)
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store

log = logging.getLogger(__name__)

SOURCE = "umls"
DOMAIN = "biomedical"
COLUMNS = {"MRCONSO": 18, "MRREL": 16, "MRSTY": 6}
MAX_ALIASES = 50
_RELEASE = re.compile(r"^(\d{4})[A-Z]{2}$")
# The twelve relations of ChroKnowBench's biomedical domain.
CHRONOKNOW_RELAS = ("isa", "inverse_isa", "direct_procedure_site_of", "has_direct_procedure_site",
                    "may_prevent", "may_be_prevented_by", "may_treat", "may_be_treated_by",
                    "induces", "causative_agent_of", "has_mechanism_of_action",
                    "has_physiologic_effect")


def entity_id(cui: str) -> str:
    return f"umls:{cui}"


def release_dirs(paths: Iterable[str | Path]) -> list[tuple[int, str, Path]]:
    """(year, release, directory with the RRF files) for each release named or found under a path."""
    out = []
    for p in map(Path, paths):
        if not p.exists():
            raise InputError("no such file or directory", path=str(p))
        candidates = [p] if _release_of(p) else sorted(c for c in p.iterdir() if c.is_dir() and _release_of(c))
        if not candidates:
            raise InputError("not a UMLS release directory (expected a name like 2021AA holding "
                             "MRCONSO.RRF, or a folder of such directories)", path=str(p))
        for c in candidates:
            rrf = c / "META" if (c / "META").is_dir() else c
            out.append((int(_release_of(c).group(1)), c.name, rrf))
    return sorted(out)


def _release_of(path: Path):
    return _RELEASE.match(path.name)


def load_umls(store: Store, paths: Iterable[str | Path], *, relations: Iterable[str] | None = None,
              strict: bool = False, progress: RecordProgress | None = None,
              batch_size: int = DEFAULT_BATCH_SIZE) -> LoadReport:
    """Load UMLS releases. ``relations`` restricts MRREL to those RELAs (default: every RELA)."""
    ctx = LoadContext(store, SOURCE, strict=strict, progress=progress, batch_size=batch_size)
    keep = frozenset(relations) if relations else None
    seen_relas: set[str] = set()
    for year, release, folder in release_dirs(paths):
        log.info("UMLS release %s (%s)", release, folder)
        for name, reader in (("MRCONSO", _load_concepts), ("MRSTY", _load_semantic_types),
                             ("MRREL", _load_relations)):
            path = folder / f"{name}.RRF"
            if not path.exists():
                ctx.fail_file("missing_file", f"{name}.RRF not found in release {release}", path=path)
                continue
            ctx.report.files.append(str(path))
            reader(ctx, path, year=year, release=release, keep=keep, seen=seen_relas)
    for rela in sorted(seen_relas):
        with ctx.record() as out:
            out.relation(RelationRecord(id=rela, label=rela.replace("_", " "), source=SOURCE))
    return ctx.finish()


def _rows(ctx: LoadContext, path: Path, table: str) -> Iterator[tuple[int, list[str]]]:
    expected = COLUMNS[table]
    for lineno, line in read_text_lines(ctx, path):
        if not line:
            continue
        ctx.read()
        fields = line.split("|")
        # Every RRF row ends with '|', so splitting gives one empty field more than columns.
        if len(fields) != expected + 1 or fields[-1] != "":
            ctx.skip("wrong_column_count",
                     f"{table} row has {len(fields) - 1 if fields[-1] == '' else len(fields)} "
                     f"columns, expected {expected}", path=path, line=lineno)
            continue
        yield lineno, fields[:-1]


def _load_concepts(ctx: LoadContext, path: Path, *, year: int, release: str, **_) -> None:
    current: str | None = None
    first_line: int | None = None
    preferred: str | None = None
    strings: list[str] = []

    def emit() -> None:
        if current is None or not strings:
            return
        with ctx.record(path, first_line) as out:
            name = preferred or strings[0]
            seen = {name.lower()}
            aliases = []
            for s in strings:
                if s.lower() not in seen and len(aliases) < MAX_ALIASES:
                    seen.add(s.lower())
                    aliases.append(s)
            out.entity(EntityRecord(
                id=entity_id(current), name=name, labels=("Concept",), aliases=tuple(aliases),
                domain=DOMAIN, source=SOURCE, source_file=f"{release}/{path.name}",
                extra={"cui": current, "umls_release": release}))

    for lineno, row in _rows(ctx, path, "MRCONSO"):
        cui, lat, ts, stt, ispref, text = row[0], row[1], row[2], row[4], row[6], row[14]
        if not _cui_ok(ctx, path, lineno, cui, "CUI"):
            continue
        if cui != current:
            emit()
            current, first_line, preferred, strings = cui, lineno, None, []
        if lat != "ENG":
            ctx.drop("not_english")
            continue
        if not text.strip():
            ctx.skip("empty_field", f"concept {cui}: an English string (STR) is empty",
                     path=path, line=lineno)
            continue
        if preferred is None and ts == "P" and stt == "PF" and ispref == "Y":
            preferred = text
        strings.append(text)
    emit()


def _cui_ok(ctx: LoadContext, path: Path, lineno: int, cui: str, column: str) -> bool:
    """A row whose concept id is empty names no concept (it would make the entity ``umls:``)."""
    if cui.strip():
        return True
    ctx.skip("missing_cui", f"the {column} column is empty", path=path, line=lineno)
    return False


def _load_semantic_types(ctx: LoadContext, path: Path, **_) -> None:
    current: str | None = None
    first_line: int | None = None
    types: list[str] = []

    def emit() -> None:
        if current is not None and types:
            with ctx.record(path, first_line) as out:
                out.row("loaders/add_semantic_types",
                        {"id": entity_id(current), "types": sorted(set(types))}, entity_id(current))

    for lineno, row in _rows(ctx, path, "MRSTY"):
        if not _cui_ok(ctx, path, lineno, row[0], "CUI"):
            continue
        if not row[3].strip():
            ctx.skip("empty_field", f"concept {row[0]}: the semantic type (STY) is empty",
                     path=path, line=lineno)
            continue
        if row[0] != current:
            emit()
            current, first_line, types = row[0], lineno, []
        types.append(row[3])
    emit()


def _load_relations(ctx: LoadContext, path: Path, *, year: int, release: str,
                    keep: frozenset[str] | None, seen: set[str]) -> None:
    for lineno, row in _rows(ctx, path, "MRREL"):
        cui1, rel, cui2, rela, sab = row[0], row[3], row[4], row[7], row[10]
        if not _cui_ok(ctx, path, lineno, cui1, "CUI1") or not _cui_ok(ctx, path, lineno, cui2, "CUI2"):
            continue
        if not rela:
            ctx.drop("no_rela")
            continue
        if keep is not None and rela not in keep:
            ctx.drop("relation_not_selected")
            continue
        if cui1 == cui2:
            ctx.drop("self_relation")
            continue
        seen.add(rela)
        # REL/RELA is the relationship of CUI2 to CUI1: the subject is the second concept.
        with ctx.record(path, lineno) as out:
            out.fact(FactRecord(
                subject_id=entity_id(cui2), relation=rela, object_id=entity_id(cui1), source=SOURCE,
                seen_in=(year,), relation_label=rela.replace("_", " "),
                source_file=f"{release}/{path.name}", extra={"rel": rel, "sab": sab}))
