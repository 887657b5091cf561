"""One entry point for every source: ``load_source(store, "umls", paths, ...)``.

Loader modules are imported lazily so that, e.g., rdflib is only imported for RDF loads.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from knowforge.errors import ConfigError

if TYPE_CHECKING:   # the names alone: `knowforge load --help` (SOURCES) needs no driver
    from knowforge.kg.loaders.base import LoadReport, RecordProgress
    from knowforge.kg.store import Store

# source -> (module, function)
LOADERS = {
    "wikidata": ("knowforge.kg.loaders.wikidata_json", "load_wikidata_json"),
    "wikidata-sparql": ("knowforge.kg.loaders.wikidata_sparql", "load_wikidata_sparql"),
    "rdf": ("knowforge.kg.loaders.wikidata_rdf", "load_wikidata_rdf"),
    "umls": ("knowforge.kg.loaders.umls", "load_umls"),
    "taxonomy": ("knowforge.kg.loaders.taxonomy", "load_taxonomy"),
    "mathkg": ("knowforge.kg.loaders.mathkg", "load_mathkg"),
    "cskg": ("knowforge.kg.loaders.cskg", "load_cskg"),
    "cfr": ("knowforge.kg.loaders.cfr", "load_cfr"),
    "newterms": ("knowforge.kg.loaders.newterms", "load_newterms"),
    "wordnet": ("knowforge.kg.loaders.wordnet", "load_wordnet"),
}
# sources whose loader finds its input itself when no PATH is given
NO_PATH_SOURCES = ("wikidata-sparql", "wordnet")
SOURCES = tuple(LOADERS) + ("samples",)


def load_source(store: Store, source: str, paths: Iterable[str | Path] = (), *,
                strict: bool = False, progress: RecordProgress | None = None,
                properties: Iterable[str] | None = None, entities: Iterable[str] | None = None,
                year: int | None = None, endpoint: str | None = None,
                page_size: int | None = None, max_pages: int | None = None) -> LoadReport:
    """Run the loader of ``source`` with the options that apply to it."""
    if source not in LOADERS:
        raise ConfigError(f"unknown source {source!r}; one of {', '.join(SOURCES)}")
    module, name = LOADERS[source]
    fn = getattr(importlib.import_module(module), name)
    kwargs: dict = {"strict": strict, "progress": progress}
    if source in ("wikidata", "rdf", "wikidata-sparql") and properties is not None:
        kwargs["properties"] = properties
    if source in ("wikidata", "rdf") and entities is not None:
        kwargs["entities"] = entities
    if source == "umls" and properties is not None:
        kwargs["relations"] = properties
    if source == "newterms" and year is not None:
        kwargs["year"] = year
    if source == "wordnet" and entities is not None:
        kwargs["words"] = entities
    if source == "wikidata-sparql":
        for key, value in (("endpoint", endpoint), ("page_size", page_size), ("max_pages", max_pages)):
            if value is not None:
                kwargs[key] = value
        return fn(store, **kwargs)
    return fn(store, list(paths), **kwargs)
