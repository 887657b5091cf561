"""NewTerm's answer parsing in two modes, and the result files its scorer reads (METHODS.md §4).

``official`` follows ``newterm/get_results.py`` of hexuandeng/NewTerm:

* COMA / COST: every run of ``[\\W_]+`` (non-word characters *and* underscores) becomes a
  space; the first token that is exactly "A", "B", "C" or "D" (case-sensitive) is the answer.
  Without one, the response is right only if the gold choice's text appears in it
  (case-insensitive) and no other choice's text does.
* CSJ: if the response contains any of "NO", "No", "Incorrect", "Unacceptable" the answer is
  false (checked first); else any of "YES", "Yes", "Correct", "Acceptable" makes it true; else
  there is no answer. Substring tests, case-sensitive, so "Not sure" reads as false. CSJ is
  reported as balanced accuracy ×100.

One released behaviour is not reproduced: in ``get_results.py`` a response with no token at
all (empty, or only punctuation) leaves the loop variable of the previous line in place, so it
is scored with the previous response's letter. Both modes score such a response by the text
rule (wrong); docs/fidelity.md has the example.

``knowforge`` (the default) reads COMA / COST the same way and reads CSJ by whole words in any
case: "yes" is true, "Not sure" has no answer.

Result files: ``results_{year}/{TASK}_{model}{suffix}.jsonl`` (suffix "", "_gold", "_few",
"_few_gold"), one JSON object per line with the benchmark line's fields, ``prompt_id`` and
``response`` — what ``newterm/evaluation.py`` writes and ``get_results.py`` reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowforge.errors import InputError
from knowforge.eval.scoring import check_scoring as check_mode
from knowforge.eval.metrics import balanced_accuracy
from knowforge.eval.types import DEFAULT_SCORING, Score
from knowforge.models.types import BenchmarkItem

CHOICE_LETTERS = ("A", "B", "C", "D")
FALSE_WORDS = ("NO", "No", "Incorrect", "Unacceptable")
TRUE_WORDS = ("YES", "Yes", "Correct", "Acceptable")
TASKS = ("COMA", "COST", "CSJ")
# get_results.py line 7: pattern = re.compile('[\W_]+')
TOKEN_SEPARATOR = re.compile(r"[\W_]+")
_FALSE_WORDS_KF = {"no", "incorrect", "unacceptable"}
_TRUE_WORDS_KF = {"yes", "correct", "acceptable"}
PROMPT_SUFFIXES = {"base": "", "gold": "_gold", "few": "_few", "few_gold": "_few_gold"}


def tokens(response: str | None) -> list[str]:
    return TOKEN_SEPARATOR.sub(" ", response or "").split()


def parse_choice_letter(response: str | None) -> int | None:
    """Index of the first token that is exactly A/B/C/D, or None."""
    for token in tokens(response):
        if token in CHOICE_LETTERS:
            return CHOICE_LETTERS.index(token)
    return None


def score_choice(response: str | None, choices: Sequence[str], gold: int,
                 mode: str = DEFAULT_SCORING) -> tuple[bool, int | None]:
    """(right, parsed index) for a COMA / COST response (the same rule in both modes)."""
    check_mode(mode)
    letter = parse_choice_letter(response)
    if letter is not None:
        return letter == gold, letter
    lowered = (response or "").lower()
    gold_present = choices[gold].lower() in lowered
    others_present = any(c.lower() in lowered for i, c in enumerate(choices) if i != gold)
    if gold_present and not others_present:
        return True, gold
    return False, None


def parse_judgement(response: str | None, mode: str = DEFAULT_SCORING) -> bool | None:
    """CSJ: False for a "no" word (checked first), True for a "yes" word, else None.
    Official: case-sensitive substrings; knowforge: whole words in any case."""
    text = response or ""
    if check_mode(mode) == "official":
        if any(word in text for word in FALSE_WORDS):
            return False
        if any(word in text for word in TRUE_WORDS):
            return True
        return None
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    if words & _FALSE_WORDS_KF:
        return False
    if words & _TRUE_WORDS_KF:
        return True
    return None


def csj_balanced_accuracy(golds: Sequence[bool], predictions: Sequence[bool | None]) -> float:
    """Mean of the per-class accuracies (true items, false items) ×100."""
    return 100.0 * balanced_accuracy(golds, predictions)


# --- adapters to BenchmarkItem ---------------------------------------------------------------
def _choice_item(item: BenchmarkItem, response: str, mode: str) -> Score:
    if item.answer_index is None:
        raise InputError("a NewTerm choice item needs answer_index", record=item.id)
    right, parsed = score_choice(response, item.choices, item.answer_index, mode)
    return Score(value=1.0 if right else 0.0,
                 answer=CHOICE_LETTERS[parsed] if parsed is not None else None,
                 explanation=f"NewTerm {mode} choice parsing")


def _judgement_item(item: BenchmarkItem, response: str, mode: str) -> Score:
    gold = _gold_bool(item)
    parsed = parse_judgement(response, mode)
    return Score(value=1.0 if parsed is gold else 0.0,
                 answer=None if parsed is None else str(parsed).lower(),
                 explanation=f"NewTerm {mode} CSJ parsing (balanced accuracy over the task)",
                 metadata={"gold": gold})


def score_choice_item(item: BenchmarkItem, response: str) -> Score:
    return _choice_item(item, response, "knowforge")


def score_choice_item_official(item: BenchmarkItem, response: str) -> Score:
    return _choice_item(item, response, "official")


def score_judgement_item(item: BenchmarkItem, response: str) -> Score:
    return _judgement_item(item, response, "knowforge")


def score_judgement_item_official(item: BenchmarkItem, response: str) -> Score:
    return _judgement_item(item, response, "official")


def _gold_bool(item: BenchmarkItem) -> bool:
    if "gold" in item.metadata:
        return bool(item.metadata["gold"])
    answer = (item.answers[0] if item.answers else "").strip().lower()
    if answer in ("true", "yes"):
        return True
    if answer in ("false", "no"):
        return False
    raise InputError("a CSJ item needs a true/false answer", record=item.id)


# --- JSON lines -------------------------------------------------------------------------------
def _json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) of each non-blank line; bad JSON names the file and line."""
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield line_no, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"not valid JSON: {exc.msg}", path=str(path), line=line_no) from exc


# --- result files (what evaluation.py writes, get_results.py reads) ------------------------------
def results_model_name(model: str) -> str:
    """A model name for a result file: the last path part (as evaluation.py does), with "_"
    made "-" because get_results.py splits the file name on "_" to find model and prompt."""
    return model.rstrip("/").split("/")[-1].replace("_", "-") or "model"


def results_path(out_dir: str | Path, year: int | str, task: str, model: str, prompt: str = "base") -> Path:
    """``out_dir/results_{year}/{TASK}_{model}{suffix}.jsonl``."""
    if task not in TASKS:
        raise InputError(f"unknown NewTerm task {task!r}; expected one of {', '.join(TASKS)}")
    if prompt not in PROMPT_SUFFIXES:
        raise InputError(f"unknown NewTerm prompt {prompt!r}; expected one of {', '.join(PROMPT_SUFFIXES)}")
    return Path(out_dir) / f"results_{year}" / f"{task}_{results_model_name(model)}{PROMPT_SUFFIXES[prompt]}.jsonl"


def result_row(item: BenchmarkItem, response: str | None) -> dict:
    """The result line of one NewTerm item: its benchmark line's fields, ``prompt_id`` and the
    model's ``response`` (what evaluation.py writes)."""
    task = item.task.split("/")[-1].removesuffix("_clean")
    meta = item.metadata
    row = {"question": item.question, "term": meta.get("term"), "meaning": meta.get("meaning"),
           "type": meta.get("type", item.slices.get("term_type")), "prompt_id": meta.get("prompt_id", 0),
           "response": response or ""}
    if task == "CSJ":
        row["gold"] = _gold_bool(item)
    else:
        row["choices"] = list(item.choices)
        row["gold"] = item.answer_index
        split = meta.get("split", item.slices.get("split"))
        if split is not None:
            row["split"] = split
    return row


def result_line(row: Mapping) -> str:
    """One line as evaluation.py writes it: sorted keys, ``indent=0`` with newlines made spaces."""
    return json.dumps(dict(row), sort_keys=True, indent=0, ensure_ascii=False).replace("\n", " ")


def write_results(path: str | Path, rows: Iterable[Mapping]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(result_line(row) + "\n")
    return path


@dataclass(frozen=True)
class ResultsFile:
    path: Path
    task: str
    model: str
    prompt: str
    rows: tuple[dict, ...]


def parse_results_name(path: str | Path) -> tuple[str, str, str]:
    """(task, model, prompt) of a result file, split as get_results.py does:
    ``file.removesuffix('.jsonl').split('/')[-1].split('_', 2)``, prompt "base" when absent."""
    parts = Path(path).name.removesuffix(".jsonl").split("_", 2)
    if len(parts) < 2:
        raise InputError("a NewTerm result file is named {TASK}_{model}[_{prompt}].jsonl", path=str(path))
    task = parts[0]
    if not any(task.startswith(t) for t in TASKS):
        raise InputError(f"a NewTerm result file starts with one of {', '.join(TASKS)}", path=str(path))
    return task, parts[1], parts[2] if len(parts) == 3 else "base"


def read_results(path: str | Path) -> ResultsFile:
    """Read one result file; every line needs ``response`` and ``gold`` (and ``choices`` for
    COMA / COST)."""
    path = Path(path)
    task, model, prompt = parse_results_name(path)
    kind = next(t for t in TASKS if task.startswith(t))
    rows = []
    for line_no, row in _json_lines(path):
        problem = _check_result_row(row, kind)
        if problem:
            raise InputError(problem, path=str(path), line=line_no)
        rows.append(row)
    return ResultsFile(path, kind, model, prompt, tuple(rows))


def _check_result_row(row, kind: str) -> str | None:
    if not isinstance(row, dict):
        return "a result line is a JSON object"
    if not isinstance(row.get("response"), str):
        return "a result line needs a 'response' string"
    if kind == "CSJ":
        return None if isinstance(row.get("gold"), (bool, int)) else "a CSJ line needs a boolean 'gold'"
    choices, gold = row.get("choices"), row.get("gold")
    if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
        return f"a {kind} line needs 'choices' (a list of strings)"
    if not isinstance(gold, int) or isinstance(gold, bool) or not 0 <= gold < min(len(choices), 4):
        return f"a {kind} line needs 'gold', the index of a choice (0-3)"
    return None


def score_results_file(results: ResultsFile, mode: str = DEFAULT_SCORING) -> dict:
    """Accuracy ×100 (COMA, COST) or balanced accuracy ×100 (CSJ) of one file, and its counts."""
    if results.task == "CSJ":
        golds = [bool(int(r["gold"])) for r in results.rows]
        preds = [parse_judgement(r["response"], mode) for r in results.rows]
        if len(set(golds)) < 2:
            raise InputError("CSJ balanced accuracy needs true and false items", path=str(results.path))
        return {"score": csj_balanced_accuracy(golds, preds), "n": len(golds),
                "no_answer": sum(p is None for p in preds)}
    right = [score_choice(r["response"], r["choices"], r["gold"], mode)[0] for r in results.rows]
    return {"score": 100.0 * sum(right) / len(right) if right else None, "n": len(right),
            "no_answer": sum(parse_choice_letter(r["response"]) is None for r in results.rows)}


def score_results(paths: Iterable[str | Path], mode: str = DEFAULT_SCORING) -> list[dict]:
    """get_results.py's table: one row per (model, prompt) with COMA, COST, CSJ and their mean.

    Files are read COMA, then COST, then CSJ, each task's files sorted by name (as the script
    globs them); rows come per model in first-seen order, then per prompt; the mean is over
    the tasks present.
    """
    files = [read_results(p) for p in paths]
    ordered = [f for task in TASKS for f in sorted(files, key=lambda f: str(f.path)) if f.task == task]
    by_model: dict[str, dict[str, dict]] = {}
    for f in ordered:
        if not f.rows:
            continue
        row = by_model.setdefault(f.model, {}).setdefault(f.prompt, {"model": f.model, "prompt": f.prompt})
        row[f.task] = score_results_file(f, mode)["score"]
    table = [row for prompts in by_model.values() for row in prompts.values()]
    for row in table:
        values = [row[t] for t in TASKS if row.get(t) is not None]
        row["average"] = sum(values) / len(values) if values else None
    return table
