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
# The precisions of the Wikibase data model (a time value's ``precision``, 0 to 14).
PRECISION_NAMES = {14: "second", 13: "minute", 12: "hour", 11: "day", 10: "month", 9: "year",
                   8: "decade", 7: "century", 6: "millennium", 5: "ten thousand years",
                   4: "hundred thousand years", 3: "million years", 2: "ten million years",
                   1: "hundred million years", 0: "billion years"}
YEAR_PRECISION, MONTH_PRECISION, DAY_PRECISION = 9, 10, 11
# "The year is always signed and padded to have between 4 and 16 digits" (Wikibase's time type).
MAX_YEAR_DIGITS = 16
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
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


def parse_time(value: str, precision: int | None) -> tuple[str, str]:
    """A Wikibase time (``+2009-01-20T00:00:00Z``, precision 11) → (``2009-01-20``, ``day``).

    The text keeps only what the precision says (``2010`` at year precision, ``2010-03`` at
    month; a year alone at every precision coarser than a year). A value the Wikibase data
    model does not allow raises ``ValueError`` naming it (see ``check_date``); a missing
    precision is taken as day precision.

    Years BCE: the JSON dumps number years historically (``-0470`` = 470 BCE, ``-0001`` = 1 BCE,
    no year 0); knowforge stores astronomical years (``-0469`` = 470 BCE, ``0000`` = 1 BCE) like
    ISO 8601/XSD 1.1 and the RDF dumps, so that year arithmetic across the era boundary is plain
    subtraction. The conversion is Wikibase's own for its RDF export: a value of year precision
    or finer moves by one; at a coarser precision the number names a decade, century or more
    and is kept as it is; year 0 (``+0000``, ``-0000``) is refused, as that export leaves it out.
    """
    if value.__class__ is not str:
        raise ValueError(f"a time value is text, not {type(value).__name__}")
    if precision is not None and precision.__class__ is not int:
        raise ValueError(f"precision {precision!r} is not a whole number from 0 to 14")
    return _parse_time(value, precision)


@lru_cache(maxsize=1 << 16)  # dates repeat a lot across a dump (and the cache is bounded)
def _parse_time(value: str, precision: int | None) -> tuple[str, str]:
    m = _TIME.match(value.strip())
    if not m:
        raise ValueError(f"not a Wikibase time value: {value!r}")
    sign, digits, month_text, day_text = m.groups()
    precision = DAY_PRECISION if precision is None else precision
    year, month, day = int(digits), int(month_text), int(day_text)
    # The leap-year rule reads astronomical years: -0001 (1 BCE) is year 0, a leap year.
    check_date(value, len(digits), year - 1 if sign == "-" else year, month, day, precision)
    if year == 0:
        raise ValueError(f"year 0 does not exist in the dumps' numbering (1 BCE is -0001): {value!r}")
    if sign == "-":
        year = -(year - 1) if precision >= YEAR_PRECISION else -year
    return format_date(year, month, day, precision), PRECISION_NAMES[precision]


def parse_xsd_time(value: str, precision: int | None) -> tuple[str, str]:
    """An ``xsd:dateTime`` from the RDF dumps/SPARQL (already astronomical years: ``0000`` is
    1 BCE). Checked as ``parse_time`` checks, with a full date at every precision (the dumps
    write ``-01-01`` where a coarser value has none)."""
    m = _TIME.match(value.strip())
    if not m:
        raise ValueError(f"not an xsd:dateTime: {value!r}")
    sign, digits, month_text, day_text = m.groups()
    if precision is None:
        # Truthy values carry no precision; a date on 1 January is most often a year.
        precision = YEAR_PRECISION if (month_text, day_text) == ("01", "01") else DAY_PRECISION
    year, month, day = int(digits), int(month_text), int(day_text)
    check_date(value, len(digits), year, month, day, precision, full_date=True)
    y = -year if sign == "-" else year
    return format_date(y, month, day, precision), PRECISION_NAMES[precision]


def check_date(value: str, digits: int, year: int, month: int, day: int, precision, *,
               full_date: bool = False) -> None:
    """Raise ``ValueError`` naming what the Wikibase data model does not allow in ``value``:
    a precision other than 0-14; a year of more than 16 digits; a month other than 1-12 or a
    day past the end of its month (00 stands for "none" and is allowed only where the precision
    is coarser than the month, resp. the day, and never in a ``full_date``). February 29 is
    allowed in every (astronomical) ``year`` divisible by 4, as the Julian calendar of older
    dates has it."""
    if precision.__class__ is not int or not 0 <= precision <= 14:
        raise ValueError(f"precision {precision!r} is not a whole number from 0 to 14: {value!r}")
    if digits > MAX_YEAR_DIGITS:
        raise ValueError(f"a year has at most {MAX_YEAR_DIGITS} digits: {value!r}")
    if full_date:
        precision = max(precision, DAY_PRECISION)
    if month > 12 or (month == 0 and precision >= MONTH_PRECISION):
        raise ValueError(f"month {month:02d} does not exist"
                         + (" (month precision or finer needs one)" if month == 0 else "") + f": {value!r}")
    if day == 0:
        if precision >= DAY_PRECISION:
            raise ValueError(f"day 00 at {PRECISION_NAMES[precision]} precision: {value!r}")
        return
    last = _DAYS_IN_MONTH[month - 1] if month else 31
    if month == 2 and year % 4:
        last = 28
    if day > last:
        raise ValueError(f"day {day:02d} does not exist in month {month:02d}: {value!r}")


def format_date(year: int, month: int, day: int, precision: int | None) -> str:
    ytext = f"-{abs(year):04d}" if year < 0 else f"{year:04d}"
    if precision is None or precision >= DAY_PRECISION:
        return f"{ytext}-{max(month, 1):02d}-{max(day, 1):02d}" if month else ytext
    if precision == MONTH_PRECISION:
        return f"{ytext}-{max(month, 1):02d}" if month else ytext
    return ytext


def is_pid(text: str) -> bool:
    return bool(_PID.match(text))
