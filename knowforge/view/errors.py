"""The viewer's own errors; the app turns them into 404 and 400 pages that say what was wrong."""

from __future__ import annotations

from knowforge.errors import KnowforgeError


class NotFound(KnowforgeError):
    """A run, sample, entity or view that the graph does not hold; the message names it."""


class BadRequest(KnowforgeError):
    """A page was asked for with a parameter it cannot take; the message names it."""


__all__ = ["BadRequest", "NotFound"]
