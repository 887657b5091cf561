"""Every script in ``benchmarks/`` runs on today's code (issue 25): each one, in a subprocess, at
tiny sizes, exits 0 and prints the ratio lines it promises, with numbers in them.

The scripts are found by listing ``benchmarks/*.py``, so a new script without an entry in
``SMOKE`` fails here. Nothing is asserted about time: at these sizes the ratios are noise; what
is checked is that every measured path still runs end to end and reports.

A script that needs the graph gets the session's Neo4j, emptied (and the bundled samples it
needs loaded), through ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``; ``bulk_import.py``
stops and restarts its server, so it runs one of its own in a temporary home. Every script
sees ``KNOWFORGE_NEO4J_HOME`` pointing at an empty temporary folder, so none can reach a
user's managed server.

Each script runs as ``python benchmarks/x.py`` would (``__main__``, its own ``sys.argv``,
environment, working folder and process), but the process is forked from one server that has
already imported torch, transformers and knowforge's graph and eval modules (``FORKSERVER``):
those imports were most of the CPU of a dozen smokes, each paying them again in a fresh
interpreter (issue 33 item 5).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import select
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from knowforge.kg.loaders.registry import load_source
from knowforge.kg.loaders.samples import sample_paths
from knowforge.kg.neo4j_server import ManagedNeo4j

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"
# a leading underscore marks a module the scripts share (benchmarks/_throwaway.py), not a script
SCRIPTS = sorted(p.stem for p in BENCHMARKS.glob("*.py") if not p.stem.startswith("_"))

NUM = r"[0-9][0-9,]*(?:\.[0-9]+)?"      # a printed number (never nan or inf)
HF = ("torch", "transformers", "tokenizers")


@dataclass(frozen=True)
class Smoke:
    args: tuple[str, ...]               # ``{tmp}`` stands for the test's temporary folder
    expect: tuple[str, ...]             # regexes, each must match a line of stdout
    needs: tuple[str, ...] = ()         # modules that must be importable (else: skipped)
    graph: tuple[str, ...] | None = None    # None: no graph; else the samples loaded into the emptied one
    own_server: bool = False            # starts a managed Neo4j of its own (the jars must be installed)
    forbid: tuple[str, ...] = ()        # regexes no line may match
    slow: bool = False
    files: tuple[tuple[str, str], ...] = ()  # (name, text) written into {tmp} before the run


SMOKE: dict[str, Smoke] = {
    "backend_throughput": Smoke(
        ("--requests", "4", "--batch-size", "2", "--max-tokens", "2"),
        (rf"^batched .* speed-up x{NUM}$", rf"^cached, cold .* ratio to direct {NUM}$",
         rf"^cached, all hits .* ratio to direct {NUM} ", rf"^likelihood, 16 options .* speed-up x{NUM} "), needs=HF),
    "bulk_import": Smoke(
        ("--facts", "200", "--master", "local[1]", "--conf", "spark.sql.shuffle.partitions=4", "--keep", "{tmp}/work"),
        (rf"^UNWIND path: {NUM} facts", rf"^ratio import command / UNWIND : {NUM}x$",
         rf"^ratio import tool / UNWIND +: {NUM}x$", rf"^CPU seconds per 1k facts: .* ratio {NUM}x$",
         rf"^dump → graph, Spark \+ import vs streaming loader: {NUM}x$"),
        needs=("pyspark",), own_server=True, slow=True),
    "chrono_check": Smoke(
        ("--facts", "1", "--years", "1", "--max-tokens", "2", "--batch-size", "8"),
        (rf"^harness alone \(instant backend\): {NUM} s", rf"^ratio check / raw: {NUM}$"), needs=HF),
    "cli_startup": Smoke(
        ("--repeat", "1"),
        (rf"^knowforge --help +: +{NUM} s +x{NUM}$", rf"^graph command imports +: +{NUM} s",
         rf"^ratio import neo4j / knowforge.kg.driver: {NUM}$")),
    "control_bf16": Smoke(
        ("--rounds", "1", "--steps", "1", "--batch", "2", "--length", "8"),
        (rf"^ratio bf16 / fp32: {NUM}x",), needs=("torch", "transformers")),
    "editing_speed": Smoke(
        ("--repeats", "1", "--memit-requests", "3"),
        (rf"^ROME\(1\) warm +: median +{NUM} CPU s", rf"^MEMIT\(3\) warm +: median +{NUM} CPU s"),
        needs=("torch", "transformers")),
    "editing_stats_sample": Smoke(
        ("{tmp}/model", "--tiny", "--corpus", "{tmp}/corpus.txt", "--n", "20,40"),
        (rf"^all {NUM} texts: {NUM} tokens, {NUM} CPU s", rf"^ +40 +{NUM} +{NUM} +{NUM}x +{NUM} +{NUM} \(min",
         rf"^float32 products, all texts: {NUM} CPU s"),
        needs=HF, files=(("corpus.txt", "\n".join(f"Person {i} lives in City {i % 7}, since {1990 + i % 30}."
                                                  for i in range(120))),)),
    "editing_gpu": Smoke(
        ("--smoke",), (r"^restore exact on layers \[1\]: True$", rf"^memit: 8 requests +{NUM} s"),
        needs=("torch", "transformers")),
    "events_rate": Smoke(
        ("--n", "1", "--types", "win-election", "--repeats", "1", "--round-trips", "5"),
        (rf"^planning only .* \(one event = {NUM} round trips\)$",
         rf"^generate .* questions/s \(one event = {NUM} round trips\)$"), graph=("wikidata",)),
    "gc_pause": Smoke(
        ("--items", "40", "--repeat", "2", "--heap", "1000"),
        (rf"^read, 40 items: gc on {NUM} s, paused {NUM} s: {NUM}x; same result: yes$",
         rf"^report, 40 items: gc on {NUM} s, paused {NUM} s: {NUM}x; same result: yes$")),
    "harness_overhead": Smoke(
        ("--items", "6", "--max-tokens", "2", "--batch-size", "4", "--repeat", "1"),
        (r"graph: yes$", rf"^ratio harness / direct  : best/best +{NUM}, median/median +{NUM}$",
         rf"^  harness run .* intervals +{NUM} \+ graph +{NUM} \+ report +{NUM} \+ answers' wait +{NUM} .* "
         rf"total/generate {NUM}\)$",
         rf"^    of which CPU: intervals {NUM} \+ graph {NUM} \+ report {NUM} \+ answers' wait {NUM} .* "
         rf"\+ read/render/score/metrics -?{NUM} s \(this process\)$",
         rf"^    beside the solver: the questions' check {NUM} s of wall ",
         rf"^    the Neo4j server's CPU during the run: {NUM} s, of which in the graph step {NUM} s ",
         rf"^in-run ratio total / generate \(median\): {NUM}$",
         rf"^ +6 samples: wall +{NUM} s = +{NUM} ms/sample, CPU +{NUM} s; budget +{NUM} s: (met|NOT met) \(wall\)"),
        needs=HF, graph=()),
    "vs_lm_eval": Smoke(
        ("--items", "4", "--batch-size", "2", "--repeat", "1"),
        (rf"^run 1: knowforge eval {NUM} s$", rf"^run 1: lm_eval {NUM} s$",
         rf"^accuracy: knowforge {NUM}, lm_eval acc {NUM}$",
         rf"^ratio knowforge / lm_eval: best/best {NUM}, median/median {NUM}$"),
        needs=(*HF, "lm_eval"), graph=()),
    "knowgen_scale": Smoke(
        ("--species", "20", "--sizes", "2,4", "--names", "200", "--compare-ka"),
        (rf"^names: .* \(brute force extractOne {NUM} ms, x{NUM}\)",
         rf"^ +KA reads of {NUM} entities: server CPU {NUM}s -> {NUM}s \(x{NUM}\)",
         rf"^ratio n=4/n=2: size x2, time x{NUM} .* round trips x{NUM}$"), graph=()),
    "link_rate": Smoke(
        ("--n", "1", "--repeats", "1", "--round-trips", "5", "--model"),
        (rf"one statement = +{NUM} round trips of time; {NUM} Bolt round trips",
         rf"^model, graph rules \(cold cache\): {NUM} statements .* {NUM} log-likelihood requests",
         r"^model, graph rules \(warm cache\): .* 0\.00 sent to a model",
         rf"^model, LLM rule +\(cold cache\): {NUM} statements .* {NUM} generate \+",
         r"^model, LLM rule +\(warm cache\): .* 0\.00 sent to a model"),
        needs=HF, graph=("wikidata", "cskg", "umls")),
    "make_wikidata_dump": Smoke(
        ("{tmp}/latest-all.json", "--lines", "5"), (r"^wrote 5 entity documents \(",)),
    "eval_faults": Smoke(
        ("--requests", "60", "--timeout", "1", "--rate-hang", "0.02", "--rate-malformed", "0.02"),
        (rf"^runs until done: {NUM} ", rf"^requests per item: {NUM}; baseline {NUM}; ratio {NUM}$",
         rf"^wall time: {NUM}s; baseline {NUM}s; ratio {NUM}x$",
         r"^every item answered exactly once, cache consistent: yes$")),
    "neo4j_cds": Smoke(
        ("--repeat", "1"),
        (rf"^round 1 baseline: +{NUM} CPU s", rf"^round 1 archive +: +{NUM} CPU s",
         rf"^archive/baseline CPU ratio: {NUM}$"), own_server=True, slow=True),
    "newterm_rate": Smoke(
        ("--stride", "20000", "--terms", "2"),
        (rf"^parse only: {NUM} synset lines", rf"baseline plain CREATE: {NUM} rows/s; loader/baseline = {NUM}$",
         rf"^generate newterm: 2 terms, {NUM} questions", rf"pipeline/bare = {NUM}$"),
        needs=("wn", "rapidfuzz"), graph=()),
    "report_plots": Smoke(
        ("--tasks", "3", "--years", "3", "--repeat", "1"),
        (rf"^svg +: import {NUM} CPU s; three plots median {NUM} ms",
         rf"^(matplotlib: import {NUM} CPU s|matplotlib: not installed)")),
    "resume_kill": Smoke(
        ("--trials", "1", "--items", "16"),
        (rf"^each : \d/1 runs killed, \d+ answers before the kills, \d+ asked again \({NUM}%\)$",
         rf"^chunk: \d/1 runs killed, \d+ answers before the kills, \d+ asked again \({NUM}%\)$")),
    "serac_scope": Smoke(
        ("--events", "20", "--questions", "90", "--memory", "10", "--dim", "16", "--folds", "2"),
        (rf"^ratio best / cosine +: +{NUM}$", rf"^fit_logistic \(L-BFGS\): +{NUM}s$"), needs=("torch", "numpy")),
    "spark_parse": Smoke(
        ("--lines", "300", "--master", "local[1]", "--conf", "spark.sql.shuffle.partitions=4", "--keep", "{tmp}/work"),
        (rf"^ratio parse / Spark line count   : {NUM}$", rf"^ratio parse / bz2 streaming      : {NUM}$",
         rf"^ratio whole load / Spark line count: {NUM}$",
         rf"^first split in one process: .* ratio {NUM}$"), needs=("pyspark",), slow=True),
    "source_hash": Smoke(
        ("--samples", "cskg", "--synthetic", "120", "--repeat", "1"),
        (rf"^graph: {NUM} facts, {NUM} entities", rf"^paged +: wall median {NUM} s, client CPU median {NUM} s",
         rf"^ratio streamed / paged: wall {NUM}x, client CPU {NUM}x$", r"^same value: yes$"), graph=()),
    "store_write_rate": Smoke(
        ("--facts", "50", "--warm-up", "20"),
        (rf"^upsert \(first\) +: +{NUM} facts/s +ratio to baseline {NUM}",
         rf"^upsert vs reference: first {NUM}x, reload {NUM}x", rf"^upsert vs serial: first {NUM}x, reload {NUM}x"),
        graph=()),
    "answer_write": Smoke(
        ("--answers", "30", "--rounds", "1", "--batches", "10", "10000"),
        (rf"^ +merge {NUM} +: wall median +{NUM} s .* ratio to merge {NUM} +{NUM}; CPU median +{NUM} s, ratio +{NUM}$",
         rf"^ +create {NUM} +: wall median .* ratio to merge {NUM}", r"^ +re-run +: wall median "),
        graph=(), forbid=(r"^ +! ",)),
    "control_train": Smoke(
        ("--fraction", "0.01", "--threads", "1", "--set", "epochs=3", "--set", "lr=6e-3"),
        (rf"^candidate: {NUM} tokens an epoch \({NUM} labelled\): .*statement {NUM} \({NUM}\)",
         rf"^default  : epochs {NUM}, lr {NUM}, .*: {NUM} steps, {NUM} tokens, wall {NUM} s, CPU {NUM} s, final loss",
         rf"^candidate: epochs {NUM}, lr 0\.006, .*: {NUM} steps, {NUM} tokens, wall {NUM} s, CPU {NUM} s, final",
         r"^candidate: epochs=3, lr=6e-3$",
         rf"^ratio candidate / default: steps {NUM}x, tokens {NUM}x, wall {NUM}x, CPU {NUM}x$"),
        needs=HF, graph=("umls",)),    # the smallest sample with dated facts: both configs tokenise all its examples
    "engine_bookkeeping": Smoke(
        ("--items", "200", "--resamples", "20", "--repeat", "1"),
        (rf"^resample counts, 20 resamples of 200 units: before {NUM} s, after {NUM} s: {NUM}x; same: yes$",
         rf"^requests, 200 items: .*: {NUM}x; same: yes$", rf"^request dedup, 200 requests: .*: {NUM}x; same: yes$",
         rf"^task filter, 200 items: .*: {NUM}x; same: yes$", rf"^chance, 200 samples: .*: {NUM}x; same: yes$")),
    "engine_steps": Smoke(
        ("--items", "200", "--repeat", "1"),
        (rf"^question check, 200 items: parse and compare {NUM} s .*: {NUM}x$",
         rf"^record export, 200 records: .*: {NUM}x$",
         rf"^registry lookup, 600 lookups: .* now {NUM} s .*: {NUM}x$")),
    "question_reads": Smoke(
        ("--items", "30", "--rounds", "1"),
        (r"^eval/question_items, 30 questions x 1 round\(s\); same rows: yes$",
         r"^eval/question_benchmarks, 30 questions x 1 round\(s\); same rows: yes$",
         rf"^ +collected: wall +{NUM} s \(x ?{NUM}\), this process CPU +{NUM} s \(x ?{NUM}\)"),
        graph=()),
    "report_groups": Smoke(
        ("--items", "60", "--repeat", "1"),
        (rf"^report groups, 60 samples, unit item: before {NUM} s, after {NUM} s: {NUM}x; same JSON: yes$",
         rf"^report groups, 60 samples, unit group: .*: {NUM}x; same JSON: yes$")),
    "report_build": Smoke(
        ("--items", "60", "--repeat", "1", "--per-item", "2", "--resamples", "50"),
        (rf"^report build, 120 samples, unit item: before {NUM} s, after {NUM} s: {NUM}x; same JSON: yes$",
         rf"^report build, 120 samples, unit group: .*: {NUM}x; same JSON: yes$",
         rf"^  of which the columns: before {NUM} s, after {NUM} s: {NUM}x; same columns: yes$")),
    "store_write_variants": Smoke(
        ("--facts", "50", "--rounds", "1", "--batch-sizes", "20", "--warm-up", "20"),
        (rf"^writer +: +{NUM} facts/s +vs CREATE {NUM}", rf"^in transactions +: .* vs writer {NUM}",
         rf"^writer \(again\) +: .* vs writer {NUM}"), graph=(), forbid=("GRAPH DIFFERS",)),
    # benchmarks/view_first_page.py is on main (issue 29) and not on this branch yet: an entry
    # whose script is absent is never run
    "verdict_intervals": Smoke(
        ("--records", "4", "--events", "4", "--statements", "4", "--repeat", "1", "--resamples", "10",
         "--chrono-resamples", "10"),
        (rf"^ChroKnow: {NUM} items, .* [1-9][0-9]* of {NUM} numbers moved to arrays",
         rf"^ChroKnow metric_intervals: object-level {NUM} s, arrays {NUM} s; ratio object-level / arrays {NUM}x$",
         rf"^chrono solver tables: object-level {NUM} s, arrays {NUM} s; ratio object-level / arrays {NUM}x$",
         rf"^ELKEN metric_intervals: object-level {NUM} s, arrays {NUM} s; ratio object-level / arrays {NUM}x$",
         rf"^LINK: {NUM} items, .* [1-9][0-9]* of {NUM} numbers moved to arrays",
         rf"^LINK metric_intervals: object-level {NUM} s, arrays {NUM} s; ratio object-level / arrays {NUM}x$",
         rf"^LINK solver table: object-level {NUM} s, arrays {NUM} s; ratio object-level / arrays {NUM}x$")),
    "view_load": Smoke(
        ("--graph", "env", "--seconds", "2", "--clients", "4", "--samples", "40"),
        (rf"^4 clients for 2s over {NUM} page kinds .*: {NUM} requests, {NUM} per second$",
         rf"^all pages: p50 {NUM}ms, p99 {NUM}ms; one client alone p50 {NUM}ms; ratio {NUM}x$",
         r"^5xx or failed requests: 0$"), forbid=(r"^statuses: .*\b5\d\d ",), graph=("taxonomy",)),
    "view_first_page": Smoke(
        ("--graph", "env", "--samples", "40", "--per-item", "2", "--repeat", "1"),
        (r"^run of 40 samples \(20 questions x 2\) written in .* the samples page shows [1-9][0-9]* rows",
         rf"^baseline: view/read_run +{NUM}ms +{NUM}ms +{NUM}x$", rf"^run page /runs/<id> +{NUM}ms +{NUM}ms +{NUM}x$",
         rf"^its numbers /runs/<id>/numbers +{NUM}ms +{NUM}ms +{NUM}x$",
         rf"^first samples page +{NUM}ms +{NUM}ms +{NUM}x$"), graph=()),
    "plan_counts": Smoke(
        ("--out", "{tmp}/plans", "--server-from-env", "--", "-p", "no:xdist", "-p", "no:cacheprovider", "-q",
         "tests/test_store.py", "-k", "schema_applies_twice"),
        (r"^pytest exited 0$", rf"^stats-solo\.json: {NUM} statements; planning {NUM} s, execution {NUM} s$",
         rf"^  first plans [1-9][0-9]* in {NUM} s; plans again {NUM} in {NUM} s \({NUM} % of planning\)$",
         rf"^  planned again after >60 s: {NUM} in {NUM} s$"), graph=()),
    "suite_cpu": Smoke(
        ("--interval", "0.1", "--json", "{tmp}/cpu.json", "--", "sh", "-c",
         "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 0.3"),
        (rf"^wall {NUM} s, exit 0$", rf"^CPU of the command's processes: {NUM} s \({NUM} cores on average\)$",
         rf"^ +{NUM} s +{NUM}% +other:sh$", rf"^machine \({NUM} cores\): busy {NUM} core-s, idle {NUM} core-s",
         rf"^load average: {NUM} at the start, {NUM} at the end")),
    "suite_profile": Smoke(
        ("{tmp}/junit.xml", "{tmp}/durations.txt", "--budget", "{tmp}/budget.json", "--top", "2"),
        (r"^3 tests in 2 files, 9 s of test time", r"^ +1\.5 +1\.0 +1\.00x +1  tests/test_a\.py$",
         rf"^ +{NUM} +- +- +2  tests/test_b\.py  NEW$", r"^ +5\.5  tests/test_b\.py::test_slow\[x\]$",
         r"^NEW: tests/test_b\.py: not in budget\.json", r"^no file grew beyond its budget$"),
        files=(("junit.xml", '<testsuites><testsuite><testcase classname="tests.test_a" name="test_one" '
                             'time="1.5"/><testcase classname="tests.test_b" name="test_slow[x]" time="3.0"/>'
                             '</testsuite></testsuites>'),
               ("durations.txt", "2.50s call     tests/test_b.py::test_slow[x]\n"
                                 "2.00s setup    tests/test_b.py::test_other\n"),
               ("budget.json", '{"files": {"tests/test_a.py": 1.0}}'))),
    "wikidata_parse": Smoke(
        ("--lines", "200", "--load-entities", "50"),
        (rf"^ratio reference/json.loads : {NUM}$", rf"^ratio parse_line/json.loads: {NUM}$",
         rf"^neo4j load: 50 entities, {NUM} facts in {NUM}s = {NUM} facts/s"), graph=()),
}


# The server: imports what most scripts import (each where installed), then forks one child per
# request. A child becomes the script: new process group, the request's folder, environment,
# argv and sys.path[0], stdout and stderr to files, stdin closed; it runs the file as
# ``__main__`` and exits with its code after the atexit handlers a normal exit would run.
# Nothing here starts a thread before the fork (torch starts its pool on first use).
FORKSERVER = textwrap.dedent("""
    import atexit, gc, importlib, json, os, runpy, sys, traceback

    for name in ("numpy", "torch", "transformers", "tokenizers", "transformers.models.llama.modeling_llama",
                 "transformers.models.gpt2.modeling_gpt2", "neo4j", "knowforge.kg.connection",
                 "knowforge.kg.store", "knowforge.kg.loaders.registry", "knowforge.eval.registry",
                 "knowforge.eval.results", "knowforge.models.backends", "knowforge.models.tiny_model",
                 "knowforge.models.control"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    import transformers
    getattr(transformers, "AutoModelForCausalLM", None), getattr(transformers, "AutoTokenizer", None)
    # the imported objects out of the collector's sight: a child's collections (and what
    # gc_pause.py times) see only the script's own objects, as in a fresh interpreter, and do
    # not touch (and so copy) the shared pages
    gc.collect()
    gc.freeze()

    def child(req):
        code = 1
        try:
            os.setpgid(0, 0)
            os.chdir(req["cwd"])
            os.environ.clear()
            os.environ.update(req["env"])
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
            sys.stdin = open(os.devnull, encoding="utf-8")
            sys.argv = [req["script"], *req["args"]]
            sys.path[0] = os.path.dirname(req["script"])
            try:
                runpy.run_path(req["script"], run_name="__main__")
                code = 0
            except SystemExit as exc:
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:
                    print(exc.code, file=sys.stderr)
            except BaseException:
                traceback.print_exc()
            atexit._run_exitfuncs()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    pass
            os._exit(code)

    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            child(req)
        print(json.dumps({"pid": pid}), flush=True)
        print(json.dumps({"code": os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}), flush=True)
    # past the interpreter's teardown, where a binding imported above reports its objects as
    # leaked (nanobind), many lines of noise at the end of every test run
    atexit._run_exitfuncs()
    os._exit(0)
""")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


class ForkServer:
    """The test's side of ``FORKSERVER``: one script run at a time."""

    def __init__(self, env: dict[str, str]):
        self.proc = subprocess.Popen([sys.executable, "-c", FORKSERVER], cwd=REPO, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def _reply(self, timeout: float | None) -> dict | None:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else None
        if ready and not line:
            raise RuntimeError(f"the fork server exited ({self.proc.wait()})")
        return json.loads(line) if line else None

    def run(self, script: Path, args: list[str], env: dict[str, str], tmp: Path,
            timeout: float) -> tuple[int, str, str]:
        out, err = tmp / "script.stdout", tmp / "script.stderr"
        self.proc.stdin.write(json.dumps({"script": str(script), "args": args, "env": env, "cwd": str(REPO),
                                          "stdout": str(out), "stderr": str(err)}) + "\n")
        self.proc.stdin.flush()
        pid = self._reply(None)["pid"]
        done = None
        try:
            done = self._reply(timeout)
        finally:
            if done is None:        # timed out, or the test was stopped: nothing of the script outlives it
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                self._reply(30)     # the server's word on the killed child, so the next run reads its own
        code = done["code"] if done is not None else -signal.SIGKILL
        return code, _text(out), _text(err)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def forkserver():
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONUNBUFFERED="1")
    server = ForkServer(env)
    yield server
    server.close()


def params() -> list:
    out = []
    for name in SCRIPTS:
        smoke = SMOKE.get(name)
        marks = [pytest.mark.slow, pytest.mark.timeout(1800)] if smoke and smoke.slow else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.mark.parametrize("script", params())
def test_benchmark_script_runs(script, request, tmp_path, forkserver):
    smoke = SMOKE.get(script)
    assert smoke is not None, (f"benchmarks/{script}.py has no entry in SMOKE ({__file__}): give it "
                               "arguments that run it at tiny sizes and the ratio lines it prints")
    for module in smoke.needs:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"benchmarks/{script}.py needs {module}, which is not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(KNOWFORGE_NEO4J_HOME=str(tmp_path / "no-managed-neo4j"), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", PYTHONUNBUFFERED="1")
    if smoke.graph is not None:
        store = request.getfixturevalue("store")        # the session's server, emptied
        _, settings = request.getfixturevalue("neo4j_server")
        paths = sample_paths()
        for source in smoke.graph:
            load_source(store, source, paths[source])
        env.update(NEO4J_URI=settings.uri, NEO4J_USER=settings.user, NEO4J_PASSWORD=settings.password)
    if smoke.own_server:
        if not ManagedNeo4j(home=tmp_path / "no-managed-neo4j").is_installed():
            pytest.skip(f"benchmarks/{script}.py starts a managed Neo4j, whose jars are not installed "
                        "(knowforge neo4j install)")
    for name, text in smoke.files:
        (tmp_path / name).write_text(text, encoding="utf-8")
    args = [a.replace("{tmp}", str(tmp_path)) for a in smoke.args]
    timeout = 1700 if smoke.slow else 560
    code, stdout, stderr = forkserver.run(BENCHMARKS / f"{script}.py", args, env, tmp_path, timeout)
    shown = f"stdout:\n{stdout[-4000:]}\nstderr:\n{stderr[-4000:]}"
    assert code == 0, f"benchmarks/{script}.py {' '.join(args)} exited {code}\n{shown}"
    for pattern in smoke.expect:
        assert re.search(pattern, stdout, re.MULTILINE), f"no line matches {pattern!r}\n{shown}"
    for pattern in smoke.forbid:
        assert not re.search(pattern, stdout, re.MULTILINE), f"a line matches {pattern!r}\n{shown}"
