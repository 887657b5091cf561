"""The records of weight editing: a request, a skipped request, the result of one ``apply``."""

from __future__ import annotations

from dataclasses import dataclass, field

from knowforge.errors import KnowforgeError


class EditError(KnowforgeError):
    """An edit was refused (e.g. it produced non-finite weights); the weights were restored."""


@dataclass(frozen=True)
class EditRequest:
    """One triplet edit: ``prompt`` holds ``{}`` exactly once, where ``subject`` goes; the model
    should continue the rendered prompt with ``target`` (the editor adds the leading space)."""

    prompt: str
    subject: str
    target: str
    key: str = ""          # provenance ("EVENT_ID/FACT_ID"), named in skip reports

    def render(self) -> str:
        return self.prompt.replace("{}", self.subject, 1)


@dataclass(frozen=True)
class SkippedRequest:
    request: EditRequest
    reason: str

    def describe(self) -> str:
        return f"{self.request.key or self.request.subject!r}: {self.reason}"


@dataclass
class EditResult:
    applied: list[EditRequest] = field(default_factory=list)
    skipped: list[SkippedRequest] = field(default_factory=list)
