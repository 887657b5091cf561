"""One line for each error a command can end with: what failed, and what to do next.

knowforge's own errors already say both. The driver's errors (the server stopped, refused the
credentials, refused a statement) are put in the same words here, with what a re-run of the
command at hand does: a load resumes idempotently, an evaluation asks the model only for
what the response cache lacks. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import os
import sys

import click

from knowforge.errors import KnowforgeError


def describe_error(exc: BaseException, ctx: click.Context | None = None) -> str | None:
    """The one-line message for ``exc`` raised by the command of ``ctx``; None for an error
    that is not a user's to fix (its traceback is shown)."""
    if isinstance(exc, KnowforgeError):
        return str(exc)
    if "neo4j" in sys.modules:   # a driver error can only come from a command that imported it
        return _driver_error(exc, ctx)
    return None


def _driver_error(exc: BaseException, ctx: click.Context | None) -> str | None:
    from knowforge.kg.driver import neo4j

    neo = neo4j.exceptions

    if isinstance(exc, (neo.ServiceUnavailable, neo.SessionExpired)):
        return f"{_server_gone()}{rerun_hint(ctx)}"
    if isinstance(exc, neo.AuthError):
        return ("Neo4j refused the credentials: check NEO4J_USER / NEO4J_PASSWORD (for the managed "
                "server, `knowforge neo4j password` prints the one it uses)")
    if isinstance(exc, neo.Neo4jError):
        first = _first_line(exc)
        if isinstance(exc, neo.TransientError):
            return f"Neo4j could not finish a statement for now ({exc.code}): {first}; re-run the command"
        if isinstance(exc, neo.DatabaseError):
            return (f"Neo4j failed while running a statement ({exc.code}): {first}; "
                    "`knowforge neo4j logs` shows the server's side")
        return f"Neo4j refused a statement ({exc.code}): {first}"
    return None


def _server_gone() -> str:
    uri = os.environ.get("NEO4J_URI")
    if uri:
        from knowforge.kg.connection import split_userinfo

        return (f"the Neo4j server at {split_userinfo(uri)[0]} stopped or cannot be reached: "
                "restart it (or fix NEO4J_URI), then re-run")
    return ("the Neo4j server stopped or cannot be reached: run `knowforge neo4j start`, then "
            "re-run")


def rerun_hint(ctx: click.Context | None) -> str:
    """What running the failed command again does, after a semicolon ("" when nothing special)."""
    names = command_names(ctx)
    top = names[0] if names else ""
    if top == "load":
        return "; the load resumes idempotently (what was written is merged, never doubled)"
    if top == "eval":
        if ctx is not None and ctx.params.get("no_cache"):
            return "; with --no-cache the answers received so far were not kept"
        return ("; the answers received so far are in the response cache, so the same command "
                "resumes and asks the model only for the rest")
    if top == "generate" and len(names) > 1:
        return (f"; if the re-run says the benchmark exists, drop the partial one first with "
                f"`knowforge generate {names[1]} --drop NAME`")
    return ""


def command_names(ctx: click.Context | None) -> list[str]:
    """The sub-command names from the top, e.g. ["generate", "knowgen"] (the program's own name
    left out)."""
    names: list[str] = []
    while ctx is not None:
        top_level = ctx.parent is None and isinstance(ctx.command, click.Group) and ctx.command.name == "cli"
        if ctx.command.name and not top_level:
            names.append(ctx.command.name)
        ctx = ctx.parent
    return names[::-1]


def verbosity(ctx: click.Context | None) -> int:
    """How many -v the top command was given (0 when invoked without it)."""
    if ctx is None:
        return 0
    value = ctx.find_root().params.get("verbose")
    return value if isinstance(value, int) else 0


def _first_line(exc) -> str:
    text = (getattr(exc, "message", None) or str(exc) or "").strip()
    return text.splitlines()[0] if text else type(exc).__name__
