"""ELKEN's prediction files: HELM-style ``request_states`` JSON, written and scored.

The released pipeline (THU-KEG/Event-Level-Knowledge-Editing) writes one JSON file per run,
``{"prompt": {...}, "request_states": [{"instance": {...}, "request": {"result":
{"completions": [{"text": ...}]}}}]}`` (``data_processor/processor.py``), and scores it with
``metric.py`` (``MetricForFact``, ``MetricForTendency``) and ``overall_event_level_metric.py``:

=====================  ===========================================================  =====================
file                   instances                                                    input text
=====================  ===========================================================  =====================
``fact.json``          every fact question of every event, ``local`` true for the    ``Event: e\\nQuestion: q\\nAnswer:``
                       out-of-scope ones, ``answer`` = ``{id, name, alias}``,
                       ``question_type`` 0/1 ("NA" for local ones)
``fact_local.json``    the out-of-scope questions asked without the event (before    ``Question: q\\nAnswer:``
                       the edit)
``tendency_mc.json``   tendency questions, ``answer`` = the letter                   ``Event: e\\nQuestion: q\\n(A) .. (C) ..\\nAnswer:``
``tendency_mc_local``  out-of-scope tendency questions without the event             ``Question: q\\n(A) .. (C) ..\\nAnswer:``
``*_exam.json``        open tendency answers with the judge's ``scores``             (Tendency-G)
=====================  ===========================================================  =====================

Instances carry ``event_type``, ``event`` and ``id`` (the event's). Locality pairs an after
file with its before file: fact questions by the input text without the event line (each
question once per file, as ``get_input_pred`` asserts), tendency questions by position (their
first lines must agree). The metric functions here take a scoring mode (``elken``'s rules);
``official`` also reproduces how the scripts count (consecutive event grouping, the checks
that stop ``metric.py``).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowforge.errors import InputError
from knowforge.eval.events import rules as elken
from knowforge.eval.types import DEFAULT_SCORING
from knowforge.models.types import BenchmarkItem

FACT = "fact"
FACT_LOCAL = "fact_local"
TENDENCY = "tendency_mc"
TENDENCY_LOCAL = "tendency_mc_local"
TENDENCY_EXAM = "tendency_gen_exam"
FILE_KINDS = (FACT, FACT_LOCAL, TENDENCY, TENDENCY_LOCAL, TENDENCY_EXAM)
JUDGE_KEYS = ("overall", "accuracy", "coherence", "comprehensive")

# Our own wording of what each file's prompt asked (the scripts ignore this block).
INSTRUCTIONS = {
    FACT: "Assume the event has happened and answer from it and from your knowledge; answer "
          "'unknown' if you do not know. Give the answer only, usually one entity.",
    FACT_LOCAL: "Answer from your knowledge. Give the answer only, usually one entity.",
    TENDENCY: "Assume the event has happened and pick the most likely trend: answer with the "
              "letter A, B or C only.",
    TENDENCY_LOCAL: "Pick the most likely trend: answer with the letter A, B or C only.",
}


def fact_input(question: str, event: str | None = None) -> str:
    return (f"Event: {event}\n" if event is not None else "") + f"Question: {question}\nAnswer:"


def tendency_input(question: str, candidate: str, event: str | None = None) -> str:
    return (f"Event: {event}\n" if event is not None else "") + f"Question: {question}\n{candidate}\nAnswer:"


def request_state(*, event_type: str | None, event: str, event_id: Any, input_text: str, answer: Any,
                  local: bool, completion: str | None, question_type: Any = None,
                  scores: Mapping[str, int] | None = None) -> dict:
    """One ``request_states`` entry as ``processor.py`` lays it out, with the model's answer."""
    instance = {"event_type": event_type, "event": event, "input": {"text": input_text}, "id": event_id,
                "answer": answer, "local": local}
    if question_type is not None:
        instance["question_type"] = question_type
    state = {"instance": instance,
             "request": {"result": {"success": completion is not None,
                                    "completions": [{"text": completion or ""}]},
                         "request_time": 0, "request_datetime": 0}}
    if scores is not None:
        state["scores"] = dict(scores)
    return state


def write_request_states(path: str | Path, states: Sequence[Mapping], kind: str) -> Path:
    """Write one prediction file (``indent=4``, as ``processor.py`` saves)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prompt = {"instructions": INSTRUCTIONS.get(kind, ""), "input_prefix": "", "input_suffix": "\n",
              "output_prefix": "", "output_suffix": "\n", "demonstrations": []}
    path.write_text(json.dumps({"prompt": prompt, "request_states": list(states)}, indent=4,
                               ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def read_request_states(path: str | Path) -> list[dict]:
    """The ``request_states`` of a file, each checked for the fields the scripts read."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", path=str(path), line=exc.lineno) from exc
    states = data.get("request_states") if isinstance(data, Mapping) else None
    if not isinstance(states, list):
        raise InputError("expected a HELM-style JSON object with a 'request_states' list", path=str(path))
    for i, state in enumerate(states):
        problem = _check_state(state)
        if problem:
            raise InputError(problem, path=str(path), record=f"request_states[{i}]")
    return states


def _check_state(state) -> str | None:
    try:
        instance = state["instance"]
        text = instance["input"]["text"]
        completion = state["request"]["result"]["completions"][0]["text"]
    except (KeyError, IndexError, TypeError):
        return "needs instance.input.text and request.result.completions[0].text"
    if not isinstance(text, str) or not isinstance(completion, str):
        return "input and completion texts must be strings"
    for key in ("local", "event", "answer"):
        if key not in instance:
            return f"instance has no {key!r}"
    answer = instance["answer"]
    if isinstance(answer, Mapping):
        if "name" not in answer or not isinstance(answer.get("alias", []), list):
            return "a fact answer needs 'name' and an 'alias' list"
    elif not isinstance(answer, str):
        return "answer must be a fact answer {id, name, alias} or a tendency letter"
    if "scores" in state and not all(k in state["scores"] for k in JUDGE_KEYS):
        return f"judge scores need {', '.join(JUDGE_KEYS)}"
    return None


def completion(state: Mapping) -> str:
    return state["request"]["result"]["completions"][0]["text"]


def file_kind(states: Sequence[Mapping]) -> str:
    """Which of the five files ``states`` is, from its content."""
    if any("scores" in s for s in states):
        return TENDENCY_EXAM
    fact = any(isinstance(s["instance"]["answer"], Mapping) for s in states)
    before = bool(states) and all(s["instance"]["local"] for s in states) and not any(
        _has_event_line(s["instance"]["input"]["text"]) for s in states)
    if fact:
        return FACT_LOCAL if before else FACT
    return TENDENCY_LOCAL if before else TENDENCY


def _has_event_line(text: str) -> bool:
    return "Event:" in text


def question_text(state: Mapping) -> str:
    """``get_input_pred``: the input without a SERAC prefix (last "\\n\\n" block) and without
    the event line."""
    text = state["instance"]["input"]["text"]
    if "\n\n" in text:
        text = text.split("\n\n")[-1]
    if "Event:" in text:
        return "\n".join(text.split("\n")[1:])
    return text


# --- items to states --------------------------------------------------------------------------------
def event_text(item: BenchmarkItem) -> str | None:
    return item.metadata.get("event") or item.context


def event_id(item: BenchmarkItem) -> str:
    meta = item.metadata
    return str(meta.get("event_id", meta.get("event_index", event_text(item))))


def is_local(item: BenchmarkItem) -> bool:
    return item.slices.get("scope") == "out" or item.task.endswith("-out")


def part_of(item: BenchmarkItem) -> str | None:
    """"fact" or "tendency" for ELKEN items (by scorer), else None."""
    return {"elken-fact": "fact", "elken-tendency": "tendency"}.get(item.scorer)


def question_type(item: BenchmarkItem):
    """ELKEN's 0/1 question type; events items: 1 when the answer needs background knowledge."""
    if item.metadata.get("question_type") in (0, 1):
        return item.metadata["question_type"]
    return 1 if item.slices.get("needs_background") else 0


def item_state(item: BenchmarkItem, completion: str | None, *, with_event: bool) -> dict:
    """The ``request_states`` entry of one ELKEN item and the model's answer to it; without the
    event for the before-edit files."""
    event = event_text(item)
    local = is_local(item)
    common = dict(event_type=item.slices.get("event_type"), event=event, event_id=event_id(item),
                  local=local, completion=completion)
    if part_of(item) == "tendency":
        candidate = item.metadata.get("candidate") or elken.candidate_string(item.choices)
        letter = item.answers[0] if item.answers else "ABC"[item.answer_index or 0]
        return request_state(input_text=tendency_input(item.question, candidate, event if with_event else None),
                             answer=letter, **common)
    return request_state(input_text=fact_input(item.question, event if with_event else None),
                         answer=elken.item_answer(item), question_type="NA" if local else question_type(item),
                         **common)


def file_order(items: Iterable[BenchmarkItem]) -> list[BenchmarkItem]:
    """Items as ``processor.py`` writes them: events in first-seen order, the out-of-scope
    questions of an event first, then its in-scope ones, each in the given order."""
    items = list(items)
    first_seen: dict[str, int] = {}
    for item in items:
        first_seen.setdefault(event_id(item), len(first_seen))
    position = {id(item): n for n, item in enumerate(items)}
    return sorted(items, key=lambda i: (first_seen[event_id(i)], not is_local(i), position[id(i)]))


def write_item_files(out_dir: str | Path, items: Sequence[BenchmarkItem], after: Mapping[str, str | None],
                     before: Mapping[str, str | None] | None = None) -> dict[str, Path]:
    """Write fact.json / tendency_mc.json from the after-edit answers (item id → text) and, when
    ``before`` is given, fact_local.json / tendency_mc_local.json from the before-edit answers of
    the out-of-scope questions. Returns the files written by kind."""
    out = Path(out_dir)
    written: dict[str, Path] = {}
    for part, kind, local_kind in (("fact", FACT, FACT_LOCAL), ("tendency", TENDENCY, TENDENCY_LOCAL)):
        chosen = file_order(i for i in items if part_of(i) == part and i.id in after)
        if not chosen:
            continue
        written[kind] = write_request_states(out / f"{kind}.json",
                                             [item_state(i, after[i.id], with_event=True) for i in chosen], kind)
        local = [i for i in chosen if is_local(i)]
        if before is not None and local:
            missing = [i.id for i in local if i.id not in before]
            if missing:
                raise InputError(f"no before-edit answer to {len(missing)} out-of-scope {part} questions "
                                 f"(first: {missing[0]})")
            written[local_kind] = write_request_states(
                out / f"{local_kind}.json", [item_state(i, before[i.id], with_event=False) for i in local],
                local_kind)
    return written


# --- fact metrics ------------------------------------------------------------------------------
def _pct(right: int, total: int) -> float | None:
    return right / total if total else None


def fact_accuracy(states: Sequence[Mapping], mode: str = DEFAULT_SCORING) -> dict:
    """``MetricForFact.compute_acc``: accuracy over in-scope fact questions, split by known /
    unknown gold and by question type (type 1 counts known golds only)."""
    counter: Counter = Counter()
    for state in states:
        instance = state["instance"]
        if instance["local"]:
            continue
        answer = instance["answer"]
        right = int(elken.fact_right(completion(state), answer, mode))
        unknown = elken.is_unknown_answer(answer, mode)
        kind = "unknown" if unknown else "known"
        counter[f"{kind}_total"] += 1
        counter[f"{kind}_correct"] += right
        qtype = instance.get("question_type")
        if qtype == 0 or (qtype == 1 and not unknown):
            counter[f"{qtype}_total"] += 1
            counter[f"{qtype}_correct"] += right
        elif qtype not in (0, 1) and mode == "official":
            raise InputError(f"question_type {qtype!r} of an in-scope fact question: metric.py "
                             "accepts 0 or 1 only")
        counter["overall_total"] += 1
        counter["overall_correct"] += right
    out: dict[str, Any] = dict(counter)
    for kind in ("unknown", "known", "0", "1", "overall"):
        out[f"{kind}_acc"] = _pct(counter[f"{kind}_correct"], counter[f"{kind}_total"])
    return out


def event_accuracy(states: Sequence[Mapping], mode: str = DEFAULT_SCORING) -> dict:
    """Edit-level reliability of a fact or tendency file (``compute_event_acc``)."""
    rows = []
    for state in states:
        instance = state["instance"]
        if instance["local"]:
            continue
        rows.append((instance["event"] if mode == "official" else _event_key(instance), _right(state, mode)))
    right, total = elken.event_accuracy(rows, mode)
    return {"overall_correct": right, "overall_total": total, "overall_acc": _pct(right, total)}


def event_groups(states: Sequence[Mapping], mode: str = DEFAULT_SCORING) -> list[list[int]]:
    """The events ``event_accuracy`` counts, as the indices of their in-scope states: official,
    each run of consecutive states with the same event text (``compute_event_acc``); knowforge,
    the states of one event id and text wherever they are. ``event_accuracy`` of each group
    alone is 1 event, right or not, and their sum is ``event_accuracy`` of all the states."""
    official = elken.check_mode(mode) == "official"
    groups: dict[Any, list[int]] = {}
    run, previous = -1, None
    for k, state in enumerate(states):
        instance = state["instance"]
        if instance["local"]:
            continue
        if official:
            if instance["event"] != previous:
                run, previous = run + 1, instance["event"]
            key: Any = run
        else:
            key = _event_key(instance)
        groups.setdefault(key, []).append(k)
    return list(groups.values())


def _event_key(instance: Mapping) -> str:
    return f"{instance.get('id')}\x00{instance['event']}"


def _right(state: Mapping, mode: str) -> bool:
    answer = state["instance"]["answer"]
    if isinstance(answer, Mapping):
        return elken.fact_right(completion(state), answer, mode)
    return elken.score_tendency(completion(state), answer, mode)


def _pairs(after: Sequence[Mapping], before: Sequence[Mapping], mode: str, *, by_text: bool
           ) -> list[tuple[Mapping, Mapping]]:
    """(after, before) states of the out-of-scope questions, paired as the scripts pair them."""
    local_after = [s for s in after if s["instance"]["local"]]
    if mode == "official":
        if len(local_after) != len(before):
            raise InputError(f"metric.py needs as many questions in the before file as local ones in "
                             f"the after file ({len(before)} vs {len(local_after)})")
        if by_text:
            index: dict[str, Mapping] = {}
            for state in local_after:
                key = question_text(state)
                if key in index:
                    raise InputError(f"metric.py asserts each local question occurs once; {key!r} repeats")
                index[key] = state
            pairs = []
            for state in before:
                key = state["instance"]["input"]["text"]
                if key not in index:
                    raise InputError(f"a before-edit question has no after-edit answer: {key!r}")
                pairs.append((index[key], state))
            return pairs
        for a, b in zip(local_after, before):
            if b["instance"]["input"]["text"].split("\n")[0] != question_text(a).split("\n")[0]:
                raise InputError("the before and after tendency files list their questions in "
                                 f"different orders ({question_text(a).splitlines()[0]!r})")
        return list(zip(local_after, before))
    # knowforge: by question text, the n-th occurrence with the n-th; unpaired ones are reported
    waiting: dict[str, list[Mapping]] = defaultdict(list)
    for state in before:
        waiting[state["instance"]["input"]["text"].split("\nAnswer:")[0]].append(state)
    pairs = []
    for state in local_after:
        key = question_text(state).split("\nAnswer:")[0]
        if waiting.get(key):
            pairs.append((state, waiting[key].pop(0)))
    return pairs


def fact_locality(after: Sequence[Mapping], before: Sequence[Mapping], mode: str = DEFAULT_SCORING) -> dict:
    """``MetricForFact.compute_locality``: share of out-of-scope answers unchanged by the edit.

    Official: ``parse_local_answer`` with the after file's ``alias`` list; knowforge: aliases
    and name normalised.
    """
    same = 0
    pairs = _pairs(after, before, mode, by_text=True)
    for a, b in pairs:
        answer = a["instance"]["answer"]
        same += elken.locality_unchanged(completion(b), completion(a), answer.get("alias") or [],
                                         name=answer.get("name"), mode=mode)
    return {"overall_total": len(pairs), "overall_same": same, "overall_consistency": _pct(same, len(pairs))}


def tendency_accuracy(states: Sequence[Mapping], mode: str = DEFAULT_SCORING) -> dict:
    """``MetricForTendency.compute_acc`` (the released one divides by total + 1e-10)."""
    right = total = 0
    for state in states:
        if state["instance"]["local"]:
            continue
        total += 1
        right += elken.score_tendency(completion(state), state["instance"]["answer"], mode)
    acc = right / (total + 1e-10) if mode == "official" else _pct(right, total)
    return {"overall_correct": right, "overall_total": total, "overall_acc": acc}


def tendency_locality(after: Sequence[Mapping], before: Sequence[Mapping], mode: str = DEFAULT_SCORING) -> dict:
    """``MetricForTendency.compute_locality``: pairs by position, compares ``parse_local_answer``
    (official) or the picked options (knowforge)."""
    pairs = _pairs(after, before, mode, by_text=False)
    same = sum(elken.tendency_unchanged(completion(b), completion(a), mode) for a, b in pairs)
    return {"overall_total": len(pairs), "overall_same": same, "overall_consistency": _pct(same, len(pairs))}


def overall_event_level(fact_states: Sequence[Mapping], exam_states: Sequence[Mapping],
                        mode: str = DEFAULT_SCORING) -> dict:
    """``overall_event_level_metric.get_all_event_level``: an event counts when every open
    tendency answer got overall 5 from the judge and every in-scope fact question of the same
    event (by text) is right. Only events with tendency answers are counted; the fact rule has
    no Q30 label here."""
    key = (lambda i: i["event"]) if mode == "official" else _event_key
    facts: dict[str, list[int]] = defaultdict(list)
    for state in fact_states:
        if not state["instance"]["local"]:
            facts[key(state["instance"])].append(int(elken.fact_right(
                completion(state), state["instance"]["answer"], mode, us_label=False)))
    events: dict[str, list[int]] = defaultdict(list)
    for state in exam_states:
        if not state["instance"]["local"]:
            events[key(state["instance"])].append(int(state["scores"]["overall"] == 5))
    right = sum(all(v + facts.get(k, [])) for k, v in events.items())
    return {"correct": right, "events": len(events), "percent": 100 * right / len(events) if events else None}


def judge_scores(exam_states: Sequence[Mapping]) -> dict:
    """``MetricForAutoEval.compute_score``: means and full-mark rates of the judge's scores."""
    scored = [s["scores"] for s in exam_states if not s["instance"]["local"]]
    out: dict[str, Any] = {"total": len(scored)}
    for k in JUDGE_KEYS:
        out[k] = sum(s[k] for s in scored) / len(scored) if scored else None
    for name, k in (("full_mark", "overall"), ("acc_full_mark", "accuracy"),
                    ("cohere_full_mark", "coherence"), ("compre_full_mark", "comprehensive")):
        out[name] = sum(s[k] == 5 for s in scored) / len(scored) if scored else None
    return out


def judge_event_scores(exam_states: Sequence[Mapping], mode: str = DEFAULT_SCORING) -> dict:
    """``MetricForAutoEval.compute_event_score``: the judge's scores per event (every in-scope
    open answer of an event), averaged over events, and the share of events whose every answer
    got overall 5 (``full_mark``).

    ``official`` is the script line for line: events are runs of consecutive answers with the
    same event text; an answer scored -1 (the judge failed) is left out of the means but still
    breaks the full mark; and, as released, the *last* event is added unaveraged (its score sums
    and its answer count go into the totals) and its full mark is never counted. ``knowforge``
    groups by event id and text, averages every event the same way and counts every event's
    full mark.
    """
    states = [s for s in exam_states if not s["instance"]["local"]]
    if mode == "official":
        return _official_event_scores(states)
    events: dict[str, list[Mapping]] = defaultdict(list)
    for state in states:
        events[_event_key(state["instance"])].append(state["scores"])
    out: dict[str, Any] = {"events": len(events)}
    means: dict[str, list[float]] = defaultdict(list)
    for scores in events.values():
        valid = [s for s in scores if s["overall"] != -1]
        for key in JUDGE_KEYS:
            if valid:
                means[key].append(sum(s[key] for s in valid) / len(valid))
    for key in JUDGE_KEYS:
        out[key] = sum(means[key]) / len(means[key]) if means[key] else None
    out["full_mark"] = (sum(all(s["overall"] == 5 for s in scores) for scores in events.values()) / len(events)
                        if events else None)
    return out


def _official_event_scores(states: Sequence[Mapping]) -> dict:
    # metric.py MetricForAutoEval.compute_event_score, kept with its handling of the last event
    counter: Counter = Counter()
    flag_event, flag = "NA", 1
    per_event: Counter = Counter()
    for state in states:
        if state["instance"]["event"] != flag_event:
            if flag_event != "NA":
                for key in per_event:
                    per_event[key] /= per_event["total"]
                for key in per_event:
                    counter[key] += per_event[key]
                counter["full_mark"] += flag
            flag_event = state["instance"]["event"]
            per_event = Counter()
            flag = 1
        scores = state["scores"]
        if scores["overall"] != 5:
            flag = 0
        if scores["overall"] == -1:
            continue
        for key in scores:
            per_event[key] += scores[key]
        per_event["total"] += 1
    for key in per_event:
        counter[key] += per_event[key]
    total = counter["total"]
    if not total:
        return {"events": 0, **{k: None for k in JUDGE_KEYS}, "full_mark": None}
    out = {key: value / total for key, value in counter.items()}
    out["events"] = len({s["instance"]["event"] for s in states})
    out.setdefault("full_mark", 0.0)
    return out


# --- scoring files as a user hands them over ------------------------------------------------------
@dataclass(frozen=True)
class PredictionFile:
    path: Path
    kind: str
    states: tuple[dict, ...]


def load_prediction_file(path: str | Path) -> PredictionFile:
    states = read_request_states(path)
    return PredictionFile(Path(path), file_kind(states), tuple(states))


def score_files(paths: Iterable[str | Path], mode: str = DEFAULT_SCORING) -> list[dict]:
    """Metrics of every after-edit file among ``paths``, paired with the before-edit file of its
    kind when there is exactly one (as one model folder holds ``fact_local.json``)."""
    files = [load_prediction_file(p) for p in paths]
    by_kind: dict[str, list[PredictionFile]] = defaultdict(list)
    for f in files:
        by_kind[f.kind].append(f)
    out = []
    for f in by_kind[FACT]:
        row: dict[str, Any] = {"file": str(f.path), "kind": FACT, "scoring": mode,
                               "accuracy": fact_accuracy(f.states, mode), "event_accuracy": event_accuracy(f.states, mode)}
        local = by_kind[FACT_LOCAL]
        if len(local) == 1:
            row["locality"] = fact_locality(f.states, local[0].states, mode)
            row["before_file"] = str(local[0].path)
        exams = by_kind[TENDENCY_EXAM]
        if len(exams) == 1:
            row["overall_event_level"] = overall_event_level(f.states, exams[0].states, mode)
            row["exam_file"] = str(exams[0].path)
        out.append(row)
    for f in by_kind[TENDENCY]:
        row = {"file": str(f.path), "kind": TENDENCY, "scoring": mode,
               "accuracy": tendency_accuracy(f.states, mode), "event_accuracy": event_accuracy(f.states, mode)}
        local = by_kind[TENDENCY_LOCAL]
        if len(local) == 1:
            row["locality"] = tendency_locality(f.states, local[0].states, mode)
            row["before_file"] = str(local[0].path)
        out.append(row)
    for f in by_kind[TENDENCY_EXAM]:
        out.append({"file": str(f.path), "kind": TENDENCY_EXAM, "scoring": mode, "judge": judge_scores(f.states),
                    "judge_events": judge_event_scores(f.states, mode)})
    if not out:
        raise InputError("no after-edit prediction file among the files (fact.json, tendency_mc.json "
                         "or a judge's *_exam.json)")
    return out
