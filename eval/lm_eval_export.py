"""Any benchmark as lm-evaluation-harness tasks: a folder that ``lm_eval --include_path`` runs.

    knowforge export knowgen --name b1 --format lm-eval --out exports/b1-lm-eval
    lm_eval --model hf --model_args pretrained=M --include_path exports/b1-lm-eval \\
        --tasks knowforge_knowgen_b1 --log_samples --output_path out/

lm-eval asks what ``knowforge eval --solver zero-shot --mc-scoring likelihood`` asks, item for
item, so the two harnesses can check each other (``tests/test_exports_lm_eval.py``):

* Items that our likelihood path scores (``build_choice_question``: multi-choice items with
  choices, boolean and true/false items whose gold is not "unknown") are lm-eval
  ``multiple_choice`` tasks. The context is our zero-shot prompt (``render_prompt``, ending in
  ``Answer:``), the choices are the option texts (the ``text`` continuation, our default) and
  lm-eval's ``target_delimiter: " "`` puts the space in front, so each request is
  ``(prompt, " " + option)`` exactly as ours. lm-eval's ``acc`` and ``acc_norm`` are argmax of
  the summed log-probability and of log-probability per character of the option: ours.
* Every other item is a ``generate_until`` task with our zero-shot prompt, our stop string
  and token budget (``render_request`` with default options: ``"\\nQuestion:"``, 64 tokens),
  greedy; a filter reads the response the way the item's scorer does and ``exact_match``
  compares it with the gold. lm-eval has no fuzzy matching, so the ``fuzzy`` scorer
  (ChroKnowledge's ``token_set_ratio >= 70``) becomes our ``exact`` rule there; the other
  differences are listed in ``DIFFERENCES`` and in docs/eval.md ("Exports for other tools").

Layout (one lm-eval group per knowforge task, because lm-eval wants one output type and one
filter per task, and a knowforge task may mix forms)::

    OUT/README.md                           what is where, how to run it, what was left out
    OUT/knowforge_<method>_<name>.yaml      group: every task of the benchmark
    OUT/knowforge_<method>_<name>_<task>.yaml           group: one knowforge task
    OUT/knowforge_<method>_<name>_<task>_<kind>.yaml    lm-eval task; kind = mc, gen, unknown,
                                                        or a method scorer's own kind
    OUT/data/knowforge_<method>_<name>_<task>_<kind>.jsonl   its items (id, prompt, choices/targets)

The YAML files name their data by absolute path (lm-eval's ``dataset_path: json`` resolves
``data_files`` against the working directory, not the YAML): after moving the folder, export
again.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from knowforge.errors import ConfigError
from knowforge.eval.mc_likelihood import build_choice_question
from knowforge.eval.prompts import TEMPLATE_VERSION, render_request
from knowforge.eval.registry import scorer_spec
from knowforge.eval.scorers import _UNKNOWN, normalize_answer
from knowforge.eval.types import EvalOptions
from knowforge.eval.unit import LmEvalKind
from knowforge.models.task import Task
from knowforge.models.types import BenchmarkItem

log = logging.getLogger(__name__)

EXPORT_VERSION = "1"
SETTING = "zero-shot"          # the prompt every exported task uses
CONTINUATION = "text"          # multiple choice scores the option texts, not their letters
FILTER_NAME = "knowforge"      # the name of every generation task's filter pipeline
PREFIX = "knowforge"

# --- how a response is read, as lm-eval filters and exact_match options ------------------------
# Each mirrors a rule of knowforge.eval.scorers; tests/test_exports_lm_eval.py runs
# lm-eval's own filter and metric code on tricky responses and compares with our scorers.

# first_line() + strip_answer_prefix(): the first non-empty line without "Answer:" / "The answer
# is"; [^\S\n] keeps the prefix on that line, as ours reads the line alone.
_H = r"[^\S\n]"
FIRST_LINE_NO_PREFIX = (rf"(?i)^\s*(?:(?:the{_H}+)?(?:final{_H}+)?answer{_H}*(?:is)?{_H}*[:：]?{_H}*)?"
                        r"([^\n]*)")
FIRST_LINE = r"^\s*([^\n]*)"
# final_answer(): what follows the last "answer:" marker, else the whole response. findall gives
# every marker's text (the last one is selected); the second branch matches only when there is
# no marker at all.
_MARKER = r"(?:final answer|answer)\s*(?:is)?\s*[:：]\s*"
FINAL_ANSWER = rf"(?i){_MARKER}([^\n]+)|\A(?![\s\S]*?{_MARKER}[^\n])([\s\S]*)"
# is_unknown(): the phrases our scorer accepts as "I do not know" (its own pattern).
UNKNOWN_PHRASES = "(?i)" + _UNKNOWN.pattern

# normalize_answer(), as deletions (exact_match can only delete): punctuation other than the
# separators, then articles (a separator or space around them still marks the word edge), then
# separators and whitespace. lm-eval applies these to prediction and gold alike.
_PUNCT_NO_SEPARATORS = r"""[!"#$%&'()*+,.:;<=>?@\[\\\]^`{|}~‘’“”]"""
_ARTICLES = r"(?i)(?<![^\W_])(?:a|an|the)(?![^\W_])"
_SEPARATORS_AND_SPACE = r"[\s\-‐–—/_]+"
NORMALIZE = (_PUNCT_NO_SEPARATORS, _ARTICLES, _SEPARATORS_AND_SPACE)
INVALID = "[invalid]"

DIFFERENCES = (
    "fuzzy (token_set_ratio >= 70) is scored as our exact rule: normalised exact match",
    "exact: lm-eval deletes spaces instead of collapsing them, so 'new york' also equals 'newyork'",
    ("chain-of-thought, few-shot, chat, sampling (--n, --temperature) and the methods' own solvers "
     "(`knowforge methods --solvers`) are not exported: every task is zero-shot"),
)


def _regex(pattern: str, group_select: int = 0, fallback: str = INVALID) -> dict[str, Any]:
    return {"function": "regex", "regex_pattern": pattern, "group_select": group_select, "fallback": fallback}


# The generic task shapes; a method's scorer may declare its own (``ScorerSpec.lm_eval``).
MC = LmEvalKind("mc", "multiple_choice", "multiple choice by log-likelihood (acc, acc_norm)")
GEN = LmEvalKind("gen", "generate_until", "short answer, our exact rule on the first line",
                 filters=(_regex(FIRST_LINE_NO_PREFIX, fallback=""),),
                 match={"ignore_case": True, "regexes_to_ignore": list(NORMALIZE)})
# the filter leaves the phrase it found; deleting every phrase makes any of them equal the gold
# "unknown", and a response without one stays "[invalid]"
UNKNOWN = LmEvalKind("unknown", "generate_until", "gold 'unknown': right iff the answer says it does not know",
                     filters=(_regex(FINAL_ANSWER, group_select=-1, fallback=""), _regex(FIRST_LINE, fallback=""),
                              _regex(UNKNOWN_PHRASES)),
                     match={"ignore_case": True, "regexes_to_ignore": [UNKNOWN_PHRASES]})
KINDS = (MC, GEN, UNKNOWN)


def task_slug(name: str) -> str:
    """An lm-eval task name part: lower-case letters, digits and single underscores."""
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    if not slug:
        raise ConfigError(f"cannot make an lm-eval task name from {name!r}")
    return slug


def benchmark_prefix(benchmark: str) -> str:
    """``knowgen:b1`` → ``knowforge_knowgen_b1``."""
    return f"{PREFIX}_{task_slug(benchmark)}"


def _owner(item: BenchmarkItem, tasks: Sequence[Task]) -> Task | None:
    return next((t for t in tasks if t.dataset.matches(item)), None)


def unique_targets(answers: Sequence[str], keep=lambda a: True) -> list[str]:
    """The distinct non-empty answers ``keep`` accepts, in order."""
    out: list[str] = []
    for answer in answers:
        if answer and keep(answer) and answer not in out:
            out.append(answer)
    return out


def generation_targets(item: BenchmarkItem) -> tuple[LmEvalKind, dict[str, Any]] | str:
    """The generic reading of a short answer: "unknown" golds by the unknown phrases, the others
    by our exact rule on the first line."""
    if item.unknown or item.scorer == "unknown":
        return UNKNOWN, {"targets": ["unknown"]}
    # our exact rule never matches a gold that normalises to nothing ("The", "!")
    targets = unique_targets(item.answers, lambda a: bool(normalize_answer(a)))
    return (GEN, {"targets": targets}) if targets else "no gold answer"


def item_row(item: BenchmarkItem, task: Task) -> tuple[LmEvalKind, dict[str, Any]] | str:
    """The lm-eval row of one item and its kind, or why it cannot be exported."""
    if task.scorer is not None:
        item = item.model_copy(update={"scorer": task.scorer.name})
    base = {"id": item.id, "task": item.task, "form": item.form}
    question = build_choice_question(item, SETTING, CONTINUATION)
    if question is not None:
        return MC, {**base, "prompt": question.context, "choices": list(question.scored), "gold": question.gold}
    base["prompt"] = render_request(item, SETTING, EvalOptions()).prompt
    spec = scorer_spec(item.scorer)
    made = spec.lm_eval(item) if spec.lm_eval is not None else None
    if isinstance(made, tuple):
        kind, row = made
        return kind, {**base, **row}
    if isinstance(made, str):
        return made
    if item.form == "multi-choice" and not item.choices:
        return "multi-choice without choices"
    return f"scorer {item.scorer!r} has no lm-eval form"


def _leaf_config(name: str, kind: LmEvalKind, data: Path, task: Task, benchmark: str, n: int) -> dict[str, Any]:
    config: dict[str, Any] = {
        "task": name,
        "task_alias": f"{task.name} ({kind.suffix})",
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(data.resolve())}},
        "test_split": "test",
        "output_type": kind.output_type,
        "doc_to_text": "prompt",
    }
    if kind.output_type == "multiple_choice":
        config |= {"doc_to_choice": "choices", "doc_to_target": "gold", "target_delimiter": " ",
                   "metric_list": [{"metric": m, "aggregation": "mean", "higher_is_better": True}
                                   for m in ("acc", "acc_norm")]}
    else:
        defaults = render_request(BenchmarkItem(id="-", benchmark="-", task="-", form="generation",
                                                question="-"), SETTING, EvalOptions())
        config |= {"doc_to_target": "targets",
                   "generation_kwargs": {"until": list(defaults.stop), "max_gen_toks": defaults.max_tokens,
                                         "do_sample": False, "temperature": 0.0},
                   "filter_list": [{"name": FILTER_NAME, "filter": [*kind.filters, {"function": "take_first"}]}],
                   "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True,
                                    **kind.match}]}
    config |= {"num_fewshot": 0,
               "metadata": {"version": float(task.version) if task.version.isdigit() else task.version,
                            "knowforge": {"benchmark": benchmark, "task": task.name, "kind": kind.suffix,
                                          "reading": kind.title, "items": n, "setting": SETTING,
                                          "continuation": CONTINUATION, "template_version": TEMPLATE_VERSION,
                                          "export_version": EXPORT_VERSION}}}
    return config


def _metrics(kinds: set[str]) -> list[dict[str, Any]]:
    """What a group can average: the metrics every member task reports."""
    if kinds == {MC.suffix}:
        return [{"metric": m, "aggregation": "mean", "weight_by_size": True, "filter_list": ["none"]}
                for m in ("acc", "acc_norm")]
    if MC.suffix not in kinds:
        return [{"metric": "exact_match", "aggregation": "mean", "weight_by_size": True,
                 "filter_list": [FILTER_NAME]}]
    return []


def _group_config(name: str, members: list[str], kinds: set[str], version: str = "1",
                  **knowforge: Any) -> dict[str, Any]:
    config: dict[str, Any] = {"group": name, "task": members}
    metrics = _metrics(kinds)
    if metrics:
        config["aggregate_metric_list"] = metrics
    config["metadata"] = {"version": float(version) if version.isdigit() else version, "knowforge": knowforge}
    return config


class _Dumper(yaml.SafeDumper):
    """Strings with a newline in double quotes (``"\\nQuestion:"``), not folded over lines."""


_Dumper.add_representer(str, lambda dumper, value: dumper.represent_scalar(
    "tag:yaml.org,2002:str", value, style='"' if "\n" in value else None))


def _dump_yaml(path: Path, config: dict[str, Any], comment: str) -> Path:
    text = yaml.dump(config, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
    path.write_text(f"# {comment}\n" + text, encoding="utf-8")
    return path


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    return path


def _remove_stale(out: Path, benchmark: str, keep: set[Path]) -> None:
    """Task files of an earlier export of the same benchmark that this one did not write, with
    their data (lm-eval would still load a stale task from the folder). Files are recognised by
    the benchmark in their metadata, not by name, so other benchmarks' tasks stay."""
    for path in sorted(out.glob("*.yaml")):
        if path in keep:
            continue
        try:
            config = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue                     # not ours (lm-eval task files may hold !function tags)
        ours = ((config or {}).get("metadata") or {}).get("knowforge") if isinstance(config, dict) else None
        if isinstance(ours, dict) and ours.get("benchmark") == benchmark:
            path.unlink()
            (out / "data" / f"{path.stem}.jsonl").unlink(missing_ok=True)


def write_lm_eval_tasks(items: Sequence[BenchmarkItem], out: Path, *, benchmark: str,
                        tasks: Sequence[Task]) -> list[Path]:
    """Write ``items`` of ``benchmark`` as lm-eval tasks under ``out``; returns every file written.

    Items no task takes, and items lm-eval cannot score (a multi-choice item without choices, a
    scorer with no lm-eval form, no gold), are left out, counted by reason in the README and
    logged.
    """
    out = Path(out)
    prefix = benchmark_prefix(benchmark)
    rows: dict[str, list[tuple[LmEvalKind, dict[str, Any]]]] = {}     # knowforge task -> (kind, row)
    skipped: Counter[str] = Counter()
    for item in items:
        task = _owner(item, tasks)
        if task is None:
            skipped["no task of the method takes it"] += 1
            continue
        made = item_row(item, task)
        if isinstance(made, str):
            skipped[made] += 1
            continue
        rows.setdefault(task.name, []).append(made)
    if not rows:
        raise ConfigError(f"{benchmark}: no item can be exported as an lm-eval task"
                          + (f" ({_reasons(skipped)})" if skipped else ""))
    (out / "data").mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    table: list[tuple[str, str, str, int]] = []
    task_groups: list[str] = []
    all_kinds: set[str] = set()
    names: dict[str, str] = {}
    for task in tasks:
        mine = rows.get(task.name)
        if not mine:
            continue
        group = f"{prefix}_{task_slug(task.name.split('/', 1)[-1])}"
        if group in names:
            raise ConfigError(f"tasks {names[group]!r} and {task.name!r} give the same lm-eval name {group!r}")
        names[group] = task.name
        members, kinds = [], set()
        for kind in _kinds_in_order(k for k, _ in mine):
            data_rows = [data for k, data in mine if k == kind]
            if not data_rows:
                continue
            leaf = f"{group}_{kind.suffix}"
            data = _write_jsonl(out / "data" / f"{leaf}.jsonl", data_rows)
            written += [data, _dump_yaml(out / f"{leaf}.yaml",
                                         _leaf_config(leaf, kind, data, task, benchmark, len(data_rows)),
                                         f"{task.name} of {benchmark}: {kind.title}; made by knowforge")]
            members.append(leaf)
            kinds.add(kind.suffix)
            table.append((leaf, task.name, kind.title, len(data_rows)))
        all_kinds |= kinds
        written.append(_dump_yaml(out / f"{group}.yaml",
                                  _group_config(group, members, kinds, task.version, benchmark=benchmark,
                                                task=task.name, description=task.description),
                                  f"{task.name} of {benchmark}; made by knowforge"))
        task_groups.append(group)
    written.append(_dump_yaml(out / f"{prefix}.yaml",
                              _group_config(prefix, task_groups, all_kinds, benchmark=benchmark,
                                            export_version=EXPORT_VERSION),
                              f"every task of {benchmark}; made by knowforge"))
    written.append(_write_readme(out / "README.md", benchmark, prefix, table, skipped))
    _remove_stale(out, benchmark, set(written))
    if skipped:
        log.warning("%s: %d items not exported as lm-eval tasks (%s)", benchmark, sum(skipped.values()),
                    _reasons(skipped))
    return written


def _kinds_in_order(kinds) -> list[LmEvalKind]:
    """The generic kinds first, in their order, then the methods' own as first met."""
    seen = list(dict.fromkeys(kinds))
    return [k for k in KINDS if k in seen] + [k for k in seen if k not in KINDS]


def _reasons(skipped: Counter[str]) -> str:
    return ", ".join(f"{reason}: {n}" for reason, n in sorted(skipped.items()))


def _write_readme(path: Path, benchmark: str, prefix: str, table: list[tuple[str, str, str, int]],
                  skipped: Counter[str]) -> Path:
    lines = [f"# `{benchmark}` as lm-evaluation-harness tasks", "",
             "Made by knowforge (`knowforge export ... --format lm-eval`). Run every task with:", "",
             "```bash",
             f"lm_eval --model hf --model_args pretrained=MODEL --include_path {path.parent.resolve()} \\",
             f"    --tasks {prefix} --log_samples --output_path results/",
             "```", "",
             (f"`{prefix}` is a group of one group per knowforge task, each a group of the lm-eval tasks "
              "below (one output type and one way of reading the answer each)."), "",
             "| lm-eval task | knowforge task | scoring | items |", "|---|---|---|---:|"]
    lines += [f"| `{leaf}` | {task} | {title} | {n} |" for leaf, task, title, n in table]
    lines += ["", ("Prompts are knowforge's zero-shot prompts (`knowforge eval --solver zero-shot`); "
                   "multiple-choice tasks score the option texts after `Answer:` as "
                   "`knowforge eval --mc-scoring likelihood` does, generation tasks are greedy with the "
                   "stop string `\\nQuestion:` and 64 new tokens."), "", "Differences from `knowforge eval`:", ""]
    lines += [f"- {d}" for d in DIFFERENCES]
    lines += ["", ("The YAML files name their data (`data/*.jsonl`) by absolute path; after moving this "
                   "folder, export it again."), ""]
    if skipped:
        lines += ["Items left out (no lm-eval form): " + _reasons(skipped) + ".", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


__all__ = ["DIFFERENCES", "EXPORT_VERSION", "FIRST_LINE", "GEN", "KINDS", "MC", "UNKNOWN", "benchmark_prefix",
           "generation_targets", "item_row", "unique_targets", "write_lm_eval_tasks"]
