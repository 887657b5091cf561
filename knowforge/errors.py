"""One exception hierarchy for the whole project.

Library code raises these; only the CLI turns them into ``click.ClickException`` so that a
researcher sees one clear line (with the fix) instead of a traceback.
"""

from __future__ import annotations


class KnowforgeError(Exception):
    """Base class of every error knowforge raises on purpose."""


class ConfigError(KnowforgeError):
    """A setting, option or configuration file is wrong."""


class GraphUnavailable(KnowforgeError):
    """Neo4j cannot be reached, refused the credentials, or could not be started."""


class Neo4jServerError(GraphUnavailable):
    """The managed Neo4j server could not be installed, started or stopped."""


class QueryError(KnowforgeError):
    """A user's Cypher the server cannot run: a syntax or type error, a missing parameter."""


class QueryRefused(KnowforgeError):
    """A user's Cypher that ``knowforge query`` does not run without --write or --unsafe."""


class CypherNotFound(KnowforgeError):
    """A named Cypher statement does not exist under ``cypher/``."""


class UnsafeIdentifier(KnowforgeError):
    """A label, relationship type or property name is not on the allow-list."""


class BackendError(KnowforgeError):
    """A model backend failed or was asked for a capability it does not have."""


class InputError(KnowforgeError):
    """Bad input data. Carries the file and the line (or record) so the user can find it."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 record: str | None = None):
        self.path = path
        self.line = line
        self.record = record
        where = []
        if path:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if record is not None:
            where.append(f"record {record}")
        prefix = ":".join(where[:2]) if path else ", ".join(where)
        if record is not None and path:
            prefix += f" ({record})"
        super().__init__(f"{prefix}: {message}" if prefix else message)


def describe_validation_error(exc, *, limit: int = 5) -> str:
    """A pydantic ``ValidationError`` as ``field a.b[0]: message; ...``, one entry per problem.

    Locations read like the record (``slots.A.where[0]``, ``fact.qas[3].answer``) so a user can
    find the field; after ``limit`` entries the rest are counted, not listed.
    """
    parts: list[str] = []
    for err in exc.errors():
        loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"field {loc}: {msg}" if loc else msg)
    parts = list(dict.fromkeys(parts))
    more = len(parts) - limit
    return "; ".join(parts[:limit]) + (f"; and {more} more" if more > 0 else "")
