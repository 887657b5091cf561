"""The demo driver (scripts/demo.py, what `make demo` runs) end to end, on the bundled samples
with a reduced setting: a small control model trained briefly, few generated items and a small
ChroKnowPrompt sample. One run is shared by the tests of this module: it must reach the end
with a validity report, and a second run, after an ELKEN release was imported and stacked on
the demo's events, must reuse the trained model and print the same numbers.
The full `make demo` is measured (benchmarks/RESULTS.md), not tested.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import json
import re
import sys
from pathlib import Path

import pytest

from conftest import wipe

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / "tests" / "releases" / "elken" / "test_truncated.json"

# two demo runs share one module fixture: about 4 minutes on an idle 2-core machine, and more than
# pytest's default 600 s under load
pytestmark = [pytest.mark.hf, pytest.mark.timeout(1800)]


def _demo_module():
    spec = importlib.util.spec_from_file_location("knowforge_demo_driver", ROOT / "scripts" / "demo.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # its dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    return module


def _settings(demo, root: Path):
    return demo.Settings(out=root / "out", cutoff=2020, cache_dir=root / "cache",
                         control=dict(vocab_size=800, hidden_size=32, intermediate_size=64, num_layers=1,
                                      num_heads=2, epochs=0.5, event_practice=50),
                         chrono_sample=30, knowgen_n=12, knowgen_limit=20, knowgen_ku=20, event_n=1, link_n=2,
                         # the runs' own intervals from fewer resamples: the same code, and the validity
                         # report's verdicts draw their own
                         chrono_bootstrap=50, bootstrap=100,
                         # ROME and MEMIT edit, and every method probes the ripple of, the first 3 events
                         # (the demo: 8): the same code on fewer events
                         weight_events=3)


def _run(demo, settings) -> tuple[str, object]:
    printed = io.StringIO()
    result = demo.run_demo(settings, stream=printed)
    return printed.getvalue(), result


def _numbers(text: str) -> str:
    """What the benchmark steps printed (KnowGen to the end), without what may differ between two
    runs that measure the same: elapsed and CPU seconds (of the sections and of each editing method), run ids (and the report folders named
    after them), whether the control model was trained or reused, the note that the ELKEN batch
    was kept under a later one, and the two-hop ripple view (the imported release's events
    stacked later may show in it)."""
    text = text[text.index("== KnowGen"):]
    text = re.sub(r"\(\d+s, CPU \d+s\) ==", "==", text)
    text = re.sub(r" \((trained|reused: same config, same facts)\): ", " (MODEL): ", text)
    text = re.sub(r"CPU seconds of each editing method's evaluation:.*", "", text)
    text = re.sub(r"run-[0-9A-Za-z-]+", "RUN", text)
    text = re.sub(r"two-hop ripple of .*?(?=\n== )", "", text, flags=re.S)
    return "\n".join(line for line in text.splitlines() if "of an earlier demo lies under batch" not in line)


def _sections(text: str) -> dict[str, str]:
    """The ``== heading ==`` sections of ``text`` by heading, the control model's left out (the
    two schedules print the sections in different orders, and the model's before or after
    KnowGen; the tests compare its id)."""
    parts = re.split(r"^(== .* ==)$", text, flags=re.M)
    return {heading: body.strip() for heading, body in zip(parts[1::2], parts[2::2])
            if not heading.startswith("== Control model")}


@pytest.fixture(scope="module")
def demo_runs(session_store, neo4j_server, tmp_path_factory):
    """The demo run twice on a fresh graph, with an ELKEN release imported between the runs."""
    pytest.importorskip("torch")
    _, graph = neo4j_server
    demo = _demo_module()
    root = tmp_path_factory.mktemp("demo")
    wipe(session_store)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NEO4J_URI", graph.uri)
        mp.setenv("NEO4J_USER", graph.user)
        mp.setenv("NEO4J_PASSWORD", graph.password)
        # the first run trains beside the generation (the default), the second runs each step whole
        # (--train-first): the same numbers either way, section by section
        settings = _settings(demo, root)
        first_text, first = _run(demo, dataclasses.replace(settings, train_beside=True))
        first_validity = json.loads((settings.out / "validity" / "validity.json").read_text())
        # README's workflow: a released ELKEN benchmark imported on top of the demo's own events
        from knowforge.cli.main import cli
        from click.testing import CliRunner

        imported = CliRunner().invoke(cli, ["generate", "events", "--import", str(RELEASE), "--silent"])
        assert imported.exit_code == 0, imported.output
        second_text, second = _run(demo, dataclasses.replace(settings, train_beside=False))
    return dict(demo=demo, settings=settings, first=(first_text, first, first_validity),
                second=(second_text, second))


def test_the_demo_runs_to_the_end_with_its_validity_verdicts(demo_runs):
    text, result, validity = demo_runs["first"]
    settings = demo_runs["settings"]
    for title in ("Neo4j", "Control model", "KnowGen", "ChroKnow", "ELKEN", "NewTerm", "LINK", "Validity", "Done"):
        assert f"== {title}" in text or f"== {title}" in text.replace("== Load", "")
    # the evaluations, half of them in a second process, print in the steps' order all the same
    evaluations = text[text.index("== Control model: what it was taught"):]
    headings = [re.split(r"[:(]", h)[0].strip() for h in re.findall(r"^== (.*) ==$", evaluations, flags=re.M)]
    assert headings == ["Control model", "KnowGen", "ChroKnow", "ELKEN", "NewTerm", "LINK / LINT",
                        "Validity", "Done"], headings
    assert "(trained)" in text and result.card is not None
    # every evaluation of the demo is one of its runs, and the validity report covers exactly those
    assert validity["run_id"] == result.control_run
    assert {r["run_id"] for r in validity["runs"]} <= set(result.runs)
    assert validity["model"]["id"] == result.card.model_id
    sections = validity["sections"]
    assert {"chrono", "elken", "knowgen"} <= set(sections), sorted(sections)
    # ELKEN: each editing method against no edit, on the same events
    # the validity table names a method by its editing method: no-edit is "none"
    assert {row["method"] for row in sections["elken"]["data"]["runs"]} == {
        "none" if m == "no-edit" else m for m in demo_runs["demo"].EVENT_METHODS}
    # the seen vs unseen verdict of every run is computed from the model's training set
    assert all(t["task"] for part in validity["runs"] for t in part["tasks"])
    assert (settings.out / "validity" / "validity.md").read_text().startswith("# Validity")
    # the graph's source facts did not change after training (the next demo trains nothing)
    assert "source facts changed" not in text


def test_a_second_demo_after_an_imported_release_reuses_the_model_and_prints_the_same_numbers(demo_runs):
    first_text, first, _ = demo_runs["first"]
    second_text, second = demo_runs["second"]
    assert "(reused" in second_text and second.card.model_id == first.card.model_id
    assert "lies under batch elken-test-truncated" in second_text
    assert "Traceback" not in second_text
    # every benchmark step prints the same numbers
    assert _sections(_before_validity(_numbers(second_text))) == _sections(_before_validity(_numbers(first_text)))


def _before_validity(text: str) -> str:
    return text[:text.index("== Validity")] if "== Validity" in text else text


def test_a_second_demo_prints_the_same_validity_report(demo_runs):
    first_text, _, _ = demo_runs["first"]
    second_text, _ = demo_runs["second"]
    assert _sections(_numbers(second_text)) == _sections(_numbers(first_text))
