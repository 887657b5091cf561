"""ELKEN's scoring rules in two modes (METHODS.md §3, docs/fidelity.md).

``official`` reproduces the released scripts rule for rule (THU-KEG/Event-Level-Knowledge-Editing,
``metric.py`` and ``overall_event_level_metric.py``), quirks included:

* answer: first line, strip, lower-case, drop ONE trailing period (``parse_answer``);
* fact labels: ``alias + [name]``, plus "United States" when the answer id is Q30 (added by
  ``MetricForFact.load_file``, not by ``overall_event_level_metric.compute_fact``); the gold is
  unknown when the *string* "unknown" is one of the labels, and then the answer is right when
  it contains "unknown"; otherwise exact match with a normalised label;
* tendency: first line, stripped; with "(" exactly one "(A|B|C)" must occur (else the whole
  line is the answer, which never equals a letter); else with "." the text before the first
  "."; compared case-sensitively with the letter;
* locality: ``parse_local_answer`` normalises the answer, replaces it by ``alias[0]`` only when
  it equals a *raw* alias (aliases with capitals never match a lower-cased answer), then
  collapses anything containing "unknown"; the name is not an alias here;
* edit level: consecutive questions with the same event text form an event; it counts when
  all of them are right.

``knowforge`` (the default) keeps those rules except where we think they are wrong: it reads
the first *non-empty* line, has no Q30 special case (aliases come from the graph), decides an
unknown gold by its label (the name "unknown"; the release's "NA" id marks literals too), normalises the aliases and the
name for locality, compares tendency locality by the picked option, and groups edit-level
results by event id. Every difference has an example in docs/fidelity.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from knowforge.errors import ConfigError
from knowforge.eval.types import DEFAULT_SCORING, SCORING_MODES, Score
from knowforge.models.types import BenchmarkItem

UNKNOWN = "unknown"
US_ID = "Q30"
US_LABEL = "United States"
_TENDENCY_LETTER = re.compile(r"\(([ABC])\)")


def check_mode(mode: str) -> str:
    if mode not in SCORING_MODES:
        raise ConfigError(f"unknown scoring mode {mode!r}; choose one of {', '.join(SCORING_MODES)}")
    return mode


def answer_line(text: str | None, mode: str = DEFAULT_SCORING) -> str:
    """The line a rule reads: the first line (official), the first non-empty one (knowforge)."""
    text = text or ""
    if check_mode(mode) == "official":
        return text.split("\n")[0]
    for line in text.split("\n"):
        if line.strip():
            return line
    return ""


def normalize(text: str | None, mode: str = "official") -> str:
    """``parse_answer``: the answer line, stripped, lower-cased, one trailing period dropped."""
    text = answer_line(text, mode).strip().lower()
    if text.endswith("."):
        text = text[:-1]
    return text


def fact_labels(name: str, aliases: Sequence[str] = ()) -> list[str]:
    """aliases + name, in that order (the released loader's order)."""
    return [*aliases, name]


def official_labels(answer: Mapping, *, us_label: bool = True) -> list[str]:
    """``MetricForFact.load_file``: alias + [name], + "United States" for Q30 (``us_label``;
    ``overall_event_level_metric.compute_fact`` does not add it)."""
    labels = [*(answer.get("alias") or []), answer.get("name", "")]
    if us_label and answer.get("id") == US_ID:
        labels.append(US_LABEL)
    return labels


def is_unknown_answer(answer: Mapping, mode: str = DEFAULT_SCORING) -> bool:
    """Is the gold "unknown"? Official: the string is one of the labels; knowforge: the
    answer's label (its name) normalises to "unknown". The id is no sign: the release gives
    "NA" to every literal answer ("2023", "male"), not only to unknown ones."""
    if check_mode(mode) == "official":
        return UNKNOWN in official_labels(answer, us_label=False)
    return normalize(answer.get("name"), "knowforge") == UNKNOWN


def fact_right(prediction: str | None, answer: Mapping, mode: str = DEFAULT_SCORING, *,
               us_label: bool = True) -> bool:
    """One fact question under ``mode``; ``answer`` is ELKEN's ``{id, name, alias}``."""
    pred = normalize(prediction, mode)
    if is_unknown_answer(answer, mode):
        return UNKNOWN in pred
    labels = (official_labels(answer, us_label=us_label) if mode == "official"
              else fact_labels(answer.get("name", ""), answer.get("alias") or []))
    return pred in {normalize(label, mode) for label in labels}


def score_fact(prediction: str | None, name: str, aliases: Sequence[str] = (), *,
               answer_id: str | None = None, mode: str = DEFAULT_SCORING) -> bool:
    """``fact_right`` for a name and its aliases."""
    answer = {"id": answer_id or ("NA" if name == UNKNOWN else name), "name": name, "alias": list(aliases)}
    return fact_right(prediction, answer, mode)


def parse_tendency(prediction: str | None, mode: str = DEFAULT_SCORING) -> str:
    """``parse_tendency_answer``: the option a tendency answer picks. When the "(" rule does not
    find exactly one letter the whole line comes back (it never equals a letter)."""
    line = answer_line(prediction, mode).strip()
    if "(" in line:
        found = _TENDENCY_LETTER.findall(line)
        return found[0] if len(found) == 1 else line
    if "." in line:
        return line.split(".")[0]
    return line


def score_tendency(prediction: str | None, gold_letter: str, mode: str = DEFAULT_SCORING) -> bool:
    return parse_tendency(prediction, mode) == parse_tendency(gold_letter, "official")


def parse_local_answer(prediction: str | None, alias: Sequence[str] | None = None) -> str:
    """The released ``parse_local_answer``: normalise, map to ``alias[0]`` when the normalised
    answer equals a raw alias, then collapse anything containing "unknown"."""
    text = normalize(prediction, "official")
    if alias is not None and text in alias:
        text = alias[0]
    return UNKNOWN if UNKNOWN in text else text


def locality_label(prediction: str | None, aliases: Sequence[str] | None = None, *,
                   name: str | None = None, mode: str = DEFAULT_SCORING) -> str:
    """An out-of-scope fact answer in canonical form.

    Official: ``parse_local_answer(prediction, aliases)`` (the name is not used). Knowforge:
    "unknown" collapsed first, then any normalised alias or the name maps to the first of
    them, normalised.
    """
    if check_mode(mode) == "official":
        return parse_local_answer(prediction, None if aliases is None else list(aliases))
    pred = normalize(prediction, mode)
    if UNKNOWN in pred:
        return UNKNOWN
    labels = [normalize(a, mode) for a in [*(aliases or []), *([name] if name else [])]]
    return labels[0] if pred in labels else pred


def locality_unchanged(before: str | None, after: str | None, aliases: Sequence[str] | None = None, *,
                       name: str | None = None, mode: str = DEFAULT_SCORING) -> bool:
    """An out-of-scope fact answer is local when the edit did not change it."""
    return (locality_label(before, aliases, name=name, mode=mode)
            == locality_label(after, aliases, name=name, mode=mode))


def tendency_unchanged(before: str | None, after: str | None, mode: str = DEFAULT_SCORING) -> bool:
    """An out-of-scope tendency answer is local when the edit did not change it: official
    compares ``parse_local_answer`` of both texts, knowforge the options they pick."""
    if check_mode(mode) == "official":
        return parse_local_answer(after) == parse_local_answer(before)
    return parse_tendency(before, mode) == parse_tendency(after, mode)


def edit_level(question_results: Iterable[bool]) -> bool:
    """An event is edited only when every one of its questions is right (and it has some)."""
    results = list(question_results)
    return bool(results) and all(results)


def event_accuracy(rows: Iterable[tuple[str, bool]], mode: str = DEFAULT_SCORING) -> tuple[int, int]:
    """(events right, events) over (event key, question right) rows in file order.

    Official (``compute_event_acc``): a run of consecutive rows with the same event text is one
    event, and the count closes with one more event after the loop even when there were no
    rows (1 of 1). Knowforge: rows grouped by key wherever they are; no rows, no events.
    """
    rows = list(rows)
    if check_mode(mode) == "official":
        right = total = 0
        current, ok = "NA", True
        for key, correct in rows:
            if key != current:
                if current != "NA":
                    total, right = total + 1, right + int(ok)
                current, ok = key, True
            ok = ok and correct
        return right + int(ok), total + 1
    groups: dict[str, list[bool]] = {}
    for key, correct in rows:
        groups.setdefault(key, []).append(correct)
    return sum(edit_level(v) for v in groups.values()), len(groups)


# --- adapters to BenchmarkItem (the scorers "elken-fact", "elken-tendency") ------------------
def item_answer(item: BenchmarkItem) -> dict:
    """ELKEN's ``{id, name, alias}`` of a fact item: ``metadata["answer"]`` when the item
    carries it (events benchmarks, the released file), else built from ``answers``."""
    answer = item.metadata.get("answer")
    if isinstance(answer, Mapping) and "name" in answer:
        return {"id": answer.get("id"), "name": answer["name"], "alias": list(answer.get("alias") or [])}
    if item.unknown:
        return {"id": "NA", "name": UNKNOWN, "alias": [UNKNOWN]}
    name, *aliases = item.answers or [""]
    return {"id": None, "name": name, "alias": aliases}


def _fact_item(item: BenchmarkItem, response: str, mode: str) -> Score:
    answer = item_answer(item)
    right = fact_right(response, answer, mode)
    return Score(value=1.0 if right else 0.0, answer=normalize(response, mode),
                 explanation=f"ELKEN {mode}: normalised exact match with aliases + name"
                             + (" (gold unknown: needs 'unknown')" if is_unknown_answer(answer, mode) else ""))


def _tendency_item(item: BenchmarkItem, response: str, mode: str) -> Score:
    gold = item.answers[0] if item.answers else "ABC"[item.answer_index or 0]
    parsed = parse_tendency(response, mode)
    return Score(value=1.0 if parsed == gold else 0.0, answer=parsed,
                 explanation=f"ELKEN {mode} tendency parsing, case-sensitive letter")


def score_fact_item(item: BenchmarkItem, response: str) -> Score:
    return _fact_item(item, response, "knowforge")


def score_fact_item_official(item: BenchmarkItem, response: str) -> Score:
    return _fact_item(item, response, "official")


def score_tendency_item(item: BenchmarkItem, response: str) -> Score:
    return _tendency_item(item, response, "knowforge")


def score_tendency_item_official(item: BenchmarkItem, response: str) -> Score:
    return _tendency_item(item, response, "official")


# --- the released format ---------------------------------------------------------------------
def candidate_string(choices: Sequence[str]) -> str:
    """["x", "y", "z"] → "(A) x (B) y (C) z" (the released ``candidate`` layout)."""
    return " ".join(f"({'ABC'[i]}) {c}" for i, c in enumerate(choices))
