"""Every documented example runs and returns something: each ``knowforge`` command of a ```bash
block in README.md and docs/*.md, each statement of a ```cypher block, and each recipe in
cypher/queries/ (tests/doc_examples.py extracts them).

The examples run in one graph, in the order a reader would take them (load, generate, train,
import, export, evaluate, look at the results, query, drop), through the CLI in a folder laid
out with the files they name: the bundled samples where they name a download (a Wikidata dump
is the sample compressed the same way, ``taxdump/`` the taxonomy sample, ...), the release
fixtures of tests/releases where they name a released benchmark, the words, QIDs and terms
files they mention. What stands for a model (``M``, ``Qwen/...`` with ``--backend hf``) is the
tiny local model the examples themselves build; an OpenAI-compatible server at 127.0.0.1 is
the scripted one of tests/newterm_llm.py, also behind ``OPENAI_BASE_URL``; ``RUN_ID`` and its
kin are the runs the examples made, chosen for what the example needs (a run of the control
model for ``--validity``, the ice run on the imported ELKEN release for ``export run --format helm``).
Sizes are cut to keep the test short (``SMALL``), nothing else of an example changes.

A command passes when it exits 0 and prints something; a Cypher example or a recipe when it
returns at least one row. An example that cannot run here is in ``SKIP`` with the reason; a new
example is run, so it must work here or be listed.
"""

from __future__ import annotations

import bz2
import gzip
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

import newterm_llm
from doc_examples import ROOT, Example, all_examples
from browser import served_url
from plugin_site import install_birthyear
from knowforge import methods
from knowforge.cli.main import cli
from knowforge.kg.loaders.samples import samples_dir

# Examples that cannot run in this test, by key (the text, whitespace collapsed, comment dropped).
SKIP = {
    # vLLM needs a CUDA GPU and downloaded weights (tests/test_backends_vllm.py runs where there is one)
    "knowforge eval --benchmark knowgen:alcuna1 --backend vllm --model Qwen/Qwen2.5-7B-Instruct": "vLLM",
    "knowforge eval --benchmark chrono:general --backend vllm --model M --solver chronoprompt -S span=both": "vLLM",
    "knowforge eval --benchmark newterm:2024 --backend vllm --model Qwen/Qwen2.5-7B-Instruct": "vLLM",
    "knowforge eval --benchmark link:lk0 --backend vllm --model Qwen/Qwen2.5-7B-Instruct --max-tokens 16": "vLLM",
    "knowforge eval --benchmark chrono:general --backend vllm --model meta-llama/Llama-3.1-8B-Instruct": "vLLM",
    "knowforge eval --benchmark chrono:released --backend vllm --model M": "vLLM",
    "knowforge eval --benchmark items.jsonl --backend vllm --model M --mc-scoring likelihood "
    "--mc-continuation letter": "vLLM",
    "knowforge eval --benchmark events:elken-test --backend vllm --model M --solver ice --scoring official": "vLLM",
    "knowforge eval --benchmark newterm:2022 --task COMA_clean --task COST_clean --task CSJ_clean --backend vllm "
    "--model M --scoring official": "vLLM",
    "knowforge eval --benchmark link:lint --backend vllm --model M --max-tokens 16": "vLLM",
    "knowforge eval --backend vllm --model Qwen/Qwen2.5-72B-Instruct --benchmark bench.jsonl --engine-arg "
    "tensor_parallel_size=4 --engine-arg max_num_seqs=256 --engine-arg enable_prefix_caching=true": "vLLM, 4 GPUs",
    "knowforge eval --backend vllm --model ... --engine-arg tensor_parallel_size=4 --engine-arg "
    "pipeline_parallel_size=2": "vLLM on 8 GPUs of two nodes (Ray)",
    # ROME / MEMIT through the ELKEN seam: tests/test_editing_rome_events.py runs both solvers on the tiny
    # model (restore, export, metric.py); here they would add covariance statistics and edits to the budget
    "knowforge eval --benchmark events:e0 --backend hf --model models/control-2020 --solver rome":
        "tests/test_editing_rome_events.py (suite budget)",
    "knowforge eval --benchmark events:e0 --backend hf --model models/control-2020 --solver memit -S mode=sequential":
        "tests/test_editing_rome_events.py (suite budget)",
    "knowforge eval --benchmark events:e0 --backend hf --model path/to/llama --solver rome -S stats_corpus=wiki.txt "
    "-S layers=5": "a model folder and a corpus of the user's (elided)",
    # a server elsewhere
    "knowforge eval --backend openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-7B-Instruct ...":
        "the vLLM server of docker compose's gpu profile (and its options elided)",
    "knowforge load wikidata-sparql --properties P39 --max-pages 2": "queries the public Wikidata SPARQL endpoint",
    "knowforge load wikidata latest-all.json.bz2 --engine spark --out /shared/bulk --spark-master "
    "spark://head:7077 --spark-conf spark.executor.memory=8g": "a Spark cluster",
    # the whole of a big input, or the database itself replaced
    "knowforge load wordnet": "all of WordNet 3.0: 12 minutes on two cores (the --entities form runs here)",
    "knowforge load wikidata latest-all.json.bz2 --engine spark --out bulk/":
        "Spark on a full dump (tests/test_wikidata_spark.py runs the engine on the sample)",
    "knowforge neo4j import bulk/": "stops the server and replaces its database (tests/test_bulk_import.py)",
    # options elided with "..."
    "knowforge eval --benchmark newterm:2022+2023+2024 --task COMA_clean --task COST_clean --task CSJ_clean ...":
        "options elided",
    # ripple probes: tests/test_ripple_measure.py runs an ice run with -S ripple_hops, then ripple --run
    "knowforge eval --benchmark events:e0 --backend hf --model out/models/tiny --solver ice -S ripple_hops=2":
        "tests/test_ripple_measure.py (an ice run with -S ripple_hops=1 on the tiny model)",
    "knowforge ripple ev:0123abcd --run RUN_ICE": "tests/test_ripple_measure.py (after its ice run with probes)",
    # a server that runs until it is stopped: test_the_viewer_examples serves and fetches them
    "knowforge view --open": "serves until stopped: test_the_viewer_examples",
    "knowforge view": "serves until stopped: test_the_viewer_examples",
    "knowforge view --port 9000 --open": "serves until stopped: test_the_viewer_examples",
    # LOAD CSV of a Spark load's files (elided name), run in Neo4j Browser on the server's import folder
    "LOAD CSV FROM 'file:///bulk/csv/entities/part-00000-....csv' AS row CALL (row) { MERGE (e:Entity {id: row[0]}) "
    "SET e.name = row[2], e.aliases = split(row[3], '\\u001F'), e.alias_text = row[4], e.description = row[5], "
    "e.popularity = toFloat(row[6]), e.domain = row[7], e.source = row[8], e.source_file = row[9], e.stub = "
    "row[10] = 'true' } IN TRANSACTIONS OF 10000 ROWS": "a Spark load's CSV files in the server's import folder",
}

# Sizes cut for the test: option -> largest value (generate --n; eval's --limit, --max-tokens and
# --bootstrap are added when absent). The examples' models (the tiny random one, a control model
# trained for a fraction of an epoch) rarely stop early, so an hf generation runs to --max-tokens
# (default 64), and the control model's chrono eval spent its time in that decode loop
# (benchmarks/RESULTS.md). The resamples of a run's intervals (1,000 by default) run the same code
# 50 times: the metrics that resample objects (ChroKnow's, ELKEN's official ones) spent most of an
# eval's time there.
SMALL = {"generate": {"--n": 3}, "eval": {"--limit": 8, "--max-tokens": 8, "--bootstrap": 50}}
# train-control at test size: the width and depth of tests/test_control.py's CLI test, a quarter
# of an epoch (it must run and record its training set; what it learns is tested there)
SMALL_CONTROL = ["--epochs", "0.25", "--hidden-size", "32", "--layers", "1"]

# What a model name that is no folder stands for under --backend hf: the tiny model the
# examples build with `knowforge tiny-model models/tiny`.
TINY = "models/tiny"
LOCAL_URL = re.compile(r"^http://127\.0\.0\.1:\d+/v1$")

# Parameters of the recipes in cypher/queries/ (their header comments name them); "RUN:..." is a
# run the examples made (see World.run_for).
RECIPE_PARAMS = {
    "knowgen_accuracy_by_difference": {"benchmark": "knowgen:alcuna1"},
    "knowgen_diff_against_parent": {"entity": "gen:alcuna1:000001"},
    "knowgen_ka_chains": {"entity": "gen:alcuna1:000001", "limit": 50},
    "knowgen_list_artificial_entities": {"class": "Camelus", "batch": None},
    "knowgen_question_sources": {"question": "gen:alcuna1:000001:q003"},
    "link_accuracy_by_template": {"run": "RUN:link"},
    "link_chains_to_conclusion": {"benchmark": "link:chain",
                                  "conclusion": "PersonX should check the menu carefully at the italian restaurant."},
    "link_graph_grounded_statements": {"benchmark": "link:chain"},
    "link_known_by_distribution": {"run": "RUN:link"},
    "newterm_accuracy_by_distractor_kind": {"run_id": "RUN:newterm-base"},
    "newterm_related_terms": {"benchmark": "newterm:2024", "term": "mogaloor"},
}
# $run, $a, $b, $run_id of the Cypher blocks
CYPHER_RUNS = {"run": "RUN:chrono", "a": "RUN:newterm-gold", "b": "RUN:newterm-base", "run_id": "RUN:newterm-base"}

# Stand-ins the docs use for ids the reader's graph has (an event id, an entity, runs).
RUN_TOKENS = {"RUN_ID", "RUN", "run-A", "run-B", "OTHER_RUN_ID", "RUN_ICE", "RUN_GOLD",
              "run-20261122T175956-9a3de278", "BIRTHYEAR_RUN"}
ENTITY_TOKENS = {"ENTITY_ID": "gen:alcuna1:000001"}
# An environment value that names a model folder: the fixture that builds a local one.
ENV_MODELS = {"/path/to/e5-base-v2": "tiny_sentence_model"}
EVENT_TOKEN = "ev:0123abcd"

# The terms file of the NewTerm examples: ours, with the year, so `--year` is not needed.
NEW_TERMS = [{"term": "mogaloor", "meaning": "inebriated", "type": "new word", "year": 2024},
             {"term": "blorf", "meaning": "a joyful feeling after a long walk", "type": "new word", "year": 2024},
             {"term": "zindle fest", "meaning": "a party held in a garden at night", "type": "new phrase", "year": 2024},
             {"term": "bad", "meaning": "excellent, impressive", "type": "new meaning", "year": 2024}]
WORDS = ["inebriated", "joyful", "feeling", "walk", "party", "garden", "excellent", "impressive"]
QIDS = ["Q76", "Q30", "Q11571", "Q8682", "Q145", "Q11696"]

# Order of the examples: what a reader does first comes first.
PHASES = ("load", "generate", "train", "import", "export", "reimport", "eval", "look", "score", "query", "drop", "stop")


@dataclass(frozen=True)
class Step:
    phase: str
    example: Example | None = None
    prepare: tuple[str, ...] = ()        # a command of the test itself (not documented), as argv

    @property
    def id(self) -> str:
        if self.example is None:
            return "prepare: " + " ".join(self.prepare)
        return f"{self.example.where}: {self.example.key[:80]}"


def phase_of(example: Example) -> str:
    if example.kind != "command":
        return "query"
    argv = example.argv
    command = argv[0] if argv else ""
    if command in ("tiny-model", "load", "init"):
        return "load"
    if command == "generate":
        if "--import" in argv:
            # a release the examples exported first (exports/lint) is imported after the exports
            return "reimport" if argv[argv.index("--import") + 1].startswith("exports/") else "import"
        return "drop" if "--drop" in argv else "generate"
    if command == "train-control":
        return "train"
    if command == "export":
        return "look" if argv[1:2] == ["run"] else "export"
    if command == "eval":
        return "eval"
    if command == "score":
        return "score"
    if command == "query":
        return "query"
    if command == "neo4j" and argv[1:2] == ["stop"]:
        return "stop"
    return "look"


# Commands of the test that make what examples read and no example makes: the benchmark `b1`
# of docs/eval.md's exports, the ELKEN training file of the import example (an ELKEN file of the
# sample's events), the item file behind `--benchmark items.jsonl` / `bench.jsonl` (links made
# by _layout), NewTerm runs against the scripted server (Base and Gold, for the recipes that
# read a run's distractor choices) and the official-mode run on the 2022 release whose Gold
# run README's "Compare with published numbers" exports (docs/fidelity.md runs it with vLLM).
PREPARE = {
    "generate": [("generate", "knowgen", "--name", "b1", "--n", "3", "--seed", "0")],
    "import": [("export", "events", "--name", "e0", "--format", "elken", "--out", "train.json"),
               ("export", "knowgen", "--name", "alcuna1", "--format", "jsonl", "--out", "exports/items")],
    "eval": [("eval", "--benchmark", "newterm:2024", "--backend", "openai", "--base-url", "SCRIPTED",
              "--model", "scripted", "--silent"),
             ("eval", "--benchmark", "newterm:2022", "--task", "COMA_clean", "--task", "COST_clean", "--task",
              "CSJ_clean", "--backend", "openai", "--base-url", "SCRIPTED", "--model", "scripted",
              "--scoring", "official", "--limit", "8", "--silent")],
}


def plan() -> list[Step]:
    steps = [Step(phase_of(e), e) for e in all_examples() if e.key not in SKIP]
    for phase, commands in PREPARE.items():
        steps += [Step(phase, prepare=c) for c in commands]
    order = {p: i for i, p in enumerate(PHASES)}
    # prepare steps first within their phase; then the documents' order
    return sorted(steps, key=lambda s: (order[s.phase], s.example is not None))


class World:
    """The folder, the environment and the runs the examples share."""

    def __init__(self, root: Path, store, url: str):
        self.root, self.store, self.url = root, store, url

    # --- substitutions --------------------------------------------------------------------------
    def run_for(self, what: str, argv: list[str] | None = None) -> str:
        """A run the examples made, for what an example needs."""
        runs = self.store.user_query("MATCH (r:Run) RETURN r.id AS id, r.benchmark AS benchmark, "
                                     "coalesce(r.solver, r.setting) AS solver, r.setting AS setting, "
                                     "r.model AS model ORDER BY r.started_at, r.id")
        want = {
            "chrono": lambda r: r["benchmark"] == "chrono:general",
            "control": lambda r: "control-2020" in str(r["model"]),
            "link": lambda r: str(r["benchmark"]).startswith("link:"),
            "newterm-base": lambda r: r["benchmark"] == "newterm:2024" and "base" in str(r["solver"]),
            "newterm-gold": lambda r: r["benchmark"] == "newterm:2024" and "gold" in str(r["solver"]),
            "newterm-2022-gold": lambda r: r["benchmark"] == "newterm:2022" and "gold" in str(r["solver"]),
            "ice": lambda r: r["benchmark"] == "events:elken-test" and str(r["solver"]).startswith("ice"),
            "knowgen-A": lambda r: r["benchmark"] == "knowgen:alcuna1" and r["solver"] == "zero-shot",
            "knowgen-B": lambda r: r["benchmark"] == "knowgen:alcuna1" and r["solver"] == "few-shot",
            "birthyear": lambda r: str(r["benchmark"]).startswith("birthyear:"),
        }[what]
        found = [r["id"] for r in runs if want(r)]
        assert found, f"no run for {what!r} yet among {[(r['benchmark'], r['solver']) for r in runs]}"
        return found[-1]

    def _run_token(self, token: str, argv: list[str]) -> str:
        if token == "BIRTHYEAR_RUN":          # docs/tutorial.md's method, installed by the world
            return self.run_for("birthyear")
        if "--validity" in argv:
            return self.run_for("control")
        if "newterm-results" in argv:
            return self.run_for("newterm-2022-gold")
        if "helm" in argv:
            return self.run_for("ice")
        if argv[0] == "report":
            return self.run_for("knowgen-B" if token in ("OTHER_RUN_ID", "run-B") else "knowgen-A")
        return self.run_for("chrono")

    def argv(self, example: Example) -> list[str]:
        argv = example.argv
        out = []
        backend = argv[argv.index("--backend") + 1] if "--backend" in argv else "hf"
        for i, token in enumerate(argv):
            before = argv[i - 1] if i else ""
            # a stand-in is a whole argument or the value of KEY=VALUE (-p entity=ENTITY_ID, -S k=URL)
            key, sep, value = token.partition("=") if "=" in token else ("", "", token)
            key += sep
            if value in RUN_TOKENS:
                token = key + self._run_token(value, argv)
            elif value in ENTITY_TOKENS:
                token = key + ENTITY_TOKENS[value]
            elif value == EVENT_TOKEN:
                token = key + self.event_id()
            elif LOCAL_URL.match(value):
                token = key + self.url
            elif ((before == "--model" and backend == "hf") or before == "--scorer-model") \
                    and not (self.root / token).exists():
                token = TINY
            elif token == "/usr/share/wordnet" and not Path(token).is_dir():
                from knowforge.kg.loaders.wordnet import default_dir

                token = str(default_dir())
            out.append(token)
        out = [p for t in out for p in (sorted(str(p.relative_to(self.root)) for p in self.root.glob(t))
                                        if "*" in t else [t])]
        return self._small(out)

    @staticmethod
    def _small(argv: list[str]) -> list[str]:
        command = argv[0]
        caps = SMALL.get(command, {})
        out = list(argv)
        for option, cap in caps.items():
            if option in out:
                at = out.index(option) + 1
                out[at] = str(min(int(out[at]), cap))
            elif command == "eval":
                out += [option, str(cap)]
        if command == "train-control":
            out += SMALL_CONTROL
        return out

    def event_id(self) -> str:
        rows = self.store.user_query("MATCH (e:Event {batch: 'e0'}) RETURN e.id AS id ORDER BY e.seq, e.id LIMIT 1")
        assert rows, "no event of batch e0 yet"
        return rows[0]["id"]

    def params(self, values: dict) -> dict:
        out = {}
        for key, value in values.items():
            if isinstance(value, str) and value.startswith("RUN:"):
                value = self.run_for(value[4:])
            elif value == "ev:...":
                value = self.event_id()
            out[key] = value
        return out

    # --- running ----------------------------------------------------------------------------------
    def invoke(self, argv: list[str]):
        result = CliRunner().invoke(cli, argv)
        if result.exit_code != 0 and argv[0] == "generate" and "already exists; drop it first" in result.output:
            # a name an earlier example made: drop it, as the message says, and generate again
            drop = re.search(r"knowforge generate (\w+) --drop (\S+?)\)", result.output)
            assert drop, result.output
            dropped = CliRunner().invoke(cli, ["generate", drop.group(1), "--drop", drop.group(2)])
            assert dropped.exit_code == 0, dropped.output
            result = CliRunner().invoke(cli, argv)
        return result


def _layout(root: Path) -> None:
    """The files the examples name, in the folder they run in."""
    samples = samples_dir()
    releases = ROOT / "tests" / "releases"
    (root / "cypher").symlink_to(ROOT / "cypher")
    wikidata = (samples / "wikidata" / "entities.json").read_bytes()
    (root / "latest-all.json.bz2").write_bytes(bz2.compress(wikidata))
    (root / "dump.json.gz").write_bytes(gzip.compress(wikidata))
    (root / "later-changes.json").write_bytes(wikidata)
    from test_loaders_sparql_rdf import write_nt

    write_nt(root / "latest-truthy.nt.gz")
    (root / "qids.txt").write_text("\n".join(QIDS) + "\n", encoding="utf-8")
    (root / "words.txt").write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    (root / "new_terms.jsonl").write_text("".join(json.dumps(t) + "\n" for t in NEW_TERMS), encoding="utf-8")
    links = {"taxdump": samples / "taxonomy", "cfr": samples / "cfr", "triples.tsv": samples / "mathkg" / "triples.tsv",
             "cskg.tsv": samples / "cskg" / "cskg.tsv", "benchmark_2022": samples / "newterm_2022",
             "2021AA": samples / "umls" / "2021AA", "2022AA": samples / "umls" / "2022AA",
             "2023AA": samples / "umls" / "2023AA",
             "ALCUNA/dataset": releases / "alcuna", "meta_data.jsonl": releases / "alcuna" / "meta_data.jsonl",
             "id2question.json": releases / "alcuna" / "id2question.json",
             "ChroKnowBench": releases / "chroknowbench", "path/to/ChroKnowBench": releases / "chroknowbench",
             "TimeVariant_Biomedical_Dynamic.jsonl": releases / "chroknowbench" / "TimeVariant_Biomedical_Dynamic.jsonl",
             "Fewshots": releases / "chroknowbench" / "Fewshots",
             "lint_head.jsonl": releases / "lint" / "lint_head.jsonl",
             "lint_longtail.jsonl": releases / "lint" / "lint_longtail.jsonl",
             "test.json": releases / "elken" / "test_truncated.json",
             "data/original/test.json": releases / "elken" / "test_truncated.json",
             # exported by a PREPARE step before the examples read them
             "items.jsonl": root / "exports" / "items" / "items.jsonl",
             "bench.jsonl": root / "exports" / "items" / "items.jsonl"}
    for name, target in links.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).symlink_to(target)
    rules = sorted((ROOT / "generators" / "link" / "rules").glob("*.yaml"))[0]
    shutil.copy(rules, root / "my_rules.yaml")


@pytest.fixture(scope="module")
def world(neo4j_server, session_store, tmp_path_factory):
    from exports_bench import wipe

    _, settings = neo4j_server
    root = tmp_path_factory.mktemp("documented")
    _layout(root)
    wipe(session_store)
    server, url = newterm_llm.serve()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        install_birthyear(root / "site", mp)   # docs/tutorial.md's method, as a reader installs it
        for key, value in {"NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
                           "NEO4J_PASSWORD": settings.password, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "test",
                           "KNOWFORGE_CACHE_DIR": str(root / ".cache"), "KNOWFORGE_NEO4J_HOME": str(root / ".neo4j"),
                           "COLUMNS": "100", "BROWSER": "true"}.items():
            mp.setenv(key, value)
        yield World(root, session_store, url)
    methods.refresh()            # the tutorial's method leaves with the world
    server.shutdown()
    server.server_close()


def test_every_example_runs_here_or_is_skipped_with_a_reason():
    keys = {e.key for e in all_examples()}
    stale = sorted(set(SKIP) - keys)
    assert not stale, f"skipped examples the docs no longer show: {stale}"
    assert all(reason.strip() for reason in SKIP.values())
    for example in all_examples():
        if example.kind == "recipe":
            assert example.key in RECIPE_PARAMS, f"{example.where}: give its parameters in RECIPE_PARAMS"
        if example.kind == "command" and example.key not in SKIP:
            assert "--backend vllm" not in example.key, f"{example.where}: a vLLM example cannot run here: SKIP it"


STEPS = plan()


@pytest.mark.parametrize("step", STEPS, ids=[s.id for s in STEPS])
def test_documented_example(world, step, request, monkeypatch):
    if step.example is None:
        argv = [world.url if a == "SCRIPTED" else a for a in step.prepare]
        result = world.invoke(argv)
        assert result.exit_code == 0, result.output
        return
    example = step.example
    if example.kind == "command":
        for key, value in example.env.items():
            monkeypatch.setenv(key, str(request.getfixturevalue(ENV_MODELS[value])) if value in ENV_MODELS else value)
        argv = world.argv(example)
        result = world.invoke(argv)
        assert result.exit_code == 0, f"{example.where}: knowforge {shlex.join(argv)}\n{result.output}"
        assert result.output.strip(), f"{example.where}: no output"
        if argv[0] == "query":
            rows = (json.loads(result.stdout) if "--format" in argv and "json" in argv
                    else None)
            assert "(no rows)" not in result.output and (rows is None or rows), f"{example.where}: no rows"
        return
    if example.kind == "recipe":
        params = world.params(RECIPE_PARAMS[example.key])
        argv = ["query", "--file", f"cypher/queries/{example.key}.cypher", "--format", "json"]
        argv += [p for k, v in params.items() for p in ("-p", f"{k}={json.dumps(v)}")]
        result = world.invoke(argv)
        assert result.exit_code == 0, f"{example.where}: {result.output}"
        assert json.loads(result.stdout), f"{example.where}: no rows with {params}"
        return
    params = world.params({**example.params, **{k: v for k, v in CYPHER_RUNS.items() if re.search(rf"\${k}\b", example.key)}})
    rows = world.store.user_query(example.key, params)
    assert rows, f"{example.where}: no rows with {params}"


def test_the_viewer_examples(world):
    """`knowforge view` serves until stopped: each documented form starts, says where, serves its
    first page, and stops on SIGTERM."""
    for key in ("knowforge view", "knowforge view --open", "knowforge view --port 9000 --open"):
        argv = shlex.split(key)[1:]
        process = subprocess.Popen([str(Path(sys.executable).parent / "knowforge"), *argv],
                                   stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=os.environ)
        try:
            url = served_url(process) + "/"
            with urllib.request.urlopen(url, timeout=60) as response:
                assert response.status == 200 and b"run" in response.read()
        finally:
            process.terminate()
            process.wait(timeout=30)
