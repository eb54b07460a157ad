"""Focused pictures: one rule's or one risk factor's neighbourhood, as PNG or HTML.

`draw_neighbourhood` lays a `memory.underwriting.neighbourhood.Neighbourhood` out in
columns left to right (Mitigant, RiskFactor, Rule, Outcome, Source) with wrapped,
non-overlapping labels. Its HTML page inlines the vendored cytoscape.js
(``memory/underwriting/vendor``, MIT, its licence beside it), so it opens without a
network; the review page (`athena ui`) serves the same file.
"""

from __future__ import annotations

import html
import json
import re
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory.underwriting.visualize import COLOURS, DEFAULT_COLOUR

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from memory.underwriting.neighbourhood import Neighbourhood

# The vendored cytoscape.js (MIT, its LICENSE beside it), inlined into every HTML view.
CYTOSCAPE_JS = Path(__file__).resolve().parent / "vendor" / "cytoscape.min.js"
COLUMNS = ("Mitigant", "RiskFactor", "Rule", "Outcome", "Source")
HEADERS = {
    "Mitigant": "Mitigants\n(override the rule)",
    "RiskFactor": "Risk factors\n(trigger the rule)",
    "Rule": "Rules",
    "Outcome": "Outcomes\n(the rule results in)",
    "Source": "Sources\n(the rule is derived from)",
}
WRAP = 24  # characters per label line
MAX_LINES = 3  # lines per label; a longer name ends in an ellipsis
COLUMN_INCHES = 2.7  # between columns: a wrapped label is about 1.6 inches wide
ROW_INCHES = 0.6  # between rows: a three-line label is about 0.5 inches high
LABEL_POINTS = 8
EDGE_LABELS = 30  # most edges whose relation a page shows at once


def draw_neighbourhood(
    hood: Neighbourhood, out: Path, title: str, *, script: Path | None = None
) -> Path:
    """Write a focused view to `out`: `.png` as a picture, `.html`/`.htm` as a page.

    Args:
        hood: The view (`rule_neighbourhood` / `risk_neighbourhood`).
        out: The file to write.
        title: Title of the picture.
        script: cytoscape.js to inline into a page; None uses the vendored copy.

    Returns:
        The written path.

    Raises:
        ValueError: The suffix is neither ``.png`` nor ``.html``/``.htm``.
        FileNotFoundError: A page's cytoscape.js is missing.
    """
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix == ".png":
        neighbourhood_figure(hood, title).savefig(out, dpi=110, bbox_inches="tight")
    elif suffix in (".html", ".htm"):
        out.write_text(neighbourhood_html(hood, title, script), "utf-8")
    else:
        raise ValueError(f"a view is written as .png or .html, got {str(out)!r}")
    return out


def wrap_label(name: str, width: int = WRAP, lines: int = MAX_LINES) -> str:
    """Wrap a name into at most `lines` lines of `width` characters (ellipsis when cut)."""
    wrapped = textwrap.wrap(" ".join(name.split()), width=width) or [""]
    if len(wrapped) > lines:
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: width - 1].rstrip() + "\N{HORIZONTAL ELLIPSIS}"
    return "\n".join(wrapped)


def _column(kind: str) -> str:
    return kind if kind in COLUMNS else COLUMNS[-1]


def _rule_order(hood: Neighbourhood) -> list[str]:
    """Rule ids ordered by outcome, then risk factor, then name (related rules adjoin)."""
    names = {n.id: n.name for n in hood.nodes}
    outcomes: dict[str, list[str]] = {}
    risks: dict[str, list[str]] = {}
    for e in hood.edges:
        if e.relation == "RESULTS_IN":
            outcomes.setdefault(e.source, []).append(names.get(e.target, ""))
        elif e.relation == "TRIGGERS":
            risks.setdefault(e.target, []).append(names.get(e.source, ""))
    rules = [n.id for n in hood.nodes if n.kind == "Rule"]
    return sorted(
        rules, key=lambda r: (sorted(outcomes.get(r, [])), sorted(risks.get(r, [])), names[r])
    )


def _spread(desired: Mapping[str, float], names: Mapping[str, str]) -> dict[str, float]:
    """Rows near the desired ones, at least one apart, top first, centred on the desired."""
    order = sorted(desired, key=lambda i: (-desired[i], names[i], i))
    placed: dict[str, float] = {}
    last: float | None = None
    for node_id in order:
        y = desired[node_id] if last is None else min(desired[node_id], last - 1.0)
        placed[node_id] = last = y
    shift = sum(desired[i] - placed[i] for i in order) / max(1, len(order))
    return {i: y + shift for i, y in placed.items()}


def neighbourhood_layout(hood: Neighbourhood) -> dict[str, tuple[float, float]]:
    """Positions of a view's nodes: x its column, y its row (0 at the top, downwards).

    The columns are Mitigant, RiskFactor, Rule, Outcome, Source (empty ones dropped); a
    rule has a row of its own.

    A node beside the rules sits level with the mean of its rules' rows, moved apart so
    that no two nodes of a column are less than a row apart.
    """
    present = [c for c in COLUMNS if any(_column(n.kind) == c for n in hood.nodes)]
    x_of = {c: float(i) for i, c in enumerate(present)}
    names = {n.id: n.name for n in hood.nodes}
    row = {r: -float(i) for i, r in enumerate(_rule_order(hood))}
    middle = sum(row.values()) / len(row) if row else 0.0
    near: dict[str, list[float]] = {}
    for e in hood.edges:
        for node_id, other in ((e.source, e.target), (e.target, e.source)):
            if other in row and node_id not in row:
                near.setdefault(node_id, []).append(row[other])
    positions = {r: (x_of.get("Rule", 0.0), y) for r, y in row.items()}
    for column in present:
        ids = [n.id for n in hood.nodes if _column(n.kind) == column and n.id not in row]
        desired = {i: sum(near[i]) / len(near[i]) if i in near else middle for i in ids}
        for node_id, y in _spread(desired, names).items():
            positions[node_id] = (x_of[column], y)
    return positions


def _tint(colour: str, keep: float = 0.22) -> tuple[float, float, float]:
    """A light version of a ``#rrggbb`` colour (mixed with white)."""
    rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (1 - keep * (1 - c) for c in rgb)
    return (r, g, b)


def neighbourhood_figure(hood: Neighbourhood, title: str) -> Figure:
    """Draw a view as a matplotlib figure (Agg canvas; no pyplot state is touched)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    positions = neighbourhood_layout(hood)
    present = sorted({_column(n.kind) for n in hood.nodes}, key=COLUMNS.index)
    ys = [y for _, y in positions.values()] or [0.0]
    top, bottom = max(ys) + 1.4, min(ys) - (1.3 if hood.left_off else 0.7)
    left, right = -0.6, max(1, len(present)) - 0.4
    plot_h, head_h = (top - bottom) * ROW_INCHES, 1.0
    fig = Figure(figsize=((right - left) * COLUMN_INCHES, plot_h + head_h))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, plot_h / (plot_h + head_h)))
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, top)
    ax.axis("off")
    _draw_edges(ax, hood, positions)
    _draw_nodes(ax, hood, positions)
    grey: dict[str, Any] = {"ha": "center", "va": "center", "color": "#444444", "parse_math": False}
    for i, column in enumerate(present):
        ax.text(i, top - 0.55, HEADERS[column], fontsize=9, **grey)
    if hood.left_off:
        rule_x = float(present.index("Rule")) if "Rule" in present else 0.0
        more = f"+ {hood.left_off} more rule{'s' if hood.left_off != 1 else ''} not shown"
        ax.text(rule_x, bottom + 0.45, more, fontsize=8, style="italic", **grey)
    _draw_title(fig, hood, title, plot_h + head_h)
    return fig


def _draw_title(fig: Any, hood: Neighbourhood, title: str, height: float) -> None:
    """The title and, under it, a legend of the kinds drawn (`height`: the figure's)."""
    from matplotlib.lines import Line2D

    fig.text(
        0.01,
        1 - 0.18 / height,
        textwrap.shorten(title, 110),
        ha="left",
        va="top",
        fontsize=13,
        weight="bold",
        parse_math=False,
    )
    kinds = {n.kind for n in hood.nodes}
    handles = [
        Line2D([], [], marker="s", ls="", color=c, label=k)
        for k, c in COLOURS.items()
        if k in kinds
    ]
    fig.legend(
        handles=handles,
        loc="upper left",
        ncol=max(1, len(handles)),
        fontsize=8,
        frameon=False,
        bbox_to_anchor=(0.005, 1 - 0.5 / height),
    )


def _draw_edges(ax: Any, hood: Neighbourhood, positions: dict[str, tuple[float, float]]) -> None:
    """Edges as lines behind the labels, coloured by the node that is not the rule."""
    kinds = {n.id: n.kind for n in hood.nodes}
    for e in hood.edges:
        if e.source not in positions or e.target not in positions:
            continue
        other = e.target if kinds.get(e.source) == "Rule" else e.source
        colour = COLOURS.get(kinds.get(other, ""), DEFAULT_COLOUR)
        (x1, y1), (x2, y2) = positions[e.source], positions[e.target]
        ax.plot([x1, x2], [y1, y2], color=colour, lw=0.9, alpha=0.45, zorder=1)


def _draw_nodes(ax: Any, hood: Neighbourhood, positions: dict[str, tuple[float, float]]) -> None:
    """Each node as its wrapped name in a box of its kind's colour; the centre in bold."""
    for node in hood.nodes:
        x, y = positions[node.id]
        colour = COLOURS.get(node.kind, DEFAULT_COLOUR)
        centre = node.id == hood.center
        box = {
            "boxstyle": "round,pad=0.35",
            "fc": _tint(colour),
            "ec": colour,
            "lw": 2.2 if centre else 0.9,
        }
        ax.text(
            x,
            y,
            wrap_label(node.name),
            ha="center",
            va="center",
            fontsize=LABEL_POINTS,
            weight="bold" if centre else "normal",
            bbox=box,
            zorder=3,
            parse_math=False,
            gid=node.id,
        )


_FOCUSED_HTML = """<!doctype html><html><head><meta charset="utf-8"><title>__TITLE__</title>
<style>body{margin:0;font:13px sans-serif;display:flex;flex-direction:column;height:100vh}
#bar{padding:6px 10px;background:#f4f4f4}#bar span{margin-right:12px}#cy{flex:1;min-height:0}
#info{padding:4px 10px;min-height:1.3em;background:#fafafa;border-top:1px solid #ddd}</style>
</head><body><div id="bar"><b>__TITLE__</b> &nbsp; __LEGEND__ __NOTE__</div>
<div id="cy"></div><div id="info">click a node: show it and its neighbours; wheel: zoom;
drag: pan</div>
<script>__CYTOSCAPE__</script>
<script>
const elements = __ELEMENTS__, style = __STYLE__, center = __CENTER__, roots = __ROOTS__;
const cy = cytoscape({container: document.getElementById("cy"), elements, style});
// breadthfirst finds each node's depth (risk factors and mitigants, rules, then outcomes
// and sources); its rows are then turned into columns read left to right.
function columns() {
  const rows = new Map();
  cy.nodes().forEach(n => {
    const y = Math.round(n.position("y"));
    rows.set(y, [...(rows.get(y) || []), n]);
  });
  [...rows.keys()].sort((a, b) => a - b).forEach((y, i) => {
    const column = rows.get(y).sort((a, b) => a.position("x") - b.position("x"));
    column.forEach((n, j) => n.position({x: i * 280, y: (j - (column.length - 1) / 2) * 72}));
  });
  cy.fit(undefined, 24);
  const zoom = Math.min(Math.max(cy.zoom(), 0.7), 1.3);  // readable, not blown up
  if (zoom !== cy.zoom()) { cy.zoom(zoom); cy.center(cy.getElementById(center)); }
}
const layout = cy.layout({name: "breadthfirst", directed: true, roots, avoidOverlap: true,
  spacingFactor: 1, animate: false, fit: false});
layout.one("layoutstop", columns);
layout.run();
cy.getElementById(center).addClass("center");
const info = document.getElementById("info");
cy.on("tap", "node", ev => {
  const d = ev.target.data();
  info.textContent = d.kind + ": " + d.label + (d.rule ? "  (rule " + d.rule + ")" : "");
  cy.elements().addClass("dim").removeClass("near");
  ev.target.closedNeighborhood().removeClass("dim").addClass("near");
});
cy.on("tap", ev => { if (ev.target === cy) cy.elements().removeClass("dim near"); });
</script></body></html>"""


def _style(edges: int) -> list[dict[str, Any]]:
    """The cytoscape.js style: boxes coloured by kind, labelled edges, the centre bold.

    Past `EDGE_LABELS` edges, an edge's relation shows only around a clicked node.
    """
    node = {
        "shape": "round-rectangle",
        "label": "data(label)",
        "text-wrap": "wrap",
        "text-max-width": "150px",
        "text-valign": "center",
        "text-halign": "center",
        "font-size": 11,
        "width": 160,
        "height": 52,
        "background-color": DEFAULT_COLOUR,
        "background-opacity": 0.18,
        "border-width": 1.5,
        "border-color": DEFAULT_COLOUR,
    }
    edge = {
        "width": 1.2,
        "line-color": "#aaaaaa",
        "target-arrow-color": "#aaaaaa",
        "target-arrow-shape": "triangle",
        "curve-style": "bezier",
        "label": "data(label)",
        "font-size": 8,
        "color": "#777777",
        "text-rotation": "autorotate",
        "text-opacity": 1 if edges <= EDGE_LABELS else 0,
    }
    kinds = [
        {"selector": f'node[kind = "{k}"]', "style": {"background-color": c, "border-color": c}}
        for k, c in COLOURS.items()
    ]
    return [
        {"selector": "node", "style": node},
        {"selector": "edge", "style": edge},
        *kinds,
        {"selector": ".center", "style": {"border-width": 4, "font-weight": "bold"}},
        {"selector": ".dim", "style": {"opacity": 0.12}},
        {"selector": "edge.near", "style": {"text-opacity": 1}},
    ]


_MARKER = re.compile(r"__(?:TITLE|LEGEND|NOTE|ELEMENTS|STYLE|CENTER|ROOTS|CYTOSCAPE)__")


def _script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</`` to end it early)."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")


def neighbourhood_html(hood: Neighbourhood, title: str, script: Path | None = None) -> str:
    """Render a view as one HTML page: cytoscape.js, the elements and the layout inline."""
    path = script or CYTOSCAPE_JS
    if not path.is_file():
        raise FileNotFoundError(f"cytoscape.js not found at {path} (it ships in agents/ui/static)")
    library = re.sub(r"</(script)", r"<\\/\1", path.read_text("utf-8"), flags=re.IGNORECASE)
    targets = {e.target for e in hood.edges}
    roots = [n.id for n in hood.nodes if n.id not in targets]
    legend = "".join(f'<span style="color:{c}">&#9632; {k}</span>' for k, c in COLOURS.items())
    more = f"+ {hood.left_off} more rules not shown" if hood.left_off else ""
    note = f"<i>{more}</i>" if more else ""
    fields = {
        "__TITLE__": html.escape(title),
        "__LEGEND__": legend,
        "__NOTE__": note,
        "__ELEMENTS__": _script_json(hood.to_cytoscape()),
        "__STYLE__": _script_json(_style(len(hood.edges))),
        "__CENTER__": _script_json(hood.center),
        "__ROOTS__": _script_json(roots),
        "__CYTOSCAPE__": library,
    }
    # One pass: a marker inside an inserted value (a name, the library) stays as it is.
    return _MARKER.sub(lambda m: fields[m.group(0)], _FOCUSED_HTML)
