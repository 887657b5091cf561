"""Packaging and deployment files stay consistent with the design card."""

from __future__ import annotations

import re
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


def _imports(folder: str) -> set[tuple[str, str]]:
    import ast

    found = set()
    for path in (ROOT / folder).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add((str(path.relative_to(ROOT)), node.module))
            elif isinstance(node, ast.Import):
                found.update((str(path.relative_to(ROOT)), a.name) for a in node.names)
    return found


# ARCHITECTURE.md: kg <- models <- generators, eval <- cli. Each layer may import only these.
LAYER_RULES = {
    "kg": ("knowforge.models", "knowforge.generators", "knowforge.eval", "knowforge.cli", "knowforge.methods"),
    "models": ("knowforge.generators", "knowforge.eval", "knowforge.cli", "knowforge.methods"),
    "generators": ("knowforge.eval", "knowforge.cli"),
    "eval": ("knowforge.generators", "knowforge.cli"),
}


def test_layers_depend_only_downwards():
    """kg/ imports no other layer; models/ only kg/; generators/ and eval/ never import each
    other; no layer imports the CLI (ARCHITECTURE.md)."""
    bad = []
    for folder, forbidden in LAYER_RULES.items():
        bad += [(path, module) for path, module in _imports(folder) if module.startswith(forbidden)]
    assert bad == []
