// knowforge view: draw a method view with cytoscape.js. The page carries the elements and the
// method's marks (colour and shape by kind) as JSON; a node with an entity opens its page.
// window.kfGraph is the drawn graph (tests read kfGraph.nodes().length).
(function () {
  "use strict";
  // The legend's colours are set here, not in style attributes: the viewer's Content-Security-
  // Policy refuses inline styles (knowforge/view/guard.py).
  document.querySelectorAll(".legend [data-colour]").forEach(function (mark) {
    var colour = mark.getAttribute("data-colour");
    if (mark.classList.contains("line")) mark.style.borderColor = colour; else mark.style.background = colour;
  });
  var container = document.getElementById("graph");
  if (!container || typeof cytoscape !== "function") return;
  var elements = JSON.parse(document.getElementById("graph-elements").textContent);
  var marks = JSON.parse(document.getElementById("graph-marks").textContent);
  var style = [
    { selector: "node", style: { "label": "data(label)", "font-size": 10, "text-wrap": "wrap",
      "text-max-width": 110, "background-color": "#9aa3af", "color": "#1d2330", "width": 22, "height": 22,
      "text-valign": "bottom", "text-margin-y": 3 } },
    { selector: "edge", style: { "label": "data(label)", "font-size": 8, "curve-style": "bezier",
      "target-arrow-shape": "triangle", "line-color": "#b8bec8", "target-arrow-color": "#b8bec8",
      "width": 1.6, "text-rotation": "autorotate", "color": "#4b5563", "text-background-color": "#fff",
      "text-background-opacity": 0.8 } },
    { selector: "node[entity]", style: { "border-width": 1, "border-color": "#1d2330" } },
    // a crowded drawing shows an edge's label only under the pointer
    { selector: "edge.quiet", style: { "text-opacity": 0 } }
  ];
  Object.keys(marks.nodes).forEach(function (kind) {
    var m = marks.nodes[kind];
    style.push({ selector: 'node[kind = "' + kind + '"]', style: { "background-color": m.colour, "shape": m.shape } });
  });
  Object.keys(marks.edges).forEach(function (kind) {
    var m = marks.edges[kind];
    style.push({ selector: 'edge[kind = "' + kind + '"]', style: { "line-color": m.colour,
      "target-arrow-color": m.colour, "line-style": m.style } });
  });
  var layout = { name: marks.layout, animate: false, fit: true, padding: 30 };
  if (marks.layout === "cose") {
    layout.nodeRepulsion = function () { return 400000; };
    layout.idealEdgeLength = function () { return 110; };
    layout.nodeOverlap = 20;
    layout.randomize = false;
  }
  if (marks.layout === "breadthfirst") { layout.directed = true; layout.spacingFactor = 1.1; }
  var cy = cytoscape({ container: container, elements: elements, style: style, layout: layout,
                       minZoom: 0.1, maxZoom: 4 });
  cy.on("tap", "node[entity]", function (event) {
    window.location.href = "/entity?id=" + encodeURIComponent(event.target.data("entity"));
  });
  var crowded = cy.edges().length > 60;
  if (crowded) cy.edges().addClass("quiet");
  cy.on("mouseover", "node, edge", function (event) {
    var title = event.target.data("title");
    container.title = title || event.target.data("label") || "";
    if (crowded && event.target.isEdge()) event.target.removeClass("quiet");
  });
  cy.on("mouseout", "edge", function (event) {
    if (crowded) event.target.addClass("quiet");
  });
  window.kfGraph = cy;
})();
