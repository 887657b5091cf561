"""LINT's entailment probe: the solver, its scoring rule and the metrics LINK reports.

Each LINK statement comes as 13 items (``generators/link/probe.py`` renders the templates,
word for word, with LINK's instruction in front); an item's gold is Yes/No, True/False or
Right/Wrong. The solver asks every item as it is and scores the reply by the official rule
(INK-USC/LINK ``ProbingModel.probe``): the first token of the stripped reply, compared with the
label case-insensitively: the scorer ``link-probe`` in the ``official`` mode. The official code
tokenises with NLTK's ``word_tokenize``; here the first token is the first run of word
characters (or of other non-space characters), which gives the same first token on replies
such as "Yes.", "No, because ...", "True!" or "Wrong"; a reply that opens with markup
("**Yes**") is wrong under both. The ``knowforge`` mode reads any spelling of the label's side
(the boolean scorer: yes/no, true/false, right/wrong).

Metrics, over each item's first sample:

* ``link_templates``: accuracy per template (1-13) with its label;
* ``link_known``: the share of statements whose 13 templates are all right (the paper's
  main rule), overall and per distribution;
* ``link_head_tail``: accuracy and known rate for the head and the long tail, and the relative
  drop (tail − head) / head (the paper: GPT-4 −21 %);
* ``link_by_domain``, ``link_by_rule``, ``link_by_graph_premises``: the same per domain, per
  rule and per "graph premises / hidden premises" of the statement (how much of what the
  model must know came from the graph).
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from knowforge.errors import ConfigError
from knowforge.eval.ask import Ask, ask_and_score, ask_choices
from knowforge.eval.mc_likelihood import ChoiceQuestion
from knowforge.eval.metric_stats import (format_number, grouped_totals, rate_totals, ratio_at, resampled_intervals,
                                         totals_intervals)
from knowforge.eval.stats import child_seed, group_permutation_test
from knowforge.eval.scorers import score_boolean
from knowforge.eval.types import SampleResult, Score
from knowforge.eval.unit import CannotResample, MetricInput, SolveContext, SolverOutput, Totals
from knowforge.models.task import Component
from knowforge.models.types import BenchmarkItem, GenerationRequest

log = logging.getLogger(__name__)

_TOKEN = re.compile(r"\w+|[^\w\s]+")
DISTRIBUTIONS = ("head", "longtail")


# --- scoring --------------------------------------------------------------------------------------
def first_token(text: str | None) -> str:
    """The first token of the stripped reply (LINK: ``word_tokenize(output.strip())[0]``)."""
    match = _TOKEN.search((text or "").strip())
    return match.group(0) if match else ""


def score_probe(item: BenchmarkItem, response: str | None) -> Score:
    """LINT's rule (the ``official`` mode): right iff the reply's first token is the item's
    label (any case)."""
    label = item.answers[0] if item.answers else ""
    token = first_token(response)
    return Score(value=1.0 if token and token.lower() == label.lower() else 0.0, answer=token,
                 explanation=f"first token {token!r}, label {label!r}")


def score_probe_robust(item: BenchmarkItem, response: str | None) -> Score:
    """The ``knowforge`` mode: any spelling of the label's side (yes/no, true/false,
    right/wrong) as the first yes/no word of the answer, so "**Yes**" or "It is true" count."""
    return score_boolean(item, response or "")


# --- likelihood ----------------------------------------------------------------------------------
OTHER_LABEL = {"Yes": "No", "No": "Yes", "True": "False", "False": "True", "Right": "Wrong", "Wrong": "Right"}


def label_question(item: BenchmarkItem) -> ChoiceQuestion:
    """A probe item as a likelihood question (``--mc-scoring likelihood``, as lm-evaluation-harness
    scores yes/no tasks): the template's prompt, then its two labels (Yes/No, True/False,
    Right/Wrong), the more likely one being the answer."""
    gold = item.answers[0] if item.answers else ""
    if gold not in OTHER_LABEL:
        raise ConfigError(f"LINK item {item.id}: its label {gold!r} is not one of {', '.join(OTHER_LABEL)}")
    pair = tuple(sorted((gold, OTHER_LABEL[gold]), key=lambda label: label not in ("Yes", "True", "Right")))
    return ChoiceQuestion(item, pair, pair, pair, pair.index(gold), item.question)


# --- the solver ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class LinkProbeSolver:
    """Ask every probe item as it is (plain prompt, or one user message with ``--chat``); with
    ``--mc-scoring likelihood`` score its two labels instead (``label_question``)."""

    component: Component

    def solve(self, items: Sequence[BenchmarkItem], ctx: SolveContext) -> SolverOutput:
        options = ctx.options
        if options.mc_scoring == "likelihood":
            if options.chat:
                raise ConfigError("likelihood scoring scores answers after a plain prompt; drop --chat")
            samples = ask_choices([label_question(i) for i in items], ctx.backend, progress=ctx.progress)
        else:
            common = dict(n=options.n, temperature=options.temperature, top_p=options.top_p, seed=options.seed,
                          max_tokens=options.max_tokens)
            asks = [Ask(i, GenerationRequest(messages=(("user", i.question),), **common) if options.chat
                        else GenerationRequest(prompt=i.question, **common)) for i in items]
            samples = ask_and_score(asks, ctx.backend, scoring=options.scoring, progress=ctx.progress)
        split = head_tail(items, samples)
        # the engine's resamples of the run's statements: the task metric link_head_tail's intervals,
        # over arrays of per-statement totals (the same draws as recomputing the table on copies of the
        # run, which took most of the demo's LINK step)
        try:
            estimates = totals_intervals(totals_head_tail(MetricInput(items, samples)), split, items, ctx.unit_key,
                                         resamples=options.bootstrap, seed=options.seed)
        except CannotResample:       # a unit other than the statement: a known verdict spans units
            estimates = resampled_intervals(lambda sample: head_tail(sample.items, sample.samples), split, items,
                                            samples, ctx.unit_key, resamples=options.bootstrap, seed=options.seed)
        tables = probe_tables(items, samples, {"all": estimates})
        sections = {"LINT: accuracy per template": tables["templates"],
                    "LINT: head vs long tail (accuracy and all-13 known rate)": tables["head_tail"],
                    "LINT: by domain": tables["domain"], "LINT: by rule": tables["rule"],
                    "LINT: by graph premises / hidden premises": tables["graph_premises"]}
        known = known_rate(items, samples)
        return SolverOutput(items=list(items), samples=samples, sections=sections,
                            run_extra={"link_known": known["rate"], "link_statements": known["statements"]})


# --- metrics (pure) ------------------------------------------------------------------------------
def _first(samples: Iterable[SampleResult]) -> dict[str, float]:
    return {s.item_id: s.score for s in samples if s.sample_index == 0}


def _statement(item: BenchmarkItem) -> str:
    return str(item.metadata.get("statement_id", item.id))


def statement_outcomes(items: Sequence[BenchmarkItem], samples: Iterable[SampleResult]) -> dict[str, dict]:
    """Per statement: its distribution, rule, domain, grounding key, templates answered and right."""
    scores = _first(samples)
    out: dict[str, dict] = {}
    for item in items:
        if item.id not in scores:
            continue
        sid = _statement(item)
        row = out.setdefault(sid, {"distribution": item.slices.get("distribution"), "rule": item.slices.get("rule"),
                                   "domain": item.slices.get("domain"),
                                   "graph_premises": f"{item.slices.get('graph_premises')}/"
                                                     f"{item.slices.get('hidden_premises')}",
                                   "templates": set(), "right": 0, "asked": 0})
        row["templates"].add(item.slices.get("template"))
        row["asked"] += 1
        row["right"] += int(scores[item.id] >= 1.0)
    return out


def _known(row: dict) -> bool:
    return len(row["templates"]) == 13 and row["right"] == row["asked"]


def known_rate(items: Sequence[BenchmarkItem], samples: Iterable[SampleResult]) -> dict:
    """"Known" = all 13 templates right; only statements with all 13 asked count."""
    rows = [r for r in statement_outcomes(items, samples).values() if len(r["templates"]) == 13]
    out = {"statements": len(rows), "known": sum(_known(r) for r in rows),
           "rate": (sum(_known(r) for r in rows) / len(rows)) if rows else None}
    for d in DISTRIBUTIONS:
        mine = [r for r in rows if r["distribution"] == d]
        out[d] = (sum(_known(r) for r in mine) / len(mine)) if mine else None
    return out


def relative_drop(head: float | None, tail: float | None) -> float | None:
    """(tail − head) / head, the paper's relative drop (negative when the long tail is harder)."""
    if head is None or tail is None or head == 0:
        return None
    return (tail - head) / head


def _split(items: Sequence[BenchmarkItem], scores: dict[str, float], outcomes: dict[str, dict],
           select: Callable[[BenchmarkItem], bool]) -> dict:
    acc: dict[str, list[float]] = defaultdict(list)
    for item in items:
        if item.id in scores and select(item):
            acc[str(item.slices.get("distribution"))].append(scores[item.id])
    sids = {_statement(i) for i in items if i.id in scores and select(i)}
    rows = [outcomes[s] for s in sids if s in outcomes and len(outcomes[s]["templates"]) == 13]
    known: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        known[str(r["distribution"])].append(_known(r))
    result = {"statements": len(sids)}
    for name, groups in (("accuracy", acc), ("known", known)):
        head = (sum(groups["head"]) / len(groups["head"])) if groups.get("head") else None
        tail = (sum(groups["longtail"]) / len(groups["longtail"])) if groups.get("longtail") else None
        values = [v for g in groups.values() for v in g]
        result[name] = {"all": (sum(values) / len(values)) if values else None, "head": head, "longtail": tail,
                        "relative_drop": relative_drop(head, tail)}
    return result


def template_accuracy(items: Sequence[BenchmarkItem], samples: Iterable[SampleResult]) -> dict[int, dict]:
    scores = _first(samples)
    groups: dict[int, list[float]] = defaultdict(list)
    labels: dict[int, set] = defaultdict(set)
    for item in items:
        if item.id in scores:
            t = int(item.slices.get("template", 0))
            groups[t].append(scores[item.id])
            labels[t].add(item.answers[0] if item.answers else "")
    return {t: {"n": len(v), "correct": round(sum(v)), "accuracy": sum(v) / len(v), "label": "/".join(sorted(labels[t]))}
            for t, v in sorted(groups.items())}


def head_tail(items: Sequence[BenchmarkItem], samples: Iterable[SampleResult]) -> dict:
    samples = list(samples)
    return _split(items, _first(samples), statement_outcomes(items, samples), lambda i: True)


def by_slice(items: Sequence[BenchmarkItem], samples: Iterable[SampleResult], key: str) -> dict[str, dict]:
    """Head/tail accuracy and known rate per value of ``key`` (domain, rule, graph_premises)."""
    samples = list(samples)
    scores, outcomes = _first(samples), statement_outcomes(items, samples)

    # items grouped once: splitting every value over all items was quadratic, and the resamples of
    # the demo's LINK run spent most of their time here (issue 33's profile)
    groups: dict[str, list[BenchmarkItem]] = defaultdict(list)
    for i in items:
        if i.id in scores:
            groups[_slice_value(i, key)].append(i)
    return {v: _split(groups[v], scores, outcomes, lambda i: True) for v in sorted(groups)}


def _slice_value(item: BenchmarkItem, key: str) -> str:
    if key == "graph_premises":
        return f"{item.slices.get('graph_premises')}/{item.slices.get('hidden_premises')}"
    return str(item.slices.get(key))


def _pct(x: float | None, ci=None) -> str:
    return format_number(x, ci)


def _drop(x: float | None, ci=None) -> str:
    """A relative drop in % (it can pass -100 % .. +100 %), ± half its interval."""
    if x is None:
        return "-"
    return format_number(100 * x, [100 * c for c in ci] if ci else None, percent=True, signed=True) + "%"


def _rows(groups: dict[str, dict], key: str, estimates: dict | None = None) -> list[dict]:
    """Head vs long tail per group; with ``estimates`` ({group: {path: Estimate}}) each number
    ± half its 95% interval."""
    def ci(k, *path):
        est = ((estimates or {}).get(k) or {}).get(path)
        return est.ci if est is not None else None

    return [{key: k, "statements": g["statements"], "acc head": _pct(g["accuracy"]["head"], ci(k, "accuracy", "head")),
             "acc long tail": _pct(g["accuracy"]["longtail"], ci(k, "accuracy", "longtail")),
             "acc drop": _drop(g["accuracy"]["relative_drop"], ci(k, "accuracy", "relative_drop")),
             "known head": _pct(g["known"]["head"], ci(k, "known", "head")),
             "known long tail": _pct(g["known"]["longtail"], ci(k, "known", "longtail")),
             "known drop": _drop(g["known"]["relative_drop"], ci(k, "known", "relative_drop"))}
            for k, g in groups.items()]


def probe_tables(items: Sequence[BenchmarkItem], samples: Sequence[SampleResult],
                 estimates: dict | None = None) -> dict[str, list[dict]]:
    """Markdown-ready tables for the run report (``estimates``: the head/tail intervals)."""
    templates = [{"template": t, "label": r["label"], "n": r["n"], "accuracy": _pct(r["accuracy"])}
                 for t, r in template_accuracy(items, samples).items()]
    return {"templates": templates, "head_tail": _rows({"all": head_tail(items, samples)}, "set", estimates),
            "domain": _rows(by_slice(items, samples, "domain"), "domain"),
            "rule": _rows(by_slice(items, samples, "rule"), "rule"),
            "graph_premises": _rows(by_slice(items, samples, "graph_premises"), "graph/hidden")}


# --- task metrics -----------------------------------------------------------------------------
def metric_templates(data: MetricInput) -> dict:
    return {str(t): v for t, v in template_accuracy(data.items, data.samples).items()}


def totals_templates(data: MetricInput) -> Totals:
    """``metric_templates`` as sums: each answered item adds its first sample's score to its
    template's accuracy."""
    scores = _first(data.samples)
    return rate_totals([(item.id, (str(int(item.slices.get("template", 0))), "accuracy"), scores[item.id])
                        for item in data.items if item.id in scores])


def metric_known(data: MetricInput) -> dict:
    return known_rate(data.items, data.samples)


def metric_head_tail(data: MetricInput) -> dict:
    return head_tail(data.items, data.samples)


# --- the metrics as sums (MetricSpec.totals): bootstrapped over arrays of per-statement totals ----
# A statement is known when all 13 of its items are right: a verdict over the statement's items
# together, so one row per statement (on its first item) reading all of them (``Totals.reads``).
# The run's unit is the statement (LINK's item_group), so each row stays in one unit; where it is
# not, the engine resamples objects and says so. Each split (accuracy, known) of a group is six
# columns: head (sum, count), long tail (sum, count), all (sum, count).
_SIDE = {"head": 0, "longtail": 2}


def _side_counts(distribution: str, value: float) -> list[float]:
    counts = [0.0] * 6
    if distribution in _SIDE:
        counts[_SIDE[distribution]], counts[_SIDE[distribution] + 1] = value, 1.0
    counts[4], counts[5] = value, 1.0
    return counts


def _drop_statistic(totals: np.ndarray) -> np.ndarray:
    head, tail = totals[..., 0] / totals[..., 1], totals[..., 2] / totals[..., 3]
    return np.where(head == 0, np.nan, (tail - head) / head)      # relative_drop: None when head is 0


_SPLIT_STATISTICS = {"all": ratio_at(4), "head": ratio_at(0), "longtail": ratio_at(2),
                     "relative_drop": _drop_statistic}


def _split_totals(groups: Mapping[tuple[str, ...], Sequence[BenchmarkItem]], items: Sequence[BenchmarkItem],
                  samples: Iterable[SampleResult],
                  leaves: Callable[[tuple[str, ...], str, str], tuple[str, ...] | None] | None = None) -> Totals:
    """``_split`` of each group (path prefix -> its items) as sums; ``leaves(prefix, split, side)``
    names each number's path (default: prefix + (split, side); None: not a number of the value)."""
    samples = list(samples)
    scores, outcomes = _first(samples), statement_outcomes(items, samples)
    members: dict[str, list[str]] = defaultdict(list)        # a statement's answered items
    for item in items:
        if item.id in scores:
            members[_statement(item)].append(item.id)
    rows: list[tuple[str, tuple[str, ...], list[float]]] = []
    reads: list[tuple[str, ...]] = []
    named: dict[tuple[str, ...], tuple[tuple[str, ...], Callable]] = {}
    for prefix, mine in groups.items():
        seen: set[str] = set()
        for item in mine:
            if item.id not in scores:
                continue
            rows.append((item.id, (*prefix, "accuracy"), _side_counts(str(item.slices.get("distribution")),
                                                                      scores[item.id])))
            reads.append((item.id,))
            sid = _statement(item)
            if sid in seen:
                continue
            seen.add(sid)
            outcome = outcomes[sid]
            if len(outcome["templates"]) == 13:
                rows.append((item.id, (*prefix, "known"), _side_counts(str(outcome["distribution"]),
                                                                       float(_known(outcome)))))
                reads.append(tuple(members[sid]))
        for split in ("accuracy", "known"):
            for side, statistic in _SPLIT_STATISTICS.items():
                path = leaves(prefix, split, side) if leaves else (*prefix, split, side)
                if path is not None:
                    named[path] = ((*prefix, split), statistic)
    return grouped_totals(rows, 6, named, reads)


def totals_head_tail(data: MetricInput) -> Totals:
    """``metric_head_tail`` as sums: each answered item adds its score to its distribution's
    accuracy, each statement with all 13 templates answered whether it is known."""
    return _split_totals({(): data.items}, data.items, data.samples)


def totals_known(data: MetricInput) -> Totals:
    """``metric_known`` as sums: the known rate overall and per distribution."""
    names = {"all": ("rate",), "head": ("head",), "longtail": ("longtail",)}
    return _split_totals({(): data.items}, data.items, data.samples,
                         lambda _prefix, split, side: names.get(side) if split == "known" else None)


def totals_by(key: str):
    """``metric_by(key)`` as sums: ``totals_head_tail`` per value of ``key``."""
    def totals(data: MetricInput) -> Totals:
        scores = _first(data.samples)
        groups: dict[tuple[str, ...], list[BenchmarkItem]] = defaultdict(list)
        for item in data.items:
            if item.id in scores:
                groups[(_slice_value(item, key),)].append(item)
        return _split_totals(dict(sorted(groups.items())), data.items, data.samples)
    totals.__name__ = f"totals_by_{key}"
    return totals


# --- chance and the head-tail test ------------------------------------------------------------
TEMPLATES = 13
ANSWER_CHANCE = 0.5               # every template is answered by one of two labels


def _split_chance() -> dict:
    """A head/tail split's chance levels: 1/2 per answer, (1/2)^13 to get all 13 right."""
    known = ANSWER_CHANCE ** TEMPLATES
    return {"accuracy": {k: ANSWER_CHANCE for k in ("all", "head", "longtail")},
            "known": {k: known for k in ("all", "head", "longtail")}}


def chance_templates(data: MetricInput) -> dict:
    return {str(t): {"accuracy": ANSWER_CHANCE} for t in template_accuracy(data.items, data.samples)}


def chance_known(data: MetricInput) -> dict:
    return {k: ANSWER_CHANCE ** TEMPLATES for k in ("rate", *DISTRIBUTIONS)}


def chance_head_tail(data: MetricInput) -> dict:
    return _split_chance()


def chance_by(key: str):
    def chance(data: MetricInput) -> dict:
        return {v: _split_chance() for v in by_slice(data.items, data.samples, key)}
    return chance


def drop_p_values(data: MetricInput, *, seed: int = 0, resamples: int = 1000) -> dict:
    """The head − long-tail relative drops tested by permutation of the distribution labels
    over statements: head and long-tail are different statements, so nothing is paired (the
    interval of each drop is a bootstrap over statements)."""
    outcomes = statement_outcomes(data.items, data.samples)
    scores = _first(data.samples)
    per_statement: dict[str, list[float]] = defaultdict(list)
    for item in data.items:
        if item.id in scores:
            per_statement[_statement(item)].append(scores[item.id])
    note = "unpaired: head and long-tail are different statements (no pairing exists)"
    out = {}
    for name, value in (("accuracy", lambda sid: per_statement[sid]),
                        ("known", lambda sid: [float(_known(outcomes[sid]))] if len(outcomes[sid]["templates"]) == 13
                         else [])):
        head = [value(s) for s, o in outcomes.items() if o["distribution"] == "head"]
        tail = [value(s) for s, o in outcomes.items() if o["distribution"] == "longtail"]
        head, tail = [v for v in head if v], [v for v in tail if v]

        def drop(h, t):
            mean = lambda us: sum(x for u in us for x in u) / sum(len(u) for u in us)  # noqa: E731
            return relative_drop(mean(h), mean(t))

        if not head or not tail or drop(head, tail) is None:
            out[(name, "relative_drop")] = {"paired": False, "note": note + "; no test (a side is empty or head is 0)"}
            continue
        result = group_permutation_test(head, tail, drop, resamples=resamples, seed=child_seed(seed, name))
        out[(name, "relative_drop")] = {"p_value": result.p_value, "test": "permutation (distribution labels)",
                                        "paired": False, "note": note}
    return out


def metric_by(key: str):
    def metric(data: MetricInput) -> dict:
        return by_slice(data.items, data.samples, key)
    metric.__name__ = f"metric_by_{key}"
    return metric


__all__ = ["LinkProbeSolver", "OTHER_LABEL", "by_slice", "label_question", "chance_by", "chance_head_tail", "chance_known", "chance_templates", "totals_templates",
           "drop_p_values", "first_token", "head_tail", "known_rate", "metric_by", "metric_head_tail",
           "metric_known", "metric_templates", "probe_tables", "relative_drop", "score_probe", "score_probe_robust",
           "statement_outcomes", "template_accuracy", "totals_by", "totals_head_tail", "totals_known"]
