"""Terminal tables never cut an id: every table the CLI prints, rendered in an 80-column
terminal, still holds each id whole on one line (other columns fold first)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from knowforge.eval.report import headline_table, plan_table, trend_table
from knowforge.kg.ripple import FactRef, RippleFact, RippleReport, ripple_table_rows
from knowforge.models.tables import LONGEST_WHOLE, table_of, whole_columns, whole_width

RUN = "run-20261127T074509-0ad56066"
OTHER = "run-20261128T101112-1b2c3d4e"
ENTITY = "gen:demo:000017"
BENCHMARK = "knowgen:alcuna1"


def render(table, width: int = 80) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))   # noqa: SIM115
    console.print(table)
    return console.export_text()


def test_a_plain_rich_table_cuts_ids_where_ours_keeps_them():
    headers = ["id", "model", "backend", "benchmark", "accuracy", "started_at"]
    rows = [[RUN, "models/control-2020", "hf", BENCHMARK, "41.0", "2026-11-27T07:45:09.123000+00:00"]]
    plain = Table()
    for h in headers:
        plain.add_column(h)
    plain.add_row(*rows[0])
    assert RUN not in render(plain)             # what people saw: run-202611…
    text = render(table_of(headers, rows, right={"accuracy"}, ids={"id", "benchmark"}))   # as `results --list`
    assert RUN in text and BENCHMARK in text
    # the other columns folded instead: nothing of them is cut either
    assert "…" not in text


def test_which_columns_stay_on_one_line():
    assert whole_width([RUN, "-", "x"]) == len(RUN)
    assert whole_width(["x" * (LONGEST_WHOLE + 1)]) is None                 # a very long cell folds
    assert whole_width([]) is None
    headers = ["name", "accuracy", "id"]
    rows = [["a name long enough to need folding in a narrow table", "50.0 ± 30.0", RUN]]
    # the id first, then the narrowest; the 52-character name folds
    assert whole_columns(headers, rows, ids={"id"}) == {2: len(RUN), 1: 11}
    # in a terminal too narrow for both, the id wins over the narrower column
    assert whole_columns(headers, rows, ids={"id"}, width=50) == {2: len(RUN)}


def test_query_table_keeps_entity_ids_whole():
    rows = [[f"gen:demo:{i:06d}", f"Artificial taxon number {i} with a long name", '["Entity", "Artificial"]',
             "a description that goes on for a while so the table is wider than the terminal"]
            for i in range(3)]
    text = render(table_of(["id", "name", "labels", "description"], rows))
    assert all(f"gen:demo:{i:06d}" in text for i in range(3))
    assert "…" not in text


def _report(run_id: str) -> dict:
    stats = {"items": 12, "samples": 12, "n": 12, "accuracy": 0.5, "ci": [0.2, 0.8], "errors": 0}
    return {"run_id": run_id, "run": {"model": "models/control-2020", "backend": "hf", "solver": "zero-shot",
                                      "setting": "zero-shot", "n": 1},
            "scope": {"benchmark": BENCHMARK, "tasks": ["knowgen/KA", "knowgen/KD_with_a_long_name"], "items": 12},
            "overall": stats,
            "by_task": {"knowgen/KA": stats, "knowgen/KD_with_a_long_name": stats}}


def test_report_tables_keep_run_ids_and_tasks_whole():
    report, other = _report(RUN), _report(OTHER)
    other["paired"] = {"overall": {"difference": 0.1, "ci": [-0.1, 0.3], "p_value": 0.2}, "by_task": {}}
    text = render(headline_table(report, other))
    assert RUN in text and OTHER in text and "knowgen/KD_with_a_long_name" in text
    trend = [{"run_id": r, "benchmark": BENCHMARK, "setting": "base", "items": 12, "(all)": 0.5, "knowgen/KA": 0.4,
              "ci": {"(all)": [0.2, 0.8], "knowgen/KA": [0.1, 0.7]}} for r in (RUN, OTHER)]
    text = render(trend_table(trend))
    assert RUN in text and OTHER in text
    row = {"accuracy": 0.5, "independent": {"variance": 0.25, "items_needed": 1234, "clusters_needed": 99,
                                            "icc": 0.1, "design_effect": 1.5}, "paired": None}
    planning = {"gap": 0.05, "power": 0.8, "alpha": 0.05, "unit": "entity_id",
                "by_task": {"knowgen/KD_with_a_long_name": row}, "overall": row}
    assert "knowgen/KD_with_a_long_name" in render(plan_table(planning))


def test_ripple_table_shows_labels_and_keeps_the_edit_readable():
    old = FactRef("f:1", "Q11571", "Cristiano Ronaldo", "P54", "Q999307907", "Al Nassr FC", "member of sports team")
    new = FactRef(None, "Q11571", "Cristiano Ronaldo", "P54", "Q8682", "Real Madrid CF", "member of sports team")
    far = FactRef("f:2", "Q8682", "Real Madrid CF", "P159", "Q2807", "Madrid", "headquarters location")
    report = RippleReport(target="Q11571,P54,Q999307907->Q8682", hops=1,
                          edited=[("retracted", old), ("asserted", new)],
                          changes=[{"subject": "Cristiano Ronaldo", "relation": "P54",
                                    "relation_label": "member of sports team", "object": "Real Madrid CF",
                                    "declared": "Q11571,P54,Q999307907->Q8682"}],
                          facts=[RippleFact(far, 1, "candidate", "reachable by path only", (far,))])
    rows = ripple_table_rows(report)
    assert rows[0][2] == "(Cristiano Ronaldo, P54 (member of sports team), Al Nassr FC)"
    assert rows[2][4] == "Q11571, P54, Q999307907 -> Q8682"      # wraps between the ids, not inside one
    text = render(table_of(("kind", "why", "fact", "hops", "path"), rows, right={"hops"}))
    assert "Q999307907" in text and "(headquarters" in text and "…" not in text


def test_query_and_results_in_an_80_column_terminal(store, graph_env, monkeypatch):
    from click.testing import CliRunner

    from knowforge.cli.main import cli
    from knowforge.kg.records import EntityRecord
    from knowforge.kg.writer import write_entities

    ids = [f"gen:demo-batch-with-a-long-name:{i:06d}" for i in range(3)]
    write_entities(store, [EntityRecord(id=i, name=f"Artificial taxon {n} with a rather long made-up name",
                                        description="a description long enough to need folding " * 2,
                                        source="test") for n, i in enumerate(ids)])
    monkeypatch.setenv("COLUMNS", "80")
    result = CliRunner().invoke(cli, ["query", "MATCH (e:Entity) RETURN e.name AS name, e.description AS "
                                      "description, e.id AS id ORDER BY id"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert all(i in result.output for i in ids) and "…" not in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80
