"""Hand-built inline SVG charts: bars and lines, no JavaScript, no fonts to fetch, byte-stable output.

Altair renders SVG only through vl-convert (a 60 MB native wheel with its own JS engine); two chart
shapes do not need it (ADR 0011).
"""

from __future__ import annotations

from html import escape

PALETTE = ("#3b6ea5", "#d9822b", "#3a9d5d", "#c23b3b", "#7d5ba6", "#6b6b6b")


def _num(v: float) -> str:
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


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

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}"><title>{escape(title)}</title>',
             f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="#999"/>',
             f'<text x="{left - 4}" y="{top + 4}" text-anchor="end" class="chart-label">{_num(peak)}</text>',
             f'<text x="{left - 4}" y="{height - bottom}" text-anchor="end" class="chart-label">0</text>']
    for i, label in enumerate(labels):
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
