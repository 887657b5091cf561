"""Test fixtures: one real Neo4j per test session, started by the project's own code.

The server runs from the Maven-fetched jars (``knowforge neo4j install``) in a temporary home
on a free port, so test sessions never touch a user's data or each other. Set
``KNOWFORGE_TEST_NEO4J_URI`` (+ ``_USER``/``_PASSWORD``) to run against another server instead.
There is no mock: if Neo4j cannot start the graph tests fail loudly.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from knowforge.kg.connection import GraphSettings, open_store
from knowforge.kg.neo4j_server import ManagedNeo4j, free_port

# ../shared next to the repository; KNOWFORGE_SHARED_DIR points elsewhere (a git worktree
# whose parent folder has no shared/).
SHARED = Path(os.environ.get("KNOWFORGE_SHARED_DIR") or Path(__file__).resolve().parents[1].parent / "shared")


# Several test sessions may run at once on a 2-core, 24 GiB machine: keep each server small.
os.environ.setdefault("KNOWFORGE_NEO4J_HEAP", "512m")
os.environ.setdefault("KNOWFORGE_NEO4J_PAGECACHE", "128m")
# Every JVM the tests start (servers, admin imports, Spark) works on tiny inputs, where C2's
# compilations cost more CPU than they save: C1 alone halves a server start (issue 33). But a
# C1-only JVM gets a 48 MB code cache (the tiered JIT's is 240 MB): a session server's C1 code
# outgrew it (61 MB), and the sweeper flushed methods the JIT then compiled again (60,000
# compilations against 32,000, the sweeper thread 8 % of the server's CPU). 256 MB is only
# reserved address space; the two-file run cost the server about a fifth less CPU
# (benchmarks/RESULTS.md, "The test servers' code cache").
os.environ.setdefault("KNOWFORGE_JVM_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m")

# Under pytest-xdist (`PYTEST_WORKERS=2 make test`) every worker is a session of its own, with its
# own Neo4j, tiny model and Spark. torch would give each worker one thread per core, and N
# workers times that would oversubscribe the cores: each worker gets its share instead. Set
# before anything imports torch (nothing above does); subprocesses inherit it.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
if _WORKERS > 1:
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // _WORKERS)))


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory):
    """A running managed Neo4j in a temporary home; yields (server, settings)."""
    uri = os.environ.get("KNOWFORGE_TEST_NEO4J_URI")
    if uri:
        yield None, GraphSettings(uri=uri, user=os.environ.get("KNOWFORGE_TEST_NEO4J_USER", "neo4j"),
                                  password=os.environ["KNOWFORGE_TEST_NEO4J_PASSWORD"])
        return
    server = ManagedNeo4j(home=tmp_path_factory.mktemp("neo4j-home"))
    if not server.is_installed():
        server.install()
    # ports the OS hands out, not Neo4j's defaults: test sessions running side by side (a
    # developer's and CI's, several worktrees', xdist's workers starting together) never race
    # for 7687 or for the HTTP port 7474 (a start takes the configured one when it is free)
    server._write_config(free_port(), free_port())
    result = server.start(port=free_port(), timeout=240)
    settings = GraphSettings(uri=result.uri, user="neo4j", password=server.password())
    try:
        yield server, settings
    finally:
        server.stop(timeout=30)


@pytest.fixture(scope="session")
def session_store(neo4j_server):
    _, settings = neo4j_server
    store = open_store(settings)
    store.apply_schema()
    yield store
    store.close()


def wipe(store) -> None:
    # CALL ... IN TRANSACTIONS needs an auto-commit transaction, hence session.run.
    with store.driver.session(database=store.database) as session:
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()


@pytest.fixture
def store(session_store):
    """The session's store with an empty graph (schema kept)."""
    wipe(session_store)
    yield session_store


@pytest.fixture
def graph_env(neo4j_server, monkeypatch):
    """Environment that points CLI commands at the test server."""
    _, settings = neo4j_server
    monkeypatch.setenv("NEO4J_URI", settings.uri)
    monkeypatch.setenv("NEO4J_USER", settings.user)
    monkeypatch.setenv("NEO4J_PASSWORD", settings.password)
    return settings


@pytest.fixture
def shared_formats():
    """../shared/formats when present; tests that need it skip when it is absent."""
    path = SHARED / "formats"
    if not path.is_dir():
        pytest.skip("../shared/formats is not present")
    return path


# Model tests never download: tiny models are built locally (knowforge.models.tiny_model).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """A tiny random llama + BPE tokenizer (with a chat template) built once per session."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from knowforge.models.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny-model") / "model", seed=0)


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """One local Spark session (2 cores, few shuffle partitions) shared by the Spark tests."""
    from knowforge.kg.loaders.wikidata_spark import spark_session

    session = spark_session("local[2]", {"spark.sql.shuffle.partitions": "4"},
                            log_file=tmp_path_factory.mktemp("spark") / "spark.log")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def tiny_sentence_model(tmp_path_factory):
    """A random tiny BERT + a WordPiece tokenizer trained here, saved as a sentence-transformers folder."""
    pytest.importorskip("sentence_transformers")
    import torch
    from sentence_transformers import SentenceTransformer
    try:
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    except ImportError:   # sentence-transformers < 6
        from sentence_transformers.models import Pooling, Transformer
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, trainers
    from tokenizers.models import WordPiece
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    from knowforge.generators.events.templates import load_relations

    root = tmp_path_factory.mktemp("st")
    corpus = [r.question for r in load_relations().values()] + [
        "query: passage: transferred to won election founded company public offering enrolled "
        "married divorced died dismissed resigned published acquired lost born",
        "Cristiano Ronaldo Lionel Messi Real Madrid Chelsea United States United Kingdom London"]
    tok = Tokenizer(WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(corpus * 5, trainers.WordPieceTrainer(
        vocab_size=400, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                   cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    bert_dir = root / "bert"
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        BertModel(BertConfig(vocab_size=len(fast), hidden_size=32, num_hidden_layers=1,
                             num_attention_heads=2, intermediate_size=64)).save_pretrained(bert_dir)
    fast.save_pretrained(bert_dir)
    word = Transformer(str(bert_dir), max_seq_length=64)
    dim = (word.get_embedding_dimension() if hasattr(word, "get_embedding_dimension")
           else word.get_word_embedding_dimension())
    model = SentenceTransformer(modules=[word, Pooling(dim, "mean")], device="cpu")
    out = root / "e5-tiny"
    model.save(str(out))
    return out


def pytest_addoption(parser):
    parser.addoption("--suite-budget", action="store_true",
                     help="after the run, print each test file's time against benchmarks/suite_budget.json "
                          "and name the files that grew (benchmarks/suite_profile.py)")


def pytest_terminal_summary(terminalreporter, config):
    """Before pytest's closing line (CI reads it last): the time per file against its budget."""
    if not config.getoption("suite_budget"):
        return
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "suite_profile.py"
    spec = importlib.util.spec_from_file_location("suite_profile", path)
    suite_profile = sys.modules.setdefault("suite_profile", importlib.util.module_from_spec(spec))
    spec.loader.exec_module(suite_profile)
    profile = suite_profile.Profile()
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) in ("setup", "call", "teardown"):
                profile.tests[report.nodeid] += report.duration
                profile.files[suite_profile.file_of(report.nodeid)] += report.duration
    if not profile.tests:
        return
    lines, _ = suite_profile.compare(profile, top=0)
    terminalreporter.section("time per test file against benchmarks/suite_budget.json")
    for line in lines:
        terminalreporter.write_line(line)
