"""Temporal reads every generator needs, plus the pure timeline logic behind them.

Year semantics (documented in the README): ``start_year``/``end_year`` are inclusive, so a
position that ended in June 2015 still holds in 2015. An open end holds up to the frame's
last year. Release-based facts (UMLS, CFR) hold exactly in the years listed in ``seen_in``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from knowforge.kg.store import Store

SOURCE_LAYERS = ("source",)


@dataclass(frozen=True)
class TimelineFact:
    fact_id: str
    object: str
    object_id: str | None
    start_year: int | None
    end_year: int | None
    seen_in: tuple[int, ...] | None = None

    def holds_in(self, year: int) -> bool:
        if self.seen_in is not None:
            return year in self.seen_in
        if self.start_year is not None and year < self.start_year:
            return False
        if self.end_year is not None and year > self.end_year:
            return False
        return True


def build_timeline(facts: Iterable[TimelineFact], from_year: int, to_year: int) -> dict[int, list[str]]:
    """Year → sorted distinct objects, before gap filling."""
    facts = list(facts)
    return {year: sorted({f.object for f in facts if f.holds_in(year)})
            for year in range(from_year, to_year + 1)}


def fill_gaps(timeline: Mapping[int, list[str]]) -> dict[int, list[str]]:
    """ChroKnowBench's gap filling: an empty year *between* two known years takes the
    objects of the nearest earlier known year. Leading and trailing empty years stay empty."""
    years = sorted(timeline)
    known = [y for y in years if timeline[y]]
    filled = {y: list(timeline[y]) for y in years}
    if not known:
        return filled
    last: list[str] | None = None
    for year in years:
        if year < known[0] or year > known[-1]:
            continue
        if timeline[year]:
            last = list(timeline[year])
        elif last is not None:
            filled[year] = list(last)
    return filled


def classify_change(timeline: Mapping[int, list[str]]) -> str:
    """``dynamic`` if the object set changes across the years that have objects, ``static`` if
    one set holds in all of them, ``empty`` when no year has an object."""
    sets = {frozenset(objs) for objs in timeline.values() if objs}
    if not sets:
        return "empty"
    return "dynamic" if len(sets) > 1 else "static"


def _to_facts(rows: Iterable[dict]) -> list[TimelineFact]:
    return [TimelineFact(fact_id=r["fact_id"], object=r["object"], object_id=r.get("object_id"),
                         start_year=r["start_year"], end_year=r["end_year"],
                         seen_in=tuple(r["seen_in"]) if r.get("seen_in") is not None else None)
            for r in rows]


def facts_valid_in(store: Store, subject_id: str, year: int, *, include_timeless: bool = False,
                   layers: Iterable[str] = SOURCE_LAYERS) -> list[dict]:
    """The facts of an entity that hold in ``year``."""
    return store.read("temporal/facts_valid_in_year", subject_id=subject_id, year=year,
                      include_timeless=include_timeless, layers=list(layers))


def object_timeline(store: Store, subject_id: str, relation: str, from_year: int, to_year: int, *,
                    gap_fill: bool = True, layers: Iterable[str] = SOURCE_LAYERS) -> dict[int, list[str]]:
    """Year → objects of (subject, relation) over the frame, gaps filled as ChroKnowBench does."""
    rows = store.read("temporal/relation_timeline", subject_id=subject_id, relation=relation,
                      from_year=from_year, to_year=to_year, layers=list(layers))
    timeline = build_timeline(_to_facts(rows), from_year, to_year)
    return fill_gaps(timeline) if gap_fill else timeline


def object_timelines(store: Store, pairs: Iterable[tuple[str, str]], from_year: int, to_year: int, *,
                     gap_fill: bool = True, layers: Iterable[str] = SOURCE_LAYERS
                     ) -> dict[tuple[str, str], dict[int, list[str]]]:
    """Timelines of many (subject, relation) pairs in one round trip."""
    pairs = list(dict.fromkeys(pairs))
    rows = store.read("temporal/relation_timelines",
                      pairs=[{"subject_id": s, "relation": r} for s, r in pairs],
                      from_year=from_year, to_year=to_year, layers=list(layers))
    grouped: dict[tuple[str, str], list[dict]] = {p: [] for p in pairs}
    for row in rows:
        grouped[(row["subject_id"], row["relation"])].append(row)
    out = {}
    for pair, prow in grouped.items():
        timeline = build_timeline(_to_facts(prow), from_year, to_year)
        out[pair] = fill_gaps(timeline) if gap_fill else timeline
    return out
