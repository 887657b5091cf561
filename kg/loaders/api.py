"""The one library call behind ``knowforge load``: options as the CLI gives them → reports."""

from __future__ import annotations

from collections.abc import Sequence

from knowforge.kg.loaders.base import LoadReport, RecordProgress
from knowforge.kg.loaders.registry import load_source
from knowforge.kg.loaders.samples import load_samples
from knowforge.kg.loaders.wikidata_common import parse_property_list, read_entity_list
from knowforge.kg.store import Store


def read_word_list(path: str) -> frozenset[str]:
    """Words from a text file, one per line (``#`` starts a comment): a partial WordNet load."""
    with open(path, encoding="utf-8") as fh:
        return frozenset(w for w in (line.split("#", 1)[0].strip() for line in fh) if w)


def run_load(store: Store, source: str, paths: Sequence[str] = (), *, strict: bool = False,
             properties: str | None = None, entities_file: str | None = None,
             year: int | None = None, endpoint: str | None = None, page_size: int | None = None,
             max_pages: int | None = None, progress: RecordProgress | None = None) -> list[LoadReport]:
    """Parse the textual options, run the loader (or all samples) and return the reports."""
    if source == "samples":
        return load_samples(store, strict=strict, progress_for=lambda _source: progress)
    props = None
    if properties:
        props = (parse_property_list(properties) if source in ("wikidata", "rdf", "wikidata-sparql")
                 else frozenset(p.strip() for p in properties.split(",") if p.strip()))
    entities = None
    if entities_file:
        entities = read_word_list(entities_file) if source == "wordnet" else read_entity_list(entities_file)
    return [load_source(store, source, paths, strict=strict, progress=progress, properties=props,
                        entities=entities, year=year, endpoint=endpoint, page_size=page_size,
                        max_pages=max_pages)]
