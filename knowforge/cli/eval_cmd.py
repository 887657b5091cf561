"""``knowforge eval``, ``knowforge results``, ``knowforge report`` and ``knowforge tiny-model``."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import click

from knowforge.cli.common import console, handle_errors, home_option, open_graph, silent_option
from knowforge.errors import BackendError, ConfigError

class _Requests:
    """The eval's progress callback: ``advance(n, cache_stats)``, and ``expect(n)`` with which
    the engine announces the requests of each stage before it asks them (``eval.ask.expect``),
    so the bar has a total."""

    def __init__(self, advance, expect) -> None:
        self._advance, self.expect = advance, expect

    def __call__(self, n: int, stats: dict | None = None) -> None:
        self._advance(n, stats)


@contextlib.contextmanager
def request_bar(total: int | None, silent: bool):
    """A progress bar with requests/s and cache hits; yields ``advance(n, cache_stats)`` with
    ``advance.expect(n)``. Without a terminal: a plain line every 10 seconds."""
    if silent:
        yield _Requests(lambda n, stats=None: None, lambda n: None)
        return
    if not console.is_terminal:
        from knowforge.cli.common import LineProgress

        with LineProgress("requests", total, unit="requests").running() as line:
            yield _Requests(lambda n, stats=None: line(n), line.expect)
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    columns = [SpinnerColumn(), TextColumn("[bold]requests"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[hits]}"),
               TimeElapsedColumn(), TimeRemainingColumn()]
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("requests", total=total, rate="", hits="")

        def advance(n: int, stats: dict | None = None) -> None:
            progress.advance(task, n)
            t = progress.tasks[task]
            fields = {}
            if t.elapsed:
                fields["rate"] = f"{t.completed / t.elapsed:,.1f} req/s"
            if stats is not None:
                fields["hits"] = f"cache hits {stats['hits']} ({100 * stats['hit_rate']:.0f}%)"
            progress.update(task, **fields)

        def expect(n: int) -> None:
            progress.update(task, total=(progress.tasks[task].total or 0) + n)

        yield _Requests(advance, expect)


def _options(**kw):
    from knowforge.eval.types import EvalOptions

    return EvalOptions.make(**kw)


@click.command("eval")
@click.option("--benchmark", required=True,
              help="METHOD:NAME of a benchmark in the graph (knowforge methods --benchmarks lists them), "
                   "or a JSONL file of benchmark items.")
@click.option("--task", "tasks", multiple=True,
              help="Run only this task of the method (repeatable), e.g. knowgen/KA. Default: every task.")
@click.option("--solver", "--setting", "solver", default=None,
              help="Solver for every task instead of the tasks' own: a prompting setting (vanilla, zero-shot, "
                   "few-shot, chain-of-thought) or a method's solver; `knowforge methods --solvers` lists them "
                   "with their arguments. A file benchmark defaults to zero-shot.")
@click.option("--solver-arg", "-S", "solver_args", multiple=True, metavar="KEY=VALUE",
              help="An argument of the solver (repeatable; checked against the solver's parameters), e.g. "
                   "-S span=both, -S setting=gold, -S judge_model=M.")
@click.option("--metric", "metrics", multiple=True,
              help="Report these metrics instead of the tasks' own (repeatable), e.g. --metric accuracy when "
                   "--solver gives a task's metrics nothing to read.")
@click.option("--backend", type=click.Choice(["hf", "openai", "vllm"]), default="hf", show_default=True)
@click.option("--model", required=True, help="Model id or local directory.")
@click.option("--base-url", default=None, help="openai: server URL, e.g. http://127.0.0.1:8000/v1.")
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option("--top-p", type=float, default=1.0, show_default=True)
@click.option("--n", "n", type=int, default=1, show_default=True, help="Samples per question.")
@click.option("--seed", type=int, default=0, show_default=True, help="Sampling seed (per sample derived).")
@click.option("--max-tokens", type=int, default=64, show_default=True)
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only the first K units of each run: items, or whole groups where a method's items "
                   "belong together (all years of a ChroKnow fact, all questions of an ELKEN event).")
@click.option("--sample", type=click.IntRange(min=1), default=None,
              help="K units of each run drawn at random (seeded by --seed; units as for --limit), for a "
                   "quicker estimate that does not lean towards the benchmark's first items.")
@click.option("--chat/--no-chat", default=False, show_default=True,
              help="Send chat messages (the model's chat template) instead of a plain prompt.")
@click.option("--mc-scoring", type=click.Choice(["generate", "likelihood"]), default="generate",
              show_default=True,
              help="Multiple-choice, boolean and true/false items: parse a generated answer, or pick the "
                   "option with the highest log-likelihood (lm-evaluation-harness style; needs a backend "
                   "with loglikelihood, plain prompts, a setting other than chain-of-thought).")
@click.option("--mc-continuation", type=click.Choice(["text", "letter"]), default="text", show_default=True,
              help="Likelihood scoring: score each option's text (\" Jupiter\") or its letter (\" B\").")
@click.option("--scoring", type=click.Choice(["knowforge", "official"]), default="knowforge", show_default=True,
              help="official: each benchmark's released scoring script, rule for rule (ELKEN, NewTerm), "
                   "to compare with published numbers; knowforge: our rules (docs/fidelity.md lists "
                   "the differences). Every report names the mode.")
@click.option("--log-samples", is_flag=True,
              help="Write samples.jsonl (prompt, raw, parsed, score) to each run's directory.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the response cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              envvar="KNOWFORGE_CACHE_DIR", help="Response cache directory (default: the user cache dir).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="Reports go to OUT/<run_id>/ and OUT/<method>-<name>/summary.md.")
@click.option("--device", default=None, help="hf: cpu or cuda.")
@click.option("--batch-size", type=int, default=8, show_default=True, help="hf: sequences per forward pass.")
@click.option("--revision", default=None, help="hf / vllm: model revision (part of the cache key).")
@click.option("--tensor-parallel-size", type=int, default=1, show_default=True, help="vllm only.")
@click.option("--engine-arg", "engine_args", multiple=True, metavar="KEY=VALUE",
              help="vllm: an engine argument passed to vllm.LLM (repeatable), e.g. pipeline_parallel_size=2, "
                   "data_parallel_size=2, max_num_seqs=256, enable_prefix_caching=false. Values are read "
                   "as JSON when they parse (numbers, true/false), else as text.")
@click.option("--concurrency", type=int, default=8, show_default=True, help="openai: parallel requests.")
@click.option("--timeout", type=float, default=120.0, show_default=True,
              help="openai: seconds per HTTP request before it is retried.")
@click.option("--model-cutoff", default=None,
              help="The model's knowledge cutoff (YEAR, YEAR-MM or YEAR-MM-DD): every report slices its "
                   "items into facts that changed before / after it. Default: a control model's own cutoff "
                   "(knowforge train-control).")
@click.option("--name", default=None, help="A name stored on the Run (file benchmarks).")
@click.option("--bootstrap", "bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Resamples of the seeded cluster bootstrap that gives every task metric its 95% interval "
                   "(over the method's units: events, records, terms, statements, entities); 0 turns it off.")
@home_option
@silent_option
@handle_errors
def eval_cmd(benchmark, tasks, solver, solver_args, metrics, backend, model, base_url, temperature, top_p, n, seed,
             max_tokens, limit, sample, chat, mc_scoring, mc_continuation, scoring, log_samples, no_cache, cache_dir, out_dir,
             device, batch_size, revision, tensor_parallel_size, engine_args, concurrency, timeout,
             model_cutoff, name, bootstrap, home, silent):
    """Evaluate a model on a benchmark: each task under its solvers, one run per solver; results go
    to the graph and to OUT/.

    Every request goes through the on-disk response cache, so an interrupted run resumes where
    it stopped and a repeated run asks the model nothing.

    \b
    Examples:
      knowforge tiny-model models/tiny
      knowforge eval --benchmark knowgen:demo --backend hf --model models/tiny --limit 20
      knowforge eval --benchmark knowgen:demo --task knowgen/KA --solver few-shot --model models/tiny
      knowforge eval --benchmark chrono:legal --solver chronoprompt -S span=both --model models/tiny
      knowforge eval --benchmark events:e0 --solver bm25 --backend openai --model m \\
          --base-url http://127.0.0.1:8000/v1
      knowforge eval --benchmark items.jsonl --backend hf --model models/tiny --mc-scoring likelihood
      knowforge eval --benchmark events:e0 --backend hf --model models/tiny --scoring official
      knowforge eval --benchmark knowgen:demo --backend vllm --model Qwen/Qwen2.5-7B-Instruct \\
          --tensor-parallel-size 2 --engine-arg max_num_seqs=256
      knowforge eval --benchmark chrono:general --model models/control-2020 --solver chronoprompt
      knowforge eval --benchmark events:e0 --model models/control-2020 --solver ft -S epochs=12
      knowforge eval --benchmark events:elken-test --model models/tiny --solver serac \\
          -S train_benchmark=elken-train     # SERAC; without it: cross-fitted over the run's events
      knowforge eval --benchmark events:e0 --solver ice -S judge_model=J --backend openai --model M \\
          --base-url http://127.0.0.1:8000/v1
      knowforge eval --benchmark chrono:general --backend vllm --model M --model-cutoff 2023-10
    """
    from knowforge.eval.solvers import parse_solver_args
    from knowforge.models.task import Component

    if model_cutoff is not None:
        from knowforge.eval.validity import parse_cutoff

        parse_cutoff(model_cutoff)   # a bad cutoff fails before anything starts

    options = _options(backend=backend, model=model, base_url=base_url, temperature=temperature, top_p=top_p,
                       n=n, seed=seed, max_tokens=max_tokens, limit=limit, sample=sample, log_samples=log_samples,
                       cache=not no_cache, cache_dir=cache_dir, out_dir=out_dir, silent=silent, device=device,
                       batch_size=batch_size, revision=revision, mc_scoring=mc_scoring,
                       mc_continuation=mc_continuation, scoring=scoring, chat=chat, model_cutoff=model_cutoff,
                       tensor_parallel_size=tensor_parallel_size, concurrency=concurrency, timeout=timeout,
                       engine_args=parse_engine_args(engine_args), bootstrap=bootstrap)
    args = parse_solver_args(solver_args)
    if args and not solver:
        raise ConfigError("--solver-arg needs --solver")
    component = Component(name=solver, args=args) if solver else None
    if component is not None:
        from knowforge.eval.solvers import make_solver

        make_solver(component)     # an unknown solver or a bad argument fails before anything starts
    path = Path(benchmark)
    if path.is_file():
        if tasks or metrics:
            raise ConfigError("--task and --metric apply to benchmarks in the graph (METHOD:NAME); a file is one "
                              "task with accuracy and balanced accuracy")
        from knowforge.models.items_io import read_items

        read_items(path)      # bad input fails before the graph opens or a model loads
        with contextlib.closing(open_graph(home)) as store:
            _evaluate(lambda progress: _workflow().evaluate_file(store, path, options, solver=component,
                                                                 name=name or path.stem, progress=progress),
                      options, silent, echo_run=True)
        return
    from knowforge.methods import split_benchmark

    if ":" not in benchmark:
        raise ConfigError(f"--benchmark {benchmark!r} is neither a file nor METHOD:NAME "
                          "(`knowforge methods --benchmarks` lists those in the graph)")
    split_benchmark(benchmark)                # an unknown method fails before the graph opens
    with contextlib.closing(open_graph(home)) as store:
        _evaluate(lambda progress: _workflow().evaluate(store, benchmark, options, tasks=tasks, solver=component,
                                                        metrics=metrics, progress=progress), options, silent)


def _workflow():
    from knowforge import workflow

    return workflow


def parse_engine_args(pairs) -> dict:
    """``["max_num_seqs=256", "enforce_eager=true"]`` → {"max_num_seqs": 256, "enforce_eager": True}."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--engine-arg {pair!r} is not KEY=VALUE")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def _evaluate(run, options, silent: bool, *, echo_run: bool = False) -> None:
    """Run one evaluation with a progress bar; print each run's headline, its cache use and
    the summary, then on stdout (for scripts) the summary folder, or with ``echo_run`` the run
    id of a single run (a file benchmark)."""
    from knowforge.eval.report import headline_table, load_report

    try:
        with request_bar(None, silent) as advance:
            evaluation = run(advance)
    except BackendError as exc:
        hint = " Run the same command again to resume: answered requests are cached." if options.cache else ""
        raise BackendError(f"{exc}.{hint}") from exc
    for run_ in evaluation.runs:
        report = load_report(run_.report_dir)
        console.print(headline_table(report))
        errors = report["overall"]["errors"]
        if errors:
            console.print(f"[yellow]{errors} samples failed (recorded with their error, scored 0)[/yellow]")
        if run_.cache is not None:
            hits, misses = run_.cache["hits"], run_.cache["misses"]
            rate = 100 * hits / (hits + misses) if hits + misses else 0.0
            console.print(f"cache: {hits} hits, {misses} misses (hit rate {rate:.1f}%), "
                          f"{misses} requests sent to the model")
        console.print(f"run {run_.run_id}: report in {run_.report_dir}")
    console.print((evaluation.summary_dir / "summary.md").read_text(encoding="utf-8"))
    console.print(f"summary in {evaluation.summary_dir}")
    if echo_run and len(evaluation.runs) == 1:
        click.echo(evaluation.runs[0].run_id)
    else:
        click.echo(str(evaluation.summary_dir))


def _cluster_key(store, run_id: str) -> str | None:
    """The metadata key whose items form one unit of a run's intervals: the one the engine
    recorded, else its method's unit (an ELKEN event, a ChroKnow record, a NewTerm term, a LINK
    statement, a KnowGen entity). None for a file benchmark, a method not installed, or runs over
    benchmarks of methods that group differently: each item is a unit."""
    from knowforge.eval.results import load_run
    from knowforge.methods import split_benchmark

    run = load_run(store, run_id)
    if run.get("cluster_key"):
        return run["cluster_key"]
    keys = set()
    for benchmark in str(run.get("benchmark") or "").split(","):
        try:
            keys.add(split_benchmark(benchmark)[0].unit_key)
        except ConfigError:
            keys.add(None)
    return keys.pop() if len(keys) == 1 else None


def _listing(benchmark: str):
    """The listing the benchmark's method declares; a ConfigError names the methods that have one."""
    from knowforge.eval.registry import registry

    method = benchmark.split(":", 1)[0] if ":" in benchmark else benchmark
    spec = registry().listing_of(method)
    if spec is None:
        have = sorted(m.split("'")[1] for (kind, _), m in registry().owners.items() if kind == "listing")
        raise ConfigError(f"method {method!r} declares no listing of its units (--units); methods that do: "
                          f"{', '.join(have) or 'none'}")
    return spec


@click.command("results")
@click.argument("run_id", required=False)
@click.option("--by", default="task", show_default=True,
              help="Comma-separated slice keys: task, form, relation, year, hop_count, domain, "
                   "difference, popularity_bucket, or any key of the items' slices.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--list", "list_runs", is_flag=True,
              help="List the runs in the graph: benchmark, solver, scoring mode, model, accuracy with its 95% "
                   "interval, --limit.")
@click.option("--method", default=None, help="With --list: only runs of this method's benchmarks.")
@click.option("--benchmark", "benchmark_name", default=None, metavar="METHOD:NAME",
              help="With --list: only runs of this benchmark.")
@click.option("--units", "units_of", default=None, metavar="METHOD:NAME",
              help="List what this benchmark's questions are grouped by, as its method declares it (ELKEN: the "
                   "events they test, with id, type, date, slots and questions).")
@home_option
@handle_errors
def results_cmd(run_id, by, fmt, list_runs, method, benchmark_name, units_of, home):
    """Accuracy of a run sliced by any item slice, read from the graph, each with its 95% interval
    (accuracy in %, ± half the interval's width; the unit is the item, or the method's group of
    items such as an ELKEN event; json rows carry stderr, ci and units).

    \b
    Examples:
      knowforge results --list
      knowforge results --list --method knowgen
      knowforge results run-20260101T120000-ab12cd34 --by relation,year
      knowforge results run-20260101T120000-ab12cd34 --by domain --format json
      knowforge results --units events:demo
    """
    from knowforge.eval import results as results_lib

    if units_of is not None and (run_id or list_runs):
        raise click.UsageError("--units lists a benchmark's units: give it without a RUN_ID or --list")
    store = open_graph(home)
    unit = None
    try:
        if units_of is not None:
            listing = _listing(units_of)
            rows = listing.rows(store, units_of)
            keys = list(listing.columns)
            id_keys = {"id"}
        elif list_runs or not run_id:
            rows = results_lib.list_runs(store, method=method, benchmark=benchmark_name)
            # newest first; started_at is in --format json (an eighth column cut the ids at 80 columns)
            keys = ["id", "benchmark", "solver", "scoring", "model", "accuracy", "limit"]
            id_keys = {"id", "benchmark"}
        else:
            keys = [k.strip() for k in by.split(",") if k.strip()]
            rows = results_lib.results_by(store, run_id, keys, cluster_key=_cluster_key(store, run_id))
            unit = rows[0]["unit"] if rows else None
            id_keys = set(keys)
            keys = keys + ["items", "samples", "correct", "accuracy", "units", "errors"]
    finally:
        store.close()
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, default=str))
        return
    from knowforge.models.tables import table_of

    caption = (f"{units_of}: {_listing(units_of).caption}"
               if units_of is not None
               else f"accuracy in %, ± half the width of its 95% interval; unit: {unit}; interval: "
                    + ("the eval's cluster bootstrap (as in the run report) where a row holds exactly one task's "
                       "items, else analytic" if any(r.get("interval_source") for r in rows) else "analytic")
               if unit
               else "accuracy in %, ± half the width of the 95% interval its report gives (over the run's units)"
               if list_runs or not run_id else None)
    numeric = ("items", "samples", "correct", "accuracy", "units", "errors", "questions")
    cells = [[_cell(row.get(k), k, row.get("ci"), row.get(f"{k}_label")) for k in keys] for row in rows]
    console.print(table_of(keys, cells, right=numeric, ids=id_keys, caption=caption))


def _cell(value, key: str, ci=None, label: str | None = None) -> str:
    if value is None:
        return "-"
    if label:
        from knowforge.kg.relations import labelled

        return labelled(value, label)
    if key == "started_at" and isinstance(value, str):      # to the minute: json has the full time
        return value[:16].replace("T", " ")
    if key == "accuracy":
        return f"{100 * value:.1f}" + (f" ± {100 * (ci[1] - ci[0]) / 2:.1f}" if ci else "")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return "; ".join(map(str, value))
    return str(value)


@click.command("report")
@click.argument("run_id")
@click.option("--compare", multiple=True,
              help="A run to compare with (repeatable): the first side by side, with the paired difference "
                   "over the items both answered per task, form and slice (paired bootstrap interval, McNemar "
                   "or sign-flip p-value); with two or more, a trend table and plot over RUN_ID and the "
                   "compared runs in the order given (e.g. one NewTerm year after another).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output directory (default: the run's own report folder, where the eval wrote it; "
                   "runs/<RUN_ID> for runs that did not record one).")
@click.option("--bootstrap", "resamples", type=click.IntRange(min=100), default=1000, show_default=True,
              help="Bootstrap resamples for balanced accuracies and paired differences.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap and permutation tests.")
@click.option("--plan-gap", type=click.FloatRange(min=0, max=1, min_open=True, max_open=True), default=None,
              metavar="SHARE",
              help="Also say, per task, how many items (and clusters) a run needs to detect an accuracy gap "
                   "of SHARE (0.05 = 5 points) with 80% power at two-sided alpha 0.05, from this run's "
                   "variance (paired design too with --compare).")
@click.option("--validity", is_flag=True,
              help="Also check the benchmarks' verdicts against the control model's training set "
                   "(validity.json, validity.md): seen vs unseen, ChroKnow categories vs truth, KnowGen "
                   "with vs without context, ELKEN methods vs no edit.")
@click.option("--validity-run", "validity_runs", multiple=True, metavar="RUN",
              help="With --validity: check these runs of the control model (repeatable) instead of the ones "
                   "its rule picks (per benchmark and method the latest run without --limit).")
@home_option
@handle_errors
def report_cmd(run_id, compare, out_dir, resamples, seed, plan_gap, validity, validity_runs, home):
    """Write report.json, report.md and plots/*.png for a run (optionally compared with another):
    every accuracy with its 95% interval, the same sections as the eval's own report.

    \b
    Examples:
      knowforge report run-20260101T120000-ab12cd34
      knowforge report run-A --compare run-B --out reports/a-vs-b
      knowforge report run-A --plan-gap 0.05                  # items needed to see a 5-point gap
      knowforge report run-2022 --compare run-2023 --compare run-2024   # a trend over years
      knowforge report run-A --validity          # a run of a control model (knowforge train-control)
      knowforge report run-A --validity --validity-run run-A --validity-run run-B    # these runs only
    """
    from knowforge.eval.report import headline_table, load_report, plan_table, trend_table, write_report
    from knowforge.eval.results import load_run

    if validity_runs and not validity:
        raise click.UsageError("--validity-run names the runs of --validity: give --validity too")

    store = open_graph(home)
    try:
        recorded = load_run(store, run_id).get("report_dir")
        out = out_dir or (Path(recorded) if recorded else Path("runs") / run_id)
        out = write_report(store, run_id, out, compare=compare, cluster_key=_cluster_key(store, run_id),
                           resamples=resamples, seed=seed, plan_gap=plan_gap)
        if validity:
            from knowforge.eval.validity import write_validity

            write_validity(store, run_id, out, report_dirs=[Path("runs")], only=list(validity_runs) or None)
    finally:
        store.close()
    report = load_report(out)
    console.print(headline_table(report, report.get("compare")))
    note = ((report.get("compare") or {}).get("paired") or {}).get("note")
    if note:
        console.print(f"[yellow]{note}[/yellow]")
    if report.get("trend"):
        console.print(trend_table(report["trend"]))
    if report.get("planning"):
        console.print(plan_table(report["planning"]))
    if validity:
        # markdown tables must not be wrapped at the terminal's width
        console.print((out / "validity.md").read_text(encoding="utf-8"), markup=False, highlight=False,
                      soft_wrap=True)
    click.echo(str(out))


@click.command("tiny-model")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random weights.")
@handle_errors
def tiny_model_cmd(out_dir, seed):
    """Write a tiny random causal LM + tokenizer (no download) for trying the eval pipeline.

    \b
    Example:
      knowforge tiny-model models/tiny --seed 0
      knowforge eval --benchmark items.jsonl --backend hf --model models/tiny
    """
    from knowforge.models.tiny_model import build_tiny_model

    path = build_tiny_model(out_dir, seed=seed)
    console.print(f"tiny model written to {path}")
    click.echo(str(path))
