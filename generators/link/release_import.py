"""LINT-style statements in the graph: ``knowforge generate link --import lint/ [--name N]``.

``read_lint_release`` reads the files (tolerant, every variant counted, every skipped line
listed); this module stores them as a LINK benchmark: one conclusion fact of the inferred
layer per statement (shared by its head and long-tail lines, with the records as read, so
``export --format lint`` gives them back), and the 13 probe questions of each (fewer when a
line lacks ¬C or C?), each TESTing its conclusion. The link-probe solver and every LINT metric
run on it as on a generated benchmark. Re-importing a name replaces it; a generated benchmark
of that name is refused; ``--drop NAME`` removes it as a generated one.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from knowforge.errors import ConfigError, InputError
from knowforge.kg.store import Store
from knowforge.models.undo import undone_on_failure
from knowforge.models.method import GenerationSummary
from knowforge.models.questions import read_benchmark, source_graph_hash, write_benchmark, write_questions

from .generate import drop_link
from .lint_release import LintRelease, read_lint_release, release_files
from .statements import conclusion_fact_id

MAX_LISTED = 20
ORIGIN = "imported"
DEFAULT_NAME = "lint"


def conclusion_rows(release: LintRelease, *, benchmark: str, name: str) -> list[dict]:
    by_key: dict[str, list] = {}
    for s in release.statements:
        by_key.setdefault(s.key, []).append(s)
    rows = []
    for key in sorted(by_key):
        group = sorted(by_key[key], key=lambda s: s.distribution)
        first = group[0].items[0].metadata if group[0].items else {}
        record = group[0].record
        rows.append({"id": conclusion_fact_id(benchmark, key), "object_id": None, "props": {
            "layer": "inferred", "op": "conclusion", "benchmark": benchmark, "batch": name, "origin": ORIGIN,
            "rule": record.get("rule") or "unknown", "kind": "attribute",
            "relation": record.get("rule") or "lint_conclusion", "text": first.get("conclusion") or record["conclusion"],
            "premise": record["premise"], "negation": first.get("negation"), "question": first.get("question"),
            "statement": key, "distributions": [s.distribution for s in group],
            "ranks": [s.record.get("rank") for s in group if isinstance(s.record.get("rank"), int)],
            "source": "lint-release",
            "statements_json": json.dumps({s.distribution: s.record for s in group}, sort_keys=True,
                                          ensure_ascii=False)}})
    return rows


def import_release(store: Store, paths, params, progress=None) -> GenerationSummary:
    started = time.monotonic()
    files = release_files(list(paths))
    name = params.name if getattr(params, "name_given", True) else DEFAULT_NAME
    benchmark = f"link:{name}"
    existing = read_benchmark(store, benchmark)
    if existing and existing.get("origin") != ORIGIN:
        raise ConfigError(f"{benchmark} was generated: drop it first (knowforge generate link --drop {name}) "
                          "or import under another --name")
    state = store.read("link/read_batch", benchmark=benchmark, batch=name)[0]
    # read (and refuse) before anything is dropped: a bad release must not cost the benchmark it replaces
    release = read_lint_release(files, benchmark=benchmark)
    replaced = drop_link(store, name) if (state["benchmark"] or state["facts"] or state["questions"]) else None
    report = release.report
    if not release.statements:
        raise InputError("no LINT statement could be read"
                         + (f" ({'; '.join(report.problems[:3])})" if report.problems else ""), path=str(files[0]))
    if progress:
        progress(len(release.statements))
    with undone_on_failure(benchmark, lambda: drop_link(store, name), drop_command=f"knowforge generate link --drop {name}"):
        write_benchmark(store, method="link", name=name, seed=params.seed, params={"import": [str(f) for f in files]},
                        source_hash=source_graph_hash(store),
                        props={"origin": ORIGIN, "imported_from": [str(f) for f in files],
                               "statements": len(release.statements),
                               "import_report_json": json.dumps(
                                   {"files": report.files, "lines_skipped": dict(report.lines_skipped),
                                    "duplicates": report.duplicates, "variants": dict(report.variants),
                                    "variants_first": report.variants.first,
                                    "templates_left_out": {str(k): v for k, v in report.templates_left_out.items()},
                                    "problems": report.problems}, sort_keys=True, ensure_ascii=False)})
        store.write("link/apply_inferred_facts", conclusion_rows(release, benchmark=benchmark, name=name))
        write_questions(store, release.items)
        if progress:
            progress(len(release.items))
    notes = report.problems[:MAX_LISTED]
    if len(report.problems) > MAX_LISTED:
        notes.append(f"... and {len(report.problems) - MAX_LISTED} more (all in the benchmark's import_report_json)")
    notes += report.variants.notes()
    if replaced:
        notes.append(f"replaced the earlier {benchmark}")
    by_dist: dict[str, int] = {}
    for s in release.statements:
        by_dist[s.distribution] = by_dist.get(s.distribution, 0) + 1
    breakdown = {"statements by distribution": by_dist,
                 "statements by file": {Path(f).name: n for f, n in report.files.items()}}
    if report.templates_left_out:
        breakdown["templates left out (statements without the form they need)"] = {
            f"{k:02d}": v for k, v in sorted(report.templates_left_out.items())}
    if report.lines_skipped:
        breakdown["lines skipped"] = dict(report.lines_skipped)
    if report.variants:
        breakdown["variants met (accepted)"] = dict(sorted(report.variants.items()))
    return GenerationSummary(method="link", name=name, benchmark=benchmark,
                             counts={"statements": len(release.statements), "questions": len(release.items),
                                     "lines skipped": sum(report.lines_skipped.values()),
                                     "duplicate lines": report.duplicates},
                             breakdown=breakdown, timings={"total": time.monotonic() - started}, notes=notes)


__all__ = ["conclusion_rows", "import_release"]
