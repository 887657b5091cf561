"""Report plots as SVG text, drawn here from plain records.

Why not matplotlib: a run's report drew three to five PNGs, and matplotlib cost about 1 s of CPU
to import plus 0.15-0.2 s a figure. That was the largest fixed cost of ``knowforge eval`` outside
generation, against issue 33's budget of 0.5 s a run. These functions take about a millisecond a
plot, write the same bytes for the same numbers (a plot diffs like any file), and need no plotting
library at all. Every text is XML-escaped: labels come from the data (task and slice names).

A chart is one or more :class:`Panel` s, each with :class:`Series` of :class:`Point` s. Values
are percentages; ``low``/``high`` are a point's interval bounds (drawn as an error bar, clipped
to the axis). Numeric x values (years) get a numeric axis that spans only the data; anything
else is a category axis in first-seen order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal
from xml.sax.saxutils import escape, quoteattr

PALETTE = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C",
           "#CCB974", "#64B5CD")
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
CHAR = 6.2            # average width of an 11px character, for laying out labels and legends
PANEL_H = 220         # plot area height of one panel
MARGIN_L, MARGIN_T, MARGIN_R = 56, 34, 16


@dataclass(frozen=True)
class Point:
    x: float | str
    y: float | None                 # None: no value (no bar; a gap in a line)
    low: float | None = None        # interval bounds, in the axis' unit
    high: float | None = None


@dataclass(frozen=True)
class Series:
    label: str
    points: Sequence[Point]
    kind: Literal["bar", "line"] = "bar"
    dashed: bool = False
    color: str | None = None        # default: the palette, in series order


@dataclass(frozen=True)
class Panel:
    title: str
    series: Sequence[Series]
    ylabel: str = "accuracy (%)"
    xlabel: str = ""
    stacked: bool = False           # bars stack (their points' y add up), no error bars
    ylim: tuple[float, float] = (0.0, 100.0)
    legend: bool | None = None      # default: when there is more than one series


@dataclass
class _Canvas:
    parts: list[str] = field(default_factory=list)

    def text(self, x: float, y: float, value: str, *, size: int = 11, anchor: str = "middle",
             rotate: float | None = None, weight: str | None = None) -> None:
        extra = f' transform="rotate({rotate:g} {x:.1f} {y:.1f})"' if rotate else ""
        bold = f' font-weight="{weight}"' if weight else ""
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{bold}{extra}>'
                          f"{escape(value)}</text>")

    def line(self, x1: float, y1: float, x2: float, y2: float, *, stroke: str = "#222", width: float = 1,
             dash: bool = False) -> None:
        pattern = ' stroke-dasharray="5 3"' if dash else ""
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
                          f'stroke-width="{width:g}"{pattern}/>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str, *, stroke: str | None = None) -> None:
        edge = f' stroke="{stroke}"' if stroke else ""
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}" '
                          f'fill="{fill}"{edge}/>')

    def polyline(self, points: Sequence[tuple[float, float]], stroke: str, *, dash: bool = False) -> None:
        if len(points) < 2:
            return
        pattern = ' stroke-dasharray="5 3"' if dash else ""
        coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        self.parts.append(f'<polyline points="{coords}" fill="none" stroke="{stroke}" stroke-width="1.5"{pattern}/>')

    def circle(self, x: float, y: float, fill: str) -> None:
        self.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{fill}"/>')


def _numeric(panel: Panel) -> bool:
    values = [p.x for s in panel.series for p in s.points]
    return bool(values) and all(isinstance(x, int | float) and not isinstance(x, bool) for x in values)


def _categories(panel: Panel) -> list[str]:
    seen: dict[str, None] = {}
    for series in panel.series:
        for point in series.points:
            seen.setdefault(str(point.x), None)
    return list(seen)


def _legend_width(panel: Panel) -> float:
    if not _shows_legend(panel):
        return 0.0
    return 28 + CHAR * max(len(s.label) for s in panel.series)


def _shows_legend(panel: Panel) -> bool:
    return bool(panel.series) and (panel.legend if panel.legend is not None else len(panel.series) > 1)


def _panel_size(panel: Panel) -> tuple[float, float, float, float]:
    """(plot width, bottom margin for the x labels, legend width, left margin) of a panel."""
    left = MARGIN_L
    if _numeric(panel):
        years = sorted({float(p.x) for s in panel.series for p in s.points})
        width = max(260.0, 34.0 * len(years))
        bottom = 26.0
    else:
        labels = _categories(panel)
        bars = max(1, sum(1 for s in panel.series if s.kind == "bar") if not panel.stacked else 1)
        width = max(220.0, len(labels) * max(44.0, 18.0 * bars + 16))
        longest = max((len(label) for label in labels), default=0)
        bottom = 24 + min(160.0, 0.5 * CHAR * longest)
        if labels:   # the first label, slanted to the left of its tick, stays inside the figure
            left = max(left, 0.85 * CHAR * len(labels[0]) - width / len(labels) / 2 + 8)
    # the title is centred on the plot: the plot is at least as wide as the title
    width = max(width, 7.2 * len(panel.title) - 40)
    return width, bottom + (18 if panel.xlabel else 0), _legend_width(panel), left


def _draw_panel(canvas: _Canvas, panel: Panel, left: float, top: float, width: float) -> None:
    low, high = panel.ylim

    def ys(value: float) -> float:
        value = min(max(value, low), high)
        return top + PANEL_H * (1 - (value - low) / (high - low))

    canvas.text(left + width / 2, top - 10, panel.title, size=12, weight="bold")
    canvas.rect(left, top, width, PANEL_H, "none", stroke="#444")
    for tick in range(int(low // 20 * 20), int(high) + 1, 20):
        if low <= tick <= high:
            canvas.line(left - 4, ys(tick), left, ys(tick))
            canvas.line(left, ys(tick), left + width, ys(tick), stroke="#e4e4e4")
            canvas.text(left - 7, ys(tick) + 4, f"{tick}", size=10, anchor="end")
    canvas.text(left - 40, top + PANEL_H / 2, panel.ylabel, size=11, rotate=-90)

    if _numeric(panel):
        xs_all = sorted({float(p.x) for s in panel.series for p in s.points})
        span_low, span_high = xs_all[0] - 0.5, xs_all[-1] + 0.5

        def xpos(value: float | str, offset: float = 0.0) -> float:
            return left + width * (float(value) + offset - span_low) / (span_high - span_low)

        unit = width / (span_high - span_low)
        stride = max(1, -(-len(xs_all) // 12))
        for x in xs_all[::stride]:
            canvas.line(xpos(x), top + PANEL_H, xpos(x), top + PANEL_H + 4)
            canvas.text(xpos(x), top + PANEL_H + 16, f"{x:g}", size=10)
        slot = 0.6 / max(1, len(panel.series))
    else:
        labels = _categories(panel)
        step = width / max(1, len(labels))
        index = {label: i for i, label in enumerate(labels)}
        unit = step

        def xpos(value: float | str, offset: float = 0.0) -> float:
            return left + step * (index[str(value)] + 0.5 + offset)

        for label in labels:
            x = xpos(label)
            canvas.line(x, top + PANEL_H, x, top + PANEL_H + 4)
            canvas.text(x + 3, top + PANEL_H + 14, label, size=10, anchor="end", rotate=-30)
        slot = 0.0

    bars = [s for s in panel.series if s.kind == "bar"]
    bar_width = (0.8 if panel.stacked else 0.8 / max(1, len(bars)))
    stack: dict[str, float] = {}
    for number, series in enumerate(panel.series):
        color = series.color or PALETTE[number % len(PALETTE)]
        if series.kind == "bar":
            slot_index = 0 if panel.stacked else bars.index(series)
            offset = 0.0 if panel.stacked else -0.4 + bar_width * (slot_index + 0.5)
            for point in series.points:
                if point.y is None:
                    continue
                base = stack.get(str(point.x), low) if panel.stacked else low
                x = xpos(point.x, offset)
                y_top = ys(base + point.y) if panel.stacked else ys(point.y)
                canvas.rect(x - unit * bar_width / 2, y_top, unit * bar_width, ys(base) - y_top, color)
                if panel.stacked:
                    stack[str(point.x)] = base + point.y
                else:
                    _error_bar(canvas, x, point, ys)
        else:
            offset = (number - (len(panel.series) - 1) / 2) * slot if slot else 0.0
            run: list[tuple[float, float]] = []
            for point in series.points:
                if point.y is None:
                    canvas.polyline(run, color, dash=series.dashed)
                    run = []
                    continue
                x = xpos(point.x, offset)
                run.append((x, ys(point.y)))
                _error_bar(canvas, x, point, ys, color=color)
                canvas.circle(x, ys(point.y), color)
            canvas.polyline(run, color, dash=series.dashed)

    if panel.xlabel:
        canvas.text(left + width / 2, top + PANEL_H + _panel_size(panel)[1] - 6, panel.xlabel, size=11)
    if _shows_legend(panel):
        x0, y0 = left + width + 10, top + 4
        for number, series in enumerate(panel.series):
            color = series.color or PALETTE[number % len(PALETTE)]
            y = y0 + 16 * number
            if series.kind == "bar":
                canvas.rect(x0, y, 12, 10, color)
            else:
                canvas.line(x0, y + 5, x0 + 12, y + 5, stroke=color, width=2, dash=series.dashed)
            canvas.text(x0 + 16, y + 9, series.label, size=10, anchor="start")


def _error_bar(canvas: _Canvas, x: float, point: Point, ys, color: str = "#222") -> None:
    if point.low is None or point.high is None:
        return
    top, bottom = ys(point.high), ys(point.low)
    canvas.line(x, top, x, bottom, stroke=color)
    canvas.line(x - 3, top, x + 3, top, stroke=color)
    canvas.line(x - 3, bottom, x + 3, bottom, stroke=color)


def figure(title: str | None, rows: Sequence[Sequence[Panel]]) -> str:
    """An SVG document of panels laid out in rows (one row of one panel for a plain chart)."""
    sizes = [[_panel_size(p) for p in row] for row in rows]
    col_widths = [max((s[3] + s[0] + s[2] + MARGIN_R) for s in (row[c] for row in sizes if c < len(row)))
                  for c in range(max((len(r) for r in rows), default=0))]
    row_heights = [MARGIN_T + PANEL_H + max(s[1] for s in row) for row in sizes]
    head = 26.0 if title else 0.0
    width, height = sum(col_widths) or 200.0, head + sum(row_heights)
    canvas = _Canvas()
    if title:
        canvas.text(width / 2, 18, title, size=13, weight="bold")
    y = head
    for row, size_row, row_height in zip(rows, sizes, row_heights):
        x = 0.0
        for column, (panel, size) in enumerate(zip(row, size_row)):
            _draw_panel(canvas, panel, x + size[3], y + MARGIN_T, size[0])
            x += col_widths[column]
        y += row_height
    body = "\n".join(canvas.parts)
    label = quoteattr(title or " / ".join(p.title for row in rows for p in row))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{FONT}" role="img" aria-label={label}>\n'
            f'<rect width="100%" height="100%" fill="white"/>\n{body}\n</svg>\n')


def chart(panel: Panel) -> str:
    """One panel as an SVG document."""
    return figure(None, [[panel]])


def percent_point(x: float | str, value: float | None, ci: Sequence[float] | None) -> Point:
    """A point from a share in [0, 1] and its interval (in shares), in percent."""
    if value is None:
        return Point(x, None)
    if ci and len(ci) == 2 and ci[0] is not None and ci[1] is not None:
        return Point(x, 100 * value, 100 * ci[0], 100 * ci[1])
    return Point(x, 100 * value)


__all__ = ["PALETTE", "Panel", "Point", "Series", "chart", "figure", "percent_point"]
