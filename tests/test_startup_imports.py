"""A command imports what it runs, no more (issue 33): `knowforge --help` needs no driver, a graph
command no model library, and the driver comes without pandas and pyarrow (kg/driver.py).

Each check is a fresh interpreter that imports what the command imports and lists the heavy
modules it then holds; the figures these save are in benchmarks/RESULTS.md ("CLI start-up").
"""

from __future__ import annotations

import json
import subprocess
import sys

MODEL_LIBRARIES = ("torch", "transformers", "datasets", "vllm", "sentence_transformers", "lm_eval", "pyspark")
HEAVY = (*MODEL_LIBRARIES, "neo4j", "pandas", "pyarrow", "networkx", "scipy", "matplotlib")


def _imported_after(code: str) -> list[str]:
    """The HEAVY modules a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_help_lists_every_command_without_the_driver():
    code = ("from click.testing import CliRunner\nfrom knowforge.cli.main import cli\n"
            "result = CliRunner().invoke(cli, ['--help'])\nassert result.exit_code == 0, result.output\n"
            "assert 'load' in result.output and 'generate' in result.output and 'eval' in result.output\n"
            "result = CliRunner().invoke(cli, ['load', '--help'])\nassert 'wikidata' in result.output")
    assert _imported_after(code) == []


def test_a_graph_command_imports_the_driver_and_every_method_but_no_model_library():
    # what `knowforge generate knowgen ...` holds before it opens the graph: the store, the workflow,
    # and every method's declaration and generator (the generate group lists them all)
    code = ("import knowforge.kg.connection, knowforge.kg.loaders.registry, knowforge.workflow\n"
            "from click.testing import CliRunner\nfrom knowforge.cli.main import cli\n"
            "for group in ('generate', 'export'):\n"
            "    for name in ('knowgen', 'chrono', 'events', 'newterm', 'link'):\n"
            "        result = CliRunner().invoke(cli, [group, name, '--help'])\n"
            "        assert result.exit_code == 0, result.output")
    assert _imported_after(code) == ["neo4j"]


def test_the_driver_works_without_pandas_and_pandas_still_imports_after_it():
    code = ("from knowforge.kg.driver import neo4j\nimport sys\nassert 'pandas' not in sys.modules\n"
            "from neo4j import Query, RoutingControl\nassert Query('RETURN 1').text == 'RETURN 1'\n"
            "import pandas, pyarrow\nassert pandas.DataFrame({'a': [1]}).shape == (1, 1)")
    assert set(_imported_after(code)) == {"neo4j", "pandas", "pyarrow"}


def test_the_driver_sees_pandas_when_it_came_first():
    # nothing blocked: the driver's pandas support is there, as without kg/driver.py
    code = ("import pandas\nfrom knowforge.kg.driver import neo4j\nimport neo4j._optional_deps as deps\n"
            "assert deps.pd is pandas")
    assert "pandas" in _imported_after(code)
