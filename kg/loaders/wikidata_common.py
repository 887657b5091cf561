"""Shared by the three Wikidata loaders (JSON dump, SPARQL, RDF): vocabulary and time values.

The vocabulary (default property allow-list with labels, P31 class → domain label, unit
labels) is data, in ``wikidata_vocab.json`` next to this module.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from knowforge.errors import ConfigError, InputError

TIME_QUALIFIERS = {"P580": "start", "P582": "end", "P585": "point_in_time"}
PRECISION_NAMES = {14: "second", 13: "minute", 12: "hour", 11: "day", 10: "month", 9: "year",
                   8: "decade", 7: "century", 6: "millennium"}
ENTITY_URI = "http://www.wikidata.org/entity/"
_PID = re.compile(r"^P[1-9][0-9]*$")
_QID = re.compile(r"^Q[1-9][0-9]*$")
_TIME = re.compile(r"^([+-]?)(\d+)-(\d\d)-(\d\d)")


@dataclass(frozen=True)
class Vocabulary:
    properties: dict[str, str]
    domain_labels: dict[str, str]
    units: dict[str, str]

    def property_label(self, pid: str) -> str | None:
        return self.properties.get(pid)

    def unit_label(self, unit: str | None) -> str | None:
        """``"1"`` (unitless) → None; an entity URI → the unit's label when known, else its QID."""
        if not unit or unit == "1":
            return None
        qid = unit.rsplit("/", 1)[-1]
        return self.units.get(qid, qid)


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    data = json.loads(resources.files("knowforge.kg.loaders").joinpath("wikidata_vocab.json")
                      .read_text(encoding="utf-8"))
    return Vocabulary(properties=dict(data["properties"]), domain_labels=dict(data["domain_labels"]),
                      units=dict(data["units"]))


def default_properties() -> frozenset[str]:
    return frozenset(vocabulary().properties)


def parse_property_list(text: str | None) -> frozenset[str]:
    """``"P39,P54"`` (or ``+P1234`` to add to the defaults) → a validated set of property ids."""
    if not text:
        return default_properties()
    items = [t.strip().upper() for t in text.replace(" ", ",").split(",") if t.strip()]
    additive = all(t.startswith("+") for t in items)
    pids = {t.lstrip("+") for t in items}
    bad = sorted(p for p in pids if not _PID.match(p))
    if bad:
        raise ConfigError(f"not Wikidata property ids: {', '.join(bad)} (expected e.g. P39,P54)")
    return frozenset(pids | default_properties()) if additive else frozenset(pids)


def read_entity_list(path: str | Path) -> frozenset[str]:
    """QIDs from a text file, one per line; ``#`` starts a comment."""
    out = set()
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            if not _QID.match(text):
                raise InputError(f"not a QID: {text!r}", path=str(path), line=lineno)
            out.add(text)
    return frozenset(out)


@lru_cache(maxsize=1 << 16)  # dates repeat a lot across a dump (and the cache is bounded)
def parse_time(value: str, precision: int | None) -> tuple[str, str | None]:
    """A Wikibase time (``+2009-01-20T00:00:00Z``, precision 11) → (``2009-01-20``, ``day``).

    The text keeps only what the precision says (``2010`` at year precision, ``2010-03`` at
    month). Years BCE: the JSON dumps use historical numbering (``-0469`` = 469 BCE, no year
    0); knowforge stores astronomical years (``-0468`` = 469 BCE) like ISO 8601/XSD 1.1 and the
    RDF dumps, so that year arithmetic across the era boundary is plain subtraction.
    """
    m = _TIME.match(value.strip())
    if not m:
        raise ValueError(f"not a Wikibase time value: {value!r}")
    sign, year, month, day = m.groups()
    y = int(year)
    if sign == "-":
        y = -(y - 1)
    return format_date(y, int(month), int(day), precision), PRECISION_NAMES.get(precision or 11, "day")


def parse_xsd_time(value: str, precision: int | None) -> tuple[str, str | None]:
    """An ``xsd:dateTime`` from the RDF dumps/SPARQL (already astronomical years)."""
    m = _TIME.match(value.strip())
    if not m:
        raise ValueError(f"not an xsd:dateTime: {value!r}")
    sign, year, month, day = m.groups()
    y = -int(year) if sign == "-" else int(year)
    if precision is None:
        # Truthy values carry no precision; a date on 1 January is most often a year.
        precision = 9 if (month, day) == ("01", "01") else 11
    return format_date(y, int(month), int(day), precision), PRECISION_NAMES.get(precision, "day")


def format_date(year: int, month: int, day: int, precision: int | None) -> str:
    ytext = f"-{abs(year):04d}" if year < 0 else f"{year:04d}"
    if precision is None or precision >= 11:
        return f"{ytext}-{max(month, 1):02d}-{max(day, 1):02d}" if month else ytext
    if precision == 10:
        return f"{ytext}-{max(month, 1):02d}" if month else ytext
    return ytext


def is_pid(text: str) -> bool:
    return bool(_PID.match(text))
