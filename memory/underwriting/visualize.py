"""Pictures of the graph: a PNG (matplotlib) or a self-contained HTML page.

`draw_graph` draws every node of a namespace (a hairball past a few dozen rules); the
focused views of one rule or one risk factor are in `memory.underwriting.focused`.

Both are coloured by node type; networkx and matplotlib load on first use.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from memory.model import EntityRecord, RelationshipRecord

COLOURS = {
    "RiskFactor": "#d62728",
    "Rule": "#1f77b4",
    "Outcome": "#2ca02c",
    "Mitigant": "#ff7f0e",
    "Source": "#7f7f7f",
}
DEFAULT_COLOUR = "#9467bd"


def draw_graph(
    entities: list[EntityRecord], edges: list[RelationshipRecord], out: Path, title: str
) -> Path:
    """Write the graph to `out`: `.png` as a picture, `.html`/`.htm` as an interactive page."""
    graph = _networkx_graph(entities, edges)
    if out.suffix.lower() == ".png":
        _draw_png(graph, out, title)
    else:
        out.write_text(_html_page(graph, title), "utf-8")
    return out


def _networkx_graph(entities: list[EntityRecord], edges: list[RelationshipRecord]) -> Any:
    import networkx as nx

    graph = nx.MultiDiGraph()
    for e in entities:
        graph.add_node(e.entity_key, label=e.label, name=e.name, summary=e.summary)
    for r in edges:
        graph.add_edge(r.source_key, r.target_key, relation=r.relation, fact=r.fact)
    return graph


def _layout(graph: Any) -> dict[str, tuple[float, float]]:
    import networkx as nx

    if graph.number_of_nodes() == 0:
        return {}
    positions = nx.spring_layout(nx.Graph(graph), seed=7, k=1.5 / max(1, len(graph) ** 0.5))
    return {n: (float(x), float(y)) for n, (x, y) in positions.items()}


def _draw_png(graph: Any, out: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import networkx as nx
    from matplotlib.lines import Line2D

    positions = _layout(graph)
    fig, ax = plt.subplots(figsize=(16, 12), dpi=110)
    colours = [COLOURS.get(d["label"], DEFAULT_COLOUR) for _, d in graph.nodes(data=True)]
    nx.draw_networkx_edges(graph, positions, ax=ax, alpha=0.3, arrowsize=6, width=0.6)
    nx.draw_networkx_nodes(graph, positions, ax=ax, node_color=colours, node_size=60)
    labels = {n: d["name"][:28] for n, d in graph.nodes(data=True)}
    nx.draw_networkx_labels(graph, positions, labels, ax=ax, font_size=5)
    handles = [
        Line2D([], [], marker="o", ls="", color=c, label=label) for label, c in COLOURS.items()
    ]
    ax.legend(handles=handles, loc="upper left", fontsize=8)
    ax.set_title(title)
    ax.axis("off")
    fig.savefig(out, bbox_inches="tight")
    plt.close(fig)


_HTML = """<!doctype html><html><head><meta charset="utf-8"><title>__TITLE__</title><style>
body{margin:0;font:13px sans-serif}#bar{padding:6px 10px;background:#f4f4f4}
#bar span{margin-right:12px}#tip{position:fixed;pointer-events:none;background:#fff;
border:1px solid #999;padding:4px 6px;max-width:420px;display:none}svg{width:100vw;height:92vh}
.dim{opacity:.08}</style></head><body><div id="bar"><b>__TITLE__</b> &nbsp; __LEGEND__
<small>wheel: zoom, drag: pan, click a node: highlight its neighbours</small></div>
<div id="tip"></div><svg id="g"><g id="v"></g></svg><script>
const D=__DATA__;const S="http://www.w3.org/2000/svg",v=document.getElementById("v"),
tip=document.getElementById("tip");let z=1,tx=0,ty=0,drag=null,sel=null;
function el(t,a){const e=document.createElementNS(S,t);for(const k in a)e.setAttribute(k,a[k]);
v.appendChild(e);return e}const P={};D.nodes.forEach(n=>P[n.id]=n);
function show(ev,t){tip.style.display="block";tip.textContent=t;
tip.style.left=ev.clientX+12+"px";tip.style.top=ev.clientY+12+"px"}
function hide(){tip.style.display="none"}
D.edges.forEach(e=>{const a=P[e.s],b=P[e.t];e.el=el("line",{x1:a.x,y1:a.y,x2:b.x,y2:b.y,
stroke:"#999","stroke-width":1.2});e.el.onmousemove=ev=>show(ev,e.r+": "+e.f);
e.el.onmouseout=hide});
D.nodes.forEach(n=>{n.el=el("circle",{cx:n.x,cy:n.y,r:7,fill:n.c});n.tx=el("text",{x:n.x+9,
y:n.y+4,"font-size":9});n.tx.textContent=n.name;n.el.onmousemove=ev=>show(ev,n.label+": "+
n.name+(n.s?" - "+n.s:""));n.el.onmouseout=hide;n.el.onclick=ev=>{ev.stopPropagation();
sel=sel===n.id?null:n.id;mark()}});
function mark(){const near=new Set([sel]);D.edges.forEach(e=>{if(e.s===sel)near.add(e.t);
if(e.t===sel)near.add(e.s)});D.nodes.forEach(n=>{const d=sel&&!near.has(n.id);
n.el.classList.toggle("dim",d);n.tx.classList.toggle("dim",d)});D.edges.forEach(e=>
e.el.classList.toggle("dim",sel&&e.s!==sel&&e.t!==sel))}
function draw(){v.setAttribute("transform",`translate(${tx},${ty}) scale(${z})`)}
const g=document.getElementById("g");g.onclick=()=>{sel=null;mark()};
g.onwheel=ev=>{ev.preventDefault();z*=ev.deltaY<0?1.1:0.9;draw()};
g.onmousedown=ev=>drag=[ev.clientX-tx,ev.clientY-ty];g.onmouseup=()=>drag=null;
g.onmousemove=ev=>{if(drag){tx=ev.clientX-drag[0];ty=ev.clientY-drag[1];draw()}};draw();
</script></body></html>"""


def _html_page(graph: Any, title: str) -> str:
    """Render the graph as one HTML page with inline SVG and script (no network needed)."""
    positions = _layout(graph)
    nodes = [
        {
            "id": n,
            "x": round(100 + 900 * (positions[n][0] + 1) / 2, 1),
            "y": round(40 + 700 * (positions[n][1] + 1) / 2, 1),
            "c": COLOURS.get(d["label"], DEFAULT_COLOUR),
            "label": d["label"],
            "name": d["name"],
            "s": d.get("summary", ""),
        }
        for n, d in graph.nodes(data=True)
    ]
    edges = [
        {"s": s, "t": t, "r": d["relation"], "f": d["fact"]} for s, t, d in graph.edges(data=True)
    ]
    legend = "".join(
        f'<span style="color:{c}">&#9679; {label}</span>' for label, c in COLOURS.items()
    )
    data = json.dumps({"nodes": nodes, "edges": edges}).replace("</", "<\\/")
    safe_title = html.escape(title)
    return (
        _HTML.replace("__TITLE__", safe_title)
        .replace("__LEGEND__", legend)
        .replace("__DATA__", data)
    )
