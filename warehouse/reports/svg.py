"""Hand-built inline SVG charts: bars, stacked columns and lines, no JavaScript, no fonts to fetch, byte-stable
output.

Altair renders SVG only through vl-convert (a 60 MB native wheel with its own JS engine); three chart
shapes do not need it (ADR 0011).
"""

from __future__ import annotations

from html import escape

PALETTE = ("#3b6ea5", "#d9822b", "#3a9d5d", "#c23b3b", "#7d5ba6", "#6b6b6b")
MAX_X_LABELS = 12  # more labels than this under a chart overlap: every k-th is shown


def _num(v: float) -> str:
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def _label_step(n: int) -> int:
    return max(1, -(-n // MAX_X_LABELS))


def bars(items: list[tuple[str, float]], title: str, unit: str = "", width: int = 560) -> str:
    """Horizontal bars, one per (label, value), largest scale = the largest value."""
    row, label_w, top = 22, 190, 28
    height = top + row * max(len(items), 1) + 8
    peak = max((v for _, v in items), default=0) or 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}"><title>{escape(title)}</title>',
             f'<text x="0" y="16" class="chart-title">{escape(title)}</text>']
    for i, (label, value) in enumerate(items):
        y = top + i * row
        w = max(1.0, (width - label_w - 70) * value / peak)
        parts.append(f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end" class="chart-label">'
                     f'{escape(label[:32])}</text>'
                     f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row - 6}" '
                     f'fill="{PALETTE[0]}"><title>{escape(label)}: {_num(value)}{escape(unit)}</title></rect>'
                     f'<text x="{label_w + w + 4:.1f}" y="{y + 14}" class="chart-value">'
                     f'{_num(value)}{escape(unit)}</text>')
    if not items:
        parts.append(f'<text x="0" y="{top + 14}" class="chart-label">no data</text>')
    parts.append("</svg>")
    return "".join(parts)


def _frame(title: str, width: int, height: int, margins: tuple[int, int, int, int], peak: float) -> list[str]:
    """The opening of a plot: the svg element with its title, the x axis and the y axis's two labels (peak, 0)."""
    left, right, top, bottom = margins
    return [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}"><title>{escape(title)}</title>',
            f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
            f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="#999"/>',
            f'<text x="{left - 4}" y="{top + 4}" text-anchor="end" class="chart-label">{_num(peak)}</text>',
            f'<text x="{left - 4}" y="{height - bottom}" text-anchor="end" class="chart-label">0</text>']


def lines(labels: list[str], series: dict[str, list[float | None]], title: str, width: int = 560,
          height: int = 200, ymax: float | None = None) -> str:
    """One polyline per series over the same x labels (e.g. metrics across report files)."""
    left, right, top, bottom = 40, 110, 28, 30
    vals = [v for s in series.values() for v in s if v is not None]
    peak = ymax or (max(vals) if vals else 1) or 1
    n = max(len(labels), 1)
    px = (width - left - right) / max(n - 1, 1)

    def xy(i: int, v: float) -> tuple[float, float]:
        return left + i * px, top + (height - top - bottom) * (1 - v / peak)

    parts = _frame(title, width, height, (left, right, top, bottom), peak)
    for i, label in enumerate(labels):
        if i % _label_step(len(labels)):
            continue
        x, _ = xy(i, 0)
        parts.append(f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle" class="chart-label">'
                     f'{escape(label[-8:])}</text>')
    for k, (name, values) in enumerate(series.items()):
        color = PALETTE[k % len(PALETTE)]
        pts = [xy(i, v) for i, v in enumerate(values) if v is not None]
        if len(pts) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{path}"/>')
        parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in pts]
        parts.append(f'<text x="{width - right + 8}" y="{top + 14 + 16 * k}" fill="{color}" class="chart-label">'
                     f'{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def columns(labels: list[str], series: dict[str, list[float]], title: str, colors: dict[str, str] | None = None,
            width: int = 560, height: int = 220) -> str:
    """Vertical columns stacked by series over the same x labels (e.g. episodes per week by outcome); the
    legend sits right of the plot, never over a column."""
    left, right, top, bottom = 40, 110, 28, 30
    n = max(len(labels), 1)
    totals = [sum(s[i] for s in series.values()) for i in range(len(labels))]
    peak = max(totals, default=0) or 1
    slot = (width - left - right) / n
    scale = (height - top - bottom) / peak
    parts = _frame(title, width, height, (left, right, top, bottom), peak)
    for i, label in enumerate(labels):
        base = height - bottom
        for k, (name, values) in enumerate(series.items()):
            if not values[i]:
                continue
            h = values[i] * scale
            base -= h
            color = (colors or {}).get(name, PALETTE[k % len(PALETTE)])
            parts.append(f'<rect x="{left + i * slot + 1:.1f}" y="{base:.1f}" width="{max(slot - 2, 1):.1f}" '
                         f'height="{h:.1f}" fill="{color}" data-series="{escape(name)}"><title>{escape(label)} · '
                         f'{escape(name)}: {_num(values[i])}</title></rect>')
        if not i % _label_step(len(labels)):
            parts.append(f'<text x="{left + (i + 0.5) * slot:.1f}" y="{height - bottom + 16}" text-anchor="middle" '
                         f'class="chart-label">{escape(label[-8:])}</text>')
    for k, name in enumerate(series):
        color = (colors or {}).get(name, PALETTE[k % len(PALETTE)])
        y = top + 16 * k
        parts.append(f'<rect x="{width - right + 8}" y="{y + 4}" width="10" height="10" fill="{color}"/>'
                     f'<text x="{width - right + 22}" y="{y + 13}" class="chart-label">{escape(name)}</text>')
    if not labels:
        parts.append(f'<text x="{left}" y="{top + 14}" class="chart-label">no data</text>')
    parts.append("</svg>")
    return "".join(parts)
