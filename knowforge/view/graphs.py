"""The method views: what each installed method declares (``Method.views``), the keys a question
or an entity opens, and the drawing of one view as cytoscape.js elements.

Nothing here names a method. A view whose declaration is broken (a bad colour, a statement
that does not exist) is left out and listed with its problem on the views page; the others
still work.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from knowforge import methods
from knowforge.models.view import MethodView, check_view

from .errors import BadRequest, NotFound
from .runs import read_run

log = logging.getLogger(__name__)

KEYS_LIMIT = 25                 # links offered per view on a sample or entity page
CHOICES_LIMIT = 200             # ids offered per box on the views page (the box takes any other id too)
TABLE_PAGE = 50


@dataclass(frozen=True)
class DeclaredView:
    """A view with the method that declared it."""

    method: str
    method_title: str
    view: MethodView

    @property
    def path(self) -> str:
        return f"/view/{self.method}/{self.view.name}"


@dataclass(frozen=True)
class ViewRegistry:
    views: tuple[DeclaredView, ...]
    problems: tuple[str, ...]            # declarations left out, each with its reason

    def find(self, method: str, name: str) -> DeclaredView:
        for declared in self.views:
            if declared.method == method and declared.view.name == name:
                return declared
        raise NotFound(f"no view {method}/{name}; the views page lists the installed ones")

    def of_method(self, method: str | None) -> list[DeclaredView]:
        return [d for d in self.views if d.method == method]


def declared_views() -> ViewRegistry:
    """Every well-formed view of every installed method, in method order."""
    views, problems = [], []
    for name, method in methods.available().items():
        seen = set()
        for view in method.views:
            where = f"method {name}, view {getattr(view, 'name', view)!r}"
            if not isinstance(view, MethodView):
                problems.append(f"{where}: not a knowforge.models.view.MethodView")
                continue
            found = check_view(view, where)
            if view.name in seen:
                found.append(f"{where}: declared twice")
            if found:
                problems.extend(found)
                log.warning("view left out: %s", "; ".join(found))
                continue
            seen.add(view.name)
            views.append(DeclaredView(name, method.title, view))
    return ViewRegistry(tuple(views), tuple(problems))


# --- links from samples and entities ----------------------------------------------------------------------
@dataclass(frozen=True)
class ViewLink:
    view: DeclaredView
    key: str
    label: str
    params: dict[str, str] = field(default_factory=dict)


def view_links(store, views: Sequence[DeclaredView], *, question_id: str | None = None,
               entity_id: str | None = None, run_id: str | None = None) -> list[ViewLink]:
    """The views a question (or an entity) opens, each with its key; a view that takes a run is
    given ``run_id``."""
    links = []
    for declared in views:
        rows = declared_keys(store, declared, question_id=question_id, entity_id=entity_id)
        params = {p.name: run_id for p in declared.view.params if p.kind == "run" and run_id}
        links += [ViewLink(declared, str(r["key"]), str(r["label"] or r["key"]), params) for r in rows]
    return links


def declared_keys(store, declared: DeclaredView, *, question_id: str | None, entity_id: str | None) -> list[dict]:
    return store.read(declared.view.keys, question_id=question_id, entity_id=entity_id, limit=KEYS_LIMIT,
                      **declared.view.bound())


@dataclass(frozen=True)
class Choice:
    key: str
    label: str


def view_choices(store, declared: DeclaredView, limit: int = CHOICES_LIMIT) -> dict[str, list[Choice]]:
    """The ids the views page offers in a view's boxes: ``"key"`` from the view's ``choices``
    statement (none when it declares none), and each run parameter's runs of the method's
    benchmarks, newest first."""
    view = declared.view
    out: dict[str, list[Choice]] = {}
    if view.choices:
        out["key"] = [Choice(str(r["key"]), str(r["label"] or r["key"]))
                      for r in store.read(view.choices, limit=limit, **view.bound())]
    runs = None
    for param in view.params:
        if param.kind == "run":
            if runs is None:
                runs = [Choice(str(r["key"]), str(r["label"] or r["key"]))
                        for r in store.read("view/method_runs", prefix=f"{declared.method}:", limit=limit)]
            out[param.name] = runs
    return out


# --- one drawing ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ViewTableRows:
    title: str
    columns: list[str]
    rows: list[list[Any]]
    has_next: bool


@dataclass(frozen=True)
class Drawing:
    view: DeclaredView
    key: str
    params: dict[str, Any]               # the view's parameters as used (defaults filled in)
    elements: list[dict]                 # cytoscape.js elements: {"data": {...}} for nodes, then edges
    nodes: int
    edges: int
    truncated: bool                      # the statement returned as many edges as it was allowed
    left_out: int                        # edges whose end is not among the nodes
    tables: list[ViewTableRows]
    page: int
    run: dict | None = None


def view_params(store, declared: DeclaredView, query: Mapping[str, str]) -> tuple[dict[str, Any], dict | None]:
    """The declared parameters read from a query string (defaults filled in, ranges checked) and
    the run named by a run parameter; BadRequest or NotFound name the parameter or the run."""
    values: dict[str, Any] = {}
    run = None
    for param in declared.view.params:
        text = (query.get(param.name) or "").strip()
        if param.kind == "run":
            if not text:
                if param.required:
                    raise BadRequest(f"view {declared.method}/{declared.view.name} needs {param.name}=RUN_ID "
                                     f"({param.description})")
                values[param.name] = None
                continue
            run, _ = read_run(store, text)
            values[param.name] = text
            continue
        if not text:
            if param.default is None and param.required:
                raise BadRequest(f"view {declared.method}/{declared.view.name} needs {param.name}= "
                                 f"({param.description})")
            values[param.name] = param.default
            continue
        try:
            number = int(text)
        except ValueError:
            raise BadRequest(f"{param.name}={text!r} is not a whole number") from None
        if not param.minimum <= number <= param.maximum:
            raise BadRequest(f"{param.name}={number} is outside {param.minimum}..{param.maximum}")
        values[param.name] = number
    return values, run


def draw_view(store, declared: DeclaredView, key: str, query: Mapping[str, str], page: int = 1) -> Drawing:
    """Run a view's statements for ``key`` and turn the graph into cytoscape.js elements."""
    if not key:
        raise BadRequest(f"view {declared.method}/{declared.view.name} is opened with key=<{declared.view.key} id>")
    params, run = view_params(store, declared, query)
    view = declared.view
    fixed = view.bound()
    # A run goes to the statements as a map {id}: Neo4j keys its plan cache on each parameter's
    # type and a string's length bucket, so a null run, '' and a run id made a plan each of the
    # same statement (view/chrono_timeline: 2 plans for 5 calls).
    sent = {**params, **{p.name: {"id": params.get(p.name)} for p in view.params if p.kind == "run"}}
    nodes, edges, left_out = [], [], 0
    truncated = None
    if view.draws_graph:
        if view.build is not None:
            drawn = view.build(store, key, limit=view.max_edges, **fixed, **params)
            rows = [drawn] if drawn else []
        else:
            rows = store.read(view.graph, key=key, limit=view.max_edges, **fixed, **sent)
        if not rows:
            raise NotFound(f"view {declared.method}/{view.name} found no {view.key} {key!r}")
        nodes, edges, left_out = graph_elements(rows[0].get("nodes") or [], rows[0].get("edges") or [])
        truncated = rows[0].get("truncated")
    tables = []
    for table in view.tables:
        found = store.read(table.statement, key=key, skip=(page - 1) * TABLE_PAGE, limit=TABLE_PAGE + 1,
                           **fixed, **sent)
        columns = list(found[0]) if found else []
        tables.append(ViewTableRows(table.title, columns, [[r[c] for c in columns] for r in found[:TABLE_PAGE]],
                                    len(found) > TABLE_PAGE))
    if not view.draws_graph and page == 1 and not any(t.rows for t in tables):
        raise NotFound(f"view {declared.method}/{view.name} found no {view.key} {key!r}")
    return Drawing(declared, key, params, nodes + edges, len(nodes), len(edges),
                   truncated=bool(truncated) if truncated is not None else len(edges) + left_out >= view.max_edges,
                   left_out=left_out, tables=tables,
                   page=page, run=run)


def graph_elements(nodes: Sequence[Mapping], edges: Sequence[Mapping]) -> tuple[list[dict], list[dict], int]:
    """Nodes (the first of each id wins: statements list the special nodes first), edges between
    known nodes with ids of their own, and how many edges named an unknown end."""
    out_nodes: dict[str, dict] = {}
    for node in nodes:
        if not node or node.get("id") is None:
            continue
        nid = str(node["id"])
        if nid in out_nodes:
            continue
        data = {"id": nid, "label": _text(node.get("label"), nid), "kind": str(node.get("kind") or "")}
        for extra in ("entity", "title"):
            if node.get(extra) is not None:
                data[extra] = str(node[extra])
        element: dict[str, Any] = {"group": "nodes", "data": data}
        if isinstance(node.get("x"), (int, float)) and isinstance(node.get("y"), (int, float)):
            element["position"] = {"x": float(node["x"]), "y": float(node["y"])}
        out_nodes[nid] = element
    out_edges, left_out = [], 0
    for i, edge in enumerate(edges):
        if not edge:
            continue
        source, target = str(edge.get("source")), str(edge.get("target"))
        if source not in out_nodes or target not in out_nodes:
            left_out += 1
            continue
        data = {"id": f"edge{i}", "source": source, "target": target, "label": _text(edge.get("label"), ""),
                "kind": str(edge.get("kind") or "")}
        if edge.get("title") is not None:
            data["title"] = str(edge["title"])
        out_edges.append({"group": "edges", "data": data})
    return list(out_nodes.values()), out_edges, left_out


def _text(value: Any, default: str, limit: int = 80) -> str:
    text = default if value is None else str(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def marks_style(view: MethodView) -> dict[str, Any]:
    """The marks as JSON for the page's script: colours and shapes by kind."""
    return {"nodes": {m.kind: {"colour": m.colour, "shape": m.shape or "ellipse"} for m in view.node_marks},
            "edges": {m.kind: {"colour": m.colour, "style": m.shape or "solid"} for m in view.edge_marks},
            "layout": view.layout}


__all__ = ["CHOICES_LIMIT", "Choice", "DeclaredView", "Drawing", "ViewLink", "ViewRegistry", "declared_views", "draw_view", "graph_elements",
           "marks_style", "view_choices", "view_links", "view_params"]
