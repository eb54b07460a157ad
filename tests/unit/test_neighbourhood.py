"""Focused views without a database: cytoscape elements, the layered picture, the HTML page.

The synthetic view is a risk factor with 25 rules whose names are long enough to wrap,
shared outcomes, mitigants and sources: what a person asks to see, at the limit size.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from itertools import combinations
from pathlib import Path

import pytest
from matplotlib.transforms import Bbox

from memory.underwriting import GraphEdge, GraphNode, Neighbourhood, draw_neighbourhood
from memory.underwriting.focused import (
    CYTOSCAPE_JS,
    MAX_LINES,
    WRAP,
    neighbourhood_figure,
    neighbourhood_html,
    neighbourhood_layout,
    wrap_label,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
OUTCOMES = ("Refer", "Decline", "Approve With Conditions", "Flag For Review")
HOSTILE = "Bar </script><script>alert(1)</script> & <b>grill</b>"


def synthetic(rules: int = 25, left_off: int = 0) -> Neighbourhood:
    """One risk factor triggering `rules` long-named rules, each with mitigants and a source."""
    risk = GraphNode("risk", "RiskFactor", "Restaurant With Deep Fat Fryers And Open Flame Cooking")
    nodes = [risk]
    edges = []
    nodes += [GraphNode(f"out{i}", "Outcome", name) for i, name in enumerate(OUTCOMES)]
    nodes += [
        GraphNode(f"mit{i}", "Mitigant", f"Mitigant number {i} automatic hood suppression")
        for i in range(rules + 5)
    ]
    for i in range(rules):
        name = f"Restaurant cooking operations referral rule number {i} for the LRO program"
        nodes.append(GraphNode(f"rule{i}", "Rule", name, rule=name))
        nodes.append(GraphNode(f"src{i}", "Source", f"Underwriting Manual v{i}.2, Section {i}"))
        edges += [
            GraphEdge("risk", f"rule{i}", "TRIGGERS"),
            GraphEdge(f"rule{i}", f"out{i % len(OUTCOMES)}", "RESULTS_IN"),
            GraphEdge(f"mit{i}", f"rule{i}", "OVERRIDES"),
            GraphEdge(f"mit{(i * 7) % (rules + 5)}", f"rule{i}", "OVERRIDES"),
            GraphEdge(f"rule{i}", f"src{i}", "DERIVED_FROM"),
            GraphEdge(f"rule{i}", f"src{(i + 1) % rules}", "DERIVED_FROM"),
        ]
    return Neighbourhood("risk", tuple(nodes), tuple(dict.fromkeys(edges)), left_off=left_off)


def small() -> Neighbourhood:
    rule = GraphNode("r", "Rule", "Gas Station Auto-Refer", rule="Gas Station Auto-Refer")
    nodes = (
        GraphNode("g", "RiskFactor", "Gas Station"),
        rule,
        GraphNode("o", "Outcome", "Refer"),
        GraphNode("m", "Mitigant", "Fire suppression system installed"),
        GraphNode("s", "Source", "Underwriting Manual v3.2"),
    )
    edges = (
        GraphEdge("g", "r", "TRIGGERS"),
        GraphEdge("r", "o", "RESULTS_IN"),
        GraphEdge("m", "r", "OVERRIDES"),
        GraphEdge("r", "s", "DERIVED_FROM"),
    )
    return Neighbourhood("r", nodes, edges)


# -- the data --------------------------------------------------------------------------------


def test_to_cytoscape_gives_node_then_edge_elements_of_the_documented_shape() -> None:
    hood = small()
    elements = hood.to_cytoscape()
    nodes, edges = elements[:5], elements[5:]
    assert [set(e["data"]) for e in nodes] == [{"id", "label", "kind", "rule"}] * 5
    assert [set(e["data"]) for e in edges] == [{"id", "source", "target", "label"}] * 4
    assert [e["data"]["kind"] for e in nodes] == [
        "RiskFactor",
        "Rule",
        "Outcome",
        "Mitigant",
        "Source",
    ]
    assert {e["data"]["id"]: e["data"]["rule"] for e in nodes} == {
        "g": None,
        "r": "Gas Station Auto-Refer",
        "o": None,
        "m": None,
        "s": None,
    }
    assert {(e["data"]["source"], e["data"]["label"], e["data"]["target"]) for e in edges} == {
        ("g", "TRIGGERS", "r"),
        ("r", "RESULTS_IN", "o"),
        ("m", "OVERRIDES", "r"),
        ("r", "DERIVED_FROM", "s"),
    }
    ids = [e["data"]["id"] for e in elements]
    assert len(ids) == len(set(ids)), "cytoscape needs unique element ids"
    json.dumps(elements)  # plain JSON, ready for a page or an API
    assert not hood.is_empty and Neighbourhood("x", (), ()).is_empty
    assert hood.node("o") == GraphNode("o", "Outcome", "Refer") and hood.node("nope") is None


def test_views_are_frozen_values() -> None:
    hood = small()
    with pytest.raises(AttributeError):
        hood.center = "g"  # type: ignore[misc]
    assert hood == small() and hash(hood.nodes[0]) == hash(small().nodes[0])


# -- the picture -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "lines"),
    [
        ("Refer", ["Refer"]),
        ("Located more than 200ft from residential areas", None),
        ("x" * 200, None),
        ("A very long rule name " * 10, None),
    ],
)
def test_labels_wrap_to_at_most_three_short_lines(name: str, lines: list[str] | None) -> None:
    wrapped = wrap_label(name).split("\n")
    if lines is not None:
        assert wrapped == lines
    assert 1 <= len(wrapped) <= MAX_LINES
    assert all(len(line) <= WRAP for line in wrapped), wrapped
    joined = " ".join(wrapped)
    if len(name) > WRAP * MAX_LINES:
        assert joined.endswith("\N{HORIZONTAL ELLIPSIS}")  # cut, and says so
    else:
        assert joined.replace(" ", "") == name.replace(" ", "")  # nothing lost


def test_layout_reads_left_to_right_with_nodes_of_a_column_a_row_apart() -> None:
    hood = synthetic()
    positions = neighbourhood_layout(hood)
    assert set(positions) == {n.id for n in hood.nodes}
    column = {
        kind: {positions[n.id][0] for n in hood.nodes if n.kind == kind}
        for kind in ("Mitigant", "RiskFactor", "Rule", "Outcome", "Source")
    }
    assert all(len(xs) == 1 for xs in column.values()), column
    xs = [next(iter(column[k])) for k in ("Mitigant", "RiskFactor", "Rule", "Outcome", "Source")]
    assert xs == sorted(xs) and len(set(xs)) == 5
    for x in set(xs):
        ys = sorted(y for px, y in positions.values() if px == x)
        assert all(b - a >= 1.0 - 1e-9 for a, b in zip(ys, ys[1:], strict=False)), (x, ys)
    rules = sorted(positions[n.id][1] for n in hood.nodes if n.kind == "Rule")
    risk_y = positions["risk"][1]
    assert rules[0] < risk_y < rules[-1]  # the risk factor sits level with its rules


def _boxes(hood: Neighbourhood) -> dict[str, Bbox]:
    """The drawn label box of every node (display coordinates), by node id."""
    figure = neighbourhood_figure(hood, "Risk factor: synthetic")
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    [axes] = figure.axes
    boxes: dict[str, Bbox] = {}
    for text in axes.texts:
        patch = text.get_bbox_patch()
        key = text.get_gid() or f"text:{text.get_text()}"
        boxes[key] = (patch or text).get_window_extent(renderer)
    return boxes


def test_no_two_labels_overlap_in_a_25_rule_view() -> None:
    hood = synthetic(25, left_off=7)
    boxes = _boxes(hood)
    assert {n.id for n in hood.nodes} <= set(boxes)
    assert any(k.startswith("text:+ 7 more rules") for k in boxes), sorted(boxes)[:5]
    pairs = combinations(boxes.items(), 2)
    overlapping = [(a, b) for (a, x), (b, y) in pairs if x.overlaps(y)]
    assert not overlapping, overlapping[:5]
    width = max(b.width for k, b in boxes.items() if not k.startswith("text:"))
    assert width < 300, "labels are wrapped, not one long line"


def test_a_png_is_written_and_other_suffixes_are_refused(tmp_path: Path) -> None:
    out = draw_neighbourhood(synthetic(), tmp_path / "view.png", "Risk factor: synthetic")
    data = out.read_bytes()
    assert data[:8] == PNG_MAGIC and data[12:16] == b"IHDR"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert height > width > 1000, (width, height)  # 25 rows of rules: a tall picture
    with pytest.raises(ValueError, match="png or .html"):
        draw_neighbourhood(small(), tmp_path / "view.svg", "x")
    assert not (tmp_path / "view.svg").exists()


# -- the page ----------------------------------------------------------------------------------


def _elements(page: str) -> list[dict[str, object]]:
    found = re.search(r"const elements = (\[.*?\]), style = ", page, re.S)
    assert found, "the page holds its elements as JSON"
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def test_the_page_inlines_cytoscape_and_loads_nothing_from_the_network(tmp_path: Path) -> None:
    hood = synthetic(3, left_off=2)
    out = draw_neighbourhood(hood, tmp_path / "view.html", "Risk <factor> & co")
    page = out.read_text("utf-8")
    library = CYTOSCAPE_JS.read_text("utf-8")
    assert library.strip() in page, "cytoscape.js is inlined whole"
    assert page.lower().startswith("<!doctype html") and page.rstrip().endswith("</html>")
    assert not re.search(r"<script[^>]*\bsrc\s*=", page, re.I)
    assert not re.search(r"<link\b|@import|\bimport\s*\(", page.replace(library, ""), re.I)
    # The only addresses are those in the library's licence comment: none is fetched.
    assert not re.findall(r"https?://", page.replace(library, ""))
    assert "Risk &lt;factor&gt; &amp; co" in page and "Risk <factor>" not in page
    assert "+ 2 more rules not shown" in page
    assert "breadthfirst" in page
    assert _elements(page) == hood.to_cytoscape()


class _Tags(HTMLParser):
    """The start tags of a page, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)


def test_a_hostile_name_cannot_end_the_script(tmp_path: Path) -> None:
    nodes = (GraphNode("r", "Rule", HOSTILE, rule=HOSTILE), GraphNode("o", "Outcome", "Refer"))
    hood = Neighbourhood("r", nodes, (GraphEdge("r", "o", "RESULTS_IN"),))
    page = neighbourhood_html(hood, HOSTILE)
    scripts = _Tags()
    scripts.feed(page)  # a browser's reading: script content runs to the first "</script"
    assert scripts.tags.count("script") == 2, scripts.tags  # the library and the view
    assert scripts.tags.count("b") == 1  # the bar's own; the title's <b> is text
    assert [e["data"]["label"] for e in _elements(page)][0] == HOSTILE  # type: ignore[index]


def test_a_missing_library_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="cytoscape.js not found"):
        draw_neighbourhood(small(), tmp_path / "v.html", "x", script=tmp_path / "none.js")
    own = tmp_path / "own.js"
    own.write_text("window.cytoscape = () => ({}); /* </script> inside */")
    page = neighbourhood_html(small(), "x", own)
    assert "window.cytoscape = () => ({});" in page and "</script> inside" not in page
