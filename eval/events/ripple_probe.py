"""The ripple of an event, measured in the model (RippleEdits' question, asked of our graph).

The graph says which facts an event changes (``knowforge.kg.ripple``: the facts it asserts and
retracts, the impacted triplets its template declares, and every fact within k hops of the
entities it touches). A *probe* asks the model about one of those facts, before and after the
edit, and the answers say whether the model moved where the graph moved and stayed where it
stayed.

Probes of an event (``build_probes(store, event_id, hops)``)
------------------------------------------------------------
The walk is exactly ``knowforge ripple EVENT --hops K``'s (``ripple_event``), so the probes and
the CLI's table list the same facts.

* an **asserted** fact: should move; it asks (s, r) of a fact the event asserts, whose answer
  after is its object. Its hop is the number of graph facts its answer was read through (0 for
  an object the event names, 1 for "the new club's league", 2 for "the new club's city's
  country");
* the same with the subject named by its first **alias**: should move, same hop;
* a **retracted** fact: should move (hop 0); moved when the model no longer gives the old object;
* a **walked** fact, every fact the ripple walk meets 1..k facts away (declared answer sources
  and candidates alike): should stay, at its walk depth.

Before and after answers are the graph's objects of (s, r) in the world that event sees (source
facts; after: minus what it retracts, plus what it asserts), each with its entity's aliases.
Questions are the benchmark's own relation questions ("Which club does {subject} play for?",
``models/control_phrasings.yaml``, which mirrors ``generators/events/relations.yaml``); a
relation without one is asked "What is the {label} of {subject}?".

RippleEdits categories (Cohen et al. 2024), where our graph supports them
-------------------------------------------------------------------------
* ``edit``: an asserted fact whose subject and object the event names (RippleEdits' efficacy,
  the edit itself; not one of its six ripple categories);
* ``logical_generalisation``: an asserted fact that mirrors an earlier impact of the same event
  (subject and object swapped: "A married B" → (B, spouse, A); "A acquired B" → (A,
  subsidiary, B) after (B, parent organization, A));
* ``compositionality``: an asserted fact whose answer (or subject) the template reads through
  graph facts (the player's new league via (club, league, L)): RippleEdits' Compositionality I
  and II;
* ``subject_aliasing``: an ``edit`` probe asked with the subject's alias;
* ``preservation``: a walked fact with the subject and relation of an asserted fact that the
  event does not retract (a one-to-many relation: the company's other subsidiaries);
* ``relation_specificity``: a walked fact of an edited subject whose relation the event does
  not touch;
* ``forgetfulness``: a retracted fact (the old object should be forgotten). RippleEdits' released
  data names its preservation tests "Forgetfulness"; the graph tells retained objects and ended
  ones apart, so the two names mark those two cases here.
Other walked facts carry no category (``-``); they are the locality of the ripple. A question
has one answer: a model that answers a preserved one-to-many relation with the new object
changed its answer, and counts as collateral, as RippleEdits scores it (the retained objects
are its targets).

Classification (``classify``: pure)
-----------------------------------
A ``move`` probe *moved* when the answer after the edit is the expected answer after (ELKEN's
fact rule: normalised exact match with aliases; an expected "unknown" needs "unknown"); a
retracted fact, which has no answer after, moved when the answer after is no longer the old
object. A ``stay`` probe moved when its answer after differs from its answer before (ELKEN's
locality rule). Outcomes: ``moved`` (should move, moved), ``missed`` (should move, stayed),
``collateral`` (should stay, moved), ``kept`` (should stay, stayed). ``summarise`` counts them
by hop, relation or category, with the shares' 95% intervals from a cluster bootstrap over
events (``knowforge.eval.stats.bootstrap_ratio``).

Measurement entry point for solvers
-----------------------------------
Generic over how an edit is applied::

    probes = build_probes(store, event_id, hops)                # ProbeSet
    answers = measure(probes, answer_before, answer_after, scoring=ctx.options.scoring)

``answer_before`` and ``answer_after`` take the probe questions as ``BenchmarkItem`` values
(``probe_items(probes)``: one item per distinct question, zero-shot, ``metadata`` with
``event_id`` and ``event``) and return one raw answer (``str | None``) per item, in order.
``answer_prompted(ctx, transform)`` makes such a callable from a solver's context: it asks with
``solve_prompted(transform(items), "zero-shot", ctx)`` (the engine's cache, prompts and
errors). A weight editor (ROME, MEMIT) calls ``measure`` inside its per-event loop: before =
the base model, after = the model with the event's edits applied, then restores the weights.

Inside a solver the option ``-S ripple_hops=K`` (K = 1..3; 0, the default, is off;
``-S ripple_max_probes=N`` caps the probes of an event, default 200, and counts the rest;
``-S ripple_events=N`` probes only the run's first N events) turns it on through
``RippleRecorder``::

    recorder = RippleRecorder.start(args, ctx, items)       # None unless ripple_hops > 0
    recorder.measure_event(event_id, answer_after)          # per event (weights edited), or
    recorder.measure_all(answer_after)                      # every event at once (in context)
    output = recorder.attach(output)                        # run properties, report section,
                                                            # and the answers recorded with the run

The solver's arguments model inherits ``RippleArgs``. The answers are recorded in the graph with
the run, ``(:Run)-[:PROBED]->(:RippleProbe)-[:PROBES]->(:Fact)`` (``record_probe_answers``;
``read_probe_answers`` reads them back), and ``knowforge ripple EVENT --run RUN`` prints them.

Every editing solver probes with the model it answers with after the edit: no edit, the plain
model (its "moved" share is the base rate: probes whose answer after the base model already
gives); ICE, the event in context; BM25 and dense, the event each probe question retrieves;
SERAC, its scope classifier's decision on each probe question (the retrieved event in context,
or none); FT, ROME and MEMIT, the edited weights, one event at a time.

The validity report's ELKEN table (``knowforge.eval.events.validity.method_table``) pairs each
method's probes with no edit's, event by event: the gap in the moved share at hops 1 and 2 and
in the collateral share, with its 95% interval.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from knowforge.errors import ConfigError, InputError
from knowforge.eval.events import rules
from knowforge.eval.stats import bootstrap_ratio
from knowforge.eval.types import DEFAULT_SCORING
from knowforge.kg.records import stable_id
from knowforge.kg.relations import labelled
from knowforge.kg.ripple import ripple_event
from knowforge.models.control_data import load_phrasings
from knowforge.models.tables import table_of
from knowforge.models.types import BenchmarkItem
from knowforge.eval.results import load_run
from knowforge.eval.solvers import solve_prompted

log = logging.getLogger(__name__)

MOVE, STAY = "move", "stay"
OUTCOMES = ("moved", "missed", "collateral", "kept")
OUTCOME_TEXT = {"moved": "should move, moved", "missed": "should move, stayed",
                "collateral": "should stay, moved (collateral)", "kept": "should stay, stayed"}
CATEGORIES = ("edit", "logical_generalisation", "compositionality", "subject_aliasing", "preservation",
              "relation_specificity", "forgetfulness")
MAX_HOPS = 3
DEFAULT_MAX_PROBES = 200
SECTION = "Ripple in the model"
RIPPLE_LEGEND = (
    "probes: the group of ripple probes (all, or by hop, category or relation); events: the events probed; "
    "should move: probes of facts the event changes (the graph's answer after the event differs from before); "
    "moved: of those, the model's answer changed too; missed: it stayed; should stay: probes of facts the event "
    "leaves alone; collateral: of those, the model's answer changed anyway; kept: it stayed (counts of probes). "
    "moved %: moved / should move; collateral %: collateral / should stay; each with its 95% interval, a "
    "bootstrap over events. See `knowforge ripple EVENT --run RUN` for one event's probes.")
PROBE_TASK = "events/ripple-probe"


# --- records ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Probe:
    """One question about one fact of an event's ripple, with what the graph expects of it."""

    event_id: str
    key: str                        # unique within the event (the fact id; "~alias" for an alias probe)
    fact_id: str | None
    hop: int
    subject_id: str
    subject: str                    # the subject as the question names it
    relation: str
    relation_label: str | None
    object: str | None              # the probed fact's object ("unknown" for an unknown answer)
    question: str
    before: tuple[str, ...]         # accepted answers before the edit (names, then aliases); () none
    after: tuple[str, ...]          # ... after it
    expectation: str                # "move" | "stay"
    category: str | None
    walk: str                       # "edited" (asserted or retracted) | "declared" | "candidate"
    change: str | None = None       # "asserted" | "retracted" for edited facts

    @property
    def relation_text(self) -> str:
        return labelled(self.relation, self.relation_label)


@dataclass(frozen=True)
class ProbeSet:
    """The probes of one event within ``hops``; ``left_out`` probes past ``max_probes`` (counted,
    never silently dropped)."""

    event_id: str
    event: str
    hops: int
    probes: tuple[Probe, ...]
    left_out: int = 0


@dataclass(frozen=True)
class ProbeAnswer:
    """A probe with the model's answers before and after the edit and what they say."""

    probe: Probe
    answer_before: str | None
    answer_after: str | None
    moved: bool
    outcome: str                    # one of OUTCOMES


# --- classification (pure) ----------------------------------------------------------------------------
def _matches(answer: str | None, golds: Sequence[str], mode: str) -> bool:
    if not golds:
        return False
    return rules.score_fact(answer, golds[0], list(golds[1:]), mode=mode)


def judge_moved(probe: Probe, before: str | None, after: str | None, mode: str = DEFAULT_SCORING) -> bool:
    """Did the model move on this probe? (The rules are in the module docstring.)"""
    if probe.expectation == MOVE:
        if probe.after:
            return _matches(after, probe.after, mode)
        return not _matches(after, probe.before, mode)
    golds = probe.before or probe.after
    name, aliases = (golds[0], list(golds[1:])) if golds else (None, [])
    return not rules.locality_unchanged(before, after, aliases, name=name, mode=mode)


def outcome_of(expectation: str, moved: bool) -> str:
    if expectation == MOVE:
        return "moved" if moved else "missed"
    if expectation == STAY:
        return "collateral" if moved else "kept"
    raise InputError(f"a probe's expectation is 'move' or 'stay', not {expectation!r}")


def classify(probes: Sequence[Probe], before: Mapping[str, str | None], after: Mapping[str, str | None],
             mode: str = DEFAULT_SCORING) -> list[ProbeAnswer]:
    """Each probe with its outcome; ``before`` and ``after`` map a probe's question to the
    model's raw answer (a question several probes share is asked once)."""
    out = []
    for probe in probes:
        for name, answers in (("before", before), ("after", after)):
            if probe.question not in answers:
                raise InputError(f"no answer {name} the edit to probe {probe.key} of {probe.event_id}: "
                                 f"{probe.question!r}")
        moved = judge_moved(probe, before[probe.question], after[probe.question], mode)
        out.append(ProbeAnswer(probe, before[probe.question], after[probe.question], moved,
                               outcome_of(probe.expectation, moved)))
    return out


def _group_key(answer: ProbeAnswer, by: str | None) -> str:
    probe = answer.probe
    if by is None:
        return "all"
    if by == "hop":
        return str(probe.hop)
    if by == "relation":
        return probe.relation_text
    if by == "category":
        return probe.category or "-"
    if by == "outcome":
        return answer.outcome
    raise InputError(f"ripple probes are counted by hop, relation or category, not {by!r}")


def _share(per_event: Mapping[str, list[int]], hit: int, size: int, resamples: int, seed: int) -> dict:
    """The share hits/size over events that have any, with a cluster bootstrap interval."""
    rows = [v for v in per_event.values() if v[size] > 0]
    if not rows:
        return {"value": None, "ci": None}
    sums = np.array([r[hit] for r in rows], dtype=float)
    sizes = np.array([r[size] for r in rows], dtype=float)
    value = float(sums.sum() / sizes.sum())
    if resamples < 2 or len(rows) < 2:
        return {"value": value, "ci": None}
    est = bootstrap_ratio(sums, sizes, resamples=resamples, seed=seed)
    return {"value": value, "ci": list(est.ci) if est.ci else None}


def summarise(answers: Sequence[ProbeAnswer], by: str | None = None, *, resamples: int = 1000,
              seed: int = 0) -> list[dict[str, Any]]:
    """Counts of the four outcomes per group (``by``: None, "hop", "relation", "category"), with
    the moved share of should-move probes and the collateral share of should-stay probes, each
    with a 95% interval from a bootstrap over events (the unit: probes of one event share its
    edit)."""
    groups: dict[str, list[ProbeAnswer]] = defaultdict(list)
    for a in answers:
        groups[_group_key(a, by)].append(a)

    def order(key: str):
        return (0, int(key), "") if by == "hop" else (0, 0, key)

    rows = []
    for key in sorted(groups, key=order):
        members = groups[key]
        counts = {o: sum(a.outcome == o for a in members) for o in OUTCOMES}
        per_event: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        for a in members:
            row = per_event[a.probe.event_id]
            if a.probe.expectation == MOVE:
                row[0] += a.outcome == "moved"
                row[1] += 1
            else:
                row[2] += a.outcome == "collateral"
                row[3] += 1
        moved = _share(per_event, 0, 1, resamples, seed)
        collateral = _share(per_event, 2, 3, resamples, seed)
        rows.append({"by": by or "all", "group": key, "events": len(per_event), "probes": len(members),
                     "should_move": counts["moved"] + counts["missed"], **counts,
                     "should_stay": counts["collateral"] + counts["kept"],
                     "moved_share": moved["value"], "moved_ci": moved["ci"],
                     "collateral_share": collateral["value"], "collateral_ci": collateral["ci"]})
    return rows


def ripple_summary(answers: Sequence[ProbeAnswer], *, resamples: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
    """Every breakdown at once: overall, by hop, by category, by relation."""
    return [row for by in (None, "hop", "category", "relation")
            for row in summarise(answers, by, resamples=resamples, seed=seed)]


def _pct(value: float | None, ci: Sequence[float] | None) -> str:
    if value is None:
        return "-"
    text = f"{100 * value:.1f}"
    return f"{text} [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else text


def summary_table(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``ripple_summary`` rows as a report section's table (shares in %, 95% intervals)."""
    out = []
    for r in rows:
        label = "all" if r["by"] == "all" else f"{r['by']} {r['group']}"
        out.append({"probes": label, "events": r["events"], "should move": r["should_move"],
                    "moved": r["moved"], "missed": r["missed"], "should stay": r["should_stay"],
                    "collateral": r["collateral"], "kept": r["kept"],
                    "moved % [95% CI]": _pct(r["moved_share"], r["moved_ci"]),
                    "collateral % [95% CI]": _pct(r["collateral_share"], r["collateral_ci"])})
    return out


# --- probes of an event (graph reads) -----------------------------------------------------------------
def _golds(name: str | None, aliases: Sequence[str] = ()) -> tuple[str, ...]:
    out: list[str] = []
    for text in (name, *aliases):
        if text and text not in out:
            out.append(text)
    return tuple(out)


def _impact_of(plan: Mapping, subject_id: str, relation: str, object_id: str | None) -> tuple[int, dict, dict] | None:
    """(index, impact, object) of the plan's impacted triplet that made an asserted fact."""
    for index, impact in enumerate(plan.get("impacts") or []):
        if (impact.get("subject") or {}).get("id") != subject_id or impact.get("relation") != relation:
            continue
        for obj in impact.get("objects") or []:
            if obj.get("id") == object_id:
                return index, impact, obj
    return None


def build_probes(store, event_id: str, hops: int, *, max_probes: int = DEFAULT_MAX_PROBES,
                 phrasings=None) -> ProbeSet:
    """The probes of one event within ``hops`` (1 to 3) facts, as the module docstring lists."""
    if not 1 <= hops <= MAX_HOPS:
        raise ConfigError(f"ripple probes look 1 to {MAX_HOPS} hops away, not {hops}")
    if max_probes < 1:
        raise ConfigError(f"ripple_max_probes must be at least 1, not {max_probes}")
    phrasings = phrasings or load_phrasings()
    report = ripple_event(store, event_id, hops)
    event_row = store.read("ripple/read_event", event_id=event_id)[0]
    plan = json.loads(event_row["payload"] or "{}")
    edited = report.edited
    pairs = sorted({(f.subject_id, f.relation) for _, f in edited})
    objects: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in store.read("ripple/read_probe_objects", event_id=event_id,
                          batch={"rows": [{"subject_id": s, "relation": r} for s, r in pairs]}):
        objects[(row["subject_id"], row["relation"])].append(row)
    entity_ids = sorted({x for _, f in edited for x in (f.subject_id, f.object_id) if x}
                        | {x for w in report.facts for x in (w.fact.subject_id, w.fact.object_id) if x})
    aliases = {r["id"]: tuple(r["aliases"] or ()) for r in store.read("ripple/read_entities", ids=entity_ids)}

    def question(subject: str, relation: str, label: str | None) -> str:
        return phrasings.question(relation, label or relation, subject)

    def world(subject_id: str, relation: str, when: str) -> tuple[str, ...]:
        names: list[str] = []
        for row in objects.get((subject_id, relation), []):
            if row[when]:
                names += [row["object"], *row["aliases"]]
        return _golds(None, names)

    probes: list[Probe] = []
    impacts = plan.get("impacts") or []
    for change, fact in edited:
        if change != "asserted":
            continue
        found = _impact_of(plan, fact.subject_id, fact.relation, fact.object_id)
        hop, category = 0, "edit"
        if found is not None:
            index, impact, obj = found
            hop = len(obj.get("path") or ()) + len((impact.get("subject") or {}).get("path") or ())
            if hop:
                category = "compositionality"
            elif any((earlier.get("subject") or {}).get("id") == fact.object_id
                     and any(o.get("id") == fact.subject_id for o in earlier.get("objects") or [])
                     for earlier in impacts[:index]):
                category = "logical_generalisation"
        unknown = fact.object is None or (fact.object == "unknown" and fact.object_id is None)
        after = ("unknown",) if unknown else _golds(fact.object, aliases.get(fact.object_id or "", ()))
        before = world(fact.subject_id, fact.relation, "before")
        probe = Probe(event_id, fact.fact_id or f"{fact.subject_id}|{fact.relation}", fact.fact_id, hop,
                      fact.subject_id, fact.subject, fact.relation, fact.relation_label,
                      "unknown" if unknown else fact.object,
                      question(fact.subject, fact.relation, fact.relation_label), before, after,
                      STAY if set(after) & set(before) else MOVE, category, "edited", "asserted")
        probes.append(probe)
        subject_aliases = [a for a in aliases.get(fact.subject_id, ()) if a != fact.subject]
        if category == "edit" and subject_aliases:
            probes.append(replace(probe, key=f"{probe.key}~alias", subject=subject_aliases[0],
                                  question=question(subject_aliases[0], fact.relation, fact.relation_label),
                                  category="subject_aliasing"))
    for change, fact in edited:
        if change != "retracted":
            continue
        old = _golds(fact.object, aliases.get(fact.object_id or "", ()))
        probes.append(Probe(event_id, fact.fact_id or f"{fact.subject_id}|{fact.relation}|old", fact.fact_id, 0,
                            fact.subject_id, fact.subject, fact.relation, fact.relation_label, fact.object,
                            question(fact.subject, fact.relation, fact.relation_label), old, (),
                            MOVE, "forgetfulness", "edited", "retracted"))
    asserted_pairs = {(f.subject_id, f.relation) for c, f in edited if c == "asserted"}
    edited_relations: dict[str, set[str]] = defaultdict(set)
    for _, f in edited:
        edited_relations[f.subject_id].add(f.relation)
    for walked in report.facts:
        fact = walked.fact
        if (fact.subject_id, fact.relation) in asserted_pairs:
            category = "preservation"
        elif fact.subject_id in edited_relations and fact.relation not in edited_relations[fact.subject_id]:
            category = "relation_specificity"
        else:
            category = None
        golds = _golds(fact.object, aliases.get(fact.object_id or "", ()))
        probes.append(Probe(event_id, fact.fact_id or f"{fact.subject_id}|{fact.relation}|{fact.object}",
                            fact.fact_id, walked.depth, fact.subject_id, fact.subject, fact.relation,
                            fact.relation_label, fact.object,
                            question(fact.subject, fact.relation, fact.relation_label), golds, golds,
                            STAY, category, walked.kind))
    left_out = max(0, len(probes) - max_probes)
    if left_out:
        # a run's recorder says it once for all its events (a line per event filled the demo's log)
        log.debug("event %s: %d ripple probes past ripple_max_probes=%d are left out", event_id, left_out,
                  max_probes)
    return ProbeSet(event_id, event_row.get("text") or "", hops, tuple(probes[:max_probes]), left_out)


# --- asking -------------------------------------------------------------------------------------------
def probe_items(probes: ProbeSet, benchmark: str = "events:ripple") -> list[BenchmarkItem]:
    """One zero-shot item per distinct question of the probes (metadata: event id and text, as
    the editing solvers' context needs)."""
    items: dict[str, BenchmarkItem] = {}
    for probe in probes.probes:
        if probe.question in items:
            continue
        golds = list(probe.after or probe.before)
        items[probe.question] = BenchmarkItem(
            id=stable_id("rp:", probes.event_id, probe.question), benchmark=benchmark, task=PROBE_TASK,
            form="generation", question=probe.question, answers=golds, unknown=golds == ["unknown"],
            scorer="elken-fact", slices={"relation": probe.relation, "scope": "probe", "part": "fact"},
            metadata={"event_id": probes.event_id, "event": probes.event})
    return list(items.values())


Answerer = Callable[[list[BenchmarkItem]], Sequence[str | None]]


def answer_prompted(ctx, transform: Callable[[list[BenchmarkItem]], list[BenchmarkItem]] | None = None) -> Answerer:
    """An answerer over a solver's context: ``transform`` puts the edit in (a context, a
    retrieved event), then the engine's zero-shot ask (cache, prompts, errors) answers; the raw
    text of each item's first sample comes back (None for a failed request)."""
    # the run's progress bar counts the benchmark's questions; probes are asked beside them
    quiet = replace(ctx, progress=None)

    def answer(items: list[BenchmarkItem]) -> list[str | None]:
        asked = transform(items) if transform is not None else items
        by_id = {r.item_id: r.raw for r in solve_prompted(asked, "zero-shot", quiet) if r.sample_index == 0}
        return [by_id.get(i.id) for i in asked]

    return answer


def _ask(answerer: Answerer, items: list[BenchmarkItem], when: str) -> dict[str, str | None]:
    answers = list(answerer(items))
    if len(answers) != len(items):
        raise InputError(f"the answerer {when} the edit gave {len(answers)} answers to {len(items)} probe questions")
    return {i.question: a for i, a in zip(items, answers)}


def measure(probes: ProbeSet, answer_before: Answerer, answer_after: Answerer, *,
            scoring: str = DEFAULT_SCORING) -> list[ProbeAnswer]:
    """Ask every probe question before and after the edit (however the answerers apply it) and
    classify the answers."""
    items = probe_items(probes)
    if not items:
        return []
    return classify(probes.probes, _ask(answer_before, items, "before"), _ask(answer_after, items, "after"), scoring)


# --- in the graph, with the run -----------------------------------------------------------------------
def _props(answer: ProbeAnswer, scoring: str) -> dict[str, Any]:
    p = answer.probe
    props = {k: v for k, v in asdict(p).items() if k not in ("key",)}
    props.update(probe=p.key, before=list(p.before), after=list(p.after), answer_before=answer.answer_before,
                 answer_after=answer.answer_after, moved=answer.moved, outcome=answer.outcome, scoring=scoring)
    return props


def record_probe_answers(store, run_id: str, answers: Sequence[ProbeAnswer], scoring: str = DEFAULT_SCORING) -> int:
    """Write a run's probe answers (``(:Run)-[:PROBED]->(:RippleProbe)``); how many."""
    rows = [{"id": f"{run_id}:{a.probe.event_id}:{a.probe.key}", "fact_id": a.probe.fact_id,
             "props": _props(a, scoring)} for a in answers]
    if rows:
        store.write("ripple/create_probe_answers", rows, run_id=run_id)
    return len(rows)


def read_probe_answers(store, run_id: str, event_id: str | None = None) -> list[ProbeAnswer]:
    """A run's recorded probe answers (of one event, or all), as ``record_probe_answers`` wrote them."""
    out = []
    for row in store.read("ripple/read_probe_answers", run_id=run_id, event_id=event_id):
        p = row["probe"]
        probe = Probe(p["event_id"], p["probe"], p.get("fact_id"), int(p["hop"]), p["subject_id"], p["subject"],
                      p["relation"], p.get("relation_label"), p.get("object"), p["question"],
                      tuple(p.get("before") or ()), tuple(p.get("after") or ()), p["expectation"],
                      p.get("category"), p["walk"], p.get("change"))
        out.append(ProbeAnswer(probe, p.get("answer_before"), p.get("answer_after"), bool(p["moved"]), p["outcome"]))
    return out


def run_ripple(store, run_id: str, event_id: str, hops: int | None = None) -> list[ProbeAnswer]:
    """The recorded probe answers of one event in a run (probes up to ``hops`` away, when given);
    a clear error when the run recorded none for it."""
    run = load_run(store, run_id)
    answers = read_probe_answers(store, run_id, event_id)
    if not answers:
        events = probed_events(store, run_id)
        if not events:
            raise ConfigError(f"run {run_id} has no ripple probe answers: evaluate an editing solver with "
                              "-S ripple_hops=K (K = 1 to 3), e.g. `knowforge eval --benchmark events:B "
                              "--solver ice -S ripple_hops=2 ...`")
        shown = ", ".join(list(events)[:5]) + (" ..." if len(events) > 5 else "")
        raise ConfigError(f"run {run_id} recorded ripple probes of {len(events)} events, not of {event_id!r} "
                          f"({shown})")
    if hops is not None:
        recorded = run.get("ripple_hops")
        if recorded is not None and hops > int(recorded):
            raise ConfigError(f"run {run_id} probed {recorded} hop(s) away; --hops {hops} asks for more")
        answers = [a for a in answers if a.probe.hop <= hops or a.probe.walk == "edited"]
    return answers


def probed_events(store, run_id: str) -> dict[str, int]:
    """{event id: probes} of a run's recorded probe answers."""
    return {r["event_id"]: r["probes"] for r in store.read("ripple/read_probed_events", run_id=run_id)}


def probe_rows(answers: Sequence[ProbeAnswer]) -> list[list[str]]:
    """One table row per probe: hop, outcome, category, the fact, the question's two answers."""
    rows = []
    for a in answers:
        p = a.probe
        expected = " / ".join(x[0] if x else "-" for x in (p.before, p.after))
        rows.append([str(p.hop), a.outcome, p.category or "-", p.walk,
                     f"({p.subject}, {p.relation_text}, {p.object or '-'})", expected,
                     f"{_short(a.answer_before)} → {_short(a.answer_after)}"])
    return rows


def _short(text: str | None, limit: int = 40) -> str:
    line = rules.answer_line(text, "knowforge").strip() if text is not None else "(no answer)"
    return line if len(line) <= limit else line[:limit - 1] + "…"


# --- the solver option --------------------------------------------------------------------------------
class RippleArgs(BaseModel):
    """``-S ripple_hops=K`` (1 to 3; 0: off) records each event's ripple probes, asked before
    and after its edit, with the run; ``-S ripple_max_probes=N`` caps the probes of an event."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ripple_hops: int = Field(0, ge=0, le=MAX_HOPS)
    ripple_max_probes: int = Field(DEFAULT_MAX_PROBES, ge=1)
    # probe only the run's first N events (in the items' order; 0: all): the probes are asked
    # beside the questions, and a small first N keeps their cost bounded on a large batch
    ripple_events: int = Field(0, ge=0)


@dataclass
class RippleRecorder:
    """Probe answers of a solver's events, gathered while it runs and recorded with its run."""

    store: Any
    ctx: Any
    sets: dict[str, ProbeSet]
    answers: list[ProbeAnswer] = field(default_factory=list)
    _before: dict[str, str | None] | None = None

    @classmethod
    def start(cls, args: BaseModel, ctx, items: Sequence[BenchmarkItem]) -> RippleRecorder | None:
        """The probes of the items' events, or None when the option is off."""
        hops = getattr(args, "ripple_hops", 0)
        if not hops:
            return None
        if ctx.store is None:
            raise ConfigError("-S ripple_hops reads each event's ripple from the graph: it needs a store")
        texts: dict[str, str] = {}
        for item in items:
            if item.metadata.get("event_id"):
                texts.setdefault(str(item.metadata["event_id"]), str(item.metadata.get("event") or ""))
        if not texts:
            raise ConfigError("-S ripple_hops probes events, and these items name none (metadata event_id)")
        limit = getattr(args, "ripple_max_probes", DEFAULT_MAX_PROBES)
        first = getattr(args, "ripple_events", 0)
        if first:
            texts = dict(list(texts.items())[:first])
        # the event as the run's items state it (an LLM paraphrase, where the batch has one), so
        # an edit given in context reads the same text for the probes as for the questions
        sets = {e: build_probes(ctx.store, e, hops, max_probes=limit) for e in texts}
        capped = [s.left_out for s in sets.values() if s.left_out]
        if capped:
            log.warning("%d ripple probes of %d of %d events past ripple_max_probes=%d are left out (counted on "
                        "the run)", sum(capped), len(capped), len(sets), limit)
        sets = {e: replace(s, event=texts[e] or s.event) for e, s in sets.items()}
        return cls(ctx.store, ctx, sets)

    @property
    def hops(self) -> int:
        return next(iter(self.sets.values())).hops

    def answers_before(self) -> dict[str, str | None]:
        """Every event's probe questions asked once of the unedited model (no context). A solver
        that edits the model in place calls it before its first edit."""
        if self._before is None:
            items = [i for s in self.sets.values() for i in probe_items(s)]
            answers = answer_prompted(self.ctx)(items) if items else []
            self._before = {i.id: a for i, a in zip(items, answers)}
        return self._before

    def _before_answerer(self) -> Answerer:
        before = self.answers_before()
        return lambda items: [before[i.id] for i in items]

    def measure_event(self, event_id: str, answer_after: Answerer) -> list[ProbeAnswer]:
        """One event's probes: the unedited model before, ``answer_after`` (the event's edit
        applied) after; none for an event past ``ripple_events``."""
        if event_id not in self.sets:
            return []
        found = measure(self.sets[event_id], self._before_answerer(), answer_after,
                        scoring=self.ctx.options.scoring)
        self.answers += found
        return found

    def measure_all(self, answer_after: Answerer) -> list[ProbeAnswer]:
        """Every event's probes with one call of ``answer_after`` (an edit given in context)."""
        items = [i for s in self.sets.values() for i in probe_items(s)]
        after = dict(zip((i.id for i in items), answer_after(items))) if items else {}
        found = []
        for probe_set in self.sets.values():
            found += measure(probe_set, self._before_answerer(), lambda its: [after[i.id] for i in its],
                             scoring=self.ctx.options.scoring)
        self.answers += found
        return found

    def attach(self, output):
        """The solver's output with the probes' run properties, report section, and the answers
        written with the run once it is recorded."""
        options = self.ctx.options
        summary = ripple_summary(self.answers, resamples=options.bootstrap, seed=options.seed)
        overall = summary[0] if summary else {}
        by_hop = {r["group"]: r for r in summary if r["by"] == "hop"}
        extra = {"ripple_hops": self.hops, "ripple_probes": len(self.answers), "ripple_events": len(self.sets),
                 "ripple_left_out": sum(s.left_out for s in self.sets.values()),
                 "ripple_moved_share": overall.get("moved_share"),
                 "ripple_collateral_share": overall.get("collateral_share"),
                 "ripple_summary": summary}
        for hop, row in by_hop.items():
            extra[f"ripple_moved_share_hop{hop}"] = row["moved_share"]
        store, answers, scoring, previous = self.store, list(self.answers), options.scoring, output.finalize

        def finalize(run_dir, run_id):
            if previous is not None:
                previous(run_dir, run_id)
            record_probe_answers(store, run_id, answers, scoring)

        sections = {**output.sections, SECTION: {"rows": summary_table(summary), "legend": RIPPLE_LEGEND}}
        return replace(output, run_extra={**output.run_extra, **extra}, sections=sections, finalize=finalize)


__all__ = ["show_run_ripple", "CATEGORIES", "OUTCOMES", "Probe", "ProbeAnswer", "ProbeSet", "RippleArgs", "RippleRecorder",
           "answer_prompted", "build_probes", "classify", "judge_moved", "measure", "outcome_of", "probe_items",
           "probe_rows", "probed_events", "read_probe_answers", "record_probe_answers", "ripple_summary", "run_ripple",
           "summarise", "summary_table"]


def show_run_ripple(store, run_id: str, event_id: str, hops: int | None, fmt: str, console) -> None:
    """The ``ripple`` run view (``knowforge ripple EVENT --run RUN``): the event's probes in the
    run, their classification by hop, category and relation, and the counts. One event is one
    unit, so no interval is drawn here (the run's report has them, over events)."""
    answers = run_ripple(store, run_id, event_id, hops)
    tables = {by or "all": summarise(answers, by, resamples=0) for by in (None, "hop", "category", "relation")}
    if fmt == "json":
        print(json.dumps({"version": "1", "event": event_id, "run": run_id,
                          "probes": [asdict(a) for a in answers], "summary": tables}, indent=2, ensure_ascii=False))
        return
    console.print(table_of(("hop", "outcome", "category", "walk", "fact", "expected before / after",
                            "answer before → after"), probe_rows(answers), right={"hop"},
                           title=f"ripple of {event_id} in run {run_id}"))
    rows = [[r["by"], r["group"], str(r["should_move"]), str(r["moved"]), str(r["missed"]), str(r["should_stay"]),
             str(r["collateral"]), str(r["kept"])] for by in tables.values() for r in by]
    console.print(table_of(("by", "group", "should move", "moved", "missed", "should stay", "collateral", "kept"),
                           rows, right={"should move", "moved", "missed", "should stay", "collateral", "kept"},
                           title="classification"))
    counts = {o: sum(a.outcome == o for a in answers) for o in OUTCOME_TEXT}
    print("; ".join(f"{counts[o]} {text}" for o, text in OUTCOME_TEXT.items()))
