"""What a user's ad-hoc Cypher (``knowforge query``) may do, decided from the server's own plan.

The server parses and plans the statement (``EXPLAIN``); this module reads that plan and the
query type and says why a statement is refused, or nothing. No regex over the text: a
``LOAD CSV`` inside a subquery, or a procedure behind ``CALL () { ... }``, is in the plan all
the same.

- ``LOAD CSV`` reads files or URLs on the database server: it needs ``--unsafe``.
- Procedures: the read-only ones in ``READ_PROCEDURES`` run; other ``db.*`` procedures need
  ``--write``; ``dbms.*`` (administration) and any other namespace need ``--unsafe``.
- Administration commands (users, privileges, ``TERMINATE TRANSACTIONS``) need ``--unsafe``.
- Writes (query type ``w``/``rw``) and schema changes (``s``) need ``--write``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# Procedures that only read the database's own catalogue or indexes.
READ_PROCEDURES = frozenset({
    "db.labels", "db.relationshipTypes", "db.propertyKeys", "db.info", "db.ping",
    "db.schema.visualization", "db.schema.nodeTypeProperties", "db.schema.relTypeProperties",
    "db.index.fulltext.queryNodes", "db.index.fulltext.queryRelationships",
    "db.index.fulltext.listAvailableAnalyzers",
    "db.index.vector.queryNodes", "db.index.vector.queryRelationships",
})

# Plan operators of administration commands, with what a refusal says of them.
ADMIN_OPERATORS = {
    "AdministrationCommand": "this query is an administration command (users, roles, privileges, databases)",
    "TerminateTransactions": "TERMINATE TRANSACTIONS is an administration command",
}
# The read-only procedures a refusal names as examples.
SHOWN_READ_PROCEDURES = ("db.labels", "db.relationshipTypes", "db.propertyKeys", "db.schema.visualization")

_PROCEDURE_NAME = re.compile(r"\s*([A-Za-z_][\w.]*)\s*\(")


@dataclass(frozen=True)
class PlanStep:
    operator: str      # "LoadCSV", "ProcedureCall", ... (without the "@database" suffix)
    details: str


def plan_steps(plan: dict | None) -> Iterator[PlanStep]:
    """Every operator of an EXPLAIN plan (the driver's dict), depth first."""
    if not plan:
        return
    stack = [plan]
    while stack:
        node = stack.pop()
        args = node.get("args") or node.get("arguments") or {}
        yield PlanStep(str(node.get("operatorType", "")).split("@", 1)[0], str(args.get("Details", "")))
        stack.extend(reversed(node.get("children") or []))


# `CALL { ... } IN TRANSACTIONS` plans as these operators; it commits as it goes, so it can only
# run in an implicit (auto-commit) transaction, never in a managed one.
TRANSACTION_OPERATORS = frozenset({"TransactionForeach", "TransactionApply"})


def commits_in_batches(plan: dict | None) -> bool:
    """Whether the plan holds ``CALL { ... } IN TRANSACTIONS`` (see ``TRANSACTION_OPERATORS``)."""
    return any(step.operator in TRANSACTION_OPERATORS for step in plan_steps(plan))


def procedure_name(details: str) -> str:
    """``dbms.listConfig`` from a ProcedureCall's details ``dbms.listConfig() :: (name :: STRING)``."""
    match = _PROCEDURE_NAME.match(details)
    return match.group(1) if match else details.strip() or "an unknown procedure"


def refusal(query_type: str, plan: dict | None, *, write: bool = False, unsafe: bool = False) -> str | None:
    """Why ``knowforge query`` refuses a statement with this query type and plan, or None."""
    steps = list(plan_steps(plan))
    procedures = [procedure_name(s.details) for s in steps if s.operator == "ProcedureCall"]
    administrative = [s.operator for s in steps if s.operator in ADMIN_OPERATORS]
    if not unsafe:
        if any(s.operator == "LoadCSV" for s in steps):
            return ("LOAD CSV reads files or URLs on the database server; pass --unsafe to run it "
                    "(a server knowforge manages reads only its HOME/import folder and fetches no URLs)")
        if administrative:
            return f"{ADMIN_OPERATORS[administrative[0]]}; pass --unsafe to run it"
        for name in procedures:
            if name.startswith("dbms."):
                return f"`{name}` is an administration procedure; pass --unsafe to run it"
            if name in READ_PROCEDURES or write and name.startswith("db."):
                continue
            if name.startswith("db."):
                return (f"`{name}` is not one of the read-only procedures ({', '.join(SHOWN_READ_PROCEDURES)}, "
                        "...); pass --write to run a db.* procedure that changes the database, or --unsafe")
            return (f"`{name}` is not a procedure of this database's catalogue (db.*); "
                    "pass --unsafe to run it")
    if write or query_type == "r":
        return None
    if query_type == "s" and (procedures or administrative):
        # dbms.* procedures and administration commands plan as "s"; --unsafe let them through
        # and the read-only transaction refuses anything they would change.
        return None
    what = "changes the schema" if query_type == "s" else "writes to the graph"
    return f"this query {what} (query type {query_type!r}); pass --write to allow it"
