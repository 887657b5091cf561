"""The path of every benchmark, the same for every method: generate → export → evaluate.

The CLI (``knowforge generate|export|eval``) calls these three functions and nothing
method-specific; a method is looked up in the registry (``knowforge.methods``). This module
sits above ``generators/`` and ``eval/`` (it composes a method's items with the eval engine),
below the CLI.

Exports every method has, whatever its own formats:

* ``jsonl``   our versioned item JSONL (``knowforge.models.items_io``);
* ``hf``      a Hugging Face dataset written with ``datasets`` (parquet + a dataset card);
* ``lm-eval`` a folder of lm-evaluation-harness task YAML + data (``lm_eval --include_path``).

Every export writes a manifest: format, knowforge version, git revision, the benchmark's
source-graph hash, parameters and seed (from its ``:Benchmark`` node) and sha256 of each file.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from knowforge.errors import ConfigError, InputError
from knowforge.eval.background import Background
from knowforge.eval.file_benchmark import ensure_questions, file_task
from knowforge.eval.lm_eval_export import write_lm_eval_tasks
from knowforge.eval.tasks import TaskRun, run_tasks, write_summary
from knowforge.eval.types import EvalOptions
from knowforge.methods import split_benchmark
from knowforge.models.method import ExportFormat, GenerationSummary, Method, MethodParams
from knowforge.models.gc_pause import paused_gc
from knowforge.models.hf_dataset import dataset_card, dataset_statistics, write_hf_dataset
from knowforge.models.items_io import read_items as read_file_items
from knowforge.models.items_io import write_items
from knowforge.models.provenance import git_revision, knowforge_version
from knowforge.models.questions import read_benchmark
from knowforge.models.task import Component
from knowforge.models.types import Backend, BenchmarkItem

log = logging.getLogger(__name__)

MANIFEST_VERSION = "2"


# --- generate ---------------------------------------------------------------------------------------
def generate(method: Method, store, params: MethodParams, *, backend: Backend | None = None,
             progress: Callable[[int], None] | None = None) -> GenerationSummary:
    """Run ``method``'s generation with ``params``; the benchmark is ``method:params.name``."""
    if method.backend == "required" and backend is None:
        raise ConfigError(f"{method.name} generation needs a model: pass --backend and --model")
    return method.generate(store, params, backend, progress)


def import_benchmark(method: Method, store, paths: Sequence[Path], params: MethodParams, *,
                     progress: Callable[[int], None] | None = None) -> GenerationSummary:
    if method.importer is None:
        raise ConfigError(f"method {method.name!r} has no importer of released files")
    return method.importer(store, list(paths), params, progress)


def drop(method: Method, store, name: str) -> dict[str, int]:
    if method.drop is None:
        raise ConfigError(f"method {method.name!r} cannot drop a benchmark")
    bid = method.benchmark_id(name)
    registered = read_benchmark(store, bid) is not None
    result = dict(method.drop(store, name))
    # A name that is no benchmark must not read as a success; a method's drop also clears what
    # a failed import left without its Benchmark node, so that counts as something dropped.
    if not registered and not any(result.values()):
        raise InputError(f"no benchmark {bid} to drop (`knowforge methods --benchmarks` lists those in the graph)")
    return result


# --- export -----------------------------------------------------------------------------------------
def _write_jsonl(store, name: str, items: Sequence[BenchmarkItem], out: Path, *, method: Method) -> list[Path]:
    path = out if out.suffix == ".jsonl" else out / f"{method.name}_{name}.jsonl"
    write_items(path, items)
    return [path]


def _write_hf(store, name: str, items: Sequence[BenchmarkItem], out: Path, *, method: Method) -> list[Path]:
    bid = method.benchmark_id(name)
    node = read_benchmark(store, bid) or {}
    stats = dataset_statistics(items, method.report_slices)
    card = dataset_card(
        pretty_name=f"knowforge {method.title}: {bid}", licence=method.licence,
        description=f"{method.description}\n\nMade by knowforge ({method.docs or 'README.md'}) from a "
                    "knowledge graph; every item points at the graph facts it tests (`fact_ids`).",
        provenance={"benchmark": bid, "seed": node.get("seed"), "source graph sha256": node.get("source_hash"),
                    "knowforge version": knowforge_version(), "git revision": git_revision(),
                    "item schema version": items[0].version if items else None},
        statistics=stats, tags=[method.name], items=items,
        params=json.loads(node["params_json"]) if node.get("params_json") else None)
    return write_hf_dataset(items, out, card=card)


def _write_lm_eval(store, name: str, items: Sequence[BenchmarkItem], out: Path, *, method: Method) -> list[Path]:
    return write_lm_eval_tasks(items, out, benchmark=method.benchmark_id(name), tasks=method.tasks)


GENERIC_FORMATS: dict[str, tuple[str, Callable[..., list[Path]]]] = {
    "jsonl": ("our versioned item JSONL (one BenchmarkItem a line)", _write_jsonl),
    "hf": ("a Hugging Face dataset folder (parquet + dataset card), written with `datasets`", _write_hf),
    "lm-eval": ("lm-evaluation-harness tasks (YAML + data) for `lm_eval --include_path`", _write_lm_eval),
}


def export_formats(method: Method) -> dict[str, ExportFormat]:
    """The method's own formats, then the generic ones it does not override."""
    formats = dict(method.exports)
    for fmt, (description, writer) in GENERIC_FORMATS.items():
        if fmt not in formats:
            formats[fmt] = ExportFormat(fmt, description,
                                        lambda store, name, items, out, w=writer: w(store, name, items, out,
                                                                                   method=method),
                                        single_file_suffix=".jsonl" if fmt == "jsonl" else None)
    return formats


@dataclass(frozen=True)
class ExportResult:
    files: list[Path]
    manifest: Path
    items: int


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def export(method: Method, store, name: str, fmt: str, out: Path) -> ExportResult:
    """Write benchmark ``method:name`` in ``fmt`` to ``out`` (a folder, or a file for single-file
    formats) and a manifest beside it."""
    formats = export_formats(method)
    if fmt not in formats:
        raise ConfigError(f"{method.name} has no export format {fmt!r}; choose one of {', '.join(formats)}")
    spec = formats[fmt]
    items = method.items(store, name)
    out = Path(out)
    to_file = spec.single_file_suffix is not None and out.suffix == spec.single_file_suffix
    (out.parent if to_file else out).mkdir(parents=True, exist_ok=True)
    files = spec.write(store, name, items, out)
    if spec.single_file_suffix is not None:
        # one file, perhaps in a folder shared with other exports: the manifest sits beside it
        root = files[0].parent
        manifest_path = files[0].with_name(files[0].name + ".manifest.json")
    else:
        root = out
        manifest_path = out / "manifest.json"
    bid = method.benchmark_id(name)
    node = read_benchmark(store, bid) or {}
    params = json.loads(node["params_json"]) if node.get("params_json") else None
    manifest = {"version": MANIFEST_VERSION, "method": method.name, "format": fmt, "benchmark": bid,
                "seed": node.get("seed"), "params": params, "source_graph_sha256": node.get("source_hash"),
                "knowforge_version": knowforge_version(),
                "git_revision": git_revision(), "items": len(items),
                "item_schema_version": items[0].version if items else None,
                "files": {str(p.relative_to(root)): _sha256(p) for p in files}}
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    log.info("exported %s (%s) to %s", bid, fmt, out)
    return ExportResult(files=list(files), manifest=manifest_path, items=len(items))


# --- evaluate ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Evaluation:
    benchmark: str
    runs: list[TaskRun]
    summary_dir: Path


def evaluate(store, benchmark: str, options: EvalOptions, *, tasks: Sequence[str] = (),
             solver: Component | None = None, metrics: Sequence[str] = (), backend: Backend | None = None,
             progress: Callable[[int], None] | None = None) -> Evaluation:
    """Evaluate a benchmark in the graph (``METHOD:NAME``): its tasks (all, or the named ones),
    each under its solvers (or ``solver``), reporting their metrics (or ``metrics``), one
    recorded run per solver, and a summary."""
    method, name = split_benchmark(benchmark)
    chosen = [method.task(t) for t in tasks] if tasks else list(method.tasks)
    if metrics:
        chosen = [t.model_copy(update={"metrics": tuple(metrics)}) for t in chosen]
    items = method.items(store, name)
    runs = run_tasks(store, benchmark, items, chosen, options, solver=solver, backend=backend,
                     group_key=method.item_group, cluster_key=method.unit_key, task_filter=tasks,
                     report_slices=method.report_slices, progress=progress)
    summary_dir = write_summary(Path(options.out_dir) / f"{method.name}-{name}", benchmark=benchmark,
                                method=method.name, options=options, items=len(items), runs=runs,
                                report_slices=method.report_slices)
    return Evaluation(benchmark=benchmark, runs=runs, summary_dir=summary_dir)


def evaluate_file(store, path: str | Path, options: EvalOptions, *, solver: Component | None = None,
                  name: str | None = None, backend: Backend | None = None,
                  progress: Callable[[int], None] | None = None) -> Evaluation:
    """Evaluate a JSONL file of items: an anonymous method with one task (``file/<name>``),
    through the same engine. The items become questions of their own benchmark the first time
    (``knowforge.eval.file_benchmark``)."""
    path = Path(path)
    name = name or path.stem
    with paused_gc():           # the engine's bulk bookkeeping (knowforge.models.gc_pause)
        items = read_file_items(path)
        if not items:
            raise InputError(f"{path}: the benchmark has no items to evaluate")
    # the questions as ensure_questions reads (or first writes) them, beside the solver: a run
    # never changes a question, and a second read of every one of them was server work per
    # sample (issue 33). Its error (an item that differs from its question) stops the solver
    # at its next progress tick, and the run is never recorded.
    questions = Background(ensure_questions, store, items, path, name="knowforge-ensure-questions")
    benchmark = ",".join(sorted({i.benchmark for i in items}))
    task = file_task(name)
    try:
        runs = run_tasks(store, benchmark, items, [task], options, solver=solver, backend=backend,
                         progress=progress, run_name=name, questions=questions)
    except BaseException:
        # an eval that fails before its questions' check is taken (a backend that cannot be
        # made) leaves no thread behind it still writing questions or logging to a closed stream
        questions.settle()
        raise
    summary_dir = write_summary(Path(options.out_dir) / f"file-{task.name.split('/', 1)[1]}", benchmark=benchmark,
                                method="file", options=options, items=len(items), runs=runs, report_slices=())
    return Evaluation(benchmark=benchmark, runs=runs, summary_dir=summary_dir)
