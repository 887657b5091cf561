"""``knowforge generate knowgen``, ``knowforge export knowgen`` and the ``knowgen:`` evaluator."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from knowforge.cli.common import (console, handle_errors, home_option, open_graph, progress_bar,
                                  seed_option, silent_option)


@click.command("knowgen")
@click.option("--batch", default=None,
              help="Batch id (letters, digits, _-.); default kg<SEED>. Its benchmark is knowgen:BATCH.")
@click.option("--class", "classes", multiple=True,
              help="Class C to draw parents from (id like ncbi:9835 or name like Camelidae); repeatable. "
                   "Default: every class with at least two members.")
@click.option("--n", "n", type=int, default=100, show_default=True, help="Artificial entities to generate.")
@click.option("--class-label", default="Taxon", show_default=True,
              help="Label of class members (any class in the graph, not only taxa).")
@click.option("--parent-rel", default="P171", show_default=True,
              help="Relation from a member to its class (taxonomy: P171 parent taxon).")
@click.option("--heredity", "heredity_ratio", type=float, default=0.5, show_default=True,
              help="Share of the parent's facts inherited unchanged.")
@click.option("--variation", "variation_ratio", type=float, default=0.3, show_default=True,
              help="Share of the parent's facts varied.")
@click.option("--dropout", "dropout_ratio", type=float, default=0.2, show_default=True,
              help="Share of the parent's facts dropped.")
@click.option("--max-extension", type=int, default=2, show_default=True,
              help="Extension facts sampled from siblings per entity (uniform 0..MAX).")
@click.option("--name-cutoff", type=float, default=85.0, show_default=True,
              help="rapidfuzz ratio at or above which a new name counts as a collision.")
@click.option("--max-ku", type=int, default=6, show_default=True,
              help="Properties asked about in KU questions per entity (0 = all).")
@click.option("--max-ka2", type=int, default=2, show_default=True, help="2-hop KA questions per entity (per form).")
@click.option("--max-ka3", type=int, default=1, show_default=True, help="3-hop KA questions per entity (per form).")
@click.option("--forms", default="boolean,fill-in-blank,multi-choice", show_default=True,
              help="Comma-separated question forms.")
@click.option("--few-shot", type=int, default=2, show_default=True, help="Few-shot exemplars per question.")
@click.option("--drop", "drop", default=None, metavar="BATCH",
              help="Delete batch BATCH (entities, facts, questions, answers) and restore the graph.")
@seed_option
@silent_option
@home_option
@handle_errors
def generate_knowgen(batch, classes, n, class_label, parent_rel, heredity_ratio, variation_ratio,
                     dropout_ratio, max_extension, name_cutoff, max_ku, max_ka2, max_ka3, forms, few_shot, drop,
                     seed, silent, home):
    """Create artificial entities from a class of the graph (the ALCUNA method) and their questions.

    Each new entity gets a parent from class C; the parent's facts are split at random into
    heredity (copied), variation (relation object -> a sibling of the object; number -> v +
    N(0, v/10) in the same unit; text -> a sibling's value) and dropout (not inherited), and a
    few of the siblings' facts are added (extension). Everything is written to the graph with
    provenance edges, then KU/KD/KA questions are built in three forms and linked to the facts
    they test.

    \b
    Examples:
      knowforge generate knowgen --n 1000 --seed 1 --batch alcuna1
      knowforge generate knowgen --class Camelidae --n 20 --seed 0
      knowforge generate knowgen --class-label Concept --parent-rel isa --n 50
      knowforge generate knowgen --drop alcuna1
    """
    from knowforge.generators.knowgen import KnowGenParams, drop_batch, generate_batch

    with contextlib.closing(open_graph(home)) as store:
        if drop:
            result = drop_batch(store, drop)
            console.print(f"dropped batch {drop}: {result.nodes_deleted} nodes, "
                          f"{result.relationships_deleted} relationships deleted")
            return
        params = KnowGenParams(
            batch=batch or f"kg{seed}", seed=seed, n=n, classes=tuple(classes) or None,
            class_label=class_label, parent_rel=parent_rel, heredity_ratio=heredity_ratio,
            variation_ratio=variation_ratio, dropout_ratio=dropout_ratio, max_extension=max_extension,
            name_cutoff=name_cutoff, max_ku=max_ku, max_ka2=max_ka2, max_ka3=max_ka3,
            forms=tuple(f.strip() for f in forms.split(",") if f.strip()), few_shot=few_shot)
        with progress_bar("knowgen", None, silent=silent, unit="rows") as advance:
            summary = generate_batch(store, params, progress=lambda stage, k, total: advance(k))
    console.print(f"batch {summary.batch}: {summary.entities} entities, {summary.facts} facts, "
                  f"{summary.questions} questions "
                  f"({', '.join(f'{k} {v}' for k, v in sorted(summary.by_type.items()))}) "
                  f"in {summary.timings['total']:.1f}s")
    click.echo(summary.batch)


@click.command("knowgen")
@click.option("--batch", required=True, help="Batch id to export.")
@click.option("--format", "fmt", type=click.Choice(["alcuna", "jsonl", "hf"]), default="alcuna",
              show_default=True,
              help="alcuna: meta_data.jsonl + id2question.json; jsonl: our versioned items; "
                   "hf: a Hugging Face datasets folder with a dataset card.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output directory (created).")
@home_option
@handle_errors
def export_knowgen(batch, fmt, out_dir, home):
    """Export a KnowGen batch from the graph (same seed and graph -> byte-identical files).

    \b
    Examples:
      knowforge export knowgen --batch alcuna1 --format alcuna --out exports/alcuna1
      knowforge export knowgen --batch alcuna1 --format jsonl --out exports/alcuna1-jsonl
      knowforge export knowgen --batch alcuna1 --format hf --out exports/alcuna1-hf
    """
    from knowforge.generators.knowgen.alcuna_schema import validate_alcuna_export
    from knowforge.generators.knowgen.export import export_batch

    with contextlib.closing(open_graph(home)) as store:
        files = export_batch(store, batch, fmt, out_dir)
    if fmt == "alcuna":
        counts = validate_alcuna_export(out_dir)
        console.print(f"ALCUNA export valid: {counts['entities']} entities, {counts['questions']} questions")
    for path in files:
        click.echo(str(path))


def evaluate_knowgen(spec: str, options, store) -> Path:
    """``knowforge eval --benchmark knowgen:BATCH``: the four ALCUNA settings; returns the
    summary directory (accuracy by type KU/KD/KA, form and difference per setting)."""
    from knowforge.eval.knowgen_eval import evaluate_batch
    from knowforge.generators.knowgen.export import read_batch

    _, _, _, items = read_batch(store, spec)
    with progress_bar(f"knowgen:{spec}", None, silent=options.silent, unit="requests") as advance:
        return evaluate_batch(store, spec, items, options, progress=advance)
