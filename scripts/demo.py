#!/usr/bin/env python
"""The main job on the bundled sample data, in one process; `make demo` runs it after installing.

Starts (or reuses) the managed Neo4j — or uses NEO4J_URI when set — applies the schema, loads
every bundled sample (and the WordNet words and NewTerm slice that later steps read, so the
graph's source facts are final before training), trains the control model (a small LM taught
the graph's facts up to CUTOFF, with a seeded share held out), then generates, exports and
evaluates each benchmark family with it and prints how each benchmark's verdicts line up with
what the model was taught.

One process, one graph connection and one loaded model serve the steps: the CLI commands run
in-process (``knowforge.cli.main``), the evaluations through ``knowforge.workflow`` with one
shared backend. The control model trains in a second process, started once its facts are read,
while the benchmarks are generated: every step's part that needs no model runs first, then the
evaluations, which wait for the model; KnowGen's and ChroKnow's in a third process
(``WORKER_STEPS``, ``EvalWorker``) beside the others, their output printed in the steps' order.
Safe to run again: loads are idempotent MERGEs, generated batches are dropped
and regenerated under the same seed, the trained model is kept in the user cache under an id
that hashes its config and the graph's facts (a second demo copies it instead of training), and
answers come from the response cache. Progress goes to stderr: bars on a terminal, a plain line
every 10 seconds in a log.

Steps (``STEPS`` below): Neo4j, load, control, knowgen, chrono, events, newterm, link, validity.
Each method's step is two functions (generate and export; evaluate); ELKEN's editing methods are
``EVENT_METHODS``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# Library chatter (transformers' advisory warnings, tokenizers' fork notice) is not the demo's output;
# torch's OpenMP threads wait passively: spinning threads starve each other on a busy machine.
for _key, _value in (("TRANSFORMERS_VERBOSITY", "error"), ("TOKENIZERS_PARALLELISM", "false"),
                     ("PYTHONWARNINGS", "ignore"), ("OMP_WAIT_POLICY", "PASSIVE")):
    os.environ.setdefault(_key, _value)
import warnings  # noqa: E402

warnings.filterwarnings("ignore")

REPO = Path(__file__).resolve().parents[1]
NEWTERM_SLICE = REPO / "kg" / "samples" / "newterm_2022"

# ELKEN: the editing methods evaluated on the demo's batch, no edit first (the others are compared
# with it). A method added here is evaluated, printed and compared like the others.
EVENT_METHODS = ("no-edit", "ice", "bm25", "ft", "serac", "rome", "memit")
# the weight editors edit the first WEIGHT_EVENTS events (the demo's time budget; Settings.weight_events);
# every method asks the ripple probes of those same events, up to two hops away, of the model it
# answers with after the edit (ripple_args), so each method's ripple pairs with no edit's probe by probe
WEIGHT_EVENTS = 8
RIPPLE_HOPS, RIPPLE_MAX_PROBES = 2, 20
# ROME's and MEMIT's covariance statistics over STATS_TEXTS of the control model's 9,910 training
# texts, a seeded random sample (the solver reads that text shuffled): a fifth of the cost, C within
# 4% (docs/editing.md: the cost and the effect, measured)
STATS_TEXTS = 2000
# ChroKnowPrompt's records (of the general domain's 83), a seeded sample: issue 33's time budget
CHRONO_SAMPLE = 40


def ripple_args(events: int) -> dict:
    """Every ELKEN method's ripple probes: the first ``events`` events, up to two hops away."""
    return {"ripple_hops": RIPPLE_HOPS, "ripple_max_probes": RIPPLE_MAX_PROBES, "ripple_events": events}


def weight_args(events: int) -> dict:
    return {**ripple_args(events), "hparams": {"mom2_n_samples": STATS_TEXTS}}
EVENT_TYPES = ("win-election,loss-election,death,divorce,acquire,start-position,resign,IPO,marry,dismissal,"
               "start-org,education,born,transfer-player,publish,end-org")
EVENT_BATCH = "demo"
CPU_LINE = "CPU seconds of each editing method's evaluation:"
# the demo's own Cypher (no statement is written in this script): run with `knowforge query --file`
DEMO_CYPHER = REPO / "cypher" / "demo"


class DemoError(Exception):
    """A step that cannot go on; its message names the cause and, where there is one, the fix."""


@dataclass
class Settings:
    out: Path = Path("runs/demo")
    cutoff: int = 2020
    home: str | None = None
    # the control model's config beyond the cutoff (ControlConfig fields), e.g. a short one in tests
    control: dict = field(default_factory=dict)
    # ChroKnowPrompt on a seeded sample of CHRONO_SAMPLE of the general domain's 83 records (None: all):
    # half the answers (4,488 requests instead of 9,505) with the seen - unseen gap still far above its
    # target (benchmarks/RESULTS.md, "The demo's sections after profiling")
    chrono_sample: int | None = CHRONO_SAMPLE
    # Its answers are many (10,320 with both spans on every record, about half on the sample); its
    # metrics are bootstrapped over arrays of per-record totals, so 1,000 resamples cost about 2 s
    # (200 object-level ones cost 77 s: benchmarks/verdict_intervals.py). Fewer in tests.
    chrono_bootstrap: int = 1000
    bootstrap: int = 1000                  # resamples of every other run's intervals (fewer in tests)
    weight_events: int = WEIGHT_EVENTS     # events ROME and MEMIT edit, and every method's ripple probes
    knowgen_n: int = 200
    knowgen_limit: int = 270               # KA: the first 270 questions (30 entities) per setting
    knowgen_ku: int = 360                  # KU: the first 360 questions (20 entities), both ways
    event_n: int = 3
    link_n: int = 4
    cache_dir: Path | None = None          # response cache (default: KNOWFORGE_CACHE_DIR or the user cache)
    model_cache: Path | None = None        # trained control models (default: <cache_dir>/control-models)
    steps: tuple[str, ...] = ()            # only these steps (default: all)
    # Train the control model beside the benchmarks' generation (every step's model-free part first)
    # instead of before it: on the idle 2-core machine, one cold demo each way half an hour apart,
    # 10:11 beside against 10:43 first (benchmarks/RESULTS.md, "Cold demos, training beside or first").
    train_beside: bool = True
    # With train_beside: evaluate the WORKER_STEPS in a second process beside the others, once the
    # model is ready (the same numbers, printed in the same order; False: one after another).
    eval_worker: bool = True


class Demo:
    def __init__(self, settings: Settings, *, stream=None) -> None:
        self.s = settings
        self.out = settings.out
        self.stream = stream or sys.stdout
        self.t0 = time.monotonic()
        self.cpu0 = time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.children0 = children.ru_utime + children.ru_stime
        self.plan = None                      # the control model's ControlPlan (the control step)
        self._training: dict | None = None    # its background training: process, messages, last step
        self._trainer: dict | None = None     # the training's process while it waits for its plan
        self.model = str(self.out / f"control-{settings.cutoff}")
        self.runs: list[str] = []             # the demo's own runs: what the validity report checks
        self.control_run: str | None = None
        self.card = None
        self._store = None
        self._backends: dict[str, object] = {}
        self.bars = True                      # request bars on stderr (not in the evaluation worker)
        self.cpu_base = 0.0                   # CPU seconds before this process's share (the worker's)

    # ---- plumbing -------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.stream, flush=True)

    def cpu(self) -> float:
        """This process's CPU seconds since the start, and its finished children's (the training)."""
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (self.cpu_base + time.process_time() - self.cpu0 + children.ru_utime + children.ru_stime
                - self.children0)

    def section(self, title: str) -> None:
        # wall time since the start and the CPU time: on a busy machine the two differ
        self.say(f"\n== {title} ({time.monotonic() - self.t0:.0f}s, CPU {self.cpu():.0f}s) ==")
        self.training_status()

    def kf(self, *args: str, log: Path | None = None, quiet: bool = False, show: bool = False) -> str:
        """``knowforge ARGS`` in this process; returns what it printed on stdout (shown too with
        ``show``). Its stderr (summaries, progress) is shown, or written to ``log``, or dropped
        with ``quiet``."""
        import click

        from knowforge.cli.main import cli

        out = io.StringIO()
        with contextlib.ExitStack() as stack:
            stack.enter_context(contextlib.redirect_stdout(out))
            if log is not None:
                stack.enter_context(contextlib.redirect_stderr(stack.enter_context(open(log, "w", encoding="utf-8"))))
            elif quiet:
                stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
            try:
                cli.main(list(args), prog_name="knowforge", standalone_mode=False)
            except click.ClickException as exc:
                raise DemoError(f"knowforge {' '.join(args[:2])}: {exc.format_message()}"
                                + (f" (log: {log})" if log else "")) from None
            except click.exceptions.Exit as exc:
                if exc.exit_code:
                    raise DemoError(f"knowforge {' '.join(args[:2])} exited with {exc.exit_code}") from None
        if show and out.getvalue().strip():
            self.say(out.getvalue().rstrip())
        return out.getvalue()

    @property
    def store(self):
        if self._store is None:
            from knowforge.kg.connection import open_store

            self._store = open_store(home=self.s.home)
        return self._store

    def close(self) -> None:
        if self._trainer is not None and self._trainer["process"].is_alive():
            self._trainer["plans"].put(None)         # the demo stopped before the control step
            self._trainer["process"].join(timeout=30)
            if self._trainer["process"].is_alive():
                self._trainer["process"].terminate()
                self._trainer["process"].join()
        if self._training is not None and self._training["process"].is_alive():
            # the demo stopped before its evaluations: the training it started goes with it
            self._training["process"].terminate()
            self._training["process"].join()
        for backend in self._backends.values():
            close = getattr(backend, "close", None)
            if close is not None:
                close()
        if self._store is not None:
            self._store.close()

    def query(self, cypher_args: Sequence[str]) -> list[dict]:
        return json.loads(self.kf("query", *cypher_args, "--format", "json"))

    def evaluate(self, benchmark: str, out: Path, *, tasks: Sequence[str] = (), solver: str | None = None,
                 solver_args: dict | None = None, max_tokens: int = 16, mc_scoring: str = "generate",
                 limit: int | None = None, sample: int | None = None, batch_size: int = 8,
                 bootstrap: int | None = None):
        """One ``knowforge eval`` through the workflow, with the demo's one backend per config (the
        model is loaded once) and a request bar with its total. Returns the Evaluation."""
        from knowforge import workflow
        from knowforge.cli.eval_cmd import request_bar
        from knowforge.eval.types import EvalOptions
        from knowforge.models.backends import make_backend
        from knowforge.models.task import Component

        options = EvalOptions.make(backend="hf", model=self.model, device="cpu", max_tokens=max_tokens,
                                   mc_scoring=mc_scoring, limit=limit, sample=sample, batch_size=batch_size,
                                   out_dir=out, cache_dir=self.s.cache_dir,
                                   bootstrap=self.s.bootstrap if bootstrap is None else bootstrap)
        key = repr(options.backend_config())     # a frozen dataclass holding a dict: not hashable
        if key not in self._backends:
            self._backends[key] = make_backend(options)
        component = Component(name=solver, args=solver_args or {}) if solver else None
        with request_bar(None, not self.bars) as advance:
            evaluation = workflow.evaluate(self.store, benchmark, options, tasks=tasks, solver=component,
                                           backend=self._backends[key], progress=advance)
        self.runs.extend(r.run_id for r in evaluation.runs)
        return evaluation

    # ---- the steps ------------------------------------------------------------------------------
    def neo4j(self) -> None:
        self.section("Neo4j")
        if not os.environ.get("NEO4J_URI"):
            self.say(self.kf("neo4j", "start").strip())
        self.say(self.kf("init").strip())

    def load(self) -> None:
        self.section("Load the bundled samples, the WordNet words NewTerm's meanings need and NewTerm's 2022 slice")
        # everything a control model could be trained on is loaded now, before training, so the
        # graph's source facts (and the model's id) stay the same for the rest of the demo and the next one
        self.kf("load", "samples", show=True)
        words = self.out / "newterm" / "wordnet_words.txt"
        words.parent.mkdir(parents=True, exist_ok=True)
        words.write_text(newterm_words(NEWTERM_SLICE / "new_terms.jsonl"), encoding="utf-8")
        # A full WordNet load (117,659 synsets) takes minutes on two cores (benchmarks/newterm_rate.py);
        # the demo loads the synsets of the slice's head words and their neighbours only.
        loaded = self.kf("load", "wordnet", "--entities", str(words), "--silent")
        self.say("\n".join(loaded.rstrip().splitlines()[-4:]))
        self.kf("generate", "newterm", "--import", str(NEWTERM_SLICE), "--name", "sample2022", "--silent")
        self.kf("stats", show=True)

    def control(self) -> None:
        """Read the facts the control model learns and start its training in a background process
        (or take the model trained before on the same facts and config); ``control_ready`` waits."""
        self.section(f"Control model: a small LM taught the graph's facts up to {self.s.cutoff}")
        from knowforge.models.cache import default_cache_dir
        from knowforge.models.control import ControlConfig, plan_control

        try:
            config = ControlConfig(cutoff=self.s.cutoff, seed=0, **self.s.control)
        except ValueError as exc:    # pydantic's ValidationError: a bad --set
            raise DemoError(f"bad control config: {exc}") from None
        cache = self.s.model_cache or (self.s.cache_dir or default_cache_dir()) / "control-models"
        # the facts are read here, before any benchmark is generated: the model learns the graph as loaded
        self.plan = plan_control(self.store, config, self.model, cache_dir=cache)
        trainer, self._trainer = self._trainer, None
        if self.plan.reused is not None:
            if trainer is not None:
                trainer["plans"].put(None)        # nothing to train: the child started early ends (close joins it)
                self._trainer = trainer
            self.say(f"{self.plan.model_id}: trained before on the same facts and config, reused from {cache}")
            return
        # about 46 s of CPU an epoch on two threads: 58 s before the data diet (406 s for 7 epochs, idle machine)
        # times its 0.79x tokens (docs/control.md); one thread while the benchmarks are generated beside it,
        # both once they are
        where = ("in a background process while the benchmarks are generated; their evaluations wait for it"
                 if self.s.train_beside else "before the benchmarks are generated")
        self.say(f"(training {self.plan.model_id}: {config.epochs:g} epochs, about {46 * config.epochs:.0f} s of CPU "
                 f"on the samples, {where}. A second demo reuses the model from {cache})")
        if trainer is None:              # a Demo whose trainer run_demo did not start (a test's own steps)
            trainer, self._trainer = self.start_trainer(), None
        if not self.s.train_beside:
            trainer["widen"].set()       # nothing runs beside it: every thread from the start
        trainer["plans"].put(self.plan)
        self._training = {**trainer, "step": None, "error": None}

    def start_trainer(self) -> dict:
        """The process that will train the control model, started before its plan exists: its
        imports overlap the server's start and the loads instead of delaying the training
        (``fit_control_when_planned``; ``control`` sends it the plan, or None when a model is reused)."""
        import multiprocessing

        from knowforge.models.control import fit_control_when_planned

        ctx = multiprocessing.get_context("spawn")   # the parent holds a driver's threads and sockets: no fork
        plans, messages, widen = ctx.Queue(), ctx.Queue(), ctx.Event()
        process = ctx.Process(target=fit_control_when_planned, args=(plans, messages, widen), daemon=True,
                              name="control-training")
        process.start()
        self._trainer = {"process": process, "plans": plans, "messages": messages, "widen": widen}
        return self._trainer

    def _training_messages(self, timeout: float | None = None) -> list[tuple]:
        """The background training's messages so far (waiting up to ``timeout`` for the first)."""
        import queue

        training, got = self._training, []
        try:
            got.append(training["messages"].get(timeout=timeout) if timeout else training["messages"].get_nowait())
            while True:
                got.append(training["messages"].get_nowait())
        except queue.Empty:
            pass
        for message in got:
            if message[0] == "step":
                training["step"] = message[1:]
            elif message[0] == "error":
                training["error"] = message[1]
            elif message[0] == "card":
                from knowforge.models.control import ControlCard

                training["card"] = ControlCard.model_validate_json(message[1])
        return got

    def training_status(self) -> None:
        """One line on stderr while the model trains in the background: where it is."""
        if self._training is None or "card" in self._training:
            return
        self._training_messages()
        step = self._training["step"]
        if step is not None:
            done, total, loss = step
            epochs = self.plan.config.epochs
            print(f"  training in the background: {done:,}/{total:,} steps, epoch "
                  f"{min(epochs, done * epochs / max(total, 1)):.1f}/{epochs:g}, loss {loss:.3f}", file=sys.stderr,
                  flush=True)

    def control_ready(self) -> None:
        """Wait for the background training (with its bar), record the model's training set in the
        graph and say what it was taught."""
        if self.plan is None:
            return
        self.section("Control model: what it was taught")
        from knowforge.models.control import record_model

        card, how = self.plan.reused, "reused: same config, same facts"
        if card is None:
            card, how = self._wait_training(), "trained"
        # after the benchmarks' generation, before any evaluation reads the model's training set
        record_model(self.store, card, list(self.plan.trained_ids), self.plan.out)
        t = card.train
        self.say(f"{card.model_id} ({how}): {card.parameters:,} parameters, {card.counts['trained']} facts trained, "
                 f"{card.counts['held_out']} held out, {card.counts['after_cutoff']} after {self.s.cutoff}; "
                 f"{t['epochs']} epochs, {t['steps']} steps, loss {t['first_loss']:.3f} -> {t['final_loss']:.3f}")
        self.card = card
        self.kf("query", "--file", str(DEMO_CYPHER / "control_model_facts.cypher"), "-p", f"model={card.model_id}",
                show=True)

    def _wait_training(self):
        from knowforge.cli.control_cmd import train_bar

        training = self._training
        training["widen"].set()       # the benchmarks are generated: training takes both cores
        process = training["process"]
        step = training["step"]         # where it was at the last status line: not counted in the rate
        with train_bar(False, self.plan.config.epochs, start=step[:2] if step else None) as bar:
            if step is not None and bar is not None:
                bar(*step)
            while True:
                for message in self._training_messages(timeout=1.0):
                    if message[0] == "step" and bar is not None:
                        bar(*message[1:])
                if "card" in training or training["error"]:
                    break
                if not process.is_alive():
                    self._training_messages()
                    if "card" not in training and not training["error"]:
                        training["error"] = f"the training process ended with exit code {process.exitcode}"
                    break
        process.join()
        if training["error"] or "card" not in training:
            raise DemoError(f"training the control model failed: {training['error']}")
        return training["card"]

    def knowgen(self) -> None:
        """Generate and export (no model needed)."""
        self.section("KnowGen (ALCUNA): artificial entities")
        out = self.out / "knowgen"
        out.mkdir(parents=True, exist_ok=True)
        # rerunnable: a previous demo batch is dropped first (restoring the graph exactly)
        with contextlib.suppress(DemoError):
            self.kf("generate", "knowgen", "--drop", "demo", quiet=True)
        self.kf("generate", "knowgen", "--name", "demo", "--n", str(self.s.knowgen_n), "--seed", "0")
        self.kf("export", "knowgen", "--name", "demo", "--format", "alcuna", "--out", str(out / "alcuna"), quiet=True)
        self.kf("export", "knowgen", "--name", "demo", "--format", "jsonl", "--out", str(out / "jsonl"), quiet=True)

    def knowgen_evaluate(self) -> None:
        self.section("KnowGen (ALCUNA): the control model's answers")
        out = self.out / "knowgen"
        # Multiple-choice and yes/no items are scored by likelihood (as lm-evaluation-harness does): a small
        # model that rarely writes a parseable letter still shows what it knows. Open items are generated.
        self.say(f"KA: the first {self.s.knowgen_limit} questions under each of four settings; KU: the first "
                 f"{self.s.knowgen_ku} with and without the passage")
        ka = self.evaluate("knowgen:demo", out / "runs", tasks=["KA"], max_tokens=16, mc_scoring="likelihood",
                           limit=self.s.knowgen_limit)
        summary = (ka.summary_dir / "summary.md").read_text(encoding="utf-8")
        self.say(between(summary, "## Task metrics", "## Accuracy by difference"))
        self.say("(% ± half the 95% interval over entities; chance: random guesses, - for open questions, where a "
                 "guess almost never matches: there an interval above 0 is what shows knowledge; * the interval "
                 "excludes chance)")
        # KU with the passage in context vs without it: the same questions, zero-shot, the second time
        # through the no-context solver; then the paired comparison of the two runs
        ku = {solver: self.evaluate("knowgen:demo", out / f"runs-ku-{solver}", tasks=["KU"], solver=solver,
                                    limit=self.s.knowgen_ku, max_tokens=16, mc_scoring="likelihood")
              for solver in ("zero-shot", "no-context")}
        with_, without = (ku[s].runs[0].run_id for s in ("zero-shot", "no-context"))
        self.kf("report", with_, "--compare", without, "--out", str(out / "ku-compare"), quiet=True)
        summary = json.loads((ku["zero-shot"].summary_dir / "summary.json").read_text(encoding="utf-8"))
        self.say(knowgen_ku_table(json.loads((out / "ku-compare" / "report.json").read_text(encoding="utf-8")),
                                  summary))

    def chrono(self) -> None:
        self.section("ChroKnow: time-stamped knowledge")
        out = self.out / "chrono"
        out.mkdir(parents=True, exist_ok=True)
        for args in (("--domain", "general", "--from", "2010", "--to", "2023"),
                     ("--domain", "biomedical", "--from", "2020", "--to", "2024"),
                     ("--domain", "legal"), ("--domain", "commonsense"), ("--domain", "math"),
                     ("--domain", "general", "--name", "general-generation", "--templates", "generation")):
            self.kf("generate", "chrono", *args, "--seed", "0")
        self.kf("export", "chrono", "--name", "general", "--format", "chroknowbench", "--out",
                str(out / "chroknowbench"), quiet=True)

    def chrono_evaluate(self) -> None:
        self.section("ChroKnow: the control model's answers")
        out = self.out / "chrono"
        sample = self.s.chrono_sample
        self.say("the Generation template of the general domain, sampling-based check + ChroKnowPrompt (both spans)"
                 + (f", on a seeded sample of {sample} records" if sample else "")
                 + f"; the run's intervals from {self.s.chrono_bootstrap} bootstrap resamples")
        evaluation = self.evaluate("chrono:general-generation", out / "runs", solver="chronoprompt",
                                   solver_args={"span": "both"}, max_tokens=12, batch_size=32, sample=sample,
                                   bootstrap=self.s.chrono_bootstrap)
        run = evaluation.runs[0]
        self.control_run = run.run_id
        (out / "control_run").write_text(run.run_id + "\n", encoding="utf-8")
        report = (Path(run.report_dir) / "report.md").read_text(encoding="utf-8")
        self.say(between(report, "## Chronological categories", "## Per-year categories"))
        self.say(between(report, "## ChroKnowPrompt", "## "))
        self.say("(shares in % ± half the 95% interval, a bootstrap over records; Generation answers are open, so "
                 "their chance level is about 0)")

    def events(self) -> None:
        self.section("ELKEN: events and their ripples")
        out = self.out / "events"
        out.mkdir(parents=True, exist_ok=True)
        if self._prepare_event_batch():
            self.kf("generate", "events", "--types", EVENT_TYPES, "--n", str(self.s.event_n), "--seed", "0",
                    "--name", EVENT_BATCH)
        elken = out / f"elken_{EVENT_BATCH}.json"
        self.kf("export", "events", "--name", EVENT_BATCH, "--format", "elken", "--out", str(elken), quiet=True)
        self.kf("export", "events", "--name", EVENT_BATCH, "--format", "jsonl", "--out",
                str(out / f"items_{EVENT_BATCH}.jsonl"), quiet=True)
        self.say(elken_summary(json.loads(elken.read_text(encoding="utf-8"))))
        rows = self.query(["--file", str(DEMO_CYPHER / "first_event_of_type.cypher"), "-p", f"batch={EVENT_BATCH}",
                           "-p", "type=win-election"])
        if rows:
            event = rows[0]["id"]
            self.say(f"two-hop ripple of {event}:")
            ripple = self.kf("ripple", event, "--hops", "2", log=out / f"ripple_{EVENT_BATCH}.txt")
            text = (out / f"ripple_{EVENT_BATCH}.txt").read_text(encoding="utf-8") + ripple
            self.say("\n".join(text.splitlines()[:25]))
            (out / f"ripple_{EVENT_BATCH}.cypher").write_text(
                self.kf("ripple", event, "--hops", "2", "--format", "cypher"), encoding="utf-8")

    def events_evaluate(self) -> None:
        self.section("ELKEN: each editing method on the control model")
        out = self.out / "events"
        # each method's reliability and locality with their 95% intervals (a bootstrap over events), and its
        # paired difference from no edit on the same questions; fact questions are open, so their chance
        # level is about 0: the comparison with no edit is what tells
        from knowforge.eval.events.validity import methods_of, table_markdown
        from knowforge.eval.results import load_run

        cpu: dict[str, float] = {}
        runs: list[str] = []
        for method in EVENT_METHODS:
            weights = method in ("rome", "memit")
            started = time.process_time()
            evaluation = self.evaluate(f"events:{EVENT_BATCH}", out / "runs", solver=method, max_tokens=8,
                                       batch_size=32, limit=self.s.weight_events if weights else None,
                                       solver_args=(weight_args if weights else ripple_args)(self.s.weight_events))
            [run] = evaluation.runs           # one solver per evaluation
            runs.append(run.run_id)
            if len(runs) > 1:                 # the run's report beside no edit's (the first method)
                self.kf("report", run.run_id, "--compare", runs[0], "--out", str(out / f"compare-{method}"),
                        quiet=True)
            cpu[method] = time.process_time() - started
        # the validity report's table of these runs (the validity step prints it again with its checks)
        *_, table = methods_of(self.store, [load_run(self.store, r) for r in runs])
        self.say("\n".join(table_markdown(table)))
        self.say(f"(% [95% interval], a bootstrap over events; − no edit: the paired gap in points ± half its 95% "
                 f"interval; locality: out-of-scope answers the edit left unchanged, 100% for no edit by construction; "
                 f"ripple: the probes of the first {self.s.weight_events} events up to {RIPPLE_HOPS} hops, "
                 "asked of each method's model after the edit (no edit's moved share is the base rate: probes whose "
                 "answer after the base model already gives); fact questions are open: chance is about 0)")
        # each method's evaluation (its answers, ripple probes, report and comparison with no edit):
        # what an editing method adds to the demo's time
        self.say(f"{CPU_LINE} " + ", ".join(f"{m} {s:.1f}" for m, s in cpu.items()))

    def _prepare_event_batch(self) -> bool:
        """Whether to generate the demo's event batch anew. A batch of an earlier demo on top of the
        stack is unstacked and regenerated under the same seed. One that later batches (an
        imported release, a user's own) were stacked on is kept as it is: it was generated from
        the same graph under the same seed, and unstacking it would take theirs with it."""
        from knowforge.generators.events.layering import unapply_batch

        mine = self.store.read("events/read_last_event", batch=EVENT_BATCH)
        if not mine:
            return True
        above = [r["batch"] for r in self.store.read("events/read_last_event", batch=None)]
        if above and above[0] != EVENT_BATCH:
            self.say(f"events:{EVENT_BATCH} of an earlier demo lies under batch {above[0]} (stacked later): "
                     f"evaluating it as it was generated (`knowforge generate events --drop {above[0]}` lets "
                     "the demo generate it anew)")
            return False
        unapply_batch(self.store, EVENT_BATCH)
        return True

    def newterm(self) -> None:
        """The slice was imported with the loads: here its export is checked against the release."""
        self.section("NewTerm: new dictionary terms")
        out = self.out / "newterm"
        out.mkdir(parents=True, exist_ok=True)
        release = out / "release"
        self.kf("export", "newterm", "--name", "sample2022", "--format", "newterm", "--out", str(release), quiet=True)
        for f in sorted(NEWTERM_SLICE.glob("*.jsonl")):
            if f.read_bytes() != (release / f.name).read_bytes():
                raise DemoError(f"the export of newterm:sample2022 differs from {f}")
        self.say(f"export of newterm:sample2022 is byte-identical to {NEWTERM_SLICE.relative_to(REPO)}")
        self.kf("query", "--file", str(DEMO_CYPHER / "newterm_meanings.cypher"), "-p", "benchmark=newterm:sample2022",
                "-p", "year=2022", "-p", "limit=6", show=True)

    def newterm_evaluate(self) -> None:
        self.section("NewTerm: the control model's answers")
        out = self.out / "newterm"
        # Each phrasing is scored by the likelihood of the answers its system prompt names (A-D; YES/NO, ...),
        # as lm-evaluation-harness scores multiple choice: a small model that never prints a parseable
        # letter would otherwise score 0 everywhere (NewTerm's own protocol generates; see docs/newterm.md).
        evaluation = self.evaluate("newterm:sample2022", out / "runs", tasks=["COMA_clean", "COST_clean", "CSJ_clean"],
                                   max_tokens=4, mc_scoring="likelihood")
        summary = json.loads((evaluation.summary_dir / "summary.json").read_text(encoding="utf-8"))
        self.say(newterm_table(summary))

    def link(self) -> None:
        self.section("LINK / LINT: long-tail statements from symbolic-rule chains")
        out = self.out / "link"
        out.mkdir(parents=True, exist_ok=True)
        # no model: every predicate of these rules is a fact pattern in the graph; popularity ranks
        rules = [a for r in ("outcome_allergy_dish", "outcome_allergy_menu", "locational_currency",
                             "temporal_contemporary_invention", "outcome_treatment") for a in ("--rule", r)]
        self.kf("generate", "link", "--name", "demo", "--n", str(self.s.link_n), "--chain-depth", "2", "--seed", "0",
                *rules)
        self.kf("export", "link", "--name", "demo", "--format", "lint", "--out", str(out / "lint"), quiet=True)
        self.say(lint_examples(out / "lint"))
        self.say("a rule chain in the graph (depth 2 conclusion -> depth 1 conclusion -> source facts):")
        self.kf("query", "--file", str(DEMO_CYPHER / "link_rule_chain.cypher"), "-p", "benchmark=link:demo",
                "-p", "limit=3", show=True)

    def link_evaluate(self) -> None:
        self.section("LINK / LINT: the control model's answers")
        out = self.out / "link"
        # Each probe is scored by the likelihood of its template's two labels (Yes/No, True/False, Right/Wrong),
        # as lm-evaluation-harness scores yes/no tasks, so a small model's bias shows instead of unparsed replies.
        evaluation = self.evaluate("link:demo", out / "runs", max_tokens=4, mc_scoring="likelihood")
        self.say(link_lines(json.loads((evaluation.summary_dir / "summary.json").read_text(encoding="utf-8"))))

    def validity(self) -> None:
        self.section("Validity: each benchmark's verdicts against what the control model was taught")
        from knowforge.eval.validity import write_validity
        from knowforge.models.control import facts_hash, read_source_facts

        if self.control_run is None:
            raise DemoError("the validity report needs the ChroKnow step's run (run the chrono step)")
        out = write_validity(self.store, self.control_run, self.out / "validity", report_dirs=[self.out / "chrono" / "runs"],
                             only=self.runs, as_listed=True)
        text = (out / "validity.md").read_text(encoding="utf-8")
        self.say(text[text.find("# Validity"):] if "# Validity" in text else text)
        if self.card is not None and facts_hash(read_source_facts(self.store)) != self.card.facts_hash:
            self.say("note: the graph's source facts changed after the control model was trained: the next demo "
                     "trains another model")

    def done(self) -> None:
        self.section("Done")
        status = json.loads(self.kf("neo4j", "status", "--json")) if not os.environ.get("NEO4J_URI") \
            else {"uri": os.environ["NEO4J_URI"]}
        self.say(f"Reports and exports are under {self.out}/ (validity: {self.out}/validity/validity.md); "
                 f"the graph is at {status.get('uri') or 'NEO4J_URI'}.")
        self.say("Explore it in Neo4j Browser (knowforge neo4j status) or with the demo's own queries, e.g.: "
                 f"knowforge query --file {(DEMO_CYPHER / 'control_model_facts.cypher').relative_to(REPO)} "
                 f"-p model={self.card.model_id if self.card else 'MODEL_ID'}; more recipes in cypher/queries/")


Part = Callable[[Demo], None] | None
# Each step: (name, its part that needs no trained model, its part that does). The demo runs every
# step's first part in order, then every second part: the control model trains in a background
# process while the benchmarks are generated (their graph writes never touch the source facts it
# learns, read before they start), and the evaluations wait for it. With ``train_beside`` false
# (--train-first) it runs each step whole, in order.
STEPS: tuple[tuple[str, Part, Part], ...] = (
    ("neo4j", Demo.neo4j, None), ("load", Demo.load, None), ("control", Demo.control, Demo.control_ready),
    ("knowgen", Demo.knowgen, Demo.knowgen_evaluate), ("chrono", Demo.chrono, Demo.chrono_evaluate),
    ("events", Demo.events, Demo.events_evaluate), ("newterm", Demo.newterm, Demo.newterm_evaluate),
    ("link", Demo.link, Demo.link_evaluate), ("validity", None, Demo.validity), ("done", None, Demo.done))


# The steps whose evaluations a second process runs (with train_beside and eval_worker), beside the
# main process's others. One evaluation process left about half a core idle: the tiny model's matmuls
# gain little from a second torch thread, and each evaluation waits on Neo4j's round trips. Each
# process then runs one torch thread; an evaluation's answers are the same on one thread as on two
# (benchmarks/RESULTS.md, "The demo's evaluations in two processes"). The split balances their CPU:
# each step's evaluation alone (helper demo11, in-process, load 4-5, LINK's intervals over arrays):
# KnowGen 31 s, ChroKnow 22 s, ELKEN 36 s, NewTerm 5 s, LINK 6 s, each with about 2.5 s of loading
# the model that a process pays once. KnowGen and ChroKnow here (about 51 s); ELKEN, NewTerm and LINK
# in the main process (about 43 s), which also records the model before and writes the validity
# report after. ELKEN, which waits on Neo4j most, is where the other process's CPU fills the waits.
WORKER_STEPS = ("knowgen", "chrono")
WORKER_RUN_NAME = "__demo_evaluation_worker__"
READS_ALL_RUNS = ("validity", "done")


def run_demo(settings: Settings, *, stream=None) -> Demo:
    """Every step (or ``settings.steps``) in order, each whole; with ``settings.train_beside``, first
    each one's part that needs no model, then each one's part that does (``run_evaluations``).
    Returns the Demo (its runs, model card)."""
    settings.out.mkdir(parents=True, exist_ok=True)
    demo = Demo(settings, stream=stream)
    chosen = [(name, before, after) for name, before, after in STEPS if not settings.steps or name in settings.steps]
    worker = None
    try:
        # the processes that train and evaluate start first: their imports overlap the server's
        # start and the loads (about one core's work) instead of the training, which needs both cores
        if any(name == "control" for name, _, _ in chosen):
            demo.start_trainer()
        if settings.train_beside:
            after = [(name, part) for name, _, part in chosen if part is not None]
            away = worker_steps(demo, after)
            worker = EvalWorker(demo, away) if away else None
            for _, before, _ in chosen:
                if before is not None:
                    before(demo)
            run_evaluations(demo, after, worker)
        else:
            for part in [part for _, *pair in chosen for part in pair]:
                if part is not None:
                    part(demo)
    finally:
        if worker is not None:
            worker.close()
        demo.close()
    return demo


def worker_steps(demo: Demo, parts: list[tuple[str, Callable[[Demo], None]]]) -> list[str]:
    """The parts a second process evaluates: the WORKER_STEPS among them, with ``eval_worker``."""
    return [name for name, _ in parts if name in WORKER_STEPS] if demo.s.eval_worker else []


def run_evaluations(demo: Demo, parts: list[tuple[str, Callable[[Demo], None]]],
                    worker: EvalWorker | None = None) -> None:
    """Each step's part that needs the model, in order; with ``eval_worker``, the WORKER_STEPS' in
    a second process (``worker``, or an ``EvalWorker`` started now; it imports while the model
    trains) beside this one's. What each part prints reaches the stream in the steps' order, and the
    demo's runs are listed in that order; a part that reads every run (READS_ALL_RUNS: the validity
    report) waits for the worker's."""
    away = worker_steps(demo, parts)
    if not away:
        for _, part in parts:
            part(demo)
        return
    names = [name for name, _ in parts]
    # the parts that read every run (the validity report lists them all) wait for the worker's;
    # every other part runs beside the worker, whatever its place in the order
    waits = [i for i, name in enumerate(names) if name in READS_ALL_RUNS]
    stream = demo.stream
    texts: dict[str, str] = {}
    runs: dict[str, list[str]] = {}
    shown = 0

    def show() -> None:
        nonlocal shown
        while shown < len(names) and names[shown] in texts:
            stream.write(texts[names[shown]])
            stream.flush()
            shown += 1

    worker = worker or EvalWorker(demo, away)
    try:
        if "control" not in names:       # the model was trained by an earlier demo
            worker.go(demo)
        for i, (name, part) in enumerate(parts):
            if name in away:
                continue
            if i in waits:
                for done, text, its_runs in worker.results(wait=True):
                    texts[done], runs[done] = text, its_runs
                demo.runs = [run for n in names for run in runs.get(n, [])]
                show()
            # a part whose sections all came before prints as it goes; a later one is held back
            direct = shown == i
            demo.stream = stream if direct else io.StringIO()
            before = len(demo.runs)
            part(demo)
            runs[name] = demo.runs[before:]
            texts[name] = "" if direct else demo.stream.getvalue()
            demo.stream = stream
            if direct:
                shown += 1
            if name == "control":        # the model is written and its training set recorded
                worker.go(demo)
            for done, text, its_runs in worker.results(wait=False):
                texts[done], runs[done] = text, its_runs
            show()
        for done, text, its_runs in worker.results(wait=True):
            texts[done], runs[done] = text, its_runs
        demo.runs = [run for n in names for run in runs.get(n, [])]
        show()
    finally:
        demo.stream = stream
        worker.close()


class EvalWorker:
    """A spawned process that evaluates ``names`` (steps of STEPS) with its own Demo once ``go``
    says the model is ready, and sends back what each printed and its runs."""

    def __init__(self, demo: Demo, names: list[str]) -> None:
        import multiprocessing
        import runpy

        ctx = multiprocessing.get_context("spawn")   # the parent holds a driver's threads and sockets: no fork
        self.inbox, self.outbox = ctx.Queue(), ctx.Queue()
        self.names, self.pending = list(names), list(names)
        self.demo = demo
        # the script runs again in the child under its own name (the test loads it under another,
        # which a child could not import), and its last lines call _evaluation_worker
        args = dict(settings=dataclasses.asdict(demo.s), names=self.names, t0=demo.t0, inbox=self.inbox,
                    outbox=self.outbox)
        self.process = ctx.Process(target=runpy.run_path, args=(str(Path(__file__).resolve()),),
                                   kwargs={"init_globals": {"WORKER_ARGS": args}, "run_name": WORKER_RUN_NAME},
                                   daemon=True, name="demo-evaluations")
        self.process.start()
        self.started = False
        self.threads: int | None = None

    def go(self, demo: Demo) -> None:
        """The model is ready: the worker starts, and this process keeps one torch thread too."""
        import torch

        self.threads = torch.get_num_threads()     # given back by close (a test runs the demo in its process)
        torch.set_num_threads(1)
        self.inbox.put(("go", demo.cpu()))
        self.started = True

    def results(self, *, wait: bool) -> list[tuple[str, str, list[str]]]:
        """(name, printed text, runs) of the parts finished since the last call; with ``wait``,
        of every part still pending."""
        import queue

        got = []
        while self.pending:
            try:
                message = self.outbox.get(timeout=1.0) if wait else self.outbox.get_nowait()
            except queue.Empty:
                if not self.process.is_alive():
                    raise DemoError(f"the evaluation process ended with exit code {self.process.exitcode} "
                                    f"before {', '.join(self.pending)}") from None
                if wait:
                    continue
                break
            if message[0] == "error":
                raise DemoError(message[1])
            if message[0] == "crash":
                raise RuntimeError(f"in the evaluation process:\n{message[1]}")
            _, name, text, runs, control_run = message
            if control_run is not None:
                self.demo.control_run = control_run
            self.pending.remove(name)
            got.append((name, text, runs))
        return got

    def close(self) -> None:
        if self.process.is_alive():
            if not self.started:         # the demo stopped before the model was ready
                self.inbox.put(("stop", 0.0))
                self.process.join(timeout=30)
            if self.pending and self.process.is_alive():   # it stopped before reading the worker's parts
                self.process.terminate()
        self.process.join()
        if self.threads is not None:
            import torch

            torch.set_num_threads(self.threads)


def _evaluation_worker(settings: dict, names: list[str], t0: float, inbox, outbox) -> None:
    """EvalWorker's process: imports and connects, waits for ``go``, evaluates ``names`` in order."""
    import traceback

    import torch

    torch.set_num_threads(1)
    demo = Demo(Settings(**settings), stream=io.StringIO())
    demo.t0, demo.bars = t0, False
    parts = {name: after for name, _, after in STEPS}
    try:
        # what every evaluation imports, while the server starts (the demo starts this process first)
        import importlib

        for module in ("knowforge.workflow", "knowforge.cli.main", "knowforge.models.backends", "transformers"):
            importlib.import_module(module)
        command, parent_cpu = inbox.get()
        if command != "go":
            return
        demo.store  # noqa: B018 - connects once the main process has started (or found) the server
        demo.cpu_base = parent_cpu - demo.cpu()     # the headings count the main process's CPU first
        for name in names:
            demo.stream = io.StringIO()
            before = len(demo.runs)
            parts[name](demo)
            # the ChroKnow step's run is the validity report's control run, written in the main process
            outbox.put(("section", name, demo.stream.getvalue(), demo.runs[before:], demo.control_run))
    except DemoError as exc:
        outbox.put(("error", str(exc)))
    except BaseException:  # noqa: BLE001 - the main process reports it as its own unexpected error
        outbox.put(("crash", traceback.format_exc()))
    finally:
        demo.close()


# ---- what the steps print (pure functions of the files the engine wrote) -----------------------------
def between(text: str, start: str, end: str) -> str:
    """The lines of ``text`` from the one starting with ``start`` up to (not including) the next
    line starting with ``end``."""
    lines = text.splitlines()
    try:
        first = next(i for i, line in enumerate(lines) if line.startswith(start))
    except StopIteration:
        return ""
    last = next((i for i in range(first + 1, len(lines)) if lines[i].startswith(end)), len(lines))
    return "\n".join(lines[first:last]).rstrip()


def pm(r: dict | None, sign: str = "") -> str:
    if not r or r.get("value") is None:
        return "-"
    return f"{100 * r['value']:{sign}.1f}" + (f" ± {100 * (r['ci'][1] - r['ci'][0]) / 2:.1f}" if r.get("ci") else "")


def p_text(p: float | None) -> str:
    return "-" if p is None else ("<0.001" if p < 0.001 else f"{p:.3f}")


def newterm_words(new_terms: Path) -> str:
    from knowforge.kg.loaders.newterms import head_word_candidates

    words = {w for line in new_terms.read_text(encoding="utf-8").splitlines() if line.strip()
             for w, _ in head_word_candidates(json.loads(line)["meaning"])[:6]}
    return "\n".join(sorted(words)) + "\n"


def knowgen_ku_table(report: dict, summary: dict) -> str:
    chance = {form: g.get("chance") for form, g in summary["runs"]["zero-shot"]["by"]["form"].items()}
    paired = report["compare"]["paired"]
    acc = lambda v, ci: "-" if v is None else f"{100 * v:.1f}" + (f" ± {100 * (ci[1] - ci[0]) / 2:.1f}" if ci else "")
    lines = [f"KU with the passage vs without it: {paired['shared_items']} questions of {paired['overall']['units']} "
             "entities answered both ways (zero-shot); % ± half the 95% interval; chance: random guesses",
             f"  {'form':14s} {'chance':>6s}  {'with':>12s}  {'without':>12s}  {'with - without (paired)':>24s}  p"]
    rows = [(f, report["by_form"].get(f, {}), report["compare"]["by_form"].get(f, {}), paired["by_form"].get(f))
            for f in sorted(paired["by_form"])] + [("all", report["overall"], report["compare"]["overall"],
                                                    paired["overall"])]
    for form, mine, theirs, diff in rows:
        c = chance.get(form)
        lines.append(f"  {form:14s} {'-' if c is None else f'{100 * c:.1f}':>6s}  "
                     f"{acc(mine.get('accuracy'), mine.get('ci')):>12s}  {acc(theirs.get('accuracy'), theirs.get('ci')):>12s}  "
                     f"{pm({'value': diff['difference'], 'ci': diff.get('ci')}, '+'):>24s}  "
                     f"{p_text(diff.get('p_value'))} ({diff.get('test')})")
    ci = paired["overall"].get("ci")
    if ci:
        verdict = ("includes 0: the passage makes no difference this run can show" if ci[0] <= 0 <= ci[1] else
                   "excludes 0: the passage " + ("raises" if ci[0] > 0 else "lowers") + " KU accuracy")
        lines.append(f"  the interval of with - without {verdict} (a yes/no item's plain accuracy is the share of its "
                     "majority answer for a model that always says the same: its balanced accuracy is in the reports)")
    return "\n".join(lines)


def elken_summary(events: list[dict]) -> str:
    types = sorted({e["event_type"] for e in events})
    line = (f"ELKEN export: {len(events)} events of {len(types)} types, "
            f"{sum(len(e['fact']['qas']) for e in events)} in-scope and "
            f"{sum(len(e['fact']['local_qas']) for e in events)} out-of-scope questions")
    if events:
        e = events[0]
        line += f"\ne.g. {e['event']!r}: " + "; ".join(f"{q['question']} -> {q['answer']['name']}"
                                                      for q in e["fact"]["qas"][:3])
    return line


def newterm_table(summary: dict) -> str:
    gold = summary["runs"]["newterm(setting=gold)"]
    lines = [f"NewTerm 2022 slice, model {summary['model']}: Base vs Gold by likelihood (CSJ: balanced accuracy), in %, "
             "± half the 95% interval (a bootstrap over terms; Base and Gold of a term resampled together); "
             "chance: random guesses; * the interval excludes chance",
             f"  {'task':12s} {'terms':>5s} {'chance':>6s}  {'Base':>13s}  {'Gold':>13s}  {'Base - Gold':>13s}  p"]
    any_real = False
    mark = lambda r: " *" if r.get("excludes_chance") else "  "
    for task, rows in sorted(gold["intervals"].items()):
        rows = {r["name"]: r for r in rows}
        if "newterm_base" not in rows:
            continue
        base, gold_, gap = rows["newterm_base"], rows["newterm_gold"], rows["newterm_gap"]
        any_real |= bool(base.get("excludes_chance") or gold_.get("excludes_chance") or gap.get("excludes_zero"))
        p = gap.get("p_value")
        lines.append(f"  {task.split('/')[-1]:12s} {base['units']:5d} {100 * base['chance']:6.1f}  {pm(base):>11s}"
                     f"{mark(base)}  {pm(gold_):>11s}{mark(gold_)}  {pm(gap, '+'):>13s}  "
                     f"{'-' if p is None else f'{p:.3f}'} ({gap.get('test')})")
    if not any_real:
        terms = max(r["units"] for rows in gold["intervals"].values() for r in rows)
        lines.append(f"  note: no interval here excludes chance, and no Base - Gold interval excludes 0. The slice has "
                     f"{terms} terms, so its intervals span tens of points, and the demo's model was taught the graph's "
                     "facts, not English usage of new words: telling NewTerm numbers from chance needs the full release "
                     "(about 250 items a task) and a model that reads a definition in context.")
    lines.append(f"  report with the plot of Base vs Gold by year: {gold['report']}/report.md")
    return "\n".join(lines)


def lint_examples(folder: Path) -> str:
    lines = []
    for dist in ("head", "longtail"):
        rows = [json.loads(line) for line in (folder / f"lint_{dist}.jsonl").read_text(encoding="utf-8").splitlines()]
        lines.append(f"{dist}: {len(rows)} statements, e.g.")
        for r in rows[::5][:3]:
            hidden = "; ".join(h["text"] for h in r["hidden_premises"])
            lines.append(f"  [{r['rule']}] {r['premise']} => {r['conclusion']}  (hidden: {hidden})")
    return "\n".join(lines)


def link_lines(summary: dict) -> str:
    run = summary["runs"]["link-probe"]
    m = run["metrics"]["link/entailment"]
    rows = {r["name"]: r for r in run["intervals"]["link/entailment"]}
    mark = lambda r: " *" if r.get("excludes_chance") else ""
    k = m["link_known"]
    lines = [f"model {summary['model']} on {k['statements']} statements ({rows['link_known.rate']['units']} units), by "
             "likelihood; % ± half the 95% interval (a bootstrap over statements); * the interval excludes chance",
             "  per template (chance 50):  " + ", ".join(
                 f"{t}: {pm(rows[f'link_templates.{t}.accuracy'])}{mark(rows[f'link_templates.{t}.accuracy'])}"
                 for t in sorted(m["link_templates"], key=int))]
    for name, label, chance in (("accuracy", "accuracy", "50"), ("known", "known (all 13 right)", "0.01")):
        head, tail = rows[f"link_head_tail.{name}.head"], rows[f"link_head_tail.{name}.longtail"]
        drop = rows[f"link_head_tail.{name}.relative_drop"]
        p = drop.get("p_value")
        lines.append(f"  {label} (chance {chance}): head {pm(head)}{mark(head)} vs long tail {pm(tail)}{mark(tail)}, "
                     f"relative drop {pm(drop, '+') + '%' if drop.get('value') is not None else '-'} "
                     f"(p {'-' if p is None else f'{p:.3f}'}; unpaired: head and long tail are different statements)")
    overall = [rows[f"link_head_tail.accuracy.{d}"] for d in ("head", "longtail")]
    if not any(r.get("excludes_chance") for r in overall):
        by_label: dict[str, list[float]] = {}
        for v in m["link_templates"].values():
            by_label.setdefault(v["label"], []).append(v["accuracy"])
        lines.append("  note: neither head nor long-tail accuracy can be told from chance. The templates whose interval "
                     "excludes 50 are the model's answer bias, not knowledge: templates that share a label score alike ("
                     + ", ".join(f"{label} {100 * sum(v) / len(v):.0f}%" for label, v in sorted(by_label.items()))
                     + "). The demo's model was taught the graph's facts, not LINT's inferences over them; LINK's "
                     "numbers need a model that can read a premise and judge a conclusion.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "runs/demo")),
                        help="Folder for the model, exports and reports (default runs/demo, or $OUT).")
    parser.add_argument("--cutoff", type=int, default=int(os.environ.get("CUTOFF", 2020)))
    parser.add_argument("--chrono-sample", type=int, default=CHRONO_SAMPLE,
                        help=f"ChroKnowPrompt on this many records drawn at random (seeded; default {CHRONO_SAMPLE} "
                             "of the general domain's 83); 0: all.")
    parser.add_argument("--set", dest="control", action="append", default=[], metavar="KEY=VALUE",
                        help="A field of the control model's config (as train-control --set), e.g. --set epochs=1 "
                             "for a quick look; the numbers then differ from the documented ones.")
    parser.add_argument("--train-first", dest="train_beside", action="store_false",
                        help="Train the control model before the benchmarks are generated, instead of in a "
                             "background process beside their generation (the default, which also evaluates in two "
                             "processes; the same numbers either way, and less wall time on the 2-core machine: "
                             "benchmarks/RESULTS.md).")
    parser.add_argument("--step", dest="steps", action="append", choices=[n for n, *_ in STEPS],
                        help="Run only this step (repeatable; the steps before it must have run once).")
    args = parser.parse_args(argv)
    control = {}
    for setting in args.control:
        key, sep, value = setting.partition("=")
        if not sep:
            parser.error(f"--set takes KEY=VALUE, not {setting!r}")
        control[key.strip()] = value.strip()
    settings = Settings(out=args.out, cutoff=args.cutoff, home=os.environ.get("KNOWFORGE_NEO4J_HOME"),
                        control=control, chrono_sample=args.chrono_sample or None, steps=tuple(args.steps or ()),
                        train_beside=args.train_beside)
    try:
        run_demo(settings)
    except DemoError as exc:
        print(f"demo stopped: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("demo interrupted: run it again to go on (answers and the trained model are cached)", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: one line, and the traceback for the bug report in the log
        import traceback

        log = settings.out / "demo-error.log"
        log.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
        print(f"demo stopped by an unexpected error: {type(exc).__name__}: {exc} (traceback in {log}; "
              "please report it)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
elif __name__ == WORKER_RUN_NAME:
    _evaluation_worker(**globals()["WORKER_ARGS"])
