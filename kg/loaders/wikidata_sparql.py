"""Wikidata over SPARQL (SPARQLWrapper): the statements of each allow-listed property, with
rank and P580/P582/P585 qualifiers, paged with LIMIT/OFFSET.

The query is ``wikidata_statements.rq`` (package data). Requests carry a User-Agent naming
knowforge (the Wikidata Query Service asks for one) and are retried with exponential backoff
on HTTP 429/5xx, connection errors and timeouts, honouring ``Retry-After``.
"""

from __future__ import annotations

import logging
import math
import socket
import string
import time
import urllib.error
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib import resources

from SPARQLWrapper import JSON, POST, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import EndPointInternalError

from knowforge import __version__
from knowforge.errors import ConfigError, KnowforgeError
from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, PendingRecord,
                                       RecordProgress)
from knowforge.kg.loaders.wikidata_common import (ENTITY_URI, default_properties, is_pid,
                                                  parse_xsd_time, vocabulary)
from knowforge.kg.records import FactRecord, RelationRecord
from knowforge.kg.store import Store

log = logging.getLogger(__name__)

SOURCE = "wikidata"
DEFAULT_ENDPOINT = "https://query.wikidata.org/sparql"
USER_AGENT = f"knowforge/{__version__} (knowledge-graph benchmark builder; https://github.com/knowforge)"
DEFAULT_PAGE_SIZE = 10000
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
_RANKS = {"http://wikiba.se/ontology#NormalRank": "normal",
          "http://wikiba.se/ontology#PreferredRank": "preferred",
          "http://wikiba.se/ontology#DeprecatedRank": "deprecated"}
_XSD_DATETIME = "http://www.w3.org/2001/XMLSchema#dateTime"
_NUMERIC = {"http://www.w3.org/2001/XMLSchema#decimal", "http://www.w3.org/2001/XMLSchema#integer",
            "http://www.w3.org/2001/XMLSchema#double"}


class SparqlError(KnowforgeError):
    """The SPARQL endpoint failed after every retry, or refused the query."""


@lru_cache(maxsize=1)
def query_template() -> string.Template:
    text = resources.files("knowforge.kg.loaders").joinpath("wikidata_statements.rq").read_text("utf-8")
    return string.Template(text)


def build_query(prop: str, limit: int, offset: int) -> str:
    if not is_pid(prop):
        raise ConfigError(f"not a Wikidata property id: {prop!r}")
    text = query_template().substitute(property=prop, limit=int(limit), offset=int(offset))
    # Comment lines are dropped: SPARQLWrapper guesses the query type from the first keyword
    # it finds, and a comment mentioning e.g. "Labels" would make it send an update.
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


class SparqlClient:
    """SPARQLWrapper with a User-Agent, POST, a timeout and retries with exponential backoff."""

    def __init__(self, endpoint: str = DEFAULT_ENDPOINT, *, timeout: float = 120, retries: int = 5,
                 backoff: float = 2.0, sleep: Callable[[float], None] = time.sleep):
        self.endpoint = endpoint
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.sleep = sleep
        self.attempts = 0

    def select(self, query: str) -> list[dict]:
        for attempt in range(self.retries + 1):
            self.attempts += 1
            # A fresh wrapper per attempt: SPARQLWrapper does not resend the query reliably
            # after a failed request on the same object.
            sparql = SPARQLWrapper(self.endpoint, agent=USER_AGENT)
            sparql.setMethod(POST)
            sparql.setReturnFormat(JSON)
            sparql.setTimeout(int(self.timeout))
            sparql.setQuery(query)
            try:
                result = sparql.queryAndConvert()
                return result["results"]["bindings"]
            except Exception as exc:  # noqa: BLE001 - classified right below
                wait = self._retry_after(exc, attempt)
                if wait is None or attempt == self.retries:
                    raise SparqlError(f"SPARQL query to {self.endpoint} failed: {exc}") from exc
                log.warning("SPARQL endpoint error (%s); retrying in %.1fs", exc, wait)
                self.sleep(wait)
        raise SparqlError(f"SPARQL query to {self.endpoint} failed")

    def _retry_after(self, exc: Exception, attempt: int) -> float | None:
        """Seconds to wait before retrying ``exc``, or None when it is not worth retrying."""
        delay = self.backoff * (2 ** attempt)
        if isinstance(exc, urllib.error.HTTPError):
            if exc.code not in RETRY_STATUS:
                return None
            header = exc.headers.get("Retry-After") if exc.headers else None
            if header and header.strip().isdigit():
                return max(delay, float(header))
            return delay
        if isinstance(exc, (EndPointInternalError, urllib.error.URLError, TimeoutError,
                            socket.timeout, ConnectionError)):
            return delay
        return None


def load_wikidata_sparql(store: Store, *, properties: Iterable[str] | None = None,
                         endpoint: str = DEFAULT_ENDPOINT, page_size: int = DEFAULT_PAGE_SIZE,
                         max_pages: int | None = None, strict: bool = False,
                         progress: RecordProgress | None = None, client: SparqlClient | None = None,
                         batch_size: int = DEFAULT_BATCH_SIZE) -> LoadReport:
    """Fetch and load the statements of each property (default: the built-in allow-list)."""
    if not endpoint.startswith(("http://", "https://")):
        raise ConfigError(f"SPARQL endpoint must be an http(s) URL, got {endpoint!r}")
    client = client or SparqlClient(endpoint)
    ctx = LoadContext(store, SOURCE, strict=strict, progress=progress, batch_size=batch_size)
    vocab = vocabulary()
    for prop in sorted(properties if properties is not None else default_properties()):
        ctx.report.files.append(f"{endpoint} {prop}")
        offset, pages, loaded = 0, 0, 0
        while max_pages is None or pages < max_pages:
            rows = client.select(build_query(prop, page_size, offset))
            pages += 1
            seen_statements: set[str] = set()
            for i, row in enumerate(rows):
                ctx.read()
                fact = None
                with ctx.record(f"{endpoint} {prop} offset {offset + i}") as out:
                    statement = _binding(row, "statement")
                    if statement is not None and statement in seen_statements:
                        ctx.drop("extra_qualifier_row")
                        continue
                    seen_statements.add(statement)
                    fact = _fact(ctx, out, prop, row)
                    if fact is not None:
                        out.fact(fact)
                if fact is not None and not out.refused:
                    loaded += 1
            if len(rows) < page_size:
                break
            offset += page_size
        if loaded and vocab.property_label(prop):
            with ctx.record(f"{endpoint} {prop}") as out:
                out.relation(RelationRecord(id=prop, label=vocab.property_label(prop), source=SOURCE))
    return ctx.finish()


def _binding(row, name: str) -> str | None:
    """The text of binding ``name`` of a result row, or None when the row has none."""
    binding = row.get(name) if isinstance(row, dict) else None
    value = binding.get("value") if isinstance(binding, dict) else None
    return value if isinstance(value, str) else None


def _fact(ctx: LoadContext, out: PendingRecord, prop: str, row) -> FactRecord | None:
    """One result row → its fact, or None (what was left out is counted or reported)."""
    item, statement, rank_uri = (_binding(row, name) for name in ("item", "statement", "rank"))
    value = row.get("value") if isinstance(row, dict) else None
    missing = [name for name, got in (("item", item), ("statement", statement), ("rank", rank_uri))
               if got is None] + ([] if isinstance(value, dict) and isinstance(value.get("value"), str)
                                  else ["value"])
    if missing:
        out.refuse("bad_sparql_row", f"result row lacks {', '.join(missing)}")
        return None
    rank = _RANKS.get(rank_uri, "normal")
    if rank == "deprecated":
        ctx.drop("deprecated_rank")
        return None
    if not item.startswith(ENTITY_URI):
        ctx.drop("not_an_item")
        return None
    qid = item[len(ENTITY_URI):]
    sid_local = statement.rsplit("/", 1)[-1]
    statement_id = sid_local.replace("-", "$", 1)
    fields: dict = {}
    for name, var in (("start", "start"), ("end", "end"), ("point_in_time", "pointInTime")):
        text = _binding(row, var)
        if text is None:
            continue
        precision_text = _binding(row, f"{var}Precision")
        try:
            precision = int(precision_text) if precision_text is not None else None
            fields[name], fields[f"{name}_precision"] = parse_xsd_time(text, precision)
        except ValueError as exc:
            out.ctx.skip("bad_qualifier", f"{statement_id}: time qualifier not understood ({exc})",
                         path=out.path)
    common = dict(subject_id=qid, relation=prop, source=SOURCE, rank=rank, statement_id=statement_id,
                  subject_name=_binding(row, "itemLabel"),
                  relation_label=vocabulary().property_label(prop), source_file="sparql", **fields)
    if value.get("type") == "uri":
        if not value["value"].startswith(ENTITY_URI):
            ctx.drop("unknown_datatype")
            return None
        return FactRecord(object_id=value["value"][len(ENTITY_URI):],
                          object_name=_binding(row, "valueLabel"), **common)
    datatype = value.get("datatype")
    text = value["value"]
    try:
        if datatype == _XSD_DATETIME:
            date, precision = parse_xsd_time(text, None)
            return FactRecord(value=date, datatype="time", extra={"value_precision": precision}, **common)
        if datatype in _NUMERIC:
            number = float(text)
            if not math.isfinite(number):
                raise ValueError(f"{text!r} is not a finite number")
            return FactRecord(value=text, value_num=number, datatype="quantity", **common)
    except ValueError as exc:
        out.refuse("bad_value", f"{statement_id}: value not understood ({exc})")
        return None
    return FactRecord(value=text, datatype="string", **common)
