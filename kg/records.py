"""In-process records that loaders produce and the store writes.

Frozen dataclasses: a loader yields ``EntityRecord`` and ``FactRecord`` values, and
``kg/writer.py`` turns them into ``UNWIND $batch.rows`` batches. Every fact has a stable id so that
reloading the same input is a no-op and questions, edits and answers can point at it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from json.encoder import encode_basestring  # json.dumps's own escaper when ensure_ascii=False
from typing import Any

from knowforge.kg.cypher import validate_labels

FACT_KINDS = ("relation", "attribute")
LAYERS = ("source", "generated", "edit")


def stable_id(prefix: str, *parts: Any) -> str:
    """A short, stable id from canonical JSON of ``parts`` (same input → same id, always)."""
    digest = hashlib.sha1(canonical_json(parts).encode("utf-8")).hexdigest()
    return f"{prefix}{digest[:20]}"


def canonical_json(parts: tuple) -> str:
    """``json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))``.

    Ids are hashes of these exact bytes, so they must never change. Most parts are flat
    strings and nulls (a fact's id is eleven of them): those are joined here with the string
    escaper ``json.dumps`` itself uses, without the encoder ``json.dumps`` builds per call
    (0.25 s → 0.18 s per 100k fact ids); anything else goes to ``json.dumps``.
    """
    if all(part is None or type(part) is str for part in parts):
        return "[" + ",".join("null" if part is None else encode_basestring(part) for part in parts) + "]"
    return json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class EntityRecord:
    id: str
    name: str
    labels: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    description: str | None = None
    popularity: float | None = None
    domain: str | None = None
    source: str | None = None
    source_file: str | None = None
    extra: Mapping[str, Any] | None = None

    def to_row(self) -> dict:
        labels = validate_labels(self.labels)
        props = {
            "name": self.name,
            "alias_text": " | ".join(self.aliases),
            "description": self.description,
            "popularity": self.popularity,
            "domain": self.domain,
            "source": self.source,
            "source_file": self.source_file,
            **(dict(self.extra) if self.extra else {}),
        }
        props = {k: v for k, v in props.items() if v is not None}
        # No aliases is no property, as on stubs and as neo4j-admin import leaves an empty
        # array (it cannot store one). The null is kept: `SET e += props` then removes a list
        # that an earlier load of this entity wrote.
        props["aliases"] = list(self.aliases) or None
        return {"id": self.id, "labels": labels, "props": props}


@dataclass(frozen=True)
class FactRecord:
    """One relation fact (``object_id`` set) or attribute fact (``value`` set).

    Time: ``start``/``end``/``point_in_time`` keep the source's text at its precision
    (ISO-like, ``-0490`` for 491 BCE); ``start_year``/``end_year`` are inclusive years used by
    the indexed temporal queries. ``seen_in`` lists the release years a fact was seen in
    (UMLS, CFR); the store accumulates it across loads.
    """

    subject_id: str
    relation: str
    source: str
    object_id: str | None = None
    value: str | None = None
    value_num: float | None = None
    datatype: str | None = None
    unit: str | None = None
    start: str | None = None
    start_precision: str | None = None
    end: str | None = None
    end_precision: str | None = None
    point_in_time: str | None = None
    point_in_time_precision: str | None = None
    start_year: int | None = None
    end_year: int | None = None
    seen_in: tuple[int, ...] | None = None
    snapshot: str | None = None
    rank: str | None = None
    statement_id: str | None = None
    source_file: str | None = None
    subject_name: str | None = None
    object_name: str | None = None
    relation_label: str | None = None
    layer: str = "source"
    extra: Mapping[str, Any] | None = field(default=None)
    # A source-specific discriminator that belongs in the stable id (e.g. a CFR paragraph
    # version), for facts that would otherwise collide.
    id_key: str | None = None
    fact_id: str | None = None

    def __post_init__(self) -> None:
        if (self.object_id is None) == (self.value is None):
            raise ValueError(f"fact {self.subject_id} {self.relation}: exactly one of object_id and "
                             "value must be set")
        if self.layer not in LAYERS:
            raise ValueError(f"unknown layer {self.layer!r}")

    @property
    def kind(self) -> str:
        return "relation" if self.object_id is not None else "attribute"

    @cached_property  # a loader keys its buffer by it, then the writer sends it
    def id(self) -> str:
        if self.fact_id:
            return self.fact_id
        # Release years are deliberately not part of the id: the same UMLS relation seen in
        # 2021 and 2022 is one fact whose seen_in grows.
        return stable_id("f:", self.source, self.subject_id, self.relation, self.object_id,
                         self.value, self.unit, self.start, self.end, self.point_in_time,
                         self.statement_id, self.id_key)

    def years(self) -> tuple[int | None, int | None]:
        """Inclusive (start_year, end_year) for temporal queries."""
        start, end = self.start_year, self.end_year
        if self.point_in_time is not None and start is None and end is None:
            start = end = _year_of(self.point_in_time)
        if start is None and self.start is not None:
            start = _year_of(self.start)
        if end is None and self.end is not None:
            end = _year_of(self.end)
        # An interval whose start is unknown is only known to hold at its end.
        if start is None and end is not None:
            start = end
        return start, end

    def to_row(self) -> dict:
        start_year, end_year = self.years()
        temporal = any(x is not None for x in (start_year, end_year)) or bool(self.seen_in)
        props = {
            "kind": self.kind,
            "relation": self.relation,
            "relation_label": self.relation_label,
            "value": self.value,
            "value_num": self.value_num,
            "datatype": self.datatype,
            "unit": self.unit,
            "start": self.start,
            "start_precision": self.start_precision,
            "end": self.end,
            "end_precision": self.end_precision,
            "point_in_time": self.point_in_time,
            "point_in_time_precision": self.point_in_time_precision,
            "start_year": start_year,
            "end_year": end_year,
            "temporal": temporal,
            "snapshot": self.snapshot,
            "rank": self.rank,
            "statement_id": self.statement_id,
            "source": self.source,
            "source_file": self.source_file,
            "layer": self.layer,
            **(dict(self.extra) if self.extra else {}),
        }
        return {
            "id": self.id,
            "subject_id": self.subject_id,
            "subject_name": self.subject_name,
            "object_id": self.object_id,
            "object_name": self.object_name,
            "seen_in": sorted(set(self.seen_in)) if self.seen_in else None,
            "props": {k: v for k, v in props.items() if v is not None},
        }


@dataclass(frozen=True)
class RelationRecord:
    id: str
    label: str
    source: str
    inverse: str | None = None
    description: str | None = None

    def to_row(self) -> dict:
        props = {"label": self.label, "source": self.source, "inverse": self.inverse,
                 "description": self.description}
        return {"id": self.id, "props": {k: v for k, v in props.items() if v is not None}}


def _year_of(text: str) -> int:
    """Year of an ISO-like date string; ``-0490-01-01`` → -490 (astronomical numbering)."""
    text = text.strip()
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-").split("-")[0]
    return sign * int(digits)
