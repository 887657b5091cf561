"""Wikidata RDF (rdflib): truthy dumps (``wd:Q76 wdt:P39 wd:Q11696``) and full dumps with the
statement pattern (``wd:Q76 p:P39 s:…``, ``s: ps:P39 wd:Q11696``, ``s: pq:P580 "2009-01-20"``,
``s: pqv:P580 v:`` with ``v: wikibase:timePrecision 11``, ``s: wikibase:rank …``).

Popularity: real dumps put ``wikibase:sitelinks``, ``wikibase:statements`` and
``wikibase:identifiers`` on the entity's *data node*
(``<https://www.wikidata.org/wiki/Special:EntityData/Q42> schema:about wd:Q42``), which the
dumps list just before the entity. They are read from the data node that is about the entity
(``popularity`` = sitelinks; ``statement_count``, ``identifier_count`` on the entity); the
query service's munged form, with the counts on ``wd:Q42`` itself, is read too.

N-Triples (``.nt``, ``.nt.gz``, ``.nt.bz2``) is parsed in chunks of lines with rdflib, so a
dump never sits in memory; a chunk that fails is re-parsed line by line to report the bad
line. Triples are grouped by entity (statement nodes belong to the entity in their name), and
the dumps list an entity's triples together, so only one entity is buffered at a time.
Turtle has no line structure and is parsed whole (use N-Triples for big dumps).
"""

from __future__ import annotations

import bz2
import gzip
import logging
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import rdflib
from rdflib import Literal, URIRef

from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, PendingRecord,
                                       RecordProgress, TruncatedInput, decode_replacing, iter_lines,
                                       unreadable_reason)
from knowforge.kg.loaders.checks import INT64_MAX
from knowforge.kg.loaders.wikidata_common import (ENTITY_URI, TIME_QUALIFIERS, default_properties,
                                                  parse_xsd_time, vocabulary)
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store

log = logging.getLogger(__name__)

SOURCE = "wikidata"
DOMAIN = "general"
CHUNK_LINES = 5000
WDT = "http://www.wikidata.org/prop/direct/"
P = "http://www.wikidata.org/prop/"
PS = "http://www.wikidata.org/prop/statement/"
PQ = "http://www.wikidata.org/prop/qualifier/"
PQV = "http://www.wikidata.org/prop/qualifier/value/"
STATEMENT = "http://www.wikidata.org/entity/statement/"
VALUE = "http://www.wikidata.org/value/"
WIKIBASE = "http://wikiba.se/ontology#"
LABEL_PREDICATES = {"http://www.w3.org/2000/01/rdf-schema#label",
                    "http://www.w3.org/2004/02/skos/core#prefLabel", "http://schema.org/name"}
ALIAS = "http://www.w3.org/2004/02/skos/core#altLabel"
DESCRIPTION = "http://schema.org/description"
SITELINK_COUNT = WIKIBASE + "sitelinks"
# the data node's counts -> the entity property they become
DATA_COUNTS = {WIKIBASE + "sitelinks": "sitelinks", WIKIBASE + "statements": "statement_count",
               WIKIBASE + "identifiers": "identifier_count"}
SCHEMA_ABOUT = "http://schema.org/about"
ENTITY_DATA = "/Special:EntityData/"
_RANKS = {WIKIBASE + "NormalRank": "normal", WIKIBASE + "PreferredRank": "preferred",
          WIKIBASE + "DeprecatedRank": "deprecated"}
_NUMERIC = {"decimal", "integer", "double", "float"}
MAX_VALUE_NODES = 100_000


@dataclass
class _Entity:
    qid: str
    line: int | None = None                                           # its first triple's line
    name: str | None = None
    aliases: list[str] = field(default_factory=list)
    description: str | None = None
    instance_of: set[str] = field(default_factory=set)
    truthy: list[tuple[str, object]] = field(default_factory=list)
    statements: dict[str, dict] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)              # munged: on wd:Q itself
    data_nodes: dict[str, dict] = field(default_factory=dict)         # data node URI -> about, counts


def _entity_key(uri: str) -> str | None:
    if ENTITY_DATA in uri:
        # a data node groups with the entity it is named after (the dumps list it just before)
        local = uri.rsplit(ENTITY_DATA, 1)[1]
        return local if local[:1] in ("Q", "P") and local[1:].isdigit() else None
    if uri.startswith(STATEMENT):
        local = uri[len(STATEMENT):]
        return local.split("-", 1)[0].split("$", 1)[0].upper()
    if uri.startswith(ENTITY_URI):
        local = uri[len(ENTITY_URI):]
        return local if local[:1] in ("Q", "P") and local[1:].isdigit() else None
    return None


class RdfGrouper:
    """Collects the triples of one entity at a time and turns them into records."""

    def __init__(self, ctx: LoadContext, properties: frozenset[str], entities: frozenset[str] | None,
                 source_file: str, path: str | None = None):
        self.ctx = ctx
        self.properties = properties
        self.entities = entities
        self.source_file = source_file
        self.path = path or source_file
        self.vocab = vocabulary()
        self.current: _Entity | None = None
        # wdv: value nodes are shared and written once in a dump; keep a bounded map of precisions.
        self.precisions: dict[str, int] = {}
        self.pending_value_links: list[tuple[str, str, str]] = []
        self.loaded_properties: set[str] = set()

    def add(self, s, p, o, line: int | None = None) -> None:
        s_uri, p_uri = str(s), str(p)
        if s_uri.startswith(VALUE):
            if p_uri == WIKIBASE + "timePrecision":
                try:
                    precision = int(str(o))
                except ValueError:
                    self.ctx.skip("bad_value", f"{s_uri}: timePrecision is not a whole number: {o!s}",
                                  path=self.path, line=line)
                    return
                if len(self.precisions) >= MAX_VALUE_NODES:
                    self.precisions.pop(next(iter(self.precisions)))
                self.precisions[s_uri] = precision
            return
        key = _entity_key(s_uri)
        if key is None or not key.startswith("Q"):
            return
        if self.current is None or self.current.qid != key:
            self.flush()
            self.current = _Entity(key, line)
        ent = self.current
        if ENTITY_DATA in s_uri:
            node = ent.data_nodes.setdefault(s_uri, {"about": None, "counts": {}})
            if p_uri == SCHEMA_ABOUT:
                node["about"] = str(o)
            elif p_uri in DATA_COUNTS:
                self._add_count(node["counts"], p_uri, o, s_uri)
            return
        if s_uri.startswith(STATEMENT):
            st = ent.statements.setdefault(s_uri, {"qualifiers": {}, "qualifier_values": {}})
            if p_uri.startswith(PS):
                st["property"], st["value"] = p_uri[len(PS):], o
            elif p_uri == WIKIBASE + "rank":
                st["rank"] = _RANKS.get(str(o), "normal")
            elif p_uri.startswith(PQV):
                st["qualifier_values"][p_uri[len(PQV):]] = str(o)
            elif p_uri.startswith(PQ):
                st["qualifiers"].setdefault(p_uri[len(PQ):], o)
            return
        if p_uri in LABEL_PREDICATES and _english(o):
            ent.name = ent.name or str(o)
        elif p_uri == ALIAS and _english(o):
            ent.aliases.append(str(o))
        elif p_uri == DESCRIPTION and _english(o):
            ent.description = str(o)
        elif p_uri in DATA_COUNTS:
            self._add_count(ent.counts, p_uri, o, s_uri)
        elif p_uri.startswith(WDT):
            pid = p_uri[len(WDT):]
            if pid == "P31" and str(o).startswith(ENTITY_URI):
                ent.instance_of.add(str(o)[len(ENTITY_URI):])
            if pid in self.properties:
                ent.truthy.append((pid, o))
        elif p_uri.startswith(P) and "/" not in p_uri[len(P):]:
            pid = p_uri[len(P):]
            st = ent.statements.setdefault(str(o), {"qualifiers": {}, "qualifier_values": {}})
            st.setdefault("property", pid)

    def flush(self) -> None:
        ent, self.current = self.current, None
        if ent is None:
            return
        if self.entities is not None and ent.qid not in self.entities:
            self.ctx.drop("not_in_entity_list")
            return
        with self.ctx.record(self.path, ent.line) as out:
            self._records(ent, out)

    def _records(self, ent: _Entity, out: PendingRecord) -> None:
        """The entity and its facts (a value that cannot be read leaves its fact out, reported)."""
        name = ent.name or ent.qid
        labels = tuple(sorted({self.vocab.domain_labels[c] for c in ent.instance_of
                               if c in self.vocab.domain_labels}))
        counts = self._counts(ent)
        sitelinks = counts.pop("sitelinks", None)
        out.entity(EntityRecord(
            id=ent.qid, name=name, labels=labels, aliases=tuple(dict.fromkeys(ent.aliases)),
            description=ent.description, popularity=float(sitelinks) if sitelinks is not None else None,
            domain=DOMAIN, source=SOURCE, source_file=self.source_file, extra=counts or None))
        statement_props = set()
        for uri, st in ent.statements.items():
            pid = st.get("property")
            if pid not in self.properties or "value" not in st:
                continue
            statement_props.add(pid)
            if st.get("rank") == "deprecated":
                self.ctx.drop("deprecated_rank")
                continue
            local = uri.rsplit("/", 1)[-1]
            fact = self._fact(ent.qid, name, pid, st["value"], rank=st.get("rank", "normal"),
                              statement_id=local.replace("-", "$", 1), time=self._times(st, local, out.line),
                              line=out.line)
            if fact is not None:
                out.fact(fact)
        # Truthy triples duplicate best-rank statements; use them only where no statement exists.
        for pid, obj in ent.truthy:
            if pid in statement_props:
                continue
            fact = self._fact(ent.qid, name, pid, obj, rank=None, statement_id=None, time={}, line=out.line)
            if fact is not None:
                out.fact(fact)

    def _add_count(self, counts: dict[str, int], p_uri: str, o, where: str) -> None:
        try:
            count = int(str(o))
        except ValueError:
            count = -1
        if not 0 <= count <= INT64_MAX:
            self.ctx.skip("bad_value", f"{where}: {p_uri.rsplit('#', 1)[-1]} is not a count: {o!s}",
                          path=self.path, line=self.current.line if self.current else None)
            return
        counts[DATA_COUNTS[p_uri]] = count

    def _counts(self, ent: _Entity) -> dict[str, int]:
        """Sitelink, statement and identifier counts of ``ent``: from its data node (the one
        ``schema:about`` the entity), else from the entity itself (munged dumps)."""
        counts = dict(ent.counts)
        target = ENTITY_URI + ent.qid
        for node in ent.data_nodes.values():
            if node["about"] == target:
                counts.update(node["counts"])
            else:
                self.ctx.drop("data_node_about_another_entity" if node["about"] else "data_node_without_about")
        return counts

    def _times(self, st: dict, where: str, line: int | None = None) -> dict:
        out = {}
        for pid, name in TIME_QUALIFIERS.items():
            value = st["qualifiers"].get(pid)
            if value is None:
                continue
            precision = self.precisions.get(st["qualifier_values"].get(pid, ""))
            try:
                text, prec = parse_xsd_time(str(value), precision)
            except ValueError as exc:
                self.ctx.skip("bad_qualifier", f"{where}: {pid} qualifier ignored ({exc})",
                              path=self.path, line=line)
                continue
            out[name], out[f"{name}_precision"] = text, prec
        return out

    def _fact(self, qid, name, pid, obj, *, rank, statement_id, time, line=None) -> FactRecord | None:
        common = dict(subject_id=qid, relation=pid, source=SOURCE, rank=rank,
                      statement_id=statement_id, subject_name=name, source_file=self.source_file,
                      relation_label=self.vocab.property_label(pid), **time)
        self.loaded_properties.add(pid)
        if isinstance(obj, URIRef):
            uri = str(obj)
            if uri.startswith(ENTITY_URI):
                return FactRecord(object_id=uri[len(ENTITY_URI):], **common)
            self.ctx.drop("unknown_datatype")
            return None
        if isinstance(obj, Literal):
            dt = str(obj.datatype).rsplit("#", 1)[-1] if obj.datatype else None
            if dt == "dateTime":
                try:
                    text, prec = parse_xsd_time(str(obj), None)
                except ValueError as exc:
                    self.ctx.skip("bad_value", f"{qid} {pid}: bad date {obj!s} ({exc})", path=self.path,
                                  line=line)
                    return None
                return FactRecord(value=text, datatype="time", extra={"value_precision": prec}, **common)
            if dt in _NUMERIC:
                try:
                    number = float(str(obj))
                except ValueError:
                    number = math.nan
                if not math.isfinite(number):
                    self.ctx.skip("bad_value", f"{qid} {pid}: {obj!s} is not a finite number",
                                  path=self.path, line=line)
                    return None
                return FactRecord(value=str(obj), value_num=number, datatype="quantity", **common)
            return FactRecord(value=str(obj), datatype="string", **common)
        self.ctx.drop("unknown_datatype")
        return None


class _ReferenceCollector(RdfGrouper):
    """First pass of ``--entities``: the QIDs that the listed entities' allow-listed,
    non-deprecated truthy triples and statements point to. Writes nothing."""

    def __init__(self, ctx: LoadContext, properties: frozenset[str], entities: frozenset[str],
                 source_file: str):
        super().__init__(ctx, properties, entities, source_file)
        self.references: set[str] = set()

    def flush(self) -> None:
        ent, self.current = self.current, None
        if ent is None or ent.qid not in self.entities:
            return
        values = [st["value"] for st in ent.statements.values()
                  if st.get("property") in self.properties and "value" in st
                  and st.get("rank") != "deprecated"]
        values.extend(obj for _, obj in ent.truthy)  # truthy only holds allow-listed properties
        for obj in values:
            uri = str(obj)
            if isinstance(obj, URIRef) and uri.startswith(ENTITY_URI):
                qid = uri[len(ENTITY_URI):]
                if qid.startswith("Q"):
                    self.references.add(qid)


def _english(o) -> bool:
    return isinstance(o, Literal) and (o.language or "").lower() in ("en", "")


def load_wikidata_rdf(store: Store, paths: Iterable[str | Path], *,
                      properties: Iterable[str] | None = None,
                      entities: Iterable[str] | None = None, strict: bool = False,
                      progress: RecordProgress | None = None,
                      batch_size: int = DEFAULT_BATCH_SIZE) -> LoadReport:
    """Load N-Triples (streamed) or Turtle (whole file) Wikidata RDF.

    ``entities`` restricts the load to those QIDs plus the items their allow-listed,
    non-deprecated triples and statements point to (depth 1, as the JSON loader; a first pass
    over the files collects them).
    """
    ctx = LoadContext(store, SOURCE, strict=strict, progress=progress, batch_size=batch_size)
    paths = [Path(p) for p in paths]
    props = frozenset(properties) if properties is not None else default_properties()
    wanted = None
    if entities is not None:
        wanted = _with_references(store, paths, frozenset(entities), props)
    loaded: set[str] = set()
    for path in paths:
        ctx.report.files.append(str(path))
        grouper = RdfGrouper(ctx, props, wanted, path.name, str(path))
        for s, p, o, line in _triples(ctx, path):
            grouper.add(s, p, o, line)
        grouper.flush()
        loaded |= grouper.loaded_properties
    vocab = vocabulary()
    for pid in sorted(loaded):
        if vocab.property_label(pid):
            with ctx.record() as out:
                out.relation(RelationRecord(id=pid, label=vocab.property_label(pid), source=SOURCE))
    return ctx.finish()


def _triples(ctx: LoadContext, path: Path) -> Iterator[tuple]:
    name = path.name.lower().removesuffix(".gz").removesuffix(".bz2")
    return _turtle(ctx, path) if name.endswith((".ttl", ".turtle")) else _ntriples(ctx, path)


def _with_references(store: Store, paths: list[Path], entities: frozenset[str],
                     props: frozenset[str]) -> frozenset[str]:
    """First pass: the listed QIDs plus every item they reference.

    Its context is thrown away (never strict, writes nothing): bad lines are counted and
    reported once, by the second pass.
    """
    scratch = LoadContext(store, SOURCE)
    wanted = set(entities)
    for path in paths:
        collector = _ReferenceCollector(scratch, props, entities, path.name)
        for s, p, o, _ in _triples(scratch, path):
            collector.add(s, p, o)
        collector.flush()
        wanted |= collector.references
    return frozenset(wanted)


def _ntriples(ctx: LoadContext, path: Path) -> Iterator[tuple]:
    """Triples of an N-Triples file, parsed a chunk of lines at a time.

    A chunk is only cut where the subject's entity changes, so one entity's triples (and the
    value nodes that follow them) are always parsed together.
    """
    chunk: list[tuple[int, str]] = []
    last_key: str | None = None
    try:
        for lineno, raw in iter_lines(path):
            line = decode_replacing(ctx, raw, path, lineno).strip()
            if not line or line.startswith("#"):
                continue
            key = _line_key(line)
            if len(chunk) >= CHUNK_LINES and key is not None and key != last_key:
                yield from _parse_chunk(ctx, path, chunk)
                chunk = []
            if key is not None:
                last_key = key
            chunk.append((lineno, line))
    except TruncatedInput as exc:
        yield from _parse_chunk(ctx, path, chunk)
        chunk = []
        ctx.fail_file(unreadable_reason(exc), str(exc), path=path, line=exc.line)
    yield from _parse_chunk(ctx, path, chunk)


def _line_key(line: str) -> str | None:
    if not line.startswith("<"):
        return None
    end = line.find(">")
    return _entity_key(line[1:end]) if end > 0 else None


def _parse_chunk(ctx: LoadContext, path: Path, chunk: list[tuple[int, str]]) -> Iterator[tuple]:
    if not chunk:
        return
    ctx.read(len(chunk))
    # A graph is a set: restore the file's entity order (value nodes first, for precisions).
    order: dict[str | None, int] = {None: -1}
    first_line: dict[str | None, int] = {}  # entity -> the line of its first triple here
    for lineno, line in chunk:
        key = _line_key(line)
        order.setdefault(key, len(order))
        first_line.setdefault(key, lineno)
    g = rdflib.Graph()
    try:
        g.parse(data="\n".join(line for _, line in chunk), format="nt")
        triples = list(g)
    except Exception:  # noqa: BLE001 - rdflib raises several types; find the bad line(s)
        triples = []
        for lineno, line in chunk:
            one = rdflib.Graph()
            try:
                one.parse(data=line, format="nt")
            except Exception as exc:  # noqa: BLE001
                ctx.skip("malformed_triple", f"not an N-Triples line: {str(exc).splitlines()[0]}",
                         path=path, line=lineno)
                continue
            triples.extend(one)
    for s, p, o in sorted(triples, key=lambda t: order.get(_entity_key(str(t[0])), len(order))):
        yield s, p, o, first_line.get(_entity_key(str(s)))


def _turtle(ctx: LoadContext, path: Path) -> Iterator[tuple]:
    g = rdflib.Graph()
    name = path.name.lower()
    opener = gzip.open if name.endswith(".gz") else bz2.open if name.endswith(".bz2") else open
    try:
        # rdflib reads the file itself when given a path, and would parse the archive's bytes
        with opener(path, "rb") as fh:
            g.parse(source=fh, format="turtle")
    except Exception as exc:  # noqa: BLE001
        line = getattr(exc, "lines", None)
        ctx.fail_file("rdf_parse_error", f"Turtle does not parse: {exc}", path=path,
                      line=line if isinstance(line, int) else None)
        return
    ctx.read(len(g))
    for s, p, o in sorted(g, key=lambda t: (_entity_key(str(t[0])) or "", str(t[0]), str(t[1]))):
        yield s, p, o, None  # Turtle has no line per triple
