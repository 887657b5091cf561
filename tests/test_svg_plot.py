"""The report's SVG plots (eval/svg_plot.py): bars and error bars where the numbers put them, an
axis that spans only the data's years, labels escaped, and the same bytes for the same numbers."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from knowforge.eval.svg_plot import PANEL_H, Panel, Point, Series, chart, figure, percent_point

SVG = "{http://www.w3.org/2000/svg}"


def _frame(root: ET.Element) -> tuple[float, float]:
    """(top, bottom) y of the plot frame: the rect with a stroke."""
    frame = next(e for e in root.iter(f"{SVG}rect") if e.get("stroke") == "#444")
    top = float(frame.get("y"))
    return top, top + float(frame.get("height"))


def test_bars_and_error_bars_sit_at_their_values():
    panel = Panel("Accuracy by task", [Series("acc", [percent_point("a", 0.25, [0.2, 0.3]),
                                                     percent_point("b", 0.5, None), Point("c", None)])])
    root = ET.fromstring(chart(panel))
    top, bottom = _frame(root)
    assert bottom - top == PANEL_H
    bars = [e for e in root.iter(f"{SVG}rect") if e.get("fill") not in ("white", "none")]
    # "c" has no value: no bar, but its tick label is there
    assert [round(float(b.get("height")) / PANEL_H, 3) for b in bars] == [0.25, 0.5]
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert {"a", "b", "c", "Accuracy by task"} <= set(labels)
    # a's error bar runs from 20% to 30% (the vertical line drawn in black among the grid lines)
    error = [e for e in root.iter(f"{SVG}line") if e.get("x1") == e.get("x2") and e.get("stroke") == "#222"
             and float(e.get("y1")) < bottom - 1]
    spans = {(round((bottom - float(e.get("y1"))) / PANEL_H, 3), round((bottom - float(e.get("y2"))) / PANEL_H, 3))
             for e in error}
    assert (0.3, 0.2) in spans


def test_one_year_is_one_tick_and_years_are_not_padded_to_a_decade():
    one = ET.fromstring(chart(Panel("by year", [Series("t", [Point(2021, 40.0)], kind="line")])))
    assert [t.text for t in one.iter(f"{SVG}text") if t.text and t.text.isdigit() and len(t.text) == 4] == ["2021"]
    two = ET.fromstring(chart(Panel("by year", [Series("t", [Point(2010, 40.0), Point(2012, 50.0)], kind="line")])))
    assert [t.text for t in two.iter(f"{SVG}text") if t.text and len(t.text) == 4 and t.text.isdigit()] == [
        "2010", "2012"]


def test_labels_from_the_data_are_escaped_and_the_bytes_are_stable():
    hostile = '<script>alert("x")</script> & co'
    panel = Panel(f"runs {hostile}", [Series(hostile, [Point(hostile, 10.0)]), Series("b", [Point(hostile, 5.0)])])
    text = chart(panel)
    assert "<script>" not in text
    root = ET.fromstring(text)          # well-formed
    assert hostile in {t.text for t in root.iter(f"{SVG}text")}   # the legend and the tick label, as written
    assert chart(panel) == text


def test_a_grid_of_panels_is_one_document_with_every_title():
    panels = [[Panel(f"{t} / {c}", [Series("known", [Point(2010, 50.0, 40.0, 60.0)], kind="line")])
               for c in ("dynamic", "static")] for t in ("generation", "mcqa")]
    root = ET.fromstring(figure("per-year knowledge", panels))
    titles = {t.text for t in root.iter(f"{SVG}text")}
    assert {"per-year knowledge", "generation / dynamic", "mcqa / static"} <= titles
    assert len([e for e in root.iter(f"{SVG}rect") if e.get("stroke") == "#444"]) == 4
