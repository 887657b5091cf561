"""Packaging and deployment files stay consistent with the design card."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import yaml

from knowforge.kg.neo4j_server import MANIFEST, NEO4J_VERSION

ROOT = Path(__file__).resolve().parents[1]


def test_core_install_has_no_torch_and_extras_exist():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(meta["dependencies"]).lower()
    assert "torch" not in core and "vllm" not in core and "transformers" not in core
    for pkg in ("neo4j", "neo4j-rust-ext", "rdflib", "sparqlwrapper", "networkx", "openai",
                "rapidfuzz", "click", "rich"):
        assert re.search(rf"(^|\s){re.escape(pkg)}>=", core), pkg
    extras = meta["optional-dependencies"]
    assert {"hf", "vllm", "retrieval", "dev"} <= set(extras)
    assert any(d.startswith("torch") for d in extras["hf"])
    assert meta["scripts"]["knowforge"] == "knowforge.cli.main:cli"


def test_maven_manifest_pins_the_server_version():
    text = MANIFEST.read_text()
    assert f"<neo4j.version>{NEO4J_VERSION}</neo4j.version>" in text
    assert NEO4J_VERSION.startswith("5.26.")


def test_compose_file_is_minimal_and_correct():
    compose = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())
    neo4j = compose["services"]["neo4j"]
    assert neo4j["image"] == "neo4j:5.26-community"
    assert neo4j["env_file"] == "neo4j.env"
    assert all(p.startswith("127.0.0.1:") for p in neo4j["ports"])
    assert "neo4j-data:/data" in neo4j["volumes"]
    vllm = compose["services"]["vllm"]
    assert vllm["profiles"] == ["gpu"]
    assert vllm["image"].startswith("vllm/vllm-openai")


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "make test" in ci and "make test" in readme and "make demo" in readme


def test_ci_installs_the_browser_before_the_tests():
    """The viewer's browser tests need Debian's chromium: CI installs it before `make test`, and
    the README says how to install it by hand."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.index("apt-get install -y -qq chromium") < ci.rindex("make test")
    assert ci.rstrip().splitlines()[-1] == "make test"
    assert "apt-get install -y chromium" in (ROOT / "README.md").read_text()


PACKAGES = {"kg": "knowforge.kg", "models": "knowforge.models", "generators": "knowforge.generators",
            "eval": "knowforge.eval", "knowforge": "knowforge"}


def _absolute(package: str, level: int, module: str | None) -> str:
    """The absolute name of ``from <level dots><module> import ...`` inside ``package``."""
    if level == 0:
        return module or ""
    base = package.split(".")[: len(package.split(".")) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _imports(folder: str) -> set[tuple[str, str]]:
    """(file, imported module) for every import in ``folder``, relative ones made absolute, and
    ``from PACKAGE import name`` also as ``PACKAGE.name`` (``from knowforge import eval``)."""
    import ast

    found = set()
    for path in (ROOT / folder).rglob("*.py"):
        rel = path.relative_to(ROOT)
        parts = [PACKAGES[folder], *rel.parts[1:-1]]
        package = ".".join(parts)          # a module's package; an __init__.py's own package
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = _absolute(package, node.level, node.module)
                found.add((str(rel), module))
                found.update((str(rel), f"{module}.{a.name}") for a in node.names)
            elif isinstance(node, ast.Import):
                found.update((str(rel), a.name) for a in node.names)
    return found


# ARCHITECTURE.md: kg <- models <- generators, eval <- knowforge (registry, workflow) <- cli, view.
# Each layer may import only downwards.
ABOVE_METHODS = ("knowforge.methods", "knowforge.workflow", "knowforge.cli", "knowforge.view")
LAYER_RULES = {
    "kg": ("knowforge.models", "knowforge.generators", "knowforge.eval", *ABOVE_METHODS),
    "models": ("knowforge.generators", "knowforge.eval", *ABOVE_METHODS),
    "generators": ("knowforge.eval", *ABOVE_METHODS),
    "eval": ("knowforge.generators", *ABOVE_METHODS),
}


def _violations() -> list[tuple[str, str]]:
    bad = []
    for folder, forbidden in LAYER_RULES.items():
        bad += [(path, module) for path, module in _imports(folder)
                if any(module == f or module.startswith(f + ".") for f in forbidden)]
    # the registry and the workflow sit below the CLI: nothing outside knowforge/cli imports it
    bad += [(path, module) for path, module in _imports("knowforge")
            if not path.startswith("knowforge/cli/") and (module == "knowforge.cli" or
                                                          module.startswith("knowforge.cli."))]
    return bad


def test_layers_depend_only_downwards():
    """kg/ imports no other layer; models/ only kg/; generators/ and eval/ never import each
    other nor the registry, the workflow or the CLI above them; only the CLI imports the CLI
    (ARCHITECTURE.md)."""
    assert _violations() == []


def test_the_layer_check_sees_relative_and_package_imports(tmp_path, monkeypatch):
    """The check itself: an import of eval from generators is caught in each spelling."""
    fake = tmp_path / "generators" / "knowgen"
    fake.mkdir(parents=True)
    (fake / "a.py").write_text("from ...eval.types import X\n")
    (fake / "b.py").write_text("from knowforge import eval\n")
    (fake / "c.py").write_text("import knowforge.eval.scorers\n")
    (fake / "d.py").write_text("from .. import workflow\n")            # knowforge.generators.workflow: allowed
    (fake / "e.py").write_text("from .apply import x\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = {(path, module) for path, module in _imports("generators")}
    assert ("generators/knowgen/a.py", "knowforge.eval.types") in found
    assert ("generators/knowgen/b.py", "knowforge.eval") in found
    assert ("generators/knowgen/c.py", "knowforge.eval.scorers") in found
    assert ("generators/knowgen/e.py", "knowforge.generators.knowgen.apply") in found
    flagged = {path for path, _ in _violations() if path.startswith("generators/")}
    assert flagged == {"generators/knowgen/a.py", "generators/knowgen/b.py", "generators/knowgen/c.py"}


def test_every_package_folder_is_in_the_package_list():
    """setuptools installs only the packages pyproject lists: a folder with an __init__.py that
    is not listed is missing from a wheel, and its imports fail only after installation."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(tool["packages"])
    found = set()
    for package, folder in tool["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *relative)))
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - found == set(), "listed but no folder with an __init__.py"


def test_the_wordnet_and_newterm_loaders_import_each_other_one_way_at_module_level():
    """wordnet.py links term meanings to lemmas (newterms.py), newterms.py reads lemma keys
    (lemmas.py): no function-level import hides a cycle between the two loaders."""
    import ast

    loaders = ROOT / "kg" / "loaders"
    for name, forbidden in (("newterms.py", "knowforge.kg.loaders.wordnet"), ("wordnet.py", None)):
        tree = ast.parse((loaders / name).read_text())
        top = set(tree.body)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("knowforge.kg.loaders."):
                assert node.module != forbidden, f"{name} imports {node.module}"
                assert node in top, f"{name}:{node.lineno}: function-level import of {node.module}"
