"""The viewer's web application: Starlette routes that render Jinja2 pages from the graph.

Every page is server-rendered; the only scripts sort tables and draw the method views with the
cytoscape.js copy shipped in ``static/vendor`` (no network at run time). Handlers are plain
functions, so Starlette runs them in its thread pool while the driver waits on the server.

    /                                   the runs (filters: benchmark, model)
    /runs/<run>                         a run: its numbers with intervals, the report's tables, plots
    /runs/<run>/numbers                 its numbers alone (a large run's page fetches them)
    /runs/<run>/samples                 its samples, filtered and paginated
    /runs/<run>/sample?q=QUESTION&i=N   one sample in full
    /runs/<run>/plots/<name>.svg        a plot of the run's report folder (.png: older reports)
    /compare?run=A&run=B                runs of one benchmark side by side
    /entity?id=ID                       an entity, its facts and questions, the views it opens
    /views                              the views the installed methods declare
    /view/<method>/<view>?key=K         one method view
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from knowforge import __version__
from knowforge.errors import GraphUnavailable
from knowforge.kg.driver import neo4j

from . import compare as comparing
from . import graphs, runs, samples
from .entities import entity_page
from .graphs import ViewRegistry, declared_views
from .errors import BadRequest, NotFound
from .guard import OriginGuard
from .numbers import Estimate, StatsCache

log = logging.getLogger(__name__)


@dataclass
class ViewerState:
    store: Any
    views: ViewRegistry
    cache: StatsCache = field(default_factory=StatsCache)
    inline_answers: int = runs.INLINE_ANSWERS


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("knowforge.view", "templates"),
                             autoescape=True,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = pct
    env.filters["interval"] = interval
    env.filters["cell"] = cell
    env.globals["url"] = url
    env.globals["version"] = __version__
    return env


# --- formatting helpers of the templates ---------------------------------------------------------------------------
def pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "–"
    points = 100 * value
    if abs(points) < 0.05:
        points = 0.0                      # no "-0.0"
    return f"{points:+.1f}" if signed else f"{points:.1f}"


def interval(estimate: Estimate | None, signed: bool = False) -> str:
    """``[low, high]`` in percent, or an empty string where it is undefined."""
    if estimate is None or estimate.low is None or estimate.high is None:
        return ""
    return f"[{pct(estimate.low, signed)}, {pct(estimate.high, signed)}]"


def cell(value: Any) -> str:
    """A table cell: numbers short, lists joined, an estimate (a mapping with ``value`` and
    ``ci``) as ``value [low, high]``, any other mapping as ``key: value`` pairs; never Python's
    repr of a dict."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return "; ".join(cell(v) for v in value)
    if isinstance(value, dict):
        if "value" in value and "ci" in value:
            ci = value.get("ci")
            return cell(value["value"]) + (f" [{cell(ci[0])}, {cell(ci[1])}]" if ci else "")
        return "; ".join(f"{k}: {cell(v)}" for k, v in value.items())
    return str(value)


def url(path: str, **params: Any) -> str:
    """``path`` with its query string; None and empty values are left out, lists repeat."""
    pairs = []
    for key, value in params.items():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is not None and item != "":
                pairs.append((key, str(item)))
    return path + ("?" + urlencode(pairs) if pairs else "")


# --- pages -------------------------------------------------------------------------------------------------
# No list the viewer pages through comes near this many pages; the bound keeps SKIP within the
# server's 64-bit integers whatever the page size.
MAX_PAGE = 1_000_000_000


def _page_number(request: Request) -> int:
    text = request.query_params.get("page") or "1"
    try:
        page = int(text)
    except ValueError:
        raise BadRequest(f"page={text[:40]!r} is not a whole number") from None
    if page < 1:
        raise BadRequest(f"page={page} must be 1 or more")
    if page > MAX_PAGE:
        raise NotFound(f"page {text[:40]} is past the end of the list")
    return page


def _past_the_end(page: int, empty: bool) -> None:
    """An empty page after the first is past the end of its list: 404, with where it ends."""
    if page > 1 and empty:
        raise NotFound(f"page {page} is past the end of the list; page 1 is its start")


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    env: jinja2.Environment = request.app.state.templates
    html = env.get_template(template).render(request=request, **context)
    return HTMLResponse(html, status_code=status_code)


def _state(request: Request) -> ViewerState:
    return request.app.state.viewer


def runs_index(request: Request) -> Response:
    benchmark = request.query_params.get("benchmark") or None
    model = request.query_params.get("model") or None
    state = _state(request)
    page = runs.list_runs(state.store, benchmark=benchmark, model=model, page=_page_number(request),
                          cache=state.cache)
    _past_the_end(page.page, not page.rows)
    return render(request, "runs.html", page=page, benchmark=benchmark, model=model)


def run_detail(request: Request) -> Response:
    state = _state(request)
    run_id = request.path_params["run_id"]
    page = runs.run_page(state.store, run_id, state.cache, inline_answers=state.inline_answers)
    return render(request, "run.html", page=page, run_id=run_id)


def run_numbers(request: Request) -> Response:
    """A run's numbers: the fragment the run page fetches (``fragment=1``), or a page."""
    state = _state(request)
    run_id = request.path_params["run_id"]
    _, stats = runs.run_numbers(state.store, run_id, state.cache)
    template = "numbers.html" if request.query_params.get("fragment") == "1" else "run_numbers.html"
    return render(request, template, stats=stats, run_id=run_id)


def run_samples(request: Request) -> Response:
    run_id = request.path_params["run_id"]
    filters = samples.SampleFilters.parse(request.query_params)
    page = samples.samples_page(_state(request).store, run_id, filters, page=_page_number(request))
    _past_the_end(page.page, not page.rows)
    return render(request, "samples.html", page=page, run_id=run_id)


def run_sample(request: Request) -> Response:
    state = _state(request)
    run_id = request.path_params["run_id"]
    question_id = request.query_params.get("q") or ""
    index_text = request.query_params.get("i") or "0"
    if not question_id:
        raise BadRequest("a sample is opened with q=QUESTION_ID&i=SAMPLE_INDEX")
    try:
        index = int(index_text)
    except ValueError:
        raise BadRequest(f"i={index_text!r} is not a sample index") from None
    sample = samples.read_sample(state.store, run_id, question_id, index)
    method = runs.method_of(sample.question.get("benchmark"))
    links = graphs.view_links(state.store, state.views.of_method(method), question_id=question_id, run_id=run_id)
    return render(request, "sample.html", sample=sample, run_id=run_id, links=links)


def run_plot(request: Request) -> Response:
    run, _ = runs.read_run(_state(request).store, request.path_params["run_id"])
    path = runs.plot_path(run, request.path_params["name"])
    return FileResponse(path, media_type="image/svg+xml" if path.suffix == ".svg" else "image/png")


def compare(request: Request) -> Response:
    run_ids = [r for r in request.query_params.getlist("run") if r.strip()]
    comparison = comparing.compare_runs(_state(request).store, run_ids, page=_page_number(request))
    _past_the_end(comparison.page, not comparison.disagreements)
    return render(request, "compare.html", comparison=comparison, run_ids=run_ids)


def entity(request: Request) -> Response:
    state = _state(request)
    entity_id = request.query_params.get("id") or ""
    if not entity_id:
        raise BadRequest("an entity is opened with id=ENTITY_ID")
    page = entity_page(state.store, entity_id, list(state.views.views), page=_page_number(request))
    _past_the_end(page.page, not (page.facts or page.incoming or page.questions))
    return render(request, "entity.html", page=page, entity_id=entity_id)


def views_index(request: Request) -> Response:
    state = _state(request)
    choices = {d.path: graphs.view_choices(state.store, d) for d in state.views.views}
    return render(request, "views.html", registry=state.views, choices=choices, choices_limit=graphs.CHOICES_LIMIT)


def method_view(request: Request) -> Response:
    state = _state(request)
    declared = state.views.find(request.path_params["method"], request.path_params["view"])
    key = request.query_params.get("key") or ""
    drawing = graphs.draw_view(state.store, declared, key, request.query_params, page=_page_number(request))
    _past_the_end(drawing.page, not any(table.rows for table in drawing.tables))
    return render(request, "view.html", drawing=drawing, marks=graphs.marks_style(declared.view))


# --- errors ------------------------------------------------------------------------------------------------
def _error(request: Request, status: int, title: str, message: str) -> HTMLResponse:
    return render(request, "error.html", status_code=status, status=status, title=title, message=message)


def not_found(request: Request, exc: Exception) -> Response:
    if isinstance(exc, HTTPException):
        return _error(request, exc.status_code, "Not found" if exc.status_code == 404 else "Error",
                      f"no page at {request.url.path}" if exc.status_code == 404 else str(exc.detail))
    return _error(request, 404, "Not found", str(exc))


def bad_request(request: Request, exc: Exception) -> Response:
    return _error(request, 400, "Bad request", str(exc))


def graph_unavailable(request: Request, exc: Exception) -> Response:
    return _error(request, 503, "The graph is unavailable", str(exc))


def graph_error(request: Request, exc: Exception) -> Response:
    return _error(request, 500, "A graph query failed", str(exc))


def server_error(request: Request, exc: Exception) -> Response:
    log.error("%s failed", request.url.path, exc_info=exc)
    return _error(request, 500, "Something went wrong", f"{type(exc).__name__}: {exc}")


class GuardedStarlette(Starlette):
    """Starlette with ``OriginGuard`` outside its whole stack. Listed in ``middleware=`` the guard
    sits inside ServerErrorMiddleware, so the 500 page of an unexpected exception (that layer
    answers it) went out without the security headers, and a foreign Host could still read it."""

    def build_middleware_stack(self):
        return OriginGuard(super().build_middleware_stack())


def build_app(store, *, views: ViewRegistry | None = None, stats_cache: StatsCache | None = None,
              inline_answers: int = runs.INLINE_ANSWERS) -> Starlette:
    """The viewer over ``store``; ``views`` defaults to every installed method's declarations,
    ``stats_cache`` to one that keeps the numbers of the runs last opened; a run with more than
    ``inline_answers`` answers opens without its numbers and its page fetches them."""
    static = resources.files("knowforge.view").joinpath("static")
    routes = [
        Route("/", runs_index),
        Route("/runs/{run_id}", run_detail),
        Route("/runs/{run_id}/numbers", run_numbers),
        Route("/runs/{run_id}/samples", run_samples),
        Route("/runs/{run_id}/sample", run_sample),
        Route("/runs/{run_id}/plots/{name}", run_plot),
        Route("/compare", compare),
        Route("/entity", entity),
        Route("/views", views_index),
        Route("/view/{method}/{view}", method_view),
        Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
    ]
    handlers = {HTTPException: not_found, NotFound: not_found, BadRequest: bad_request,
                GraphUnavailable: graph_unavailable, neo4j.exceptions.DriverError: graph_unavailable,
                neo4j.exceptions.Neo4jError: graph_error, Exception: server_error}
    app = GuardedStarlette(routes=routes, exception_handlers=handlers)
    app.state.viewer = ViewerState(store=store, views=views if views is not None else declared_views(),
                                   cache=stats_cache if stats_cache is not None else StatsCache(),
                                   inline_answers=inline_answers)
    app.state.templates = _environment()
    return app


__all__ = ["MAX_PAGE", "ViewerState", "build_app", "cell", "interval", "pct", "url"]
