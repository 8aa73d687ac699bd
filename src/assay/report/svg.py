"""Small SVG charts for the HTML report: every string escaped, every number already computed.

The charts draw in a unit data box mapped to pixels; a renderer only places what
the analysis computed (curves, points, lines) and labels it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from markupsafe import Markup

__all__ = ["Chart"]

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


@dataclass
class Chart:
    """A 2-d chart: data ranges, axis labels, and the marks drawn on it, as SVG."""

    title: str
    x_label: str
    y_label: str
    x_range: tuple[float, float] = (0.0, 1.0)
    y_range: tuple[float, float] = (0.0, 1.0)
    width: int = 420
    height: int = 380
    chart_id: str = ""
    margin: tuple[int, int, int, int] = (30, 20, 52, 58)  # top, right, bottom, left
    x_ticks: bool = True  # False for a categorical x axis, whose categories are labelled as text marks
    _marks: list[Markup] = field(default_factory=list)
    _legend: list[tuple[str, str, str]] = field(default_factory=list)

    # coordinates ---------------------------------------------------------------

    @property
    def plot_width(self) -> float:
        return self.width - self.margin[1] - self.margin[3]

    @property
    def plot_height(self) -> float:
        return self.height - self.margin[0] - self.margin[2]

    def px(self, x: np.ndarray | float) -> np.ndarray | float:
        lo, hi = self.x_range
        return self.margin[3] + (np.asarray(x, dtype=float) - lo) / (hi - lo) * self.plot_width

    def py(self, y: np.ndarray | float) -> np.ndarray | float:
        lo, hi = self.y_range
        return self.margin[0] + (1.0 - (np.asarray(y, dtype=float) - lo) / (hi - lo)) * self.plot_height

    def pixel_tolerance(self, pixels: float = 0.5) -> float:
        """A drawing error of ``pixels``, in data units of the smaller axis span per pixel."""
        return pixels * min((self.x_range[1] - self.x_range[0]) / self.plot_width,
                            (self.y_range[1] - self.y_range[0]) / self.plot_height)

    # marks ---------------------------------------------------------------------

    def line(self, x: np.ndarray, y: np.ndarray, *, color: str = PALETTE[0], width: float = 2.0,
             dash: str | None = None, label: str | None = None, css: str = "", mark_id: str = "") -> None:
        xs, ys = self.px(x), self.py(y)
        points = " ".join(f"{a:.2f},{b:.2f}" for a, b in zip(np.atleast_1d(xs), np.atleast_1d(ys), strict=True))
        self._marks.append(Markup('<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"{}{}{}/>').format(
            points, color, width,
            Markup(' stroke-dasharray="{}"').format(dash) if dash else "",
            Markup(' class="{}"').format(css) if css else "",
            Markup(' id="{}"').format(mark_id) if mark_id else ""))
        if label:
            self._legend.append((label, color, dash or ""))

    def area(self, x: np.ndarray, low: np.ndarray, high: np.ndarray, *, color: str = PALETTE[0],
             opacity: float = 0.15, label: str | None = None, css: str = "") -> None:
        """A shaded band between two curves over the same x (a confidence band)."""
        xs, lo, hi = np.atleast_1d(self.px(x)), np.atleast_1d(self.py(low)), np.atleast_1d(self.py(high))
        ring = list(zip(xs, hi, strict=True)) + list(zip(xs[::-1], lo[::-1], strict=True))
        points = " ".join(f"{a:.2f},{b:.2f}" for a, b in ring)
        self._marks.append(Markup('<polygon points="{}" fill="{}" fill-opacity="{}" stroke="none"{}/>').format(
            points, color, opacity, Markup(' class="{}"').format(css) if css else ""))
        if label:
            self._legend.append((label, color, "area"))

    def point(self, x: float, y: float, *, color: str = "#000", radius: float = 5.0, label: str | None = None,
              mark_id: str = "", title: str | None = None, hollow: bool = False) -> None:
        fill = "white" if hollow else color
        tooltip = Markup("<title>{}</title>").format(title) if title else ""
        self._marks.append(Markup('<circle cx="{:.2f}" cy="{:.2f}" r="{}" fill="{}" stroke="{}" stroke-width="2"'
                                  '{}>{}</circle>').format(
            float(self.px(x)), float(self.py(y)), radius, fill, color,
            Markup(' id="{}"').format(mark_id) if mark_id else "", tooltip))
        if label:
            self._legend.append((label, color, "point"))

    def text(self, x: float, y: float, text: str, *, anchor: str = "start", dx: float = 4, dy: float = -4,
             size: int = 11, color: str = "#444") -> None:
        self._marks.append(Markup('<text x="{:.2f}" y="{:.2f}" text-anchor="{}" font-size="{}" fill="{}">{}</text>')
                           .format(float(self.px(x)) + dx, float(self.py(y)) + dy, anchor, size, color, text))

    def add_legend(self, label: str, color: str, style: str = "") -> None:
        """A legend entry of its own, for marks drawn without a label (many points shown as one entry);
        ``style``: a dash pattern, "point" or "area"."""
        self._legend.append((label, color, style))

    @property
    def legend_size(self) -> int:
        """How many entries the legend holds."""
        return len(self._legend)

    def bar(self, x0: float, x1: float, y: float, *, color: str = "#bbb", opacity: float = 0.5) -> None:
        left, right = float(self.px(x0)), float(self.px(x1))
        top, bottom = float(self.py(y)), float(self.py(self.y_range[0]))
        self._marks.append(Markup('<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}" '
                                  'fill-opacity="{}"/>').format(left, top, max(right - left, 0), max(bottom - top, 0),
                                                                color, opacity))

    # output ---------------------------------------------------------------------

    def _axes(self) -> Markup:
        parts = []
        x0, x1 = self.margin[3], self.margin[3] + self.plot_width
        y0, y1 = self.margin[0], self.margin[0] + self.plot_height
        parts.append(Markup('<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999"/>').format(
            x0, y0, self.plot_width, self.plot_height))
        for value in nice_ticks(*self.x_range) if self.x_ticks else ():
            px = float(self.px(value))
            parts.append(Markup('<line x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" stroke="#eee"/>'
                                '<text x="{0:.1f}" y="{3}" text-anchor="middle" font-size="10" fill="#666">{4}</text>')
                         .format(px, y0, y1, y1 + 14, _tick(value)))
        for value in nice_ticks(*self.y_range):
            py = float(self.py(value))
            parts.append(Markup('<line y1="{0:.1f}" y2="{0:.1f}" x1="{1}" x2="{2}" stroke="#eee"/>'
                                '<text x="{3}" y="{4:.1f}" text-anchor="end" font-size="10" fill="#666">{5}</text>')
                         .format(py, x0, x1, x0 - 5, py + 3, _tick(value)))
        parts.append(Markup('<text x="{}" y="{}" text-anchor="middle" font-size="12">{}</text>').format(
            (x0 + x1) / 2, self.height - 10, self.x_label))
        parts.append(Markup('<text transform="translate(14,{}) rotate(-90)" text-anchor="middle" '
                            'font-size="12">{}</text>').format((y0 + y1) / 2, self.y_label))
        parts.append(Markup('<text x="{}" y="18" font-size="13" font-weight="bold">{}</text>').format(x0, self.title))
        return Markup("").join(parts)

    @property
    def legend_height(self) -> int:
        """The legend sits under the chart, one entry a row, so it never hides a curve."""
        return 16 * len(self._legend) + 6 if self._legend else 0

    def _legend_markup(self) -> Markup:
        rows = []
        x = self.margin[3]
        for i, (label, color, dash) in enumerate(self._legend):
            y = self.height + 12 + 16 * i
            if dash == "point":
                sample = Markup('<circle cx="{}" cy="{}" r="4" fill="{}"/>').format(x + 10, y - 4, color)
            elif dash == "area":
                sample = Markup('<rect x="{}" y="{}" width="20" height="8" fill="{}" fill-opacity="0.3"/>').format(
                    x, y - 8, color)
            else:
                sample = Markup('<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="{}" stroke-width="2"{}/>').format(
                    x, x + 20, y - 4, y - 4, color, Markup(' stroke-dasharray="{}"').format(dash) if dash else "")
            rows.append(sample + Markup('<text x="{}" y="{}" font-size="11">{}</text>').format(x + 28, y, label))
        return Markup('<g class="legend">{}</g>').format(Markup("").join(rows)) if rows else Markup("")

    def render(self) -> Markup:
        height = self.height + self.legend_height
        return Markup('<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" width="{}" '
                      'height="{}" role="img"{}><title>{}</title>{}{}{}</svg>').format(
            self.width, height, self.width, height,
            Markup(' id="{}"').format(self.chart_id) if self.chart_id else "", self.title, self._axes(),
            Markup("").join(self._marks), self._legend_markup())


def nice_ticks(lo: float, hi: float, target: int = 5) -> np.ndarray:
    """Round tick positions inside [lo, hi]: multiples of 1, 2, 2.5 or 5 times a power of ten."""
    span = hi - lo
    if not (np.isfinite(span) and span > 0):
        return np.array([lo])
    raw = span / target
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0) if span / (m * power) <= target + 1)
    first = np.ceil(lo / step - 1e-9) * step
    ticks = np.arange(first, hi + step * 1e-9, step)
    return np.round(ticks / step) * step + 0.0  # no accumulated float noise, no -0


def _tick(value: float) -> str:
    """An axis label: three significant digits, no float noise (0.30000000000000004 reads 0.3)."""
    return f"{float(value):.3g}"
