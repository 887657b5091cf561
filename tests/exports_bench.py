"""One small benchmark of every installed method, generated on the bundled samples in the real
Neo4j through the CLI: the input of the export tests (tests/test_exports_*.py)."""

from __future__ import annotations

from click.testing import CliRunner

from knowforge.cli.main import cli
from knowforge.kg.loaders.samples import samples_dir

# `knowforge generate METHOD ...` arguments that make tens of items on the bundled samples.
# A method installed without an entry here fails test_every_installed_method_is_exported.
SMALL = {
    # first: importing a release loads its terms into the source graph, and every later
    # benchmark records the source-graph hash as it is when it is generated
    "newterm": ["--import", str(samples_dir() / "newterm_2022"), "--name", "xn", "--seed", "5"],
    "knowgen": ["--name", "xk", "--seed", "1", "--n", "2", "--max-ku", "2", "--max-ka2", "1", "--max-ka3", "0"],
    "chrono": ["--domain", "general", "--name", "xc", "--seed", "3", "--from", "2022", "--to", "2023",
               "--max-per-relation", "1", "--relations", "P54,P39,P108"],
    "events": ["--name", "xe", "--seed", "2", "--n", "1", "--types", "win-election,transfer-player"],
    "link": ["--name", "xl", "--seed", "4", "--n", "2", "--rule", "locational_currency"],
}
NAMES = {"newterm": "xn", "knowgen": "xk", "chrono": "xc", "events": "xe", "link": "xl"}
SEEDS = {"newterm": 5, "knowgen": 1, "chrono": 3, "events": 2, "link": 4}


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def wipe(store) -> None:
    with store.driver.session(database=store.database) as session:
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()


def make_benchmarks(neo4j_server, store, sources: tuple[str, ...] = ()) -> dict[str, str]:
    """Empty the graph, load the bundled samples (``sources``, default all) and generate one small
    benchmark per method with ``knowforge generate``; method -> benchmark name."""
    import pytest

    from knowforge.kg.loaders.registry import load_source
    from knowforge.kg.loaders.samples import sample_paths

    wipe(store)
    found = sample_paths()
    for source in sources or tuple(found):
        if source not in found:
            pytest.fail(f"the bundled {source} sample is missing from kg/samples")
        load_source(store, source, found[source])
    _, settings = neo4j_server
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NEO4J_URI", settings.uri)
        mp.setenv("NEO4J_USER", settings.user)
        mp.setenv("NEO4J_PASSWORD", settings.password)
        for method, args in SMALL.items():
            result = invoke("generate", method, *args, "--silent")
            assert result.exit_code == 0, result.output
            assert result.output.strip().splitlines()[-1] == f"{method}:{NAMES[method]}"
    return dict(NAMES)
