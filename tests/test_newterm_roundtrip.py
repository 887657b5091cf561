"""A NewTerm release end to end: import → eval (a scripted OpenAI-compatible server answering in
varied forms) → `knowforge export run` → the official get_results.py (transliterated in
tests/test_compat_differential.py) on the exported files → the same numbers as our report, metric
by metric: the plain and the `*_clean` sets, Base and Gold, three phrasings each."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from knowforge.cli.main import cli
from scripted_openai import ScriptedCompletions, serving
from test_compat_differential import ref_choice_file, ref_csj_file, ref_model_prompt

CHOICE_FORMS = ("{L}", "({L})", "Answer: {L}", "{l}", "The answer is {L}.", "{L}. {text}", "I pick {L}",
                "{text}", "Option {L} seems right", "A or {L}?")
CSJ_FORMS = ("YES", "Yes.", "yes", "NO", "No, it is not.", "Correct", "Incorrect", "Acceptable",
             "Unacceptable", "Not sure", "maybe")


class Varied(ScriptedCompletions):
    """Answers every prompt with a form picked by a hash of the prompt: letters in every casing and
    wrapping, option texts, yes/no words the two rules read differently. Never a token-less reply:
    get_results.py scores those with the previous line's letter (docs/fidelity.md)."""

    calls: list[str] = []

    def reply(self, prompt: str) -> str:
        h = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
        if "YES" in prompt or "Correct" in prompt or "Acceptable" in prompt:
            return CSJ_FORMS[h % len(CSJ_FORMS)]
        letter = "ABCD"[h % 4]
        text = prompt.split(f"\n{letter}. ", 1)[-1].split("\n", 1)[0] if f"\n{letter}. " in prompt else letter
        return CHOICE_FORMS[(h // 4) % len(CHOICE_FORMS)].format(L=letter, l=letter.lower(), text=text)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def official_scores(folder: Path) -> dict[tuple[str, str], dict[str, float]]:
    """get_results.py on one results_{year}/ folder: (model, prompt) -> {task: score ×100}."""
    out: dict[tuple[str, str], dict[str, float]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        task = path.name.split("_", 1)[0]
        if task == "CSJ":
            score = ref_csj_file(lines)[0]
        else:
            verdicts = ref_choice_file(lines)
            score = 100 * sum(verdicts) / len(verdicts)
        out.setdefault(ref_model_prompt(path), {})[task] = score
    return out


def test_release_to_official_scores_equal_our_report(shared_formats, store, graph_env, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    release = shared_formats / "newterm_2022"
    result = invoke("generate", "newterm", "--import", release, "--name", "rt2022", "--silent")
    assert result.exit_code == 0, result.output
    with serving(Varied) as url:
        result = invoke("eval", "--benchmark", "newterm:rt2022", "--backend", "openai", "--model", "org/m_1",
                        "--base-url", url, "--scoring", "official", "--max-tokens", "8", "--no-cache",
                        "--out", tmp_path / "runs", "--silent")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "runs" / "newterm-rt2022" / "summary.json").read_text())
    runs = summary["runs"]
    base, gold = runs["newterm(setting=base)"], runs["newterm(setting=gold)"]
    for run in (base, gold):
        # every item under its three phrasings, each a sample of the run
        assert run["samples"] == 3 * run["items"] and run["items"] == 1644

    out = tmp_path / "exported"
    result = invoke("export", "run", gold["run_id"], "--format", "newterm-results", "--out", out)
    assert result.exit_code == 0, result.output
    scored = {variant: official_scores(out / variant / "results_2022") for variant in ("clean", "raw")}
    model = "m-1"                                       # results_model_name("org/m_1")
    compared = 0
    for task_name, metrics in gold["metrics"].items():
        task = task_name.split("/", 1)[1]               # COMA, COMA_clean, ...
        variant = "clean" if task.endswith("_clean") else "raw"
        base_task = task.removesuffix("_clean")
        for prompt, ours in (("base", metrics["newterm_base"]), ("gold", metrics["newterm_gold"])):
            theirs = scored[variant][(model, prompt)][base_task]
            assert 100 * ours == pytest.approx(theirs, abs=1e-9), (task, prompt)
            compared += 1
    assert compared == 6 * 2
    # every line of the release is written once per phrasing, with its prompt_id
    coma = [json.loads(line) for line in (out / "clean" / "results_2022" / f"COMA_{model}_gold.jsonl").open()]
    assert len(coma) == 3 * 255 and {line["prompt_id"] for line in coma} == {0, 1, 2}
    assert all(line["prompt_id"] == k % 3 for k, line in enumerate(coma))

    # the Base run's own export scores as its own report
    out_base = tmp_path / "exported-base"
    assert invoke("export", "run", base["run_id"], "--format", "newterm-results", "--out", out_base).exit_code == 0
    base_scored = official_scores(out_base / "clean" / "results_2022")
    assert set(base_scored) == {(model, "base")}
    assert base_scored[(model, "base")]["CSJ"] == pytest.approx(100 * base["metrics"]["newterm/CSJ_clean"]["newterm_score"])
