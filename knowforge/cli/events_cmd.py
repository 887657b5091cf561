"""``knowforge generate events``, ``knowforge export events`` and the ``events:`` evaluator."""

from __future__ import annotations

from pathlib import Path

import click

from knowforge.cli.common import (console, handle_errors, home_option, open_graph, progress_bar,
                                  seed_option, silent_option)


@click.command("events")
@click.option("--types", default=None,
              help="Comma-separated event types (default: every template), e.g. win-election,transfer-player.")
@click.option("--n", "n", type=int, default=10, show_default=True, help="Events per type.")
@seed_option
@click.option("--batch", default=None, help="Batch name (default: e<seed>).")
@click.option("--date", default="2025-01-01", show_default=True, help="Date of the events (YYYY-MM-DD).")
@click.option("--templates-dir", type=click.Path(file_okay=False), default=None,
              help="Extra event templates (*.yaml); a type defined there overrides the bundled one.")
@click.option("--locality-relations", type=click.Path(dir_okay=False), default=None,
              help="YAML with the relation set for out-of-scope questions (default: bundled, 32).")
@click.option("--llm-backend", type=click.Choice(["hf", "openai", "vllm"]), default=None,
              help="Optional LLM for paraphrases and tendency questions (cached).")
@click.option("--llm-model", default=None, help="Model id or local directory of the LLM.")
@click.option("--llm-base-url", default=None, help="openai: server URL, e.g. http://127.0.0.1:8000/v1.")
@home_option
@silent_option
@handle_errors
def generate_events(types, n, seed, batch, date, templates_dir, locality_relations, llm_backend,
                    llm_model, llm_base_url, home, silent):
    """Instantiate ELKEN event templates on the graph and layer the edits.

    Each event fills a template's slots (weighted by popularity, constraints checked in
    Cypher), computes its impacted triplets from the graph, becomes an :Event node that
    asserts and retracts facts (source facts untouched), and gets in-scope and out-of-scope
    questions.

    \b
    Example:
      knowforge generate events --types win-election,transfer-player --n 20 --seed 0
    """
    from knowforge.generators.events.build import generate_events as run
    from knowforge.generators.events.templates import load_templates

    type_list = [t.strip() for t in types.split(",") if t.strip()] if types else None
    batch = batch or f"e{seed}"
    llm = None
    if llm_backend:
        from knowforge.models.backends import make_backend
        from knowforge.models.config import BackendConfig

        llm = make_backend(BackendConfig(backend=llm_backend, model=llm_model or "",
                                       base_url=llm_base_url, seed=seed, silent=silent))
    store = open_graph(home)
    try:
        total = n * len(type_list or load_templates(templates_dir))
        with progress_bar("planning events", total, silent=silent, unit="events") as advance:
            summary = run(store, types=type_list, n=n, seed=seed, batch=batch, date=date,
                          templates_dir=templates_dir, locality_path=locality_relations,
                          llm=llm, progress=advance)
    finally:
        store.close()
    for event_type, wanted in summary.requested.items():
        made = summary.made.get(event_type, 0)
        note = "" if made == wanted else f"  [yellow](graph has fillings for only {made})[/yellow]"
        console.print(f"{event_type}: {made} events{note}")
    if summary.llm is not None:
        s = summary.llm
        console.print(f"LLM: {s.paraphrased} paraphrases kept, {s.paraphrase_rejected} rejected; "
                      f"{s.tendency_questions} tendency questions, {s.tendency_lines_rejected} bad lines")
    console.print(f"batch {batch}: {len(summary.plans)} events, {summary.n_questions} questions")
    click.echo(batch)


@click.command("events")
@click.option("--batch", required=True, help="The batch to export.")
@click.option("--format", "fmt", type=click.Choice(["elken", "jsonl", "hf"]), default="elken",
              show_default=True)
@click.option("--out", type=click.Path(), default="exports/events", show_default=True,
              help="Output folder (or a .json / .jsonl file).")
@home_option
@handle_errors
def export_events(batch, fmt, out, home):
    """Export an event batch in ELKEN's released format, our JSONL items, or an HF dataset folder.

    \b
    Example:
      knowforge export events --batch e0 --format elken --out exports/events
    """
    from knowforge.generators.events.export import export_events as run

    store = open_graph(home)
    try:
        manifest = run(store, batch, fmt, out)
    finally:
        store.close()
    console.print(f"{manifest['events']} events, {manifest['questions']} questions")
    click.echo(manifest["path"])


def evaluate_events(spec: str, options, store) -> Path:
    """``knowforge eval --benchmark events:<batch> --method ice|bm25|dense|none``.

    The dense model is ``options.extra["dense_model"]`` or $KNOWFORGE_E5_MODEL. With
    ``--judge-model`` (``options.extra["judge_*"]``) tendency questions are also answered
    open-ended and scored by that judge (Tendency-G).
    """
    from knowforge.eval.editing import evaluate_editing, judge_from_options
    from knowforge.errors import ConfigError
    from knowforge.generators.events.build import read_batch

    items = [item for _, its in read_batch(store, spec) for item in its]
    if not items:
        raise ConfigError(f"no questions for event batch {spec!r}")
    method = options.extra.get("method") or "ice"
    judge = judge_from_options(options)
    with progress_bar(f"events:{spec} ({method})", None, silent=options.silent,
                      unit="requests") as advance:
        outcome = evaluate_editing(items, options, store, method=method,
                                   name=f"events:{spec}:{method}", judge=judge, progress=advance)
    rel, loc = outcome.metrics["reliability"], outcome.metrics["locality"]
    console.print(f"{method}: question-level reliability {_pct(rel['question_level'])}, "
                  f"edit-level {_pct(rel['edit_level'])}, locality {_pct(loc['question_level'])}")
    if "tendency_generation" in outcome.metrics:
        g = outcome.metrics["tendency_generation"]
        console.print(f"Tendency-G ({g['judge']['backend']}:{g['judge']['model']}): {g['cases']} "
                      f"answers judged, {g['unparsed']} unparsed, full-mark rate (overall) "
                      f"{_pct(g['full_mark_overall'])}")
    return outcome.report_dir


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"
