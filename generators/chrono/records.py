"""The ChroKnow record: one (subject, relation) — or one legal paragraph — over a time frame.

A record is what ChroKnowBench calls one line of its files: the objects of every year, the
temporal state (dynamic / static / invariant) and distractors. Records are the unit the
knowledge check categorises; ``items.py`` turns them into per-year ``BenchmarkItem`` values.
Records are persisted (in the graph and in exports), hence pydantic with a version.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RECORD_VERSION = "1"

Change = Literal["dynamic", "static", "invariant"]
Split = Literal["test", "fewshot"]
Kind = Literal["triplet", "legal"]


class ChronoRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str = RECORD_VERSION
    id: str
    domain: str
    kind: Kind = "triplet"
    subject: str                      # legal: the paragraph id's readable name
    subject_id: str | None = None
    relation: str
    relation_label: str | None = None
    question: str | None = None       # legal: paragraph text with "____" for the changed span
    question_type: str | None = None  # legal: what kind of span the blank hides
    objects: dict[int, list[str]]     # year -> objects (legal: the blank's answers)
    distractors: dict[int, list[str]] = Field(default_factory=dict)  # year -> >= 3 wrong options
    distractor: list[str] = Field(default_factory=list)  # wrong for every year (ChroKnowBench key)
    change: Change
    split: Split = "test"
    fact_ids: dict[int, list[str]] = Field(default_factory=dict)
    subject_labels: list[str] = Field(default_factory=list)

    @property
    def years(self) -> list[int]:
        """Years that have at least one object, ascending."""
        return sorted(y for y, objs in self.objects.items() if objs)

    def objects_near(self, year: int) -> tuple[int, list[str]]:
        """(year', objects) of ``year`` or, when the record has none then, of the nearest year
        that has some (earlier wins a tie) — used when a record serves as a few-shot exemplar."""
        if self.objects.get(year):
            return year, self.objects[year]
        best = min(self.years, key=lambda y: (abs(y - year), y))
        return best, self.objects[best]
