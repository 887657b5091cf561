"""How a method's knowledge is drawn in ``knowforge view``: declared by the method, not the viewer.

A ``MethodView`` names what it is opened with (an entity, an event, a LINK statement, a
ChroKnow record, a NewTerm term), the named Cypher statements it reads (knowforge's, or for a method from another package its own,
``"<method>/<name>"``: ``Method.cypher``), and how the nodes and
edges those statements return are marked (a colour and a legend entry per ``kind``). The
viewer iterates ``knowforge.methods.available()`` and draws whatever the methods declare, so a
plug-in method gets its pages with no change to the viewer.

The statements' contract (every one takes ``$key`` and the view's declared parameters):

* ``graph``: one row ``{nodes: [...], edges: [...]}`` (no row: the key is not there); a node is
  a map ``{id, label, kind, entity?, title?, x?, y?}`` (``entity``: an entity id the node links
  to; ``x``, ``y``: its place for the ``preset`` layout), an edge
  ``{source, target, label, kind, title?}``. It takes ``$limit``, the most edges to return.
* ``keys``: given ``$question_id`` or ``$entity_id`` (the other is null) and ``$limit``, rows
  ``{key, label}``: the keys of this view a question or an entity opens (sample and entity
  pages link to them).
* ``choices`` (optional): given ``$limit``, rows ``{key, label}``: keys that exist, by key (the
  views page offers them as a pick list beside the key box).
* each ``ViewTable.statement``: rows of plain values, shown with their column names in order;
  it takes ``$key``, the view's parameters, ``$skip`` and ``$limit``.

``build`` (optional) draws the graph in Python instead: a function ``(store, key, *, limit,
**params) -> {nodes, edges, truncated?} | None`` (None: the key is not there) for a view that
must show exactly what a library function computes (ELKEN's ripple view draws the walk of
``knowforge ripple``, ``kg/ripple.py``); ``graph`` then names the statement it reads besides.

``bind`` gives every statement fixed parameters from the method's own configuration (the
relations ripple analysis ignores), so a statement and the method's Python read one source.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

# What a view is opened with: any lower-case word a method chooses (the built-ins use these; a
# plug-in may name its own, e.g. "person"); the viewer only shows it in links and messages.
ViewKey = str
VIEW_KEYS: tuple[str, ...] = ("entity", "event", "statement", "record", "term")

# cytoscape.js layouts shipped in its core build (no extension needed); "preset" places each
# node at the x, y its statement returned
LAYOUTS: tuple[str, ...] = ("cose", "breadthfirst", "concentric", "circle", "grid", "preset")
NODE_SHAPES: tuple[str, ...] = ("ellipse", "round-rectangle", "rectangle", "diamond", "hexagon",
                                "triangle", "star", "tag")
EDGE_STYLES: tuple[str, ...] = ("solid", "dashed", "dotted")
DRAWINGS: tuple[str, ...] = ("graph", "timeline", "table")

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


@dataclass(frozen=True)
class Mark:
    """One ``kind`` of node or edge: its colour, its legend text and its shape or line style."""

    kind: str                 # the value of ``kind`` the statement returns
    colour: str               # "#rrggbb"
    label: str                # legend text
    shape: str = ""           # nodes: one of NODE_SHAPES; edges: one of EDGE_STYLES ("": default)


@dataclass(frozen=True)
class ViewTable:
    """A table beside the drawing (e.g. the questions about an entity)."""

    title: str
    statement: str            # named Cypher statement, e.g. "view/knowgen_entity_questions"


@dataclass(frozen=True)
class ViewParam:
    """A query-string parameter of a view besides its key."""

    name: str                 # query-string name and Cypher parameter name
    description: str
    kind: Literal["int", "run"] = "int"   # "run": a run id (checked to exist; a 404 names it)
    default: int | None = None
    minimum: int = 0
    maximum: int = 10
    required: bool = False


@dataclass(frozen=True)
class MethodView:
    """One picture of a method's knowledge; see the module docstring for the statements' contract."""

    name: str                 # unique within the method: /view/<method>/<name>?key=...
    title: str
    description: str
    key: ViewKey
    graph: str                # "" for a table view
    keys: str
    node_marks: tuple[Mark, ...]
    edge_marks: tuple[Mark, ...] = ()
    tables: tuple[ViewTable, ...] = ()
    params: tuple[ViewParam, ...] = ()
    layout: str = "cose"
    max_edges: int = 400      # the graph statement's $limit
    bind: Callable[[], Mapping[str, Any]] | None = None   # fixed parameters of every statement
    # how it is drawn: "graph" (nodes and edges, placed by ``layout``), "timeline" (the graph
    # with every node at the x, y its statement returns: time along x; ``layout`` is "preset"),
    # "table" (no drawing: its ``tables`` are the view; ``graph`` is "")
    drawing: Literal["graph", "timeline", "table"] = "graph"
    choices: str = ""         # statement listing keys that exist (the views page's pick list); "" for none
    # draws the graph in Python (see the module docstring); None: ``graph``'s rows are the drawing
    build: Callable[..., Mapping[str, Any] | None] | None = None

    def bound(self) -> dict[str, Any]:
        return dict(self.bind()) if self.bind is not None else {}

    def param(self, name: str) -> ViewParam | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def statements(self) -> tuple[str, ...]:
        graph = () if self.drawing == "table" else (self.graph,)
        choices = (self.choices,) if self.choices else ()
        return (*graph, self.keys, *choices, *(t.statement for t in self.tables))

    @property
    def draws_graph(self) -> bool:
        return self.drawing != "table"


def check_view(view: MethodView, where: str) -> list[str]:
    """The problems of a view declaration (empty when it is well formed), each naming ``where``."""
    from knowforge.errors import KnowforgeError
    from knowforge.kg.cypher import load_cypher

    problems = []
    if not _NAME.match(view.name):
        problems.append(f"{where}: view name {view.name!r} must be a lower-case identifier")
    if not isinstance(view.key, str) or not _NAME.match(view.key):
        problems.append(f"{where}: key {view.key!r} must be a lower-case word (e.g. {', '.join(VIEW_KEYS)})")
    if view.layout not in LAYOUTS:
        problems.append(f"{where}: layout {view.layout!r} is not one of {', '.join(LAYOUTS)}")
    if view.drawing not in DRAWINGS:
        problems.append(f"{where}: drawing {view.drawing!r} is not one of {', '.join(DRAWINGS)}")
    if view.drawing == "timeline" and view.layout != "preset":
        problems.append(f"{where}: a timeline places its nodes at their x, y: layout must be 'preset'")
    if view.drawing == "table" and (view.graph or not view.tables):
        problems.append(f"{where}: a table view has no graph statement (graph=\"\") and at least one table")
    for mark in view.node_marks + view.edge_marks:
        if not _COLOUR.match(mark.colour):
            problems.append(f"{where}: mark {mark.kind!r} has colour {mark.colour!r}; write #rrggbb")
    for mark in view.node_marks:
        if mark.shape and mark.shape not in NODE_SHAPES:
            problems.append(f"{where}: node mark {mark.kind!r} has shape {mark.shape!r}; "
                            f"choose one of {', '.join(NODE_SHAPES)}")
    for mark in view.edge_marks:
        if mark.shape and mark.shape not in EDGE_STYLES:
            problems.append(f"{where}: edge mark {mark.kind!r} has line style {mark.shape!r}; "
                            f"choose one of {', '.join(EDGE_STYLES)}")
    for param in view.params:
        if not _NAME.match(param.name) or param.name in ("key", "limit", "skip", "question_id"):
            problems.append(f"{where}: parameter name {param.name!r} is reserved or not an identifier")
    for name in view.statements:
        try:
            load_cypher(name)
        except KnowforgeError as exc:
            problems.append(f"{where}: {exc}")
    return problems


__all__ = ["DRAWINGS", "EDGE_STYLES", "LAYOUTS", "Mark", "MethodView", "NODE_SHAPES", "VIEW_KEYS", "ViewKey",
           "ViewParam", "ViewTable", "check_view"]
