"""NewTerm's official answer parsing, reproduced rule for rule (METHODS.md §4).

* COMA / COST: replace every run of non-word characters by a space and take the first token
  that is exactly "A", "B", "C" or "D" (case-sensitive). Without one, the response is right
  only if the gold choice's text appears in it (case-insensitive) and no other choice's does.
* CSJ: if the response contains any of "NO", "No", "Incorrect", "Unacceptable" the answer is
  false (checked first); else any of "YES", "Yes", "Correct", "Acceptable" makes it true;
  else there is no answer. Substring tests, case-sensitive, as released — so "Not sure" reads
  as false. CSJ is reported as balanced accuracy ×100.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from knowforge.errors import InputError
from knowforge.eval.metrics import balanced_accuracy
from knowforge.models.types import BenchmarkItem
from knowforge.eval.types import Score

CHOICE_LETTERS = ("A", "B", "C", "D")
FALSE_WORDS = ("NO", "No", "Incorrect", "Unacceptable")
TRUE_WORDS = ("YES", "Yes", "Correct", "Acceptable")
TASKS = ("COMA", "COST", "CSJ")


def parse_choice_letter(response: str | None) -> int | None:
    """Index of the first token that is exactly A/B/C/D, or None."""
    for token in re.sub(r"\W+", " ", response or "").split():
        if token in CHOICE_LETTERS:
            return CHOICE_LETTERS.index(token)
    return None


def score_choice(response: str | None, choices: Sequence[str], gold: int) -> tuple[bool, int | None]:
    """(right, parsed index) for a COMA / COST response."""
    letter = parse_choice_letter(response)
    if letter is not None:
        return letter == gold, letter
    lowered = (response or "").lower()
    gold_present = choices[gold].lower() in lowered
    others_present = any(c.lower() in lowered for i, c in enumerate(choices) if i != gold)
    if gold_present and not others_present:
        return True, gold
    return False, None


def parse_judgement(response: str | None) -> bool | None:
    """CSJ: False when a "no" word occurs (checked first), True for a "yes" word, else None."""
    text = response or ""
    if any(word in text for word in FALSE_WORDS):
        return False
    if any(word in text for word in TRUE_WORDS):
        return True
    return None


def csj_balanced_accuracy(golds: Sequence[bool], predictions: Sequence[bool | None]) -> float:
    """Mean of the per-class accuracies (true items, false items) ×100."""
    return 100.0 * balanced_accuracy(golds, predictions)


# --- adapters to BenchmarkItem ---------------------------------------------------------------
def score_choice_item(item: BenchmarkItem, response: str) -> Score:
    if item.answer_index is None:
        raise InputError("a NewTerm choice item needs answer_index", record=item.id)
    right, parsed = score_choice(response, item.choices, item.answer_index)
    return Score(value=1.0 if right else 0.0,
                 answer=CHOICE_LETTERS[parsed] if parsed is not None else None,
                 explanation="NewTerm official choice parsing")


def score_judgement_item(item: BenchmarkItem, response: str) -> Score:
    gold = _gold_bool(item)
    parsed = parse_judgement(response)
    return Score(value=1.0 if parsed is gold else 0.0,
                 answer=None if parsed is None else str(parsed).lower(),
                 explanation="NewTerm official CSJ parsing (balanced accuracy over the task)",
                 metadata={"gold": gold})


def _gold_bool(item: BenchmarkItem) -> bool:
    if "gold" in item.metadata:
        return bool(item.metadata["gold"])
    answer = (item.answers[0] if item.answers else "").strip().lower()
    if answer in ("true", "yes"):
        return True
    if answer in ("false", "no"):
        return False
    raise InputError("a CSJ item needs a true/false answer", record=item.id)


# --- the released format ---------------------------------------------------------------------
def read_official(path: str | Path, task: str | None = None, *, year: int | None = None) -> list[BenchmarkItem]:
    """Read a released COMA / COST / CSJ JSONL file into items scored in compat mode.

    ``task`` defaults to the file name's prefix (``COMA_clean.jsonl`` → COMA).
    """
    path = Path(path)
    task = (task or path.stem.split("_")[0]).upper()
    if task not in TASKS:
        raise InputError(f"unknown NewTerm task {task!r}; expected one of {', '.join(TASKS)}", path=str(path))
    items = []
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                items.append(_item(row, task, line_no, year))
            except json.JSONDecodeError as exc:
                raise InputError(f"not valid JSON: {exc.msg}", path=str(path), line=line_no) from exc
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(f"malformed {task} record: {exc}", path=str(path), line=line_no) from exc
    return items


def _item(row: dict, task: str, line_no: int, year: int | None) -> BenchmarkItem:
    slices = {"term_type": row["type"], "task": task}
    if year is not None:
        slices["year"] = year
    base = dict(id=f"newterm:{task}:{line_no}", benchmark="newterm", task=f"newterm/{task}",
                question=row["question"], slices=slices,
                metadata={"term": row["term"], "meaning": row["meaning"]})
    if task == "CSJ":
        if not isinstance(row["gold"], bool):
            raise ValueError("CSJ gold must be true or false")
        return BenchmarkItem(**base, form="true-false", answers=["true" if row["gold"] else "false"],
                             scorer="newterm-csj")
    choices = list(row["choices"])
    gold = int(row["gold"])
    if len(choices) != 4 or not 0 <= gold < 4:
        raise ValueError("expected 4 choices and gold in 0..3")
    if "split" in row:
        base["slices"]["split"] = row["split"]
    return BenchmarkItem(**base, form="multi-choice", choices=choices, answer_index=gold,
                         answers=[choices[gold]], scorer="newterm-choice")
