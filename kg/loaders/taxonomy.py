"""Taxonomy for KnowGen: NCBI Taxonomy ``names.dmp``/``nodes.dmp`` plus EOL-style
``pages.csv``/``traits.csv`` (TraitBank layout).

- ``names.dmp`` → one ``Taxon`` entity per tax id (scientific name, common names as aliases);
  it is sorted by tax id, so only the current taxon is held in memory.
- ``nodes.dmp`` → ``rank`` and ``parent_id`` on the entity, and a ``P171`` (parent taxon)
  relation fact, so "the siblings of X" is one lookup on ``parent_id``.
- ``pages.csv`` joins EOL pages to NCBI taxa (a page with ``ncbi_tax_id`` is ``ncbi:<id>``,
  otherwise ``eol:<page_id>``). The page → entity map is the one thing held in memory
  (one short string per page).
- ``traits.csv``: ``measurement`` + ``units`` → attribute fact with ``value_num`` and
  ``unit``; ``literal`` → attribute fact; ``object_page_id`` → relation fact between taxa.
  The relation id is the predicate in snake_case (``is eaten by`` → ``is_eaten_by``).
  Both CSVs are read by the ``csv`` module as the lines stream in, so quoted fields may span
  lines; problems name the line a row starts on.
"""

from __future__ import annotations

import csv
import logging
import math
from collections.abc import Iterable, Iterator
from pathlib import Path

from knowforge.errors import InputError
from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, PendingRecord,
                                       RecordProgress, TruncatedInput, iter_lines, read_text_lines, snake,
                                       split_camel, unreadable_reason)
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store

log = logging.getLogger(__name__)

SOURCE = "taxonomy"
DOMAIN = "biology"
NODES_COLUMNS = 13
NAMES_COLUMNS = 4
PAGES_COLUMNS = ("page_id", "canonical_name", "rank", "ncbi_tax_id")
TRAITS_COLUMNS = ("eol_pk", "page_id", "scientific_name", "predicate", "object_page_id",
                  "value_uri", "measurement", "units", "literal", "source")
ALIAS_CLASSES = ("common name", "genbank common name", "synonym", "equivalent name",
                 "genbank synonym")


def ncbi_id(tax_id: str) -> str:
    return f"ncbi:{tax_id}"


def load_taxonomy(store: Store, paths: Iterable[str | Path], *, strict: bool = False,
                  progress: RecordProgress | None = None,
                  batch_size: int = DEFAULT_BATCH_SIZE) -> LoadReport:
    """Load a taxonomy folder (or the named files): names.dmp, nodes.dmp, pages.csv, traits.csv."""
    ctx = LoadContext(store, SOURCE, strict=strict, progress=progress, batch_size=batch_size)
    files = _taxonomy_files(paths)
    if not files:
        raise InputError("no names.dmp, nodes.dmp, pages.csv or traits.csv found", path=", ".join(map(str, paths)))
    if "names.dmp" in files:
        _load_names(ctx, files["names.dmp"])
    if "nodes.dmp" in files:
        _load_nodes(ctx, files["nodes.dmp"])
    pages: dict[str, str] = {}
    if "pages.csv" in files:
        pages = _load_pages(ctx, files["pages.csv"])
    if "traits.csv" in files:
        _load_traits(ctx, files["traits.csv"], pages)
    return ctx.finish()


def _taxonomy_files(paths: Iterable[str | Path]) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for p in map(Path, paths):
        if not p.exists():
            raise InputError("no such file or directory", path=str(p))
        for f in ([p / n for n in ("names.dmp", "nodes.dmp", "pages.csv", "traits.csv")]
                  if p.is_dir() else [p]):
            if f.is_file() and f.name in ("names.dmp", "nodes.dmp", "pages.csv", "traits.csv"):
                out[f.name] = f
    return out


def _dmp_rows(ctx: LoadContext, path: Path, columns: int) -> Iterator[tuple[int, list[str]]]:
    ctx.report.files.append(str(path))
    for lineno, line in read_text_lines(ctx, path):
        if not line:
            continue
        ctx.read()
        if not line.endswith("\t|"):
            ctx.skip("bad_dmp_row", "a .dmp row must end with '\\t|'", path=path, line=lineno)
            continue
        fields = line[:-2].split("\t|\t")
        if len(fields) != columns:
            ctx.skip("wrong_column_count", f"{path.name} row has {len(fields)} columns, "
                     f"expected {columns}", path=path, line=lineno)
            continue
        yield lineno, [f.strip() for f in fields]


def _load_names(ctx: LoadContext, path: Path) -> None:
    current: str | None = None
    first_line: int | None = None
    scientific: str | None = None
    aliases: list[str] = []

    def emit() -> None:
        if current is None:
            return
        if scientific is None:
            ctx.skip("no_scientific_name", f"taxon {current} has no scientific name", path=path,
                     line=first_line)
            return
        with ctx.record(path, first_line) as out:
            out.entity(EntityRecord(
                id=ncbi_id(current), name=scientific, labels=("Taxon",),
                aliases=tuple(dict.fromkeys(a for a in aliases if a != scientific)),
                domain=DOMAIN, source=SOURCE, source_file=path.name,
                extra={"tax_id": current, "scientific_name": scientific}))

    for lineno, (tax_id, name, _unique, name_class) in _dmp_rows(ctx, path, NAMES_COLUMNS):
        if not tax_id.isdigit():
            ctx.skip("bad_tax_id", f"a tax id is a number, not {tax_id!r}", path=path, line=lineno)
            continue
        if not name:
            ctx.skip("empty_field", f"taxon {tax_id}: the name is empty", path=path, line=lineno)
            continue
        if tax_id != current:
            emit()
            current, first_line, scientific, aliases = tax_id, lineno, None, []
        if name_class == "scientific name":
            scientific = name
        elif name_class in ALIAS_CLASSES:
            aliases.append(name)
        else:
            ctx.drop("name_class_not_kept")
    emit()


def _load_nodes(ctx: LoadContext, path: Path) -> None:
    with ctx.record(path) as out:
        out.relation(RelationRecord(id="P171", label="parent taxon", source=SOURCE))
    for lineno, row in _dmp_rows(ctx, path, NODES_COLUMNS):
        tax_id, parent, rank, division = row[0], row[1], row[2], row[4]
        if not tax_id.isdigit() or not parent.isdigit():
            ctx.skip("bad_tax_id", f"tax ids must be numbers: {tax_id!r}, {parent!r}", path=path,
                     line=lineno)
            continue
        with ctx.record(path, lineno) as out:
            out.row("loaders/set_taxon_nodes",
                    {"id": ncbi_id(tax_id), "tax_id": tax_id, "rank": rank,
                     "parent_id": ncbi_id(parent) if parent != tax_id else None,
                     "division": division}, ncbi_id(tax_id))
            if parent != tax_id:  # the root is its own parent in nodes.dmp
                out.fact(FactRecord(subject_id=ncbi_id(tax_id), relation="P171",
                                    object_id=ncbi_id(parent), source=SOURCE,
                                    relation_label="parent taxon", source_file=path.name))


def _csv_rows(ctx: LoadContext, path: Path, columns: tuple[str, ...]) -> Iterator[tuple[int, dict]]:
    """Rows of a (possibly compressed) CSV as ``(first line of the row, {column: value})``.

    The ``csv`` module reads the decoded lines as they stream in, so a quoted field may hold
    newlines and memory stays constant. A row is located by the physical line it starts on
    (``line_num`` of the reader before the row was read, plus one).
    """
    ctx.report.files.append(str(path))
    bad_lines: set[int] = set()
    reader = csv.reader(_csv_text_lines(ctx, path, bad_lines))
    header: list[str] | None = None
    while True:
        first_line = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            bad_lines.difference_update([n for n in bad_lines if n <= reader.line_num])
            ctx.skip("bad_csv_row", f"not a CSV row: {exc}", path=path, line=first_line)
            continue
        if bad_lines:
            # The row holds a line that was not UTF-8 (already reported as bad_encoding).
            spoiled = [n for n in bad_lines if n <= reader.line_num]
            if spoiled:
                bad_lines.difference_update(spoiled)
                continue
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue
        if header is None:
            header = [h.strip() for h in fields]
            missing = [c for c in columns if c not in header]
            if missing:
                raise InputError(f"CSV header lacks columns {', '.join(missing)} "
                                 f"(expected {','.join(columns)})", path=str(path), line=first_line)
            continue
        ctx.read()
        if len(fields) != len(header):
            ctx.skip("wrong_column_count", f"row has {len(fields)} columns, header has "
                     f"{len(header)}", path=path, line=first_line)
            continue
        yield first_line, dict(zip(header, (f.strip() for f in fields)))


def _csv_text_lines(ctx: LoadContext, path: Path, bad_lines: set[int]) -> Iterator[str]:
    """Every physical line, newline kept, so the csv reader's ``line_num`` equals the file's
    line number. A line that is not UTF-8 is reported, its number noted in ``bad_lines`` and
    passed on decoded with replacement characters (dropping it would shift ``line_num``)."""
    try:
        for lineno, raw in iter_lines(path):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                ctx.skip("bad_encoding", f"not UTF-8: {exc}", path=path, line=lineno)
                bad_lines.add(lineno)
                line = raw.decode("utf-8", errors="replace")
            yield line.rstrip("\r") + "\n"
    except TruncatedInput as exc:
        ctx.fail_file(unreadable_reason(exc), str(exc), path=path, line=exc.line)


def _load_pages(ctx: LoadContext, path: Path) -> dict[str, str]:
    pages: dict[str, str] = {}
    for lineno, row in _csv_rows(ctx, path, PAGES_COLUMNS):
        if not row["page_id"]:
            ctx.skip("empty_field", "the page_id column is empty", path=path, line=lineno)
            continue
        if row["ncbi_tax_id"] and not row["ncbi_tax_id"].isdigit():
            ctx.skip("bad_tax_id", f"ncbi_tax_id is a number, not {row['ncbi_tax_id']!r}",
                     path=path, line=lineno)
            continue
        if not row["canonical_name"]:
            ctx.skip("empty_field", f"page {row['page_id']}: the canonical_name column is empty",
                     path=path, line=lineno)
            continue
        eid = ncbi_id(row["ncbi_tax_id"]) if row["ncbi_tax_id"] else f"eol:{row['page_id']}"
        with ctx.record(path, lineno) as out:
            out.row("loaders/link_eol_pages",
                    {"id": eid, "page_id": row["page_id"], "name": row["canonical_name"],
                     "rank": row["rank"] or None}, eid)
        if not out.refused:
            pages[row["page_id"]] = eid
    return pages


def _load_traits(ctx: LoadContext, path: Path, pages: dict[str, str]) -> None:
    predicates: dict[str, str] = {}
    for lineno, row in _csv_rows(ctx, path, TRAITS_COLUMNS):
        with ctx.record(path, lineno) as out:
            _read_trait(out, path, row, pages, predicates)
    for relation, label in sorted(predicates.items()):
        with ctx.record(path) as out:
            out.relation(RelationRecord(id=relation, label=label, source=SOURCE))


def _read_trait(out: PendingRecord, path: Path, row: dict, pages: dict[str, str],
                predicates: dict[str, str]) -> None:
    """One traits.csv row → its fact, or the reason it is refused."""
    if not row["page_id"]:
        out.refuse("empty_field", "the page_id column is empty")
        return
    subject = pages.get(row["page_id"], f"eol:{row['page_id']}")
    predicate = row["predicate"]
    if not predicate:
        out.refuse("no_predicate", "trait without a predicate")
        return
    relation = snake(predicate)
    if not out.claim_id(relation, split_camel(predicate)):
        return
    predicates[relation] = predicate
    common = {"subject_id": subject, "relation": relation, "source": SOURCE,
              "relation_label": predicate, "subject_name": row["scientific_name"] or None,
              "source_file": path.name,
              "extra": {k: v for k, v in (("eol_pk", row["eol_pk"]),
                                          ("trait_source", row["source"]),
                                          ("value_uri", row["value_uri"])) if v}}
    if row["object_page_id"]:
        target = pages.get(row["object_page_id"], f"eol:{row['object_page_id']}")
        out.fact(FactRecord(object_id=target, **common))
    elif row["measurement"]:
        try:
            number = float(row["measurement"])
        except ValueError:
            number = None
        if number is None or not math.isfinite(number):
            out.refuse("bad_measurement", f"measurement {row['measurement']!r} is not a finite number")
            return
        out.fact(FactRecord(value=row["measurement"], value_num=number, datatype="quantity",
                            unit=row["units"] or None, **common))
    elif row["literal"] or row["value_uri"]:
        out.fact(FactRecord(value=row["literal"] or row["value_uri"], datatype="string", **common))
    else:
        out.refuse("no_trait_value", "trait has no object page, measurement or literal")
