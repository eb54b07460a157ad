// The focused graph view: cytoscape.js (vendored beside this file), nothing from outside.
(function () {
  "use strict";
  var box = document.getElementById("graph");
  var data = document.getElementById("elements");
  if (!box || !data || typeof cytoscape !== "function") { return; }
  var colours = { RiskFactor: "#d9822b", Rule: "#2b6cb0", Outcome: "#c53030", Mitigant: "#2f855a", Source: "#718096" };
  var cy = cytoscape({
    container: box,
    elements: JSON.parse(data.textContent),
    style: [
      { selector: "node", style: {
        "label": "data(label)", "text-wrap": "wrap", "text-max-width": 160, "font-size": 11,
        "text-valign": "bottom", "text-margin-y": 4, "width": 22, "height": 22,
        "background-color": function (n) { return colours[n.data("kind")] || "#999"; } } },
      { selector: "node[kind = 'Rule']", style: { "shape": "round-rectangle", "width": 30 } },
      { selector: "edge", style: {
        "label": "data(label)", "font-size": 8, "color": "#555", "curve-style": "bezier",
        "target-arrow-shape": "triangle", "width": 1.5, "line-color": "#bbb", "target-arrow-color": "#bbb",
        "text-rotation": "autorotate" } }
    ],
    layout: { name: "breadthfirst", directed: true, spacingFactor: 1.4, padding: 20 }
  });
  cy.on("tap", "node", function (event) {
    var node = event.target;
    if (node.data("kind") === "Rule" && node.data("rule")) {
      window.location.href = "/rules/" + encodeURIComponent(node.data("rule"));
    } else if (node.data("kind") === "RiskFactor") {
      window.location.href = "/graph?risk=" + encodeURIComponent(node.data("label"));
    }
  });
  window.athenaGraph = cy;
}());
