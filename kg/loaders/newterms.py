"""New dictionary terms: our JSONL ``{term, meaning, type, year, source}`` or TSV (a header line
naming at least ``term`` and ``meaning``, optionally ``type``, ``year``, ``source``), and the
official NewTerm ``new_terms.jsonl`` (``{meaning, term, type}``; the year comes from ``year=``).

Each term is a ``Term`` entity ``term:<slug>``; its meaning is an attribute fact ``meaning``
that holds from the year the dictionary added it (``point_in_time`` = that year,
``start_year`` = that year, open end). The fact keeps the record's ``type`` as ``term_type``
and its normalised ``category``: ``new word``, ``new phrase`` or ``new meaning`` (an old word
with a new sense); NewTerm's release names map onto these (``new words not deduced`` → new
word, ``new phrases not deduced`` → new phrase, ``frequently word not deduced`` → new meaning),
and any other type (the multilingual release puts a language there) is kept as it is.

Meanings are linked to the lexical graph: ``(meaning fact)-[:HEAD_WORD {position, word}]->
(:Lemma)`` for the content words of the meaning that are WordNet lemmas (a two-word lemma
such as "home run" wins over its two words). ``link_term_lemmas`` makes those links; both this
loader and the WordNet loader run it, so the two can be loaded in either order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, PendingRecord,
                                       RecordProgress, files_under, parse_json, read_text_lines, slug)
from knowforge.kg.loaders.checks import json_kind
from knowforge.kg.loaders.lemmas import base_forms, lemma_key
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store

SOURCE = "newterms"
DOMAIN = "newterm"
MAX_HEAD_WORDS = 4
# The years a dictionary can have added a term in.
MIN_YEAR, MAX_YEAR = 1, 9999
_YEAR = re.compile(r"[+]?\d{1,4}")

CATEGORIES = ("new word", "new phrase", "new meaning")
RELEASE_TYPES = {"new words not deduced": "new word", "new phrases not deduced": "new phrase",
                 "frequently word not deduced": "new meaning"}
# A definition's function words never head it ("a person who ...", "the act of ...").
STOPWORDS = frozenset("""
a an the of to in on at by for with from into onto upon about as and or nor but if than then so
that which who whom whose what when where while whereas this these those it its it's itself
one one's ones someone somebody something anything everything anyone everyone nothing
is are was were be been being am do does did done doing have has had having can could may
might must shall should will would not no very more most less least much many some any all
each every other another such same own also only just even especially typically usually
often sometimes esp etc e.g i.e eg ie he she they them their his her him we us our you your
i me my used use using kind sort type way thing things person people act process practice
state quality something's often various certain particular specifically mainly chiefly
n adj adv v noun verb adjective adverb phrase informal slang
sense originally orig chiefly designating followed spec obsolete rare colloquial figurative
""".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
_PARENS = re.compile(r"\([^)]*\)")


def entity_id(term: str) -> str:
    """``term:<slug>``; ``slug`` keeps every character that tells two terms apart (``C++`` and
    ``C#`` are two entities), ignoring case and spacing (``Rizz`` and ``rizz`` are one)."""
    return f"term:{slug(term)}"


def category_of(term_type: str | None, term: str) -> str:
    """The normalised category of a record's ``type`` (see the module docstring)."""
    text = (term_type or "").strip()
    lowered = text.lower()
    if lowered in CATEGORIES:
        return lowered
    if lowered in RELEASE_TYPES:
        return RELEASE_TYPES[lowered]
    if text:
        return text
    return "new phrase" if " " in term.strip() else "new word"


def load_newterms(store: Store, paths: Iterable[str | Path], *, year: int | None = None,
                  strict: bool = False, progress: RecordProgress | None = None,
                  batch_size: int = DEFAULT_BATCH_SIZE) -> LoadReport:
    """Load new-term JSONL files. ``year`` is used for records that have none (official format)."""
    ctx = LoadContext(store, SOURCE, strict=strict, progress=progress, batch_size=batch_size)
    with ctx.record() as out:
        out.relation(RelationRecord(id="meaning", label="meaning", source=SOURCE))
    for path in files_under(paths, ("*.jsonl", "*.json", "*.tsv")):
        ctx.report.files.append(str(path))
        if path.name.lower().endswith(".tsv"):
            _read_tsv(ctx, path, year)
            continue
        for lineno, line in read_text_lines(ctx, path):
            if not line.strip():
                continue
            ctx.read()
            try:
                record = parse_json(line)
            except ValueError as exc:
                ctx.skip("malformed_json", f"malformed JSON: {exc}", path=path, line=lineno)
                continue
            _term(ctx, path, lineno, record, year)
    report = ctx.finish()
    link_term_lemmas(store)
    return report


def _read_tsv(ctx: LoadContext, path: Path, year: int | None) -> None:
    header: list[str] | None = None
    for lineno, line in read_text_lines(ctx, path):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split("\t")]
        if header is None:
            header = [f.lower() for f in fields]
            missing = [c for c in ("term", "meaning") if c not in header]
            if missing:
                from knowforge.errors import InputError

                raise InputError(f"the TSV header lacks {', '.join(missing)}", path=str(path), line=lineno)
            continue
        ctx.read()
        if len(fields) != len(header):
            ctx.skip("wrong_column_count", f"row has {len(fields)} columns, header has {len(header)}",
                     path=path, line=lineno)
            continue
        _term(ctx, path, lineno, {k: v for k, v in zip(header, fields) if v}, year)


def load_term_records(store: Store, records: Iterable[tuple[Path, int, dict]], *, year: int,
                      batch_size: int = DEFAULT_BATCH_SIZE, facts_only: frozenset[str] = frozenset()) -> LoadReport:
    """Terms already parsed elsewhere (a NewTerm release's question files): ``(file, line,
    {term, meaning, type})`` records, loaded exactly as ``load_newterms`` loads a line.
    The Term entities named in ``facts_only`` get their meaning facts but are not rewritten
    (an import leaves the terms already in the graph as they are, so its drop restores them)."""
    ctx = LoadContext(store, SOURCE, batch_size=batch_size)
    with ctx.record() as out:
        out.relation(RelationRecord(id="meaning", label="meaning", source=SOURCE))
    for path, lineno, record in records:
        ctx.read()
        _term(ctx, Path(path), lineno, record, year, facts_only)
    report = ctx.finish()
    link_term_lemmas(store)
    return report


def _term(ctx: LoadContext, path: Path, lineno: int, record, year: int | None,
          facts_only: frozenset[str] = frozenset()) -> None:
    with ctx.record(path, lineno) as out:
        _read_term(out, record, year, facts_only)


def _read_term(out: PendingRecord, record, year: int | None, facts_only: frozenset[str] = frozenset()) -> None:
    """One term record → its Term entity and meaning fact, or the reason it is refused."""
    if not isinstance(record, dict):
        out.refuse("missing_field", f"a term record is an object with 'term' and 'meaning', not "
                   f"{json_kind(record)}")
        return
    for name in ("term", "meaning", "type", "source"):
        value = record.get(name)
        if value is not None and not isinstance(value, str):
            out.refuse("bad_field", f"{name} is {json_kind(value)}, not text: {_short(value)}")
            return
    if not (record.get("term") or "").strip() or not (record.get("meaning") or "").strip():
        out.refuse("missing_field", "a term record needs 'term' and 'meaning'")
        return
    raw_year = record.get("year", year)
    if raw_year is None:
        out.refuse("no_year", "record has no year; pass --year for the official NewTerm format")
        return
    term_year = parse_year(raw_year)
    if term_year is None:
        out.refuse("bad_year", f"year {_short(raw_year)} is not a whole number from {MIN_YEAR} to {MAX_YEAR}")
        return
    term = record["term"].strip()
    eid = entity_id(term)
    if not out.claim_id(eid, term):
        return
    extra = {k: v for k, v in (("term_type", record.get("type")), ("dictionary", record.get("source"))) if v}
    if eid not in facts_only:
        out.entity(EntityRecord(id=eid, name=term, labels=("Term",), domain=DOMAIN, source=SOURCE,
                                source_file=out_file(out), extra={**extra, "year_added": term_year}))
    out.fact(FactRecord(subject_id=eid, relation="meaning", value=record["meaning"].strip(),
                        datatype="string", point_in_time=str(term_year), point_in_time_precision="year",
                        start_year=term_year, source=SOURCE, relation_label="meaning", subject_name=term,
                        source_file=out_file(out),
                        extra={**extra, "category": category_of(record.get("type"), term)}))


def out_file(out: PendingRecord) -> str | None:
    return Path(out.path).name if out.path is not None else None


def parse_year(value) -> int | None:
    """A record's year: a whole number (``2022``, ``2022.0``) or its digits as text (``"2022"``,
    as TSV gives them) from ``MIN_YEAR`` to ``MAX_YEAR``; anything else (``true``, ``2022.5``,
    ``1e400``, ``10**30``) is None."""
    if value.__class__ is int:
        number = value
    elif value.__class__ is float and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _YEAR.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        return None
    return number if MIN_YEAR <= number <= MAX_YEAR else None


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def meaning_fact_id(term: str, meaning: str, year: int) -> str:
    """The id ``load_newterms`` gives the meaning fact of (term, meaning, year)."""
    return FactRecord(subject_id=entity_id(term.strip()), relation="meaning", value=meaning.strip(),
                      point_in_time=str(year), source=SOURCE).id


# ---- meanings → lemmas ---------------------------------------------------------------------

def head_word_candidates(meaning: str) -> list[tuple[str, list[str]]]:
    """Content words of a definition, in order, each with its candidate lemma keys (the word,
    then WordNet's detachment rules); adjacent content-word pairs come first as two-word
    candidates. A definition's parenthesised labels ("(in baseball)") are used only when
    nothing else is left."""
    def words_of(text: str) -> list[str]:
        return [w.lower().strip("'-") for w in _WORD.findall(text)]

    words = [w for w in words_of(_PARENS.sub(" ", meaning)) if w]
    if not [w for w in words if w not in STOPWORDS]:
        words = [w for w in words_of(meaning) if w]
    out: list[tuple[str, list[str]]] = []
    for i, word in enumerate(words):
        if word in STOPWORDS or len(word) < 3:
            continue
        if i + 1 < len(words) and words[i + 1] not in STOPWORDS and len(words[i + 1]) >= 2:
            pair = f"{word} {words[i + 1]}"
            out.append((pair, list(dict.fromkeys([lemma_key(pair), *[f"{word}_{b}" for b in
                                                                     base_forms(words[i + 1])]]))))
        out.append((word, base_forms(word)))
    return out


def choose_head_words(candidates: Sequence[tuple[str, list[str]]], existing: set[str],
                      limit: int = MAX_HEAD_WORDS) -> list[tuple[str, str]]:
    """(word, lemma key) of the first ``limit`` candidates that exist as lemmas; a two-word
    lemma takes the place of its two words."""
    chosen: list[tuple[str, str]] = []
    covered: set[str] = set()
    for word, keys in candidates:
        if len(chosen) >= limit:
            break
        key = next((k for k in keys if k in existing), None)
        if key is None:
            continue
        parts = word.split()
        if len(parts) == 1 and word in covered:
            continue
        if key in (k for _, k in chosen):
            covered.update(parts)
            continue
        chosen.append((word, key))
        if len(parts) > 1:
            covered.update(parts)
    return chosen


def link_term_lemmas(store: Store, batch_size: int = 1000) -> int:
    """Link every term meaning to the lemmas of its head words (idempotent); returns the number
    of meanings looked at. Nothing happens while the graph has no lemmas."""
    if not store.read("loaders/count_lemmas")[0]["n"]:
        return 0
    meanings = store.read("loaders/read_term_meanings")
    rows = []
    for start in range(0, len(meanings), batch_size):
        chunk = meanings[start:start + batch_size]
        candidates = {m["fact_id"]: head_word_candidates(m["meaning"] or "") for m in chunk}
        ids = sorted({f"wn:lemma:{k}" for cands in candidates.values() for _, keys in cands for k in keys})
        existing = {r["id"][len("wn:lemma:"):] for r in store.read("loaders/read_existing_lemmas", ids=ids)}
        for m in chunk:
            heads = choose_head_words(candidates[m["fact_id"]], existing)
            rows.append({"fact_id": m["fact_id"],
                         "heads": [{"lemma_id": f"wn:lemma:{key}", "word": word, "position": i}
                                   for i, (word, key) in enumerate(heads)]})
    store.write("loaders/link_meaning_head_words", rows)
    return len(meanings)
