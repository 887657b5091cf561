"""``knowforge generate chrono``, ``knowforge export chrono`` and the ``chrono:`` evaluator."""

from __future__ import annotations

from pathlib import Path

import click

from knowforge.cli.common import (console, handle_errors, home_option, open_graph, progress_bar,
                                  seed_option, silent_option)

DOMAIN_NAMES = ("general", "biomedical", "legal", "commonsense", "math")


@click.command("chrono")
@click.option("--domain", type=click.Choice(DOMAIN_NAMES), default=None,
              help="Which domain to build (required unless --import is given).")
@click.option("--from", "from_year", type=int, default=None,
              help="First year (defaults: general/legal 2010, biomedical 2020, invariant 2020).")
@click.option("--to", "to_year", type=int, default=None,
              help="Last year (defaults: general/legal 2023, biomedical and invariant 2024).")
@click.option("--name", default=None, help="Benchmark name; its id is chrono:NAME (default: the domain).")
@click.option("--relations", default=None, help="Comma-separated relation ids (default: the domain's set).")
@click.option("--templates", default="generation,mcqa,tf", show_default=True,
              help="Comma-separated templates: generation, mcqa, tf.")
@click.option("--fewshot-pool", type=int, default=None,
              help="Exemplars held out per relation (default: 4 general, 8 other domains).")
@click.option("--max-per-relation", type=int, default=None, help="Cap of records per relation and state.")
@click.option("--min-years", type=int, default=2, show_default=True,
              help="Years with an object a time-variant record needs.")
@click.option("--no-balance", is_flag=True, help="Keep every dynamic and static record (no balancing).")
@click.option("--distractors", type=click.Choice(["graph", "llm"]), default="graph", show_default=True,
              help="MCQA distractors from the graph, or made by an LLM and verified.")
@click.option("--backend", default="hf", show_default=True, help="LLM backend for --distractors llm.")
@click.option("--model", default=None, help="Model for --distractors llm.")
@click.option("--base-url", default=None, help="OpenAI-compatible server for --distractors llm.")
@click.option("--relations-file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Your own relation phrasings (layout of generators/chrono/relations.yaml).")
@click.option("--import", "import_paths", multiple=True, type=click.Path(exists=True),
              help="Import ChroKnowBench files/directories (released or exported) instead of building.")
@seed_option
@silent_option
@home_option
@handle_errors
def generate_chrono(domain, from_year, to_year, name, relations, templates, fewshot_pool, max_per_relation,
                    min_years, no_balance, distractors, backend, model, base_url, relations_file,
                    import_paths, seed, silent, home):
    """Build a ChroKnowBench-style benchmark of time-stamped facts from the graph.

    Per (subject, relation) it collects the objects of every year (gaps between two known years
    filled with the earlier objects), labels it dynamic or static, balances the two per
    relation, holds out few-shot exemplars, draws MCQA distractors (other years of the same
    subject first) and writes (:Benchmark {id:'chrono:NAME'}) with its questions into the graph.

    \b
    Examples:
      knowforge generate chrono --domain general --from 2010 --to 2023 --seed 0
      knowforge generate chrono --domain biomedical --name bio --seed 1
      knowforge generate chrono --domain legal --templates generation,mcqa
      knowforge generate chrono --import ChroKnowBench/ --name released
    """
    from knowforge.errors import ConfigError
    from knowforge.generators.chrono.build import ChronoConfig, build_benchmark, import_benchmark

    tpl = tuple(t.strip() for t in templates.split(",") if t.strip())
    store = open_graph(home)
    try:
        with progress_bar("writing questions", None, silent=silent, unit="rows") as advance:
            if import_paths:
                result = import_benchmark(store, list(import_paths), name=name or "imported", seed=seed,
                                          templates=tpl, relations_file=relations_file, progress=advance)
            else:
                if domain is None:
                    raise ConfigError("--domain is required (or --import FILES)")
                llm = None
                if distractors == "llm":
                    from knowforge.models.backends import make_backend
                    from knowforge.models.config import BackendConfig

                    if not model:
                        raise ConfigError("--distractors llm needs --model")
                    llm = make_backend(BackendConfig(backend=backend, model=model, base_url=base_url, seed=seed))
                config = ChronoConfig(
                    domain=domain, name=name, from_year=from_year, to_year=to_year, seed=seed,
                    relations=tuple(r.strip() for r in relations.split(",")) if relations else None,
                    fewshot_pool=fewshot_pool, max_per_relation=max_per_relation, min_years=min_years,
                    balance=not no_balance, templates=tpl, distractors=distractors, relations_file=relations_file)
                result = build_benchmark(store, config, backend=llm, progress=advance)
    finally:
        store.close()
    test = [r for r in result.records if r.split == "test"]
    states = {c: sum(r.change == c for r in test) for c in ("dynamic", "static", "invariant")}
    split = ", ".join(f"{k} {v}" for k, v in states.items() if v)
    console.print(f"{result.benchmark_id}: {len(test)} facts ({split}), "
                  f"{len(result.records) - len(test)} few-shot exemplars, {len(result.items)} items")
    click.echo(result.benchmark_id)


@click.command("chrono")
@click.option("--benchmark", "name", required=True, help="Benchmark name or id (chrono:NAME).")
@click.option("--format", "fmt", type=click.Choice(["chroknowbench", "jsonl", "hf"]), default="chroknowbench",
              show_default=True, help="ChroKnowBench's own layout, our item JSONL, or a HF dataset folder.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True, help="Output directory.")
@home_option
@handle_errors
def export_chrono(name, fmt, out_dir, home):
    """Export a ChroKnow benchmark: ChroKnowBench files (TimeVariant_<Domain>_Dynamic.jsonl ...),
    our versioned item JSONL, or a folder `datasets.load_dataset` reads.

    \b
    Examples:
      knowforge export chrono --benchmark general --format chroknowbench --out exports/chrono
      knowforge export chrono --benchmark chrono:bio --format jsonl --out exports/
    """
    from knowforge.generators.chrono.build import export_benchmark

    store = open_graph(home)
    try:
        paths = export_benchmark(store, name, fmt, out_dir)
    finally:
        store.close()
    for p in paths:
        click.echo(p)


def evaluate_chrono(spec: str, options, store) -> Path:
    """``knowforge eval --benchmark chrono:NAME``: the knowledge check (and ChroKnowPrompt with
    ``--chronoprompt --span total|previous|both``) on a benchmark in the graph; returns the
    report directory."""
    from knowforge.eval.chrono_eval import evaluate_chrono_items
    from knowforge.generators.chrono.build import load_items

    items = load_items(store, spec)
    with progress_bar("chrono requests", None, silent=options.silent, unit="req") as advance:
        outcome = evaluate_chrono_items(items, options, store, name=f"chrono:{spec}", progress=advance)
    console.print(f"run {outcome.run_id}: {outcome.requests} requests in {outcome.seconds:.1f}s")
    return outcome.report_dir
