"""The demo's figure as a standalone SVG file (any browser shows it): two line charts and a table, written with
the standard library only, so `make demo` needs no plotting package (matplotlib and its fonts are ~100 MB)."""
import math
from xml.sax.saxutils import escape

W, H = 900, 480


def _chart(x0, y0, w, h, ys, title, xlabel, log=False):
    """SVG elements of a line chart of `ys` (x = 1..n) in the box (x0, y0, w, h), with min/max ticks."""
    vals = [math.log10(v) for v in ys] if log else list(ys)
    lo, hi = min(vals), max(vals)
    hi = hi if hi > lo else lo + 1
    n = max(len(vals) - 1, 1)
    pts = " ".join(f"{x0 + w * i / n:.1f},{y0 + h - h * (v - lo) / (hi - lo):.1f}" for i, v in enumerate(vals))
    label = (lambda v: f"{10 ** v:.3g}") if log else (lambda v: f"{v:.3g}")
    return [f'<text x="{x0 + w / 2}" y="{y0 - 10}" text-anchor="middle" font-weight="bold">{escape(title)}</text>',
            f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#999"/>',
            f'<polyline points="{pts}" fill="none" stroke="#1f77b4" stroke-width="1"/>',
            f'<text x="{x0 - 5}" y="{y0 + 4}" text-anchor="end">{label(hi)}</text>',
            f'<text x="{x0 - 5}" y="{y0 + h + 4}" text-anchor="end">{label(lo)}</text>',
            f'<text x="{x0}" y="{y0 + h + 16}">1</text>',
            f'<text x="{x0 + w}" y="{y0 + h + 16}" text-anchor="end">{len(vals)}</text>',
            f'<text x="{x0 + w / 2}" y="{y0 + h + 16}" text-anchor="middle">{escape(xlabel)}</text>']


def write_svg(path, losses, accs, table_title, header, rows):
    """Writes the loss curve, the accuracy per epoch and a table (`header` + `rows` of strings) to `path`."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" '
             'font-size="12">', f'<rect width="{W}" height="{H}" fill="white"/>']
    parts += _chart(70, 40, 360, 220, losses, "training loss per step (log scale)", "step", log=True)
    parts += _chart(520, 40, 340, 220, accs, "held-out accuracy per epoch", "epoch")
    parts.append(f'<text x="{W / 2}" y="330" text-anchor="middle" font-weight="bold">{escape(table_title)}</text>')
    xs = [40 + i * (W - 80) / len(header) for i in range(len(header))]
    for r, cells in enumerate([header] + rows):
        y = 360 + 24 * r
        weight = ' font-weight="bold"' if r == 0 else ""
        parts += [f'<text x="{x:.0f}" y="{y}"{weight}>{escape(str(c))}</text>' for x, c in zip(xs, cells)]
    parts.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(parts) + "\n")
